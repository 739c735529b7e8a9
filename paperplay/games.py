"""Every game paperplay knows, in one list (like python-chess's VARIANTS and find_variant).

An entry names the game, its schemas, the kit and draw options that apply to it, its paper
sizes, and the module that carries its face to the rest of paperplay (`paperplay.<game>.api`):

- ``draw(seed, options) -> Drawn``: what a seed deals (``to_json()``, ``text_lines()``);
- ``kit(seed, options) -> Document``: the print-and-play kit as page models (options["lang"]: en,
  da or de, the language of the printed pages; see paperplay.i18n);
- ``verify(data, source, folder) -> Verdict``: the referee of the game's records;
- ``ranking(verdicts) -> list | None``: optional, a ranking of several verified records.

The module is imported only when a command needs it, so start-up stays fast. Adding a game is
one package with such a module and one entry here; the CLI's game choices come from this list.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from paperplay.errors import InputError
from paperplay.render.paper import PAPER_SIZES


@dataclass(frozen=True)
class GameInfo:
    """One game: its name (as in records' "game" field), title, schemas, options and api module."""

    name: str
    title: str
    api: str
    schemas: tuple[str, ...]
    kit_options: frozenset[str]
    draw_options: frozenset[str]
    papers: tuple[str, ...] = ("a4", "letter")
    can_call: bool = False

    def module(self) -> ModuleType:
        """The game's api module, imported on first use."""
        return importlib.import_module(self.api)

    def refuse_options(self, command: str, given: dict[str, Any], allowed: frozenset[str]) -> None:
        """Raises an InputError naming the first option given that does not apply to this game."""
        for option, value in given.items():
            if value is not None and option not in allowed:
                owners = [g.title for g in GAMES if option in (g.kit_options if command == "kit" else g.draw_options)]
                raise InputError(f"does not apply to {command} {self.name}"
                                 + (f" (it is for {' and '.join(owners)})" if owners else "") + "; its options are "
                                 + (", ".join(f"--{o.replace('_', '-')}" for o in sorted(allowed)) or "none"),
                                 field=option)


GAMES: tuple[GameInfo, ...] = (
    GameInfo("streams", "Streams", "paperplay.streams.api", ("streams-sheet", "streams-variant"),
             kit_options=frozenset({"players", "names", "paper", "variant", "html", "scannable", "lang"}),
             draw_options=frozenset({"variant"}), can_call=True),
    GameInfo("streetcar", "Streetcar", "paperplay.streetcar.api",
             ("streetcar-state", "streetcar-log", "streetcar-board", "streetcar-tiles", "streetcar-route-cards"),
             kit_options=frozenset({"players", "set", "paper", "ink_saver", "back_offset", "lang"}),
             draw_options=frozenset({"players", "set"}), papers=("a4", "letter", "a3")),
    GameInfo("sequence", "Sequence Numbers", "paperplay.sequence.api", ("sequence-position", "sequence-log"),
             kit_options=frozenset({"players", "numbers", "level", "poster", "paper", "ink_saver", "back_offset",
                                    "lang"}),
             draw_options=frozenset({"numbers", "level"})),
)
"""Every game, in the order the CLI lists them."""

GAME_NAMES = tuple(g.name for g in GAMES)
assert all(p in PAPER_SIZES for g in GAMES for p in g.papers)


def find_game(name: str) -> GameInfo:
    """The game of that name; an InputError (field game) for any other."""
    for game in GAMES:
        if game.name == name:
            return game
    raise InputError(f"is {name!r}; expected one of {', '.join(GAME_NAMES)}", field="game")


def schema_names() -> list[str]:
    """Every game's schemas, sorted (what `paperplay schema` lists)."""
    return sorted({s for g in GAMES for s in g.schemas})
