"""Placement strategies: one interface (`Strategy`), every strategy by name (`STRATEGIES`, `strategy`),
weakest first, and `play_game`, which plays one game with one of them."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any, Protocol

from paperplay.messages import did_you_mean
from paperplay.seeds import Rng
from paperplay.streams.coach.playout import Cells, Scorer, Unseen, empty_boxes, gap_choice, unseen_counts
from paperplay.streams.coach.search import DEPTH2_FIRST, evaluate, search
from paperplay.streams.rules import EMPTY, WILD, StreamsRules, Tile, standard_rules

class Strategy(Protocol):
    """Where to write a tile: the index of an empty box. `choose` checks the move first (check_move);
    `place` trusts it, for loops whose moves are right by construction (play_game)."""

    name: str

    def choose(self, cells: Cells, tile: int, unseen: Unseen, rng: Rng) -> int: ...

    def place(self, cells: Cells, tile: int, unseen: Unseen, rng: Rng) -> int: ...


def check_move(rules: StreamsRules, cells: Any, tile: Any, unseen: Any, rng: Any) -> None:
    """Raises ValueError, naming the argument, unless `cells` is a list of the rules' boxes (each EMPTY,
    WILD or a number of the bag's range) with an empty box, `tile` is a tile of the bag, and `unseen` a
    list of counts, 0 or more, indexed by tile (WILD, then 1 to the highest number), enough for the draws
    still to come, and `rng` a paperplay.seeds.Rng: what `choose` needs."""
    def whole(value: Any) -> bool:
        return isinstance(value, int) and not isinstance(value, bool)

    tiles = _bag_tiles(rules)
    expected = (f"WILD ({WILD}) or " if WILD in tiles else "") + f"a number of the bag ({rules.lowest}-{rules.highest})"
    if not isinstance(cells, list) or len(cells) != rules.boxes:
        raise ValueError(f"cells: expected a list of {rules.boxes} boxes, got {type(cells).__name__}"
                         + (f" of {len(cells)}" if isinstance(cells, list) else ""))
    for box, cell in enumerate(cells, start=1):
        if not whole(cell) or not (cell == EMPTY or cell in tiles):
            raise ValueError(f"cells: box {box} holds {cell!r}; expected EMPTY ({EMPTY}), {expected}")
    if EMPTY not in cells:
        raise ValueError("cells: every box is full; a tile needs an empty box")
    if not whole(tile) or tile not in tiles:
        raise ValueError(f"tile: {tile!r} is not in the bag; expected {expected}")
    if (not isinstance(unseen, list) or len(unseen) != rules.highest + 1
            or not all(whole(n) and n >= 0 for n in unseen)):
        raise ValueError(f"unseen: expected a list of {rules.highest + 1} counts, 0 or more, indexed by tile "
                         "(unseen_counts gives it)")
    draws = cells.count(EMPTY) - 1  # still to come after this tile: the play-outs draw them from unseen
    if sum(unseen) < draws:
        raise ValueError(f"unseen: holds {sum(unseen)} tiles, but {draws} more draws fill the sheet")
    if not isinstance(rng, Rng):
        raise ValueError(f"rng: expected a paperplay.seeds.Rng, got {type(rng).__name__}")


@cache
def _bag_tiles(rules: StreamsRules) -> frozenset[int]:
    """The tiles the bag holds (check_move's test, made once per rules)."""
    return frozenset(rules.bag)


class CheckedStrategy:
    """A strategy whose public `choose` refuses a move that does not fit its rules (check_move) and then
    asks `place`, which each strategy defines; the lab's own games call `place` directly (the check
    would double their time)."""

    rules: StreamsRules

    def choose(self, cells: Cells, tile: int, unseen: Unseen, rng: Rng) -> int:
        check_move(self.rules, cells, tile, unseen, rng)
        return self.place(cells, tile, unseen, rng)

    def place(self, cells: Cells, tile: int, unseen: Unseen, rng: Rng) -> int:
        raise NotImplementedError


class RandomStrategy(CheckedStrategy):
    """Any empty box, uniformly."""

    name = "random"

    def __init__(self, rules: StreamsRules | None = None) -> None:
        self.rules = rules or standard_rules()

    def place(self, cells: Cells, tile: int, unseen: Unseen, rng: Rng) -> int:
        empty = empty_boxes(cells)
        return empty[rng.randbelow(len(empty))]


@cache
def _rank(tile: int, rules: StreamsRules) -> float:
    """Where a number sits among the bag's numbers, 0 (lowest) to 1 (highest); middles of equal runs."""
    numbers = sorted(t for t in rules.bag if t != WILD)
    below = sum(1 for t in numbers if t < tile)
    same = sum(1 for t in numbers if t == tile)
    return (below + same / 2 - 0.5) / (len(numbers) - 1)


class ProportionalStrategy(CheckedStrategy):
    """The box matching the tile's rank among the bag's numbers, or the nearest empty one that keeps
    the row ascending (the wild: the middle)."""

    name = "proportional"

    def __init__(self, rules: StreamsRules | None = None) -> None:
        self.rules = rules or standard_rules()

    def place(self, cells: Cells, tile: int, unseen: Unseen, rng: Rng) -> int:
        n = len(cells)
        top = len(unseen) - 1
        want = (n - 1) / 2 if tile == WILD else _rank(tile, self.rules) * (n - 1)

        def key(i: int) -> tuple[float, int, int]:
            # Nearest first; between equally near boxes, the side that keeps the row ascending.
            left = next((cells[k] for k in range(i - 1, -1, -1) if cells[k] > 0), 0)
            right = next((cells[k] for k in range(i + 1, n) if cells[k] > 0), top)
            fits = tile == WILD or left <= tile <= right
            return (abs(i - want) + (0 if fits else 1.5), 0 if fits else 1, i)

        return min(empty_boxes(cells), key=key)


class GapStrategy(CheckedStrategy):
    """Writes the tile in the run of empty boxes whose neighbours' values bound it, at the place its
    rank among the unseen tiles that also fit there says, keeping a box or two free at each end of the
    sheet (where misfits do least harm); a tile that fits nowhere goes to the end of
    a gap beside the bound it breaks (one break), where the break splits the least valuable series
    and the gap has room to spare, one box in from that bound when the gap has two boxes or more (a
    number may still fill the box between to carry either series on); the wild goes where it most
    likely saves a break: the middle box of the gap the numbers that fit it are least expected to
    fill, weighted by what a break there would cost, a gap at an end of the sheet (where misfits go)
    only when no other is open to numbers. The wild bounds its neighbours as the value between theirs."""

    name = "gap"

    def __init__(self, rules: StreamsRules | None = None) -> None:
        self.rules = rules or standard_rules()

    def place(self, cells: Cells, tile: int, unseen: Unseen, rng: Rng) -> int:
        return gap_choice(cells, tile, unseen, self.rules.points)


MC_BUDGET = 20_000
"""Tiles placed in play-outs per move by the `montecarlo` strategy: about 75 ms a move (as strong
as 60,000 or 250,000; 4,000 scored about 4 points less)."""
MAX_MOVE_BUDGET = 10_000_000
"""The most play-out work one move may ask for (--budget, montecarlo:N): about a minute."""


class MonteCarloStrategy(CheckedStrategy):
    """Rolls out the remaining draws with the gap heuristic and keeps the box with the best mean,
    spending `budget` play-out tiles per move by successive halving."""

    def __init__(self, budget: int = MC_BUDGET, rules: StreamsRules | None = None, name: str | None = None) -> None:
        self.budget = budget
        self.rules = rules or standard_rules()
        self.scorer = Scorer(self.rules)
        self.name = name or ("montecarlo" if budget == MC_BUDGET else f"montecarlo:{budget}")

    def place(self, cells: Cells, tile: int, unseen: Unseen, rng: Rng) -> int:
        if cells.count(EMPTY) == 1:
            return cells.index(EMPTY)
        return evaluate(cells, tile, unseen, rng, self.budget, self.scorer)[0].box


class CoachStrategy(CheckedStrategy):
    """The advisor: `search` (Monte Carlo, then two tiles deep; the last four moves exact) with
    `first` tiles placed in the first Monte Carlo's play-outs."""

    name = "coach"

    def __init__(self, rules: StreamsRules | None = None, first: int = DEPTH2_FIRST) -> None:
        self.rules = rules or standard_rules()
        self.scorer = Scorer(self.rules)
        self.first = first

    def place(self, cells: Cells, tile: int, unseen: Unseen, rng: Rng) -> int:
        if cells.count(EMPTY) == 1:
            return cells.index(EMPTY)
        return search(cells, tile, unseen, rng, self.scorer, self.first).best.box


STRATEGIES: dict[str, Callable[[StreamsRules], Strategy]] = {
    "random": RandomStrategy,
    "proportional": ProportionalStrategy,
    "gap": GapStrategy,
    "montecarlo": lambda rules: MonteCarloStrategy(rules=rules),
    "coach": CoachStrategy,
}
"""Every strategy by name, weakest first, made for the rules of a variant; `coach` is the advisor's
(the strongest)."""


def strategy(name: str, rules: StreamsRules | None = None) -> Strategy:
    """A strategy by name for the rules (default: the standard game); `montecarlo:N` sets the tiles
    placed in play-outs per move."""
    rules = rules or standard_rules()
    base, colon, arg = name.partition(":")
    if base not in STRATEGIES:
        known = list(STRATEGIES)
        raise ValueError(f"unknown strategy {name!r}; known: {', '.join(known)}{did_you_mean(base, known)}")
    if colon:
        if base != "montecarlo":
            raise ValueError(f"strategy {name!r}: only montecarlo takes a budget, as montecarlo:N with N "
                             f"1-{MAX_MOVE_BUDGET:,}")
        if not re.fullmatch(r"[0-9]{1,9}", arg) or not 1 <= int(arg) <= MAX_MOVE_BUDGET:
            raise ValueError(f"strategy {name!r}: the budget N of montecarlo:N is the play-out tiles a move, "
                             f"1-{MAX_MOVE_BUDGET:,}")
        return MonteCarloStrategy(int(arg), rules)
    return STRATEGIES[base](rules)


def play_game(policy: Strategy, drawn: Sequence[Tile], rules: StreamsRules, rng: Rng) -> tuple[list[int], list[int]]:
    """Plays one game: the boxes written (0-based, in draw order) and the final row."""
    cells: Cells = [EMPTY] * rules.boxes
    unseen = unseen_counts(rules, [])
    placements = []
    for tile in drawn:
        unseen[tile] -= 1
        box = policy.place(cells, tile, unseen, rng)  # the moves here are right by construction
        if cells[box] != EMPTY:
            raise AssertionError(f"strategy {policy.name} wrote in box {box + 1}, which is full")
        cells[box] = tile
        placements.append(box)
    return placements, cells
