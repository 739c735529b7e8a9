"""Positions, the gap heuristic and play-outs: the plain-Python reference of the compiled kernel.

A position is the row of boxes so far (EMPTY for an empty box, WILD for the wild: rules' one tile
representation) and what is still unseen (tiles neither on the sheet nor known to be out of the
bag). paperplay/streams/kernel.py compiles the same play-outs with numba; the tests compare them.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Sequence
from typing import Any

from paperplay.streams import kernel
from paperplay.streams.kernel import EDGE_MARGIN, MISFIT_SLACK_WEIGHT, WILD_SHORTFALL
from paperplay.streams.rules import EMPTY, WILD, StreamsRules, Tile, best_total

Cells = list[int]
"""Boxes in order: EMPTY, a number (1 or more), or WILD."""
Unseen = list[int]
"""Counts of tiles not yet seen, indexed by tile: a number, or WILD (index 0)."""


def unseen_counts(rules: StreamsRules, known: Sequence[Tile]) -> Unseen:
    """What may still come out of the bag: the bag less every tile known to be out of it."""
    counts = [0] * (rules.highest + 1)
    for tile, n in rules.bag_counts().items():
        counts[tile] += n
    for tile in known:
        counts[tile] -= 1
    return counts


KERNEL_AFTER = 200_000
"""Play-out tiles planned (Scorer.plan) before the compiled kernel is loaded, tiles placed in forked
processes counted once per process (a second's worth): plain Python places about 200,000 tiles a
second, and loading numba takes 0.7 to 0.9 s."""


class Scorer:
    """Scores a full row fast: maximal runs when the table never rewards a cut, else the best cut."""

    def __init__(self, rules: StreamsRules, jobs: int = 1) -> None:
        self.rules = rules
        self.jobs = jobs  # processes the coach's depth-2 search may fork when it runs in plain Python
        p = rules.points
        self.points = p
        self.runs_are_best = all(p[a + b] >= p[a] + p[b] for a in range(1, len(p)) for b in range(1, len(p) - a))
        self.points_array: Any = None
        self.work = 0.0  # play-out tiles planned so far (see plan)

    def plan(self, tiles: int, processes: int = 1) -> None:
        """Says how many tiles the coming play-outs will place, in how many processes (see kernel)."""
        self.work += tiles / processes

    def kernel(self) -> Callable[..., None] | None:
        """The compiled play-out kernel (see kernel.py) when numba is installed, the table never
        rewards a cut (what the kernel scores) and enough play-out work has been planned to repay
        loading it (KERNEL_AFTER), else None."""
        if not self.runs_are_best or self.work <= KERNEL_AFTER:
            return None
        compiled = kernel.load()
        if compiled is not None and self.points_array is None:
            import numpy as np

            self.points_array = np.array(self.points, np.int64)
        return compiled

    def __call__(self, cells: Sequence[int]) -> int:
        if not self.runs_are_best:
            return best_total(cells, self.rules)
        if WILD in cells:
            at = cells.index(WILD)
            row = list(cells)
            options = [row[at - 1]] if at > 0 else []
            if at + 1 < len(row):
                options.append(row[at + 1])
            best = 0
            for value in options or [self.rules.lowest]:
                row[at] = value
                best = max(best, self._runs(row))
            return best
        return self._runs(cells)

    def _runs(self, cells: Sequence[int]) -> int:
        points = self.points
        total = 0
        run = 1
        previous = cells[0]
        for value in cells[1:]:
            if value >= previous:
                run += 1
            else:
                total += points[run]
                run = 1
            previous = value
        return total + points[run]


def empty_boxes(cells: Cells) -> list[int]:
    """The empty boxes, left to right."""
    return [i for i, c in enumerate(cells) if c == EMPTY]


Gap = tuple[int, int, int, int]
"""A run of empty boxes: (first, last, lower bound, upper bound)."""


def _between(lo: int, hi: int, box: int, first: int, last: int) -> int:
    """The value a wild in `box` stands for when bounding gaps: interpolated between the numbers
    around its run of boxes (lo just before `first`, hi just after `last`)."""
    return lo + round((hi - lo) * (box - first + 1) / (last - first + 2))


def gaps_of(cells: Cells, top: int) -> list[Gap]:
    """The runs of empty boxes, left to right, with the values that bound them. A wild bounds its
    neighbours as the value interpolated between the numbers around it."""
    n = len(cells)
    values = list(cells)
    for i, c in enumerate(cells):
        if c == WILD:
            left = next((k for k in range(i - 1, -1, -1) if values[k] > 0), -1)
            right = next((k for k in range(i + 1, n) if cells[k] > 0), n)
            lo = values[left] if left >= 0 else 1
            hi = cells[right] if right < n else top
            values[i] = _between(lo, hi, i, left + 1, right - 1)
    gaps = []
    i = 0
    lower = 1
    while i < n:
        if values[i] != EMPTY:
            lower = values[i]
            i += 1
            continue
        j = i
        while j + 1 < n and values[j + 1] == EMPTY:
            j += 1
        gaps.append((i, j, lower, values[j + 1] if j + 1 < n else top))
        i = j + 1
    return gaps


def _breaks(cells: Cells) -> list[int]:
    """The boxes that start a series: 0, and every number below the one before it (empty boxes carry a
    series on). The series box b may still end up in runs from the last break at or before b to the
    box before the next break."""
    breaks = [0]
    previous = 0
    for i, c in enumerate(cells):
        if c > 0:
            if c < previous and i:
                breaks.append(i)
            previous = c
    return breaks


def _series(breaks: list[int], box: int, n: int) -> tuple[int, int]:
    """The first and last box of the series `box` may still end up in (see _breaks)."""
    at = bisect.bisect_right(breaks, box)
    return breaks[at - 1], (breaks[at] - 1 if at < len(breaks) else n - 1)


def _misfit(gaps: list[Gap], tile: int, unseen: Unseen, cells: Cells, points: Sequence[int]) -> tuple[int, int]:
    """Where a tile that fits no gap does least harm: at the end of a gap beside the bound it breaks
    (one break), preferring breaks that split short series and gaps with room to spare; one box in
    from that bound when the gap has two boxes or more and its bounds leave room for a number
    (lower ≤ upper, whether or not one is still unseen: measured better), so that the box between
    may still carry either series on."""
    breaks, n = _breaks(cells), len(cells)
    best = math.inf
    chosen = at = 0
    for g, (first, last, lo, hi) in enumerate(gaps):
        box = last if tile > hi else first
        start, end = _series(breaks, box, n)
        left, right = (box - start + 1, end - box) if tile > hi else (box - start, end - box + 1)
        cost = 0 if lo > hi or left <= 0 or right <= 0 else points[end - start + 1] - points[left] - points[right]
        fits = sum(unseen[lo:hi + 1])  # 0 when lo > hi
        key = cost - MISFIT_SLACK_WEIGHT * (last - first + 1) / (fits + 1)
        if key < best:
            best, chosen, at = key, g, box
    first, last, lo, hi = gaps[chosen]
    if lo <= hi and last > first:  # one box in, which a number may still fill to carry either series on
        at = last - 1 if at == last else first + 1
    return chosen, at


def _wild(gaps: list[Gap], unseen: Unseen, cells: Cells, points: Sequence[int], empties: int) -> tuple[int, int]:
    """Where the wild most likely saves a break: the run of empty boxes (that some number still fits)
    with the most boxes the numbers that fit it are not expected to fill (plus WILD_SHORTFALL when
    there are any), weighted by the points a break there would cost; in its middle box. A run at an
    end of the sheet only when every other run is closed to the numbers: the ends are where the
    heuristic puts the tiles that fit nowhere, so a wild there seldom saves a break. With no such run,
    the middle of the largest one. (Measured against the run's right-hand end and no preference for
    the sheet's middle: `gap` +1.44 ± 0.16 and +1.65 ± 0.16 a game on the games with a wild of 20,000
    of seeds TUNE and VAL; as the play-out policy, `montecarlo` −0.03 ± 0.20 on 4,000 games of seeds
    LAB and R2 and the coach +0.13 ± 0.14 on 6,000 of LAB, R2 and R3: no better judge, no worse.)"""
    n = len(cells)
    total = max(1, sum(unseen))
    breaks = _breaks(cells)
    inner = any(lo <= hi and first > 0 and last < n - 1 for first, last, lo, hi in gaps)
    best = -math.inf
    chosen = at = -1
    for g, (first, last, lo, hi) in enumerate(gaps):
        if lo > hi or (inner and (first == 0 or last == n - 1)):
            continue
        box = (first + last) // 2
        start, end = _series(breaks, box, n)
        cost = points[end - start + 1] - points[box - start] - points[end - box]
        shortfall = (last - first + 1) - sum(unseen[lo:hi + 1]) * (empties - 1) / total
        if shortfall > 0:
            shortfall += WILD_SHORTFALL
        key = shortfall * (cost + 1)
        if key > best:
            best, chosen, at = key, g, box
    if chosen >= 0:
        return chosen, at
    chosen = max(range(len(gaps)), key=lambda g: (gaps[g][1] - gaps[g][0], -g))
    return chosen, (gaps[chosen][0] + gaps[chosen][1]) // 2


def pick(gaps: list[Gap], tile: int, unseen: Unseen, cells: Cells, points: Sequence[int],
         empties: int = -1) -> tuple[int, int]:
    """The gap heuristic's choice: (index of the gap, box). See GapStrategy. `empties`: how many
    boxes are empty, if the caller knows."""
    if empties < 0:
        empties = cells.count(EMPTY)
    if tile == WILD:
        return _wild(gaps, unseen, cells, points, empties)
    best = -1.0
    chosen = at = -1
    n = len(cells)
    for g, (first, last, lo, hi) in enumerate(gaps):
        if lo <= tile <= hi:
            room = last - first + 1
            fits = sum(unseen[lo:hi + 1])  # the unseen numbers that fit the gap (index 0 is the wild)
            slack = room / (fits + 1)
            if slack > best:
                # Keep a box or two free at each end of the sheet for tiles that will fit nowhere.
                start, end = first, last
                if first == 0:
                    start += min(EDGE_MARGIN, room - 1)
                if last == n - 1:
                    end -= min(EDGE_MARGIN, end - start)
                below = sum(unseen[lo:tile]) + unseen[tile] / 2
                span = end - start + 1
                best, chosen, at = slack, g, start + min(span - 1, int((below + 0.5) * span / (fits + 2)))
    if at >= 0:
        return chosen, at
    return _misfit(gaps, tile, unseen, cells, points)


def gap_choice(cells: Cells, tile: int, unseen: Unseen, points: Sequence[int]) -> int:
    """The box the gap heuristic writes `tile` in."""
    return pick(gaps_of(cells, len(unseen) - 1), tile, unseen, cells, points)[1]


def split(gaps: list[Gap], g: int, at: int, tile: int) -> None:
    """Updates the gaps after `tile` is written in box `at` of gap g (the same as gaps_of would find)."""
    first, last, lo, hi = gaps[g]
    value = _between(lo, hi, at, first, last) if tile == WILD else tile
    left_hi = right_lo = value
    parts = []
    if at > first:
        parts.append((first, at - 1, lo, left_hi))
    if at < last:
        parts.append((at + 1, last, right_lo, hi))
    gaps[g:g + 1] = parts


def play_out(cells: Cells, future: Sequence[int], unseen: Unseen, scorer: Scorer,
             gaps: list[Gap] | None = None) -> int:
    """Plays the future tiles into copies of cells and unseen with the gap heuristic; the final score.
    The gaps are kept up to date as boxes fill instead of being found again each time (for speed)."""
    cells = list(cells)
    unseen = list(unseen)
    gaps = list(gaps) if gaps is not None else gaps_of(cells, len(unseen) - 1)
    points = scorer.points
    empties = cells.count(EMPTY)
    for tile in future:
        unseen[tile] -= 1
        g, at = pick(gaps, tile, unseen, cells, points, empties)
        cells[at] = tile
        empties -= 1
        split(gaps, g, at, tile)
    return scorer(cells)


def play_boxes(cells: Cells, tile: int, boxes: Sequence[int], count: int, seed: int, unseen: Unseen,
               scorer: Scorer) -> list[tuple[int, int]]:
    """For each box: `tile` written there and the same `count` random futures (kernel.futures from
    `seed`, drawn from the unseen tiles) played out with the gap heuristic; the sum of the final
    scores and of their squares. The compiled kernel does it when numba is installed (the same
    numbers, tens of times faster)."""
    pool = [t for t in range(len(unseen)) for _ in range(unseen[t])]  # WILD (0) first
    length = cells.count(EMPTY) - 1
    compiled = scorer.kernel()
    if compiled is None:
        futures = kernel.futures(pool, length, count, seed)
        results = []
        top = len(unseen) - 1
        for box in boxes:
            start = list(cells)
            start[box] = tile
            gaps = gaps_of(start, top)
            scores = [play_out(start, future, unseen, scorer, gaps) for future in futures]
            results.append((sum(scores), sum(s * s for s in scores)))
        return results
    import numpy as np

    sums = np.zeros(len(boxes), np.int64)
    squares = np.zeros(len(boxes), np.int64)
    compiled(np.array(cells, np.int64), tile, np.array(boxes, np.int64), np.array(pool, np.int64), length, count,
             seed, np.array(unseen, np.int64), scorer.points_array, scorer.rules.lowest, sums, squares)
    return list(zip(sums.tolist(), squares.tolist()))
