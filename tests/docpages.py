"""The documentation's text, for the tests that check it: the README and every page of docs/."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
"""The README, then every hand-written page of the site."""


def text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def name(path: Path) -> str:
    """The page's path from the repository's root, as test ids show it."""
    return path.relative_to(ROOT).as_posix()


def all_text() -> str:
    return "\n".join(text(p) for p in PAGES)


def reference_hook() -> ModuleType:
    """docs/hooks/reference.py, the MkDocs hook that makes the command and file-format pages."""
    spec = importlib.util.spec_from_file_location("paperplay_docs_reference", ROOT / "docs" / "hooks" / "reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
