"""Packaging: every subpackage and data folder is shipped by a non-editable install."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).parent.parent


def test_every_subpackage_is_listed_in_pyproject():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "paperplay").rglob("__init__.py")}
    assert found <= listed, f"missing from pyproject packages: {sorted(found - listed)}"
    assert {"paperplay.templates", "paperplay.schemas"} <= listed


def test_every_template_and_schema_matches_the_package_data_globs():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    globs = config["tool"]["setuptools"]["package-data"]
    assert (ROOT / "templates").rglob("*.json") and "**/*.json" in globs["paperplay.templates"]
    assert all(p.suffix == ".json" for p in (ROOT / "schemas").glob("*.schema.json"))
