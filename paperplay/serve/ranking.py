"""A sheet's standing, kept in the store as the sheet is stored or corrected, so that a big game's ranking is read
from an index instead of refereeing every sheet on every change.

`standing` is the results' own refereeing (paperplay.serve.checks.results: the sheet file scored by
`paperplay.handin.score_one` against the game's seed) of one sheet: its total, whether it is ranked (complete
and valid), and its boxes to check and empty boxes (paperplay.handin.flags against the whole draw). The stores
keep the four in columns (`total`, `ranked`, `flagged`, `empty`) with an index on (game, ranked, total), and
answer the top of the ranking and a sheet's place with indexed queries: a sheet's place is the number of ranked
sheets with a higher total, plus one, so equal totals share a place and the next is skipped (1, 1, 3), as the
results rank them.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

FULL_LISTS = 200
"""A game of at most this many players gets its whole roster and every sheet's summary in its state (the laptop
evening's pages, unchanged); a bigger one gets counts and the top of the ranking, and pages through the rest
(GET …/players, …/sheets, …/results with ?page=)."""
TOP = 10
"""The sheets at the top of the ranking that a game's state carries."""
PER_PAGE = 100
"""A page of a list when ?per_page= is not given."""
MAX_PER_PAGE = 500
"""The most a page may hold (?per_page=)."""
RECENT = 50
"""The sheets changed last that a big game's state names (its phones ask for their own sheet when it is one)."""
OWN_SHEETS = 200
"""A player's own sheet (printed from the phone) is numbered above the sheets a host prints (at most 200): the
player's number in the game plus this, so the two never share a number."""


@dataclass(frozen=True)
class Standing:
    """A sheet's standing as its columns keep it."""

    total: int | None
    """Its points, when it could be scored (complete and readable); None otherwise."""
    ranked: bool
    """Complete and valid: it has a place in the ranking."""
    flagged: int
    """Boxes to check (an empty box counts: paperplay.handin.flags)."""
    empty: int


@dataclass(frozen=True)
class Ranked:
    """A sheet in the ranking."""

    id: int
    name: str
    hidden: bool
    player: int | None
    total: int
    place: int


@functools.lru_cache(maxsize=256)
def _drawn(seed: str, variant: str | None) -> tuple[Any, ...]:
    from paperplay.serve.checks import game_rules
    from paperplay.streams.rules import draw

    return tuple(draw(seed, game_rules(variant)))


def standing(seed: str, variant: str | None, kind: str, boxes: Sequence[dict[str, Any]],
             code: str = "", name: str = "sheet") -> Standing:
    """A sheet's standing, refereed as the results referee it once the game is revealed (against the seed)."""
    from paperplay.handin import flags, score_one, sheet_document
    from paperplay.seeds import full_code

    from paperplay.serve.checks import game_rules

    drawn = _drawn(seed, variant)
    shown = flags(boxes, kind, drawn)
    cells = [box["value"] for box in boxes]
    empty = sum(value is None for value in cells)
    flagged = sum(bool(box["flagged"]) for box in shown)
    if empty or not cells:
        return Standing(None, False, flagged, empty)
    document = sheet_document(name or "sheet", cells, full_code("streams", seed), seed, variant=variant)
    # the boxes were checked as they were handed in or corrected: the document is not checked against its schema
    # again (three quarters of a millisecond a sheet, inside the store's write)
    outcome = score_one("sheet.json", document, game_rules(variant), checked=True).to_json()
    total = outcome.get("total")
    if not isinstance(total, int):
        return Standing(None, False, flagged, empty)
    return Standing(total, bool(outcome.get("valid")), flagged, empty)


def places(rows: Sequence[tuple[int, str, bool, int | None, int]], offset: int, first_place: int) -> list[Ranked]:
    """The rows of one page of the ranking (id, name, hidden, player, total; highest total first, then by id) with
    their places: `offset` is the number of ranked sheets before the page, `first_place` the place of its first row
    (the ranked sheets with a higher total, plus one)."""
    out: list[Ranked] = []
    for index, (sheet_id, name, hidden, player, total) in enumerate(rows):
        if out and total == out[-1].total:
            place = out[-1].place
        else:
            place = first_place if not out else offset + index + 1
        out.append(Ranked(sheet_id, name, bool(hidden), player, total, place))
    return out


def ranked_json(row: Ranked, name: str) -> dict[str, Any]:
    return {"place": row.place, "id": row.id, "player": row.player, "name": name, "hidden": row.hidden,
            "total": row.total}


def places_by_total(standings: Sequence[tuple[int, int]]) -> list[list[int]]:
    """[[total, place], ...] from each ranked total with its count, highest first: the place of every total (the
    sheets with a higher total, plus one), for a phone to find its own in a big game's state."""
    out, above = [], 0
    for total, count in standings:
        out.append([total, above + 1])
        above += count
    return out
