"""Every game paperplay knows, in one list (like python-chess's VARIANTS and find_variant), and the one
place where a game's options are checked.

An entry names the game, its schemas, the kit and draw options that apply to it, its paper
sizes, and the module that carries its face to the rest of paperplay (`paperplay.<game>.api`),
which gives what `GameApi` says:

- ``draw(seed, options) -> Drawn``: what a seed deals (``to_json()``, ``text_lines()``);
- ``kit(seed, options) -> Document``: the print-and-play kit as page models (options["lang"]: en,
  da or de, the language of the printed pages; see paperplay.i18n);
- ``verify(data, source, folder) -> Verdict``: the referee of the game's records;
- ``ranking(verdicts) -> list | None``: a ranking of several verified records (None: not ranked).

The module's draw and kit take a canonical seed and options already checked. Both faces check them
here: from Python, the game's entry (an error names the option as a keyword); the command line calls
`checked_options` with prefix "--" (an error names the option as typed):

    >>> from paperplay.games import find_game
    >>> streams = find_game("streams")
    >>> streams.draw("7kq2-m9xd").tiles[:3]
    (11, 3, 5)
    >>> len(streams.kit("7KQ2-M9XD", players=2, paper="letter").pages)
    4

The module is imported only when a command needs it, so start-up stays fast. Adding a game is
one package with such a module and one entry here; the CLI's game choices come from this list.
"""

from __future__ import annotations

import importlib
import math
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol, cast

from paperplay.errors import InputError, Verdict
from paperplay.render.model import Document
from paperplay.render.paper import PAPER_SIZES

MAX_BACK_OFFSET = 5.0
"""The largest --back-offset each way, in mm: duplex printers drift by a few millimetres (docs/guides/streetcar.md), and
the card pages keep their texts and QR code clear of the backs up to this far."""


class Drawn(Protocol):
    """What a seed deals, as `paperplay draw` shows it."""

    def to_json(self) -> dict[str, Any]: ...

    def text_lines(self) -> list[str]: ...


class GameApi(Protocol):
    """What a game's api module (`paperplay.<game>.api`) gives the rest of paperplay; mypy checks each
    game's module against it. Its draw and kit get a canonical seed and options already checked."""

    def draw(self, seed: str, options: dict[str, Any]) -> Drawn:
        """What `seed` deals (`paperplay draw GAME`)."""
        ...

    def kit(self, seed: str, options: dict[str, Any]) -> Document:
        """The print-and-play kit as page models (`paperplay kit GAME`)."""
        ...

    def verify(self, data: Any, source: str, folder: Path | None = None) -> Verdict:
        """The referee of a parsed record of the game (`paperplay verify`); files it names are read from
        `folder`."""
        ...

    def ranking(self, verdicts: Sequence[Verdict]) -> list[dict[str, Any]] | None:
        """Several refereed records ranked together (valid ones only), or None when the game does not rank
        its records."""
        ...


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
        """The game's api module itself, imported on first use (for a game's own extras, such as Streams'
        sheets); `game_api` is its typed face."""
        return importlib.import_module(self.api)

    def game_api(self) -> GameApi:
        """The game's api module as `GameApi` types it (mypy checks each module against it below)."""
        return cast(GameApi, self.module())

    def refuse_options(self, command: str, given: dict[str, Any], allowed: frozenset[str], prefix: str = "--") -> None:
        """Raises an InputError naming the first option given that does not apply to this game (its
        options listed as the command line's, or with `prefix` "" as keywords)."""
        for option, value in given.items():
            if value is not None and option not in allowed:
                owners = [g.title for g in GAMES if option in (g.kit_options if command == "kit" else g.draw_options)]
                raise InputError(f"does not apply to {command} {self.name}"
                                 + (f" (it is for {' and '.join(owners)})" if owners else "") + "; its options are "
                                 + (", ".join(prefix + (o.replace("_", "-") if prefix else o) for o in sorted(allowed))
                                    or "none"),
                                 field=option)

    def checked_options(self, command: str, given: dict[str, Any], prefix: str = "") -> dict[str, Any]:
        """The options given to `command` (kit or draw; the sheets take kit's) as the game module takes
        them: options of other games refused, each value checked (None: not given, left out). An error
        is an InputError whose field is the option; its message names other options as the command line
        does with `prefix` "--", as keywords with "". The CLI's own options (html) pass unchecked."""
        allowed = self.kit_options if command == "kit" else self.draw_options
        self.refuse_options(command, given, allowed, prefix)
        checked = {option: _option_value(option, value, self.name, self.papers) for option, value in given.items()
                   if value is not None}
        if checked.get("scannable") and checked.get("lang") not in (None, "en"):
            flag = (lambda o: "--" + o) if prefix else (lambda o: o)  # noqa: E731
            raise InputError(f"is {checked['lang']!r}, but the scannable sheets ({flag('scannable')}) are printed in "
                             f"English only; leave out {flag('lang')}, or print the classic sheets", field="lang")
        return checked

    def draw(self, seed: str, **options: Any) -> Drawn:
        """What `seed` deals (the module's Drawn: ``to_json()``, ``text_lines()``), with the game's draw
        options as keywords (e.g. ``players=3, set=3``). A bad seed or option is an InputError naming it."""
        seed = checked_seed(seed)
        with _named_as_keywords():
            return self.game_api().draw(seed, self.checked_options("draw", options))

    def kit(self, seed: str, **options: Any) -> Document:
        """The print-and-play kit of `seed` as a Document (``paperplay.render.pdf.render_bytes`` or
        ``write_pdf`` turn it into a PDF), with the game's kit options as keywords: players, names (a
        list), paper, set, numbers, level, poster, ink_saver, back_offset ((x, y) in mm), variant,
        lang (default English), scannable. A bad seed or option is an InputError naming it."""
        seed = checked_seed(seed)
        with _named_as_keywords():
            if options.get("html") is not None and "html" in self.kit_options:
                raise InputError("is the command line's (paperplay kit streams --html); from Python, "
                                 "paperplay.html.caller.caller_page makes the page", field="html")
            return self.game_api().kit(seed, self.checked_options("kit", options))

    def verify(self, data: Any, source: str = "record", folder: str | os.PathLike[str] | None = None) -> Verdict:
        """Referees a parsed record of this game (`source` names it in errors; files it names are read
        from `folder`): a Verdict. A record of another game is an InputError saying whose it is."""
        game = data.get("game") if isinstance(data, dict) else None
        if isinstance(game, str) and game != self.name:
            raise InputError(f"{source}: is a {game!r} record, not a {self.title} one (field game)")
        return self.game_api().verify(data, source, None if folder is None else Path(folder))


class _named_as_keywords:  # noqa: N801 - used as a with block
    """Turns an InputError naming its field into one saying "option FIELD: ..." (Python's face)."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, exc: Any, tb: Any) -> None:
        if isinstance(exc, InputError) and exc.field is not None and not str(exc).startswith("option "):
            raise InputError(f"option {exc.field}: {exc.message}", field=exc.field) from None


def checked_seed(seed: Any) -> str:
    """A seed given from Python, canonical (docs/reference/seeds.md); an InputError (field seed) for anything else."""
    from paperplay.seeds import canonical_seed

    if not isinstance(seed, str):
        raise InputError(f"seed: is {seed!r}; expected a text of 1-32 letters and digits, e.g. '7KQ2-M9XD'",
                         field="seed")
    try:
        return canonical_seed(seed)
    except InputError as exc:
        raise InputError(exc.message, field="seed") from None


_OFFSET_TEXT = re.compile(r"\s*[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)\s*")


def _back_offset(value: Any) -> tuple[float, float]:
    """--back-offset as typed ("X,Y") or (x, y) from Python: two finite millimetres, each at most
    MAX_BACK_OFFSET; an InputError (field back_offset) names what was expected, in the form given."""
    def wrong(expected: str) -> InputError:
        return InputError(f"is {value!r}; expected {expected}", field="back_offset")

    if isinstance(value, str):
        parts = value.split(",")
        if len(parts) != 2 or not all(_OFFSET_TEXT.fullmatch(p) for p in parts):
            raise wrong("X,Y in mm as two decimal numbers, e.g. 1.5,-0.5")
        numbers: list[Any] = [float(v) for v in parts]
        if not all(math.isfinite(v) for v in numbers):
            raise wrong("two finite numbers X,Y in mm, e.g. 1.5,-0.5")
        example = ", e.g. 1.5,-0.5"
    else:
        numbers = list(value) if isinstance(value, (list, tuple)) else []
        if len(numbers) != 2 or not all(type(v) in (int, float) and math.isfinite(v) for v in numbers):
            raise wrong("(x, y): two numbers of millimetres, e.g. (1.5, -0.5)")
        example = ""
    if any(abs(v) > MAX_BACK_OFFSET for v in numbers):
        raise wrong(f"a duplex printer's drift of at most {MAX_BACK_OFFSET:g} mm each way{example}")
    return float(numbers[0]), float(numbers[1])


def _option_value(option: str, value: Any, game: str, papers: tuple[str, ...]) -> Any:
    """A kit or draw option as the game modules take it; an InputError (field: the option) when it has
    the wrong type or value. Ranges the game sets (players) its module checks."""
    def wrong(expected: str) -> InputError:
        return InputError(f"is {value!r}; expected {expected}", field=option)

    if option in ("players", "set"):
        if type(value) is not int:
            raise wrong("a whole number")
        return value
    if option in ("poster", "ink_saver", "scannable"):
        if type(value) is not bool:
            raise wrong("True or False")
        return value
    if option == "names":
        if isinstance(value, str) or not isinstance(value, (list, tuple)) or not value or not all(
                isinstance(name, str) and name.strip() for name in value):
            raise wrong("a list of names, e.g. ['Ann', 'Bob']")
        return [name.strip() for name in value]
    if option == "paper":
        if not isinstance(value, str) or value.lower() not in papers:
            raise wrong(" or ".join(papers) + f" (the papers {game} is printed on)")
        return value.lower()
    if option == "back_offset":
        return _back_offset(value)
    if option == "variant":
        if not isinstance(value, (str, os.PathLike)):
            raise wrong("a variant's name or a variant file's path")
        return os.fspath(value)
    if option == "lang":
        from paperplay.i18n import LANGUAGES

        if value not in LANGUAGES:
            raise wrong(" or ".join(LANGUAGES))
        return value
    if option == "html":  # the command line's page (paperplay kit streams --html): checked where it is written
        return value
    if not isinstance(value, str):  # numbers, level: texts the game reads
        raise wrong("a text")
    return value


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


if TYPE_CHECKING:  # mypy checks that each game's api module gives what GameApi says
    from paperplay.sequence import api as _sequence_api
    from paperplay.streams import api as _streams_api
    from paperplay.streetcar import api as _streetcar_api

    _APIS: tuple[GameApi, ...] = (_streams_api, _streetcar_api, _sequence_api)
