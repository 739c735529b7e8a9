"""Referees game records of any game: reads each file, picks the rules by its "game" field."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paperplay.errors import InputError
from paperplay.jsonfile import read_json

GAMES = ("streams", "streetcar", "sequence")


@dataclass(frozen=True)
class Outcome:
    """What refereeing one input gave: a JSON result, its text lines, and the exit code (0, 1, 2)."""

    source: str
    code: int
    result: dict[str, Any]
    lines: tuple[str, ...]


def input_error(source: str, exc: InputError) -> Outcome:
    return Outcome(source, 2, {"file": source, "valid": False, "error": str(exc)}, ())


def game_of(data: Any, source: str) -> str:
    """Returns the game a record belongs to, from its "game" field."""
    if not isinstance(data, dict):
        raise InputError(f"{source}: the file holds a JSON {type(data).__name__}; expected an object with a \"game\" field")
    game = data.get("game")
    if game is None:
        raise InputError(f"{source}: missing field 'game'; expected one of {', '.join(GAMES)}")
    if game not in GAMES:
        raise InputError(f"{source}: field game is {game!r}; expected one of {', '.join(GAMES)}")
    return game


def load_records(paths: Sequence[Path]) -> list[tuple[str, Any | InputError]]:
    """Reads every file; a file that cannot be read is kept as its InputError, so the rest still run."""
    out: list[tuple[str, Any | InputError]] = []
    for path in paths:
        try:
            out.append((str(path), read_json(path)))
        except InputError as exc:
            out.append((str(path), exc))
    return out
