"""Streams as the rest of paperplay sees it (see paperplay.games): draw, kit, referee, ranking."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paperplay.errors import InputError, Verdict
from paperplay.i18n import translator
from paperplay.render.model import Document, paper_size
from paperplay.messages import shorten
from paperplay.render.pdf import text_width, undrawable
from paperplay.seeds import display_code, full_code, game_code
from paperplay.streams import referee, rules
from paperplay.streams.rules import WILD, StreamsRules, Tile, load_rules, tile_json

MAX_PLAYERS = 200
MAX_SHEET_NUMBER = 100_200
"""The highest sheet number a scannable sheet may carry: a kit prints sheets 1-MAX_PLAYERS; a game of up to
100,000 players on a server (paperplay serve --db postgresql://…) numbers its players' own sheets above them."""
KIT_PLAYERS = 4


@dataclass(frozen=True)
class StreamsDraw:
    """The tiles a seed draws, in order."""

    seed: str
    tiles: tuple[Tile, ...]
    variant: str | None = None  # a variant's name; None for the published game

    def to_json(self) -> dict[str, Any]:
        document = {"game": "streams", "seed": self.seed, "draw": [tile_json(t) for t in self.tiles]}
        if self.variant is not None:
            document["variant"] = self.variant
        return document

    def text_lines(self) -> list[str]:
        named = f" (variant {self.variant})" if self.variant is not None else ""
        head = (f"Streams{named} draw for seed {display_code(self.seed)} "
                f"(game code {display_code(game_code('streams', self.seed))})")
        return [head] + [f"{turn:>4}. {'* (wild)' if tile == WILD else tile}"
                         for turn, tile in enumerate(self.tiles, start=1)]


def variant_rules(variant: str | None) -> StreamsRules:
    """The rules of a --variant (standard, a shipped NAME or a FILE.json); its errors name the option."""
    try:
        return load_rules(variant)
    except InputError as exc:
        raise InputError(str(exc), field="variant") from None


def draw(seed: str, options: dict[str, Any]) -> StreamsDraw:
    """The tiles a canonical seed draws (options: variant). From Python, find_game("streams").draw checks
    the seed and options first."""
    variant = variant_rules(options.get("variant"))
    return StreamsDraw(seed, rules.draw(seed, variant), None if variant.standard else variant.name)


def players_and_names(
    players: int | None, names: Sequence[str] | None, default: int | None = None, paper: str = "a4"
) -> tuple[int, list[str]]:
    """How many sheets to print, and the names on them (composed: an accent typed as a letter and a
    combining mark is printed as the accented letter): --players, else one per name, else `default`.
    Each name must fit the name line of a sheet on `paper`."""
    names = [unicodedata.normalize("NFC", name) for name in names or []]
    if players is None:
        if not names and default is None:
            raise InputError("missing; say how many players, e.g. --players 8 (or give --names)", field="players")
        if len(names) > MAX_PLAYERS:
            raise InputError(f"gives {len(names)} names; expected at most {MAX_PLAYERS} (one sheet each)",
                             field="names")
        players = len(names) or default
    assert players is not None
    if not 1 <= players <= MAX_PLAYERS:
        raise InputError(f"is {players}; expected 1-{MAX_PLAYERS}", field="players")
    if len(names) > players:
        raise InputError(f"gives {len(names)} names for {players} players", field="names")
    for name in names:
        _check_printable(name)
        _check_length(name, paper)
    return players, names


def _unaccented(character: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", character) if not unicodedata.combining(c))


def _check_printable(name: str) -> None:
    """Refuses a name with a character the sheets' font cannot draw (it would be left out of the page
    without a word), suggesting the same name without its accents when that can be printed."""
    missing = undrawable(name)
    if not missing:
        return
    plain = "".join(_unaccented(c) if c in missing else c for c in name)
    expected = (f"write it as {plain!r}?" if plain.strip() and not undrawable(plain)
                else "expected letters of Western European alphabets, digits and punctuation")
    raise InputError(f"the name {name!r} has {', '.join(map(repr, missing))}, which the printed sheets' font "
                     f"cannot show; {expected}", field="names")


def _check_length(name: str, paper: str) -> None:
    """Refuses a name that would not fit the sheet's name line even in the smallest print."""
    from paperplay.streams.pages import NAME_MAX_LETTERS, NAME_MIN_SIZE, name_room

    room = name_room(paper_size(paper, landscape=True)[0])
    if len(name) > NAME_MAX_LETTERS or text_width(name, NAME_MIN_SIZE, bold=True) > room:
        low, high = 0, min(len(name), NAME_MAX_LETTERS)  # the longest start of the name that fits
        while low < high:
            mid = (low + high + 1) // 2
            low, high = (mid, high) if text_width(name[:mid], NAME_MIN_SIZE, bold=True) <= room else (low, mid - 1)
        article = "an" if paper.lower() == "a4" else "a"
        example = name[:low]
        if " " in example.strip() and name[low:low + 1] not in ("", " "):  # whole words
            example = example[:example.rstrip().rfind(" ")]
        raise InputError(f"the name {shorten(name, 80)!r} is too long for the name line of {article} "
                         f"{paper.capitalize()} sheet ({room:.0f} mm); expected at most about {low} letters, "
                         f"e.g. {example.rstrip(' -')!r}", field="names")


def _scannable_rules(options: dict[str, Any]) -> None:
    if options.get("scannable") and not variant_rules(options.get("variant")).standard:
        raise InputError("is for the standard game's sheets; paperplay scan reads 20 boxes of 1-30",
                         field="scannable")


def sheets(seed: str, options: dict[str, Any]) -> Document:
    """The players' score sheets alone (scannable ones, with corner marks and boxes of two digit halves, if asked)."""
    from paperplay.streams.pages import sheets_document

    paper = options.get("paper") or "a4"
    count, names = players_and_names(options.get("players"), options.get("names"), paper=paper)
    _scannable_rules(options)
    if options.get("scannable"):
        from paperplay.streams.scansheet import scan_sheets_document

        return scan_sheets_document(full_code("streams", seed), count, names, paper)
    return sheets_document(full_code("streams", seed), count, names, paper,
                           variant_rules(options.get("variant")), translator(options.get("lang")))


def kit(seed: str, options: dict[str, Any]) -> Document:
    """The kit of a canonical seed: the caller's sheet, the tiles and one sheet per player (options as
    find_game("streams").kit takes them, already checked)."""
    from paperplay.streams.pages import kit_document

    paper = options.get("paper") or "a4"
    count, names = players_and_names(options.get("players"), options.get("names"), KIT_PLAYERS, paper)
    _scannable_rules(options)
    variant = variant_rules(options.get("variant"))
    if options.get("scannable"):
        from paperplay.streams.scansheet import scan_kit_document

        return scan_kit_document(seed, full_code("streams", seed), rules.draw(seed, variant), count, names, paper)
    return kit_document(seed, full_code("streams", seed), rules.draw(seed, variant), count, names,
                        paper, variant, translator(options.get("lang")))


def verify(data: Any, source: str, folder: Path | None = None) -> Verdict:
    """Referees a parsed Streams sheet (`source` names it in errors; a sheet names no other files, so
    `folder` is unused)."""
    return referee.referee(referee.sheet_from_json(data, source))


def ranking(verdicts: Iterable[Verdict]) -> list[dict[str, Any]]:
    """The places of several refereed sheets: valid ones only, highest total first, ties share a place."""
    return referee.ranking(v.to_json() for v in verdicts)
