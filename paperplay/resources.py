"""Finds the files shipped with paperplay: game data in templates/, JSON Schemas in schemas/."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

_PACKAGE = Path(__file__).resolve().parent


def _folder(name: str) -> Path:
    # Installed: paperplay/<name> (package data). From a source checkout: <repo>/<name>.
    for candidate in (_PACKAGE / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"paperplay's {name}/ folder is missing from the installation")


def template_path(relative: str) -> Path:
    """Returns the path of a file under templates/."""
    return _folder("templates") / relative


@cache
def load_template(relative: str) -> Any:
    """Loads a JSON data file from templates/ (cached: the files never change at run time)."""
    return json.loads(template_path(relative).read_text(encoding="utf-8"))


@cache
def load_lines(relative: str) -> tuple[str, ...]:
    """Loads a text file from templates/ as its lines (e.g. a game's rules summary, one printed line each)."""
    return tuple(template_path(relative).read_text(encoding="utf-8").splitlines())


def schema_names() -> list[str]:
    """Returns the names of the shipped schemas, e.g. ``streams-sheet``."""
    return sorted(p.name.removesuffix(".schema.json") for p in _folder("schemas").glob("*.schema.json"))


def schema_text(name: str) -> str:
    """Returns the text of a shipped JSON Schema by name."""
    path = _folder("schemas") / f"{name}.schema.json"
    if not path.is_file():
        from paperplay.errors import InputError

        raise InputError(f"unknown schema {name!r}; known schemas: {', '.join(schema_names())}")
    return path.read_text(encoding="utf-8")


@cache
def load_schema(name: str) -> Any:
    """Loads a shipped JSON Schema by name."""
    return json.loads(schema_text(name))
