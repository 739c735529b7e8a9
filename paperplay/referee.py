"""Referees game records of any game: reads each file and lets its "game" field pick the rules."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paperplay.errors import ExitCode, InputError, Verdict
from paperplay.games import GAME_NAMES, find_game
from paperplay.jsonfile import not_an_object, read_json


@dataclass(frozen=True)
class Outcome:
    """What refereeing one input gave: its verdict, or the input error that stopped it (exit 2)."""

    source: str
    verdict: Verdict | None = None
    error: InputError | None = None
    game: str | None = None

    @property
    def code(self) -> ExitCode:
        return ExitCode.BAD_INPUT if self.verdict is None else self.verdict.exit_code

    def to_json(self) -> dict[str, Any]:
        if self.verdict is None:
            return {"file": self.source, "valid": False, "error": str(self.error)}
        return self.verdict.to_json()

    def text_lines(self) -> list[str]:
        return [] if self.verdict is None else self.verdict.text_lines()


def _looks_like_variant(data: Any) -> bool:
    from paperplay.streams.rules import looks_like_variant  # only when a record has no game: not at start-up

    return looks_like_variant(data)


def game_of(data: Any, source: str) -> str:
    """Returns the game a record belongs to, from its "game" field."""
    if not isinstance(data, dict):
        raise InputError(f"{source}: {not_an_object(data)}")
    game = data.get("game")
    if game is None and _looks_like_variant(data):
        raise InputError(f"{source}: is a Streams variant file (fields bag and points), not a game record; a "
                         f"variant's rules are given to score, sheets or kit with --variant {source}")
    if game is None:
        raise InputError(f"{source}: missing field 'game'; expected one of {', '.join(GAME_NAMES)}")
    if game not in GAME_NAMES:
        raise InputError(f"{source}: field game is {game!r}; expected one of {', '.join(GAME_NAMES)}")
    return str(game)


def verify_record(data: Any, source: str, folder: Path | str | None = None) -> Verdict:
    """Referees one parsed record with its game's rules (files it names are read from `folder`)."""
    folder = Path(folder) if folder is not None else None
    return find_game(game_of(data, source)).game_api().verify(data, source, folder)


Check = Callable[[Any, str, Path | None], Verdict]


def referee_files(paths: Sequence[Path | str], check: Check | None = None, game: str | None = None) -> list[Outcome]:
    """Reads and referees every file; a file that cannot be used is kept as its InputError, so the
    rest still run. `check` replaces the dispatch by "game" field (e.g. a sheet-only referee)."""
    outcomes = []
    for path in map(Path, paths):
        source = str(path)
        try:
            data = read_json(path)
            verdict = (check or verify_record)(data, source, path.parent)
            name = game or game_of(data, source)
        except InputError as exc:
            outcomes.append(Outcome(source, error=exc))
            continue
        outcomes.append(Outcome(source, verdict, game=name))
    return outcomes


def rankings(outcomes: Sequence[Outcome]) -> dict[str, list[dict[str, Any]]]:
    """For each game that ranks its records (Streams sheets) and has records here, their ranking (valid
    records only: empty when none is)."""
    out = {}
    for name in dict.fromkeys(o.game for o in outcomes if o.game is not None):
        mine = [o.verdict for o in outcomes if o.game == name and o.verdict is not None]
        ranked = find_game(name).game_api().ranking(mine)
        if ranked is not None:
            out[name] = ranked
    return out
