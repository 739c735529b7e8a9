"""Streams sheet files (SPEC §5): reading them, finding their draw, and refereeing them."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from paperplay.errors import InputError, Problem
from paperplay.jsonfile import validate
from paperplay.seeds import canonical_seed, game_code
from paperplay.streams import rules
from paperplay.streams.rules import WILD, ClaimedSeries, Score, Tile

SCHEMA = "streams-sheet"
_WILD_WORDS = {"*", "x", "X"}
_EMPTY_WORDS = {"_", ".", "-"}


@dataclass(frozen=True)
class Sheet:
    """A filled-in Streams sheet as read from a file or typed with --cells."""

    source: str
    cells: tuple[Tile, ...]
    player: str | None = None
    code: str | None = None
    seed: str | None = None
    draw: tuple[Tile, ...] | None = None
    claimed_total: int | None = None
    claimed_series: tuple[ClaimedSeries, ...] | None = None
    placements: tuple[int, ...] | None = None  # box (1-based) of each draw, in draw order


def sheet_from_json(data: Any, source: str) -> Sheet:
    """Builds a Sheet from parsed JSON, which must match the streams-sheet schema."""
    if isinstance(data, dict) and "game" in data and data["game"] != "streams":
        raise InputError(f"{source}: is a {data['game']!r} file, not a Streams sheet (field game)")
    validate(data, SCHEMA, source)
    claims = data.get("claimed_series")
    return Sheet(
        source=source,
        cells=tuple(data["cells"]),
        player=data.get("player"),
        code=canonical_seed(data["code"]) if "code" in data else None,
        seed=_seed_field(data["seed"], source) if "seed" in data else None,
        draw=tuple(data["draw"]) if "draw" in data else None,
        claimed_total=data.get("claimed_total"),
        placements=tuple(data["placements"]) if "placements" in data else None,
        claimed_series=None if claims is None else tuple(
            ClaimedSeries(c["start"], c["end"], c.get("points")) for c in claims
        ),
    )


def _seed_field(text: str, source: str) -> str:
    try:
        return canonical_seed(text)
    except InputError as exc:
        raise InputError(f"{source}: field seed: {exc}") from None


def parse_tiles(text: str, option: str, count: int | None = 20, empty: bool = False) -> tuple[Any, ...]:
    """Parses a typed list of tiles such as ``"11 3 * 5 …"`` or ``"11,3,X,5,…"``.

    `count` None takes any number; with `empty`, ``_`` (or ``.`` or ``-``) is an empty box (None).
    """
    items = [item for item in re.split(r"[\s,;]+", text.strip()) if item]
    tiles: list[Tile | None] = []
    for position, item in enumerate(items, start=1):
        if empty and item in _EMPTY_WORDS:
            tiles.append(None)
        elif item in _WILD_WORDS:
            tiles.append(WILD)
        elif re.fullmatch(r"[0-9]{1,2}", item) and 1 <= int(item) <= 30:
            tiles.append(int(item))
        else:
            raise InputError(f"{option}: entry {position} is {item!r}; expected an integer 1-30 or * (or X) for the "
                             "wild" + (", or _ for an empty box" if empty else ""))
    if count is not None and len(tiles) != count:
        raise InputError(f"{option}: has {len(tiles)} boxes; expected {count} (_ for an empty box)" if empty
                         else f"{option}: has {len(tiles)} entries; expected exactly {count}")
    if option == "--cells" and tiles.count(WILD) > 1:
        raise InputError(f"{option}: has {tiles.count(WILD)} wilds; a sheet holds at most one")
    return tuple(tiles)


@dataclass(frozen=True)
class SheetResult:
    """The referee's verdict on one sheet."""

    sheet: Sheet
    seed: str | None
    checked_against: str
    score: Score
    problems: tuple[Problem, ...] = field(default=())

    @property
    def valid(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.sheet.source,
            "player": self.sheet.player,
            "seed": self.seed,
            "checked_against": self.checked_against,
            "valid": self.valid,
            "total": self.score.total,
            "series": [s.to_json() for s in self.score.series],
            "wild_value": self.score.wild_value,
            "problems": [p.to_json() for p in self.problems],
        }


def _resolve_draw(
    sheet: Sheet, seed: str | None, drawn: Sequence[Tile] | None
) -> tuple[str | None, tuple[Tile, ...] | None, str]:
    """Finds the sheet's draw from its own fields and the command line; disagreements are input errors."""
    src = sheet.source
    if sheet.seed and seed and sheet.seed != seed:
        raise InputError(f"{src}: field seed is {sheet.seed}, but --seed gives {seed}")
    seed = sheet.seed or seed
    seed_draw = rules.draw(seed) if seed else None
    if sheet.code and seed and sheet.code != game_code("streams", seed):
        raise InputError(
            f"{src}: field code is {sheet.code}, but seed {seed} has game code {game_code('streams', seed)}"
        )
    if sheet.draw is not None and drawn is not None and tuple(sheet.draw) != tuple(drawn):
        raise InputError(f"{src}: field draw differs from the draw given with --draw")
    recorded = sheet.draw if sheet.draw is not None else (tuple(drawn) if drawn is not None else None)
    if seed_draw is not None and recorded is not None and seed_draw != recorded:
        turn = next(i for i, (a, b) in enumerate(zip(seed_draw, recorded), start=1) if a != b)
        raise InputError(
            f"{src}: the draw list differs from seed {seed}'s draw at turn {turn} "
            f"({recorded[turn - 1]} recorded, {seed_draw[turn - 1]} drawn by the seed)"
        )
    if seed_draw is not None:
        return seed, seed_draw, "seed"
    if recorded is not None:
        return None, recorded, "draw"
    return None, None, "bag"


def draw_of(sheet: Sheet) -> tuple[str | None, tuple[Tile, ...] | None]:
    """The sheet's seed and draw from its own fields (None when it has neither)."""
    seed, drawn, _ = _resolve_draw(sheet, None, None)
    return seed, drawn


def referee(sheet: Sheet, seed: str | None = None, drawn: Sequence[Tile] | None = None) -> SheetResult:
    """Checks and scores a sheet against its seed, a draw list, or (with neither) the bag alone.

    Raises InputError when the sources of the draw disagree; every rule broken is collected.
    """
    seed, draw, against = _resolve_draw(sheet, seed, drawn)
    problems: list[Problem] = []
    if against == "draw":
        assert draw is not None
        problems += rules.check_draw(draw)
    problems += rules.check_tiles(sheet.cells, draw)
    result = rules.score(sheet.cells)
    problems += rules.check_claims(sheet.cells, result, sheet.claimed_series, sheet.claimed_total)
    if sheet.placements is not None and draw is not None:
        problems += check_placements(sheet.cells, sheet.placements, draw)
    return SheetResult(sheet, seed, against, result, tuple(problems))


def check_placements(cells: Sequence[Tile], placements: Sequence[int], draw: Sequence[Tile]) -> list[Problem]:
    """The order of writing must put each drawn tile in the box that holds it."""
    return [Problem("placements", f"placements[{turn}] says draw {turn + 1} ({_show(tile)}) went in box {box}, "
                                  f"which holds {_show(cells[box - 1])}")
            for turn, (box, tile) in enumerate(zip(placements, draw)) if cells[box - 1] != tile]


def _show(tile: Tile) -> str:
    return "the wild" if tile == WILD else str(tile)


def ranking(results: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Ranks the valid sheets among JSON results, highest total first.

    Equal totals share a place and the next place is skipped (1, 1, 3); the rules have no tie-break.
    """
    ordered = sorted((r for r in results if r.get("valid")), key=lambda r: -r["total"])
    places: list[dict[str, Any]] = []
    for index, row in enumerate(ordered):
        shared = index > 0 and row["total"] == ordered[index - 1]["total"]
        place = places[-1]["place"] if shared else index + 1
        places.append({"place": place, "player": row["player"] or row["file"], "total": row["total"]})
    return places
