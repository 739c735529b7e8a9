"""The Streams referee: sheet files (docs/reference/formats/, the Streams sheet) read, their draw found, each
sheet refereed and described, and sheets ranked."""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cache
from typing import Any

from paperplay.errors import InputError, Problem, Verdict
from paperplay.jsonfile import validate, validate_schema
from paperplay.resources import load_schema
from paperplay.messages import shown_name
from paperplay.seeds import canonical_seed, code_mismatch, display_code, seed_field
from paperplay.streams.rules import (
    EMPTY, WILD, ClaimedSeries, Score, StreamsRules, Tile, check_claims, check_draw, check_tiles, draw, load_rules,
    looks_like_variant, score, standard_rules, tile_from_json, tile_name, tile_text,
)

SCHEMA = "streams-sheet"
_WILD_WORDS = {"*", "x", "X"}
_EMPTY_WORDS = {"_", ".", "-"}
BOXES = -1
"""parse_tiles' default count: as many as the rules have boxes."""


class CheckedAgainst(StrEnum):
    """What a sheet's boxes were checked against (its result's checked_against): the draw of a seed, a
    recorded draw, or the bag alone (neither given)."""

    SEED = "seed"
    DRAW = "draw"
    BAG = "bag"


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
    rules: StreamsRules = field(default_factory=standard_rules)  # the variant it was played with


def sheet_schema(rules: StreamsRules) -> dict[str, Any]:
    """The streams-sheet schema with the variant's bounds (boxes, lowest and highest number).

    The standard game's is the shipped file itself (what `paperplay schema streams-sheet` prints).
    """
    if rules.standard:
        shipped: dict[str, Any] = load_schema(SCHEMA)
        return shipped
    return _variant_schema(rules)


@cache
def _variant_schema(rules: StreamsRules) -> dict[str, Any]:
    shipped = standard_rules()
    n, low, high = rules.boxes, rules.lowest, rules.highest
    schema = copy.deepcopy(load_schema(SCHEMA))
    schema["$id"] = schema["$id"].replace(SCHEMA, f"{SCHEMA}-{rules.name}")
    words = {f"{shipped.lowest}-{shipped.highest}": f"{low}-{high}", f"1-{shipped.boxes}": f"1-{n}",
             str(shipped.boxes): str(n)}
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, words)) + r")\b")

    def substitute(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "description":
                    node[key] = pattern.sub(lambda m: words[m.group(1)], value)
                elif key in ("minItems", "maxItems") and value == shipped.boxes:
                    node[key] = n
                else:
                    substitute(value)
        elif isinstance(node, list):
            for item in node:
                substitute(item)

    substitute(schema)
    properties = schema["properties"]
    schema["$defs"]["tile"]["oneOf"][0].update(minimum=low, maximum=high)
    properties["placements"]["items"]["maximum"] = n
    for end in ("start", "end"):
        properties["claimed_series"]["items"]["properties"][end]["maximum"] = n
    return schema


def sheet_from_json(data: Any, source: str, rules: StreamsRules | None = None, checked: bool = False) -> Sheet:
    """Builds a Sheet from parsed JSON, which must match the streams-sheet schema of its variant (`checked`: the
    document is paperplay's own, made from boxes checked already, so the schema is not checked again).

    `rules` is the variant given on the command line (None: none given); without it the sheet's
    own field variant names a shipped variant, else the standard game. A field variant that
    disagrees with `rules` is an input error.
    """
    if isinstance(data, dict) and "game" in data and data["game"] != "streams":
        raise InputError(f"{source}: is a {data['game']!r} file, not a Streams sheet (field game)")
    if looks_like_variant(data):
        raise InputError(f"{source}: is a Streams variant file (fields bag and points), not a sheet; a variant's "
                         f"rules are given with --variant {source}")
    named = data.get("variant") if isinstance(data, dict) else None
    if isinstance(named, str):
        if rules is None:
            try:
                rules = load_rules(named) if not named.lower().endswith(".json") else None
            except InputError:
                rules = None
            if rules is None:
                raise InputError(f"{source}: field variant is {named!r}, which paperplay does not ship; give its "
                                 f"rules file with --variant (score and review take it: paperplay score {source} "
                                 "--variant FILE)")
        elif named != rules.name:
            raise InputError(f"{source}: field variant is {named!r}, but the rules given are variant {rules.name!r}")
    rules = rules or standard_rules()
    if checked:
        pass
    elif rules.standard:
        validate(data, SCHEMA, source)
    else:
        validate_schema(data, sheet_schema(rules), source)
    claims = data.get("claimed_series")
    return Sheet(
        source=source,
        cells=tuple(tile_from_json(c) for c in data["cells"]),
        player=data.get("player"),
        code=canonical_seed(data["code"]) if "code" in data else None,
        seed=seed_field(data["seed"], source) if "seed" in data else None,
        draw=tuple(tile_from_json(t) for t in data["draw"]) if "draw" in data else None,
        claimed_total=data.get("claimed_total"),
        placements=tuple(data["placements"]) if "placements" in data else None,
        claimed_series=None if claims is None else tuple(
            ClaimedSeries(c["start"], c["end"], c.get("points")) for c in claims
        ),
        rules=rules,
    )


def parse_tiles(text: str, option: str, count: int | None = BOXES, empty: bool = False,
                rules: StreamsRules | None = None) -> tuple[Tile, ...]:
    """Parses a typed list of tiles such as ``"11 3 * 5 …"`` or ``"11,3,X,5,…"``.

    `count` is how many entries (default: the rules' boxes; None takes any number); with `empty`,
    ``_`` (or ``.`` or ``-``) is an empty box (EMPTY).
    """
    rules = rules or standard_rules()
    if count == BOXES:
        count = rules.boxes
    items = [item for item in re.split(r"[\s,;]+", text.strip()) if item]
    tiles: list[Tile] = []
    for position, item in enumerate(items, start=1):
        if empty and item in _EMPTY_WORDS:
            tiles.append(EMPTY)
        elif item in _WILD_WORDS:
            tiles.append(WILD)
        elif re.fullmatch(r"[0-9]{1,3}", item) and rules.lowest <= int(item) <= rules.highest:
            tiles.append(int(item))
        else:
            which = "" if count == 1 else f" entry {position}"
            raise InputError(f"{option}:{which} is {item!r}; expected an integer "
                             f"{rules.lowest}-{rules.highest} or * (or X) for the wild"
                             + (", or _ for an empty box" if empty else ""))
    if count is not None and len(tiles) != count:
        raise InputError(f"{option}: has {len(tiles)} boxes; expected {count} (_ for an empty box)" if empty
                         else f"{option}: has {len(tiles)} entries; expected exactly {count}")
    if option == "--cells" and tiles.count(WILD) > 1:
        raise InputError(f"{option}: has {tiles.count(WILD)} wilds; a sheet holds at most one")
    return tuple(tiles)


@dataclass(frozen=True)
class SheetResult(Verdict):
    """The referee's verdict on one sheet."""

    sheet: Sheet
    seed: str | None
    checked_against: CheckedAgainst
    score: Score
    problems: tuple[Problem, ...] = field(default=())

    @property
    def source(self) -> str:  # type: ignore[override]
        return self.sheet.source

    def text_lines(self) -> list[str]:
        return result_lines(self)

    def to_json(self) -> dict[str, Any]:
        document: dict[str, Any] = {
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
        if not self.sheet.rules.standard:
            document["variant"] = self.sheet.rules.name
        if self.singles:  # a variant whose single boxes score: what `series` (2 boxes or more) leaves out
            document["singles"] = {"boxes": self.singles, "points": self.singles_points}
        return document

    @property
    def singles(self) -> int:
        """Boxes in no series of 2 or more, when the variant scores a single box (points[1] > 0); else 0."""
        if self.sheet.rules.points[1] <= 0:
            return 0
        return len(self.sheet.cells) - sum(s.length for s in self.score.series)

    @property
    def singles_points(self) -> int:
        """What the single boxes score (see singles)."""
        return self.singles * self.sheet.rules.points[1]


def _resolve_draw(
    sheet: Sheet, seed: str | None, drawn: Sequence[Tile] | None
) -> tuple[str | None, tuple[Tile, ...] | None, CheckedAgainst]:
    """Finds the sheet's draw from its own fields and the command line; disagreements are input errors."""
    src = sheet.source
    rules = sheet.rules
    if drawn is not None and len(drawn) != rules.boxes:
        raise InputError(f"{src}: the draw given has {len(drawn)} tiles; variant {rules.name} draws {rules.boxes}")
    if sheet.seed and seed and sheet.seed != seed:
        raise InputError(f"{src}: field seed is {sheet.seed}, but --seed gives {seed}")
    seed = sheet.seed or seed
    seed_draw = draw(seed, rules) if seed else None
    mismatch = code_mismatch("streams", seed, sheet.code) if sheet.code and seed else None
    if mismatch is not None:
        raise InputError(f"{src}: field code {mismatch}")
    if sheet.draw is not None and drawn is not None and tuple(sheet.draw) != tuple(drawn):
        raise InputError(f"{src}: field draw differs from the draw given with --draw")
    recorded = sheet.draw if sheet.draw is not None else (tuple(drawn) if drawn is not None else None)
    if seed_draw is not None and recorded is not None and seed_draw != recorded:
        turn = next(i for i, (a, b) in enumerate(zip(seed_draw, recorded), start=1) if a != b)
        raise InputError(
            f"{src}: {'field draw' if sheet.draw is not None else 'the --draw list'} differs from seed {seed}'s "
            f"draw at turn {turn} "
            f"({tile_text(recorded[turn - 1])} recorded, {tile_text(seed_draw[turn - 1])} drawn by the seed)"
        )
    if seed_draw is not None:
        return seed, seed_draw, CheckedAgainst.SEED
    if recorded is not None:
        return None, recorded, CheckedAgainst.DRAW
    return None, None, CheckedAgainst.BAG


def draw_of(sheet: Sheet) -> tuple[str | None, tuple[Tile, ...] | None]:
    """The sheet's seed and draw from its own fields (None when it has neither)."""
    seed, drawn, _ = _resolve_draw(sheet, None, None)
    return seed, drawn


def referee(sheet: Sheet, seed: str | None = None, drawn: Sequence[Tile] | None = None) -> SheetResult:
    """Checks and scores a sheet against its seed, a draw list, or (with neither) the bag alone.

    Raises InputError when the sources of the draw disagree; every rule broken is collected.
    """
    seed, tiles, against = _resolve_draw(sheet, seed, drawn)
    rules = sheet.rules
    problems: list[Problem] = []
    if against == CheckedAgainst.DRAW:
        assert tiles is not None
        problems += check_draw(tiles, rules)
    problems += check_tiles(sheet.cells, tiles, rules)
    result = score(sheet.cells, rules)
    problems += check_claims(sheet.cells, result, sheet.claimed_series, sheet.claimed_total, rules)
    if sheet.placements is not None and tiles is not None:
        problems += check_placements(sheet.cells, sheet.placements, tiles)
    return SheetResult(sheet, seed, against, result, tuple(problems))


def check_placements(cells: Sequence[Tile], placements: Sequence[int], draw: Sequence[Tile]) -> list[Problem]:
    """The order of writing must put each drawn tile in the box that holds it."""
    return [Problem("streams/placements", f"placements[{turn}] says draw {turn + 1} ({tile_name(tile)}) went in "
                                          f"box {box}, which holds {tile_name(cells[box - 1])}")
            for turn, (box, tile) in enumerate(zip(placements, draw)) if cells[box - 1] != tile]


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


def result_lines(result: SheetResult) -> list[str]:
    """Describes a sheet's verdict in a few lines a player understands."""
    who = f" ({shown_name(result.sheet.player)})" if result.sheet.player else ""
    against = {
        CheckedAgainst.SEED: f"checked against the draw of seed {display_code(result.seed or '')}",
        CheckedAgainst.DRAW: "checked against the recorded draw",
        CheckedAgainst.BAG: "checked against the bag only (no seed or draw given)",
    }[result.checked_against]
    verdict = "valid" if result.valid else "NOT VALID"
    rules = result.sheet.rules
    variant = "" if rules.standard else f" (variant {rules.name})"
    lines = [f"{result.sheet.source}{who}: {result.score.total} points{variant}, {verdict}; {against}"]
    if result.score.series:
        parts = [f"{s.start}-{s.end} ({s.length}) {s.points}" for s in result.score.series]
        lines.append("  series (boxes, length, points): " + " · ".join(parts))
    else:
        lines.append("  no series of 2 or more boxes")
    if result.singles:
        lines.append(f"  single boxes (in no series): {result.singles} × {rules.points[1]} = {result.singles_points}")
    if result.score.wild_value is not None:
        lines.append(f"  the wild counts as {result.score.wild_value}")
    for problem in result.problems:
        lines.append(f"  x {problem.rule}: {problem.message}")
    return lines
