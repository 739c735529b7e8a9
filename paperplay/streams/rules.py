"""Streams rules: the bag, the seeded draw, scoring as the best cut, and checking a filled sheet.

Facts (boxes, bag, scoring table) live in data: templates/streams/game.json for the published game,
or a variant file of the same shape (schemas/streams-variant.schema.json), loaded by `load_rules`
into one StreamsRules object that pages, the coach and the sheet checks all take.

A tile is an int: a number (1 or more) or WILD (0). The text "*" (and X when typed) exists only at
the edges, through tile_from_json, tile_json and tile_text. Pure apart from reading rules files.
"""

from __future__ import annotations

import os

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path
from typing import Any

from paperplay.errors import InputError, Problem
from paperplay.resources import load_template, template_path
from paperplay.seeds import shuffled

WILD = 0
"""The wild tile. Every number of every variant's bag is 1 or more (checked when it is loaded)."""
EMPTY = -1
"""An empty box (the coach's positions, a typed sheet so far), so `tile > 0` means a number."""
Tile = int
"""A tile or a box: a number, WILD or (for a box) EMPTY."""
WILD_TEXT = "*"

DRAW_LABEL = "streams"
STANDARD = "standard"
VARIANT_SCHEMA = "streams-variant"
MAX_BAG = 120
_NAME = re.compile(r"^[a-z0-9][a-z0-9-]*$")


def tile_from_json(value: int | str) -> Tile:
    """A tile as JSON files and typed lists write it: an integer, or "*" for the wild."""
    return WILD if value == WILD_TEXT else int(value)


def tile_json(tile: Tile) -> int | str:
    """A tile as JSON files write it: an integer, or "*" for the wild."""
    return WILD_TEXT if tile == WILD else tile


def tile_text(tile: Tile) -> str:
    """A tile as text: the number, or * for the wild."""
    return WILD_TEXT if tile == WILD else str(tile)


_TURNED = {"0": "0", "1": "1", "6": "9", "8": "8", "9": "6"}


def _turned(tile: int) -> int | None:
    """The number a tile reads as upside down (6 reads 9, 16 reads 91), or None if it reads as none."""
    text = str(tile)
    if any(ch not in _TURNED for ch in text):
        return None
    turned = "".join(_TURNED[ch] for ch in reversed(text))
    return None if turned.startswith("0") else int(turned)


def tile_name(tile: Tile) -> str:
    """A tile in a sentence: the number, or "the wild"."""
    return "the wild" if tile == WILD else str(tile)


@dataclass(frozen=True)
class StreamsRules:
    """The facts of a Streams variant: its name, how many boxes, the bag (canonical order, docs/reference/seeds.md)
    and points by series length (points[n] for a series of n boxes, n = 0..boxes)."""

    name: str
    boxes: int
    bag: tuple[Tile, ...]
    points: tuple[int, ...]

    @cached_property
    def lowest(self) -> int:
        return min(t for t in self.bag if t != WILD)

    @cached_property
    def highest(self) -> int:
        return max(t for t in self.bag if t != WILD)

    @cached_property
    def underlined(self) -> frozenset[int]:
        """The numbers printed underlined: those that read as another number of the bag upside down
        (6 and 9; in a bag up to 99 also 16 and 91, 18 and 81, …)."""
        numbers = set(self.bag)
        return frozenset(t for t in numbers if t != WILD and _turned(t) not in (None, t) and _turned(t) in numbers)

    @property
    def series_boxes(self) -> int:
        """Series of 2 or more boxes that fit in the train: the boxes on the sheet for series points."""
        return self.boxes // 2

    @property
    def standard(self) -> bool:
        return self.name == STANDARD

    def bag_counts(self) -> Counter[Tile]:
        return Counter(self.bag)


def rules_from_data(data: Any, source: str, check_schema: bool = True) -> StreamsRules:
    """Builds the rules from a parsed game.json or variant file; InputError names the file and field.

    `check_schema` False skips the JSON Schema (for the shipped game.json, which the tests check),
    so commands that print the standard game start without loading jsonschema.
    """
    if check_schema:
        from paperplay.jsonfile import validate

        validate(data, VARIANT_SCHEMA, source)
    bag: list[Tile] = []
    seen: set[Tile] = set()
    for index, entry in enumerate(data["bag"]):
        tile = tile_from_json(entry["value"])
        if tile in seen:
            raise InputError(f"{source}: field bag[{index}].value is {entry['value']!r}, which the bag lists twice; "
                             "expected each value once, with its count")
        seen.add(tile)
        bag.extend([tile] * entry["count"])
    boxes = data["boxes"]
    if bag.count(WILD) > 1:
        raise InputError(f"{source}: field bag has {bag.count(WILD)} wilds; expected at most one (count 1)")
    if sum(1 for t in bag if t != WILD) < 2:
        raise InputError(f"{source}: field bag has fewer than 2 numbered tiles; expected a bag to draw from")
    if len(bag) > MAX_BAG:
        raise InputError(f"{source}: field bag holds {len(bag)} tiles; expected at most {MAX_BAG}")
    if len(bag) < boxes:
        raise InputError(f"{source}: field bag holds {len(bag)} tiles; expected at least {boxes} (field boxes)")
    points = data["points"]
    if len(points) != boxes + 1:
        raise InputError(f"{source}: field points has {len(points)} entries; expected {boxes + 1}, the points of "
                         f"a series of 0 to {boxes} boxes (field boxes is {boxes})")
    return StreamsRules(name=data["variant"], boxes=boxes, bag=tuple(bag), points=tuple(points))


@cache
def standard_rules() -> StreamsRules:
    """Returns the published game's rules, loaded from templates/streams/game.json."""
    return rules_from_data(load_template("streams/game.json"), "templates/streams/game.json", check_schema=False)


def shipped_variants() -> list[str]:
    """The names --variant accepts: standard and every file in templates/streams/variants/."""
    folder = template_path("streams/variants")
    names = sorted(p.stem for p in folder.glob("*.json")) if folder.is_dir() else []
    return [STANDARD, *names]


def looks_like_variant(data: Any) -> bool:
    """Whether parsed JSON is a variant's rules (fields bag and points), not a game record."""
    return isinstance(data, dict) and "bag" in data and "points" in data and "cells" not in data and "game" not in data


def _rules_file(path: str) -> StreamsRules:
    """A variant file's rules, read again when the file has changed (a long-lived process that edits
    its variant, as a library user may, sees the edit)."""
    try:
        stamp = os.stat(path)
        changed: tuple[int, int] | None = (stamp.st_mtime_ns, stamp.st_size)
    except OSError:
        changed = None  # read_json names the problem
    return _rules_read(path, changed)


@cache
def _rules_read(path: str, changed: tuple[int, int] | None) -> StreamsRules:
    from paperplay.jsonfile import read_json

    data = read_json(Path(path))
    if isinstance(data, dict) and "bag" not in data and ("game" in data or "cells" in data):  # a record
        what = "a Streams sheet" if data.get("game", "streams") == "streams" else f"a {data['game']!r} record"
        raise InputError(f"{path}: is {what}, not a variant file (a variant has fields variant, boxes, bag and "
                         "points: paperplay schema streams-variant)")
    return rules_from_data(data, path)


def load_rules(variant: str | None = None) -> StreamsRules:
    """The rules of a variant: None or "standard" for the published game, a NAME shipped in
    templates/streams/variants/NAME.json, or the path of a variant file ending in .json."""
    if variant is None or variant.lower() == STANDARD:
        return standard_rules()
    if variant.lower().endswith(".json"):
        rules = _rules_file(variant)
        if rules.name == STANDARD and rules != standard_rules():  # its pages would pass for the published game's
            raise InputError(f"{variant}: field variant is {STANDARD!r}, the published game's name, but its rules "
                             "differ from the published game's; give the variant a name of its own")
        return rules
    if _NAME.match(variant.lower()) and variant.lower() in shipped_variants():
        variant = variant.lower()
        rules = _rules_file(str(template_path(f"streams/variants/{variant}.json")))
        if rules.name != variant:
            raise InputError(f"templates/streams/variants/{variant}.json: field variant is {rules.name!r}; "
                             f"expected {variant!r}, its file name")
        return rules
    raise InputError(f"unknown Streams variant {variant!r}; expected one of {', '.join(shipped_variants())} "
                     "or a variant file NAME.json")


def draw(seed: str, rules: StreamsRules | None = None) -> tuple[Tile, ...]:
    """Returns the tiles a canonical seed draws, in order (docs/reference/seeds.md): label "streams" for
    every variant."""
    rules = rules or standard_rules()
    return tuple(shuffled(list(rules.bag), DRAW_LABEL, seed)[: rules.boxes])


@dataclass(frozen=True)
class Series:
    """A series of the best cut: boxes start..end (1-based, inclusive) and its points."""

    start: int
    end: int
    points: int

    @property
    def length(self) -> int:
        return self.end - self.start + 1

    def to_json(self) -> dict[str, int]:
        return {"start": self.start, "end": self.end, "length": self.length, "points": self.points}


@dataclass(frozen=True)
class Score:
    """A sheet's score: the total, the series of 2 or more boxes, and the wild's value (or None)."""

    total: int
    series: tuple[Series, ...]
    wild_value: int | None


def _best_cut(values: Sequence[int], points: Sequence[int]) -> tuple[int, list[int]]:
    """Returns the best total over all cuts into ascending series, and the cut's segment starts.

    best[i] is the best score of the first i boxes; a last segment j..i-1 is ascending exactly
    when j is at or after the start of the maximal run that holds box i-1, so only those j are
    tried. Ties keep the longest last segment.
    """
    n = len(values)
    best = [0] * (n + 1)
    back = [0] * (n + 1)
    run_start = 0
    for i in range(1, n + 1):
        if i >= 2 and values[i - 1] < values[i - 2]:
            run_start = i - 1
        top = -1
        top_j = run_start
        for j in range(run_start, i):
            candidate = best[j] + points[i - j]
            if candidate > top:
                top, top_j = candidate, j
        best[i] = top
        back[i] = top_j
    starts = []
    i = n
    while i > 0:
        starts.append(back[i])
        i = back[i]
    starts.reverse()
    return best[n], starts


def _series(starts: list[int], n: int, points: Sequence[int]) -> tuple[Series, ...]:
    ends = starts[1:] + [n]
    return tuple(
        Series(start + 1, end, points[end - start]) for start, end in zip(starts, ends) if end - start >= 2
    )


def _wild_values(values: Sequence[Tile], at: int, rules: StreamsRules) -> list[int]:
    """The values worth trying for the wild in box `at` (index), smallest first.

    The wild's value only matters through the two comparisons with its neighbours, so the
    smallest value of each of the (at most three) classes is tried: the lowest number, the left
    neighbour's value, and one above the right neighbour's.
    """
    candidates = {rules.lowest}
    if at > 0:
        candidates.add(values[at - 1])
    if at + 1 < len(values) and values[at + 1] + 1 <= rules.highest:
        candidates.add(values[at + 1] + 1)
    return sorted(candidates)


def score(cells: Sequence[Tile], rules: StreamsRules | None = None) -> Score:
    """Scores a full row of boxes: the best cut into ascending series, the wild at its best value.

    Of equally good values for the wild the smallest is taken.
    """
    rules = rules or standard_rules()
    points = rules.points
    if WILD not in cells:
        total, starts = _best_cut(cells, points)
        return Score(total, _series(starts, len(cells), points), None)
    at = list(cells).index(WILD)
    values = list(cells)
    best: tuple[int, list[int], int] | None = None
    for value in _wild_values(values, at, rules):
        values[at] = value
        total, starts = _best_cut(values, points)
        if best is None or total > best[0]:
            best = (total, starts, value)
    assert best is not None
    total, starts, value = best
    return Score(total, _series(starts, len(values), points), value)


def top_score(rules: StreamsRules) -> int:
    """The most a sheet can score: one series through every box, cut where the table pays more for
    the parts (the standard game's 300; more than the table's last entry in a variant that rewards
    cuts, and then some broken rows reach it too)."""
    return _best_cut(range(rules.boxes), rules.points)[0]


def best_total(cells: Sequence[Tile], rules: StreamsRules) -> int:
    """score(cells, rules).total, twice as fast (no series built): for play-outs."""
    points = rules.points
    if WILD not in cells:
        return _best_cut(cells, points)[0]
    at = list(cells).index(WILD)
    values = list(cells)
    best = 0
    for value in _wild_values(values, at, rules):
        values[at] = value
        best = max(best, _best_cut(values, points)[0])
    return best


def _box_list(boxes: list[int]) -> str:
    names = [str(b) for b in boxes]
    if len(names) == 1:
        return f"box {names[0]}"
    return "boxes " + ", ".join(names[:-1]) + " and " + names[-1]


def _how_many(n: int) -> str:
    return {0: "no", 1: "one", 2: "two"}.get(n, str(n))


def _times(n: int) -> str:
    return {1: "once", 2: "twice"}.get(n, f"{n} times")


def check_tiles(
    cells: Sequence[Tile], drawn: Sequence[Tile] | None, rules: StreamsRules | None = None
) -> list[Problem]:
    """Checks that the boxes hold exactly the drawn tiles, or (with no draw) tiles the bag holds.

    The order of writing is not on paper, so the boxes are compared as a multiset.
    """
    rules = rules or standard_rules()
    where: dict[Tile, list[int]] = {}
    for box, tile in enumerate(cells, start=1):
        where.setdefault(tile, []).append(box)
    problems = []
    if drawn is None:
        allowed = rules.bag_counts()
        for tile, boxes in where.items():
            if len(boxes) > allowed[tile]:
                problems.append(Problem(
                    "streams/bag",
                    f"{_box_list(boxes)} {'holds' if len(boxes) == 1 else 'hold'} {tile_name(tile)}, but the bag has "
                    f"{_how_many(allowed[tile])} "
                    f"{'wild' if tile == WILD else tile}",
                ))
        return problems
    want = Counter(drawn)
    for tile, boxes in where.items():
        if len(boxes) > want[tile]:
            if want[tile] == 0:
                verb = "holds" if len(boxes) == 1 else "hold"
                problems.append(Problem(
                    "streams/drawn-tiles", f"{_box_list(boxes)} {verb} {tile_name(tile)}, which was not drawn"
                ))
            else:
                problems.append(Problem(
                    "streams/drawn-tiles",
                    f"{_box_list(boxes)} hold {tile_name(tile)}, but it was drawn {_times(want[tile])}",
                ))
    for tile, count in want.items():
        missing = count - len(where.get(tile, []))
        if missing > 0:
            drawn_once = "the drawn wild" if tile == WILD else f"the drawn {tile}"
            what = drawn_once if count == 1 else f"{tile_name(tile)} (drawn {_times(count)})"
            problems.append(Problem(
                "streams/drawn-tiles",
                f"{what} is missing from the sheet" + ("" if missing == count or count == 1 else f" {_times(missing)}"),
            ))
    return problems


def check_draw(drawn: Sequence[Tile], rules: StreamsRules | None = None) -> list[Problem]:
    """Checks that a recorded draw is one the bag can produce."""
    rules = rules or standard_rules()
    problems = []
    allowed = rules.bag_counts()
    seen: dict[Tile, list[int]] = {}
    for turn, tile in enumerate(drawn, start=1):
        seen.setdefault(tile, []).append(turn)
    for tile, turns in seen.items():
        if len(turns) > allowed[tile]:
            problems.append(Problem(
                "streams/draw",
                f"the draw list has {tile_name(tile)} at turns {', '.join(map(str, turns))}, "
                f"but the bag has {_how_many(allowed[tile])} {'wild' if tile == WILD else tile}",
            ))
    return problems


@dataclass(frozen=True)
class ClaimedSeries:
    """A series as the player marked it: boxes start..end (1-based) and the points written."""

    start: int
    end: int
    points: int | None = None


def _ascending_with_wild(run: Sequence[Tile]) -> bool:
    # The wild takes one value, so it fits anywhere its numbered neighbours are in order.
    numbers = [t for t in run if t != WILD]
    return all(a <= b for a, b in zip(numbers, numbers[1:]))


def check_claims(
    cells: Sequence[Tile],
    actual: Score,
    claimed_series: Sequence[ClaimedSeries] | None,
    claimed_total: int | None,
    rules: StreamsRules | None = None,
) -> list[Problem]:
    """Checks what the player wrote (series cuts, points, total) against the rules; every mismatch."""
    rules = rules or standard_rules()
    problems = []
    if claimed_series is not None:
        claim_sum = 0
        cut_ok = True  # the claims make a cut: no overlap, every series on the sheet
        broken = 0
        used: dict[int, int] = {}
        for number, claim in enumerate(claimed_series, start=1):
            label = f"claimed series {number} (boxes {claim.start}-{claim.end})"
            if not 1 <= claim.start <= claim.end <= len(cells):
                problems.append(Problem(
                    "streams/claim-series", f"{label} is not a run of boxes within 1-{len(cells)}"
                ))
                cut_ok = False
                continue
            overlap = sorted({used[b] for b in range(claim.start, claim.end + 1) if b in used})
            if overlap:
                problems.append(Problem(
                    "streams/claim-series",
                    f"{label} overlaps claimed series {', '.join(map(str, overlap))}",
                ))
                cut_ok = False
            for b in range(claim.start, claim.end + 1):
                used.setdefault(b, number)
            run = cells[claim.start - 1 : claim.end]
            ascending = _ascending_with_wild(run)
            if not ascending:
                problems.append(Problem(
                    "streams/claim-series",
                    f"{label} is not ascending: {' '.join(map(tile_text, run))}",
                ))
                broken += 1  # scores nothing; the cut's sum is still checked against the best
            due = rules.points[len(run)]
            # the table, ascending or not (docs/reference/formats/streams-sheet.md)
            if claim.points is not None and claim.points != due:
                problems.append(Problem(
                    "streams/claim-points",
                    f"{label} claims {claim.points} points, but a series of {len(run)} scores {due}",
                ))
            if ascending:
                claim_sum += due
        if cut_ok and claim_sum < actual.total:
            counted = "the series" if broken == 1 else f"the {broken} series"
            unscored = f" ({counted} not ascending counted as 0)" if broken else ""
            problems.append(Problem(
                "streams/claim-cut",
                f"the claimed series score {claim_sum} together{unscored}, but the best cut scores {actual.total}",
            ))
    if claimed_total is not None and claimed_total != actual.total:
        problems.append(Problem(
            "streams/claim-total", f"the claimed total is {claimed_total}, but the sheet scores {actual.total}"
        ))
    return problems
