"""A compiled play-out kernel for the coach, used when numba is installed (`pip install '.[fast]'`).

`play_boxes` plays every future into every box's start with the gap heuristic and returns each
box's sum and sum of squares of final scores. It is a port of coach.play_out/pick/split/Scorer to
arrays, and gives the same results (tests compare them over many positions): the same integer
arithmetic, the same floating-point expressions in the same order, Python's round-half-to-even.
Without numba, or with PAPERPLAY_NO_JIT=1, `load()` returns None and the coach plays out in Python.
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Callable
from typing import Any

from paperplay.errors import debugging
from paperplay.processes import fragile
from paperplay.streams.rules import EMPTY, WILD

EDGE_MARGIN = 2
"""The gap heuristic's boxes kept free at each end of the sheet for misfits (fewer in a run of
empty boxes too short to spare them), here for the kernel and the coach alike (tuned by simulation:
the heuristic's mean rose from 40.5 to 45.9 with a margin of 2, to 48.1 with it kept in short runs
too, with misfits one box in and the wild where it saves a break)."""
MISFIT_SLACK_WEIGHT = 3.0
"""How much room to spare counts against the points a misfit's break costs (tuned by simulation)."""
WILD_SHORTFALL = 1.0
"""Added to a run's expected unfilled boxes when it has any, in choosing the wild's run: so a break's
cost weighs more than a fraction of a box (tuned by simulation, see coach._wild)."""


def _round_half_even(x: float) -> int:
    f = math.floor(x)
    d = x - f
    if d > 0.5 or (d == 0.5 and f % 2 == 1):
        return int(f) + 1
    return int(f)


def _between(lo: int, hi: int, box: int, first: int, last: int) -> int:
    return lo + _round_half_even((hi - lo) * (box - first + 1) / (last - first + 2))


def _gaps_of(cells: Any, top: int, gaps: Any) -> int:
    """Fills gaps (rows first, last, lo, hi) for cells; returns how many."""
    n = cells.shape[0]
    values = cells.copy()
    for i in range(n):
        if cells[i] == WILD:
            left = -1
            for k in range(i - 1, -1, -1):
                if values[k] > 0:
                    left = k
                    break
            right = n
            for k in range(i + 1, n):
                if cells[k] > 0:
                    right = k
                    break
            lo = values[left] if left >= 0 else 1
            hi = cells[right] if right < n else top
            values[i] = _between(lo, hi, i, left + 1, right - 1)
    count = 0
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
        gaps[count, 0] = i
        gaps[count, 1] = j
        gaps[count, 2] = lower
        gaps[count, 3] = values[j + 1] if j + 1 < n else top
        count += 1
        i = j + 1
    return count


def _series(cells: Any, starts: Any, ends: Any) -> None:
    """coach._breaks and coach._series for every box at once: starts and ends."""
    n = cells.shape[0]
    previous = 0
    start = 0
    for i in range(n):
        c = cells[i]
        if c > 0:
            if c < previous:
                start = i
            previous = c
        starts[i] = start
    end = n - 1
    for i in range(n - 1, -1, -1):
        ends[i] = end
        if starts[i] == i:
            end = i - 1


def _misfit(gaps: Any, count: int, tile: int, pre: Any, cells: Any, points: Any, starts: Any,
            ends: Any) -> tuple[int, int]:
    _series(cells, starts, ends)
    best = math.inf
    chosen = 0
    at = 0
    for g in range(count):
        first, last, lo, hi = gaps[g, 0], gaps[g, 1], gaps[g, 2], gaps[g, 3]
        box = last if tile > hi else first
        start, end = starts[box], ends[box]
        if tile > hi:
            left, right = box - start + 1, end - box
        else:
            left, right = box - start, end - box + 1
        cost = 0
        if not (lo > hi or left <= 0 or right <= 0):
            cost = points[end - start + 1] - points[left] - points[right]
        fits = pre[hi + 1] - pre[lo] if lo <= hi else 0
        key = cost - MISFIT_SLACK_WEIGHT * (last - first + 1) / (fits + 1)
        if key < best:
            best, chosen, at = key, g, box
    first, last, lo, hi = gaps[chosen, 0], gaps[chosen, 1], gaps[chosen, 2], gaps[chosen, 3]
    if lo <= hi and last > first:
        at = last - 1 if at == last else first + 1
    return chosen, at


def _wild(gaps: Any, count: int, pre: Any, cells: Any, empties: int, points: Any, starts: Any,
          ends: Any) -> tuple[int, int]:
    n = cells.shape[0]
    total = max(1, pre[pre.shape[0] - 1])
    _series(cells, starts, ends)
    inner = False
    for g in range(count):
        if gaps[g, 2] <= gaps[g, 3] and gaps[g, 0] > 0 and gaps[g, 1] < n - 1:
            inner = True
    best = -math.inf
    chosen = -1
    at = -1
    for g in range(count):
        first, last, lo, hi = gaps[g, 0], gaps[g, 1], gaps[g, 2], gaps[g, 3]
        if lo > hi or (inner and (first == 0 or last == n - 1)):
            continue
        box = (first + last) // 2
        start, end = starts[box], ends[box]
        cost = points[end - start + 1] - points[box - start] - points[end - box]
        shortfall = (last - first + 1) - (pre[hi + 1] - pre[lo]) * (empties - 1) / total
        if shortfall > 0:
            shortfall += WILD_SHORTFALL
        key = shortfall * (cost + 1)
        if key > best:
            best, chosen, at = key, g, box
    if chosen >= 0:
        return chosen, at
    chosen = 0
    size = -1
    for g in range(count):
        if gaps[g, 1] - gaps[g, 0] > size:
            size = gaps[g, 1] - gaps[g, 0]
            chosen = g
    return chosen, (gaps[chosen, 0] + gaps[chosen, 1]) // 2


def _pick(gaps: Any, count: int, tile: int, unseen: Any, pre: Any, cells: Any, empties: int, points: Any,
          starts: Any, ends: Any) -> tuple[int, int]:
    n = cells.shape[0]
    if tile == WILD:
        return _wild(gaps, count, pre, cells, empties, points, starts, ends)
    best = -1.0
    chosen = -1
    at = -1
    for g in range(count):
        first, last, lo, hi = gaps[g, 0], gaps[g, 1], gaps[g, 2], gaps[g, 3]
        if lo <= tile <= hi:
            room = last - first + 1
            fits = pre[hi + 1] - pre[lo]
            slack = room / (fits + 1)
            if slack > best:
                start, end = first, last
                if first == 0:
                    start += min(EDGE_MARGIN, room - 1)
                if last == n - 1:
                    end -= min(EDGE_MARGIN, end - start)
                below = pre[tile] - pre[lo] + unseen[tile] / 2
                span = end - start + 1
                best, chosen = slack, g
                at = start + min(span - 1, int((below + 0.5) * span / (fits + 2)))
    if at >= 0:
        return chosen, at
    return _misfit(gaps, count, tile, pre, cells, points, starts, ends)


def _split(gaps: Any, count: int, g: int, at: int, tile: int) -> int:
    first, last, lo, hi = gaps[g, 0], gaps[g, 1], gaps[g, 2], gaps[g, 3]
    value = _between(lo, hi, at, first, last) if tile == WILD else tile
    parts = (1 if at > first else 0) + (1 if at < last else 0)
    shift = parts - 1
    if shift > 0:
        for k in range(count - 1, g, -1):
            gaps[k + 1, :] = gaps[k, :]
    elif shift < 0:
        for k in range(g + 1, count):
            gaps[k - 1, :] = gaps[k, :]
    k = g
    if at > first:
        gaps[k, 0], gaps[k, 1], gaps[k, 2], gaps[k, 3] = first, at - 1, lo, value
        k += 1
    if at < last:
        gaps[k, 0], gaps[k, 1], gaps[k, 2], gaps[k, 3] = at + 1, last, value, hi
    return count + shift


def _runs(cells: Any, points: Any) -> int:
    total = 0
    run = 1
    previous = cells[0]
    for i in range(1, cells.shape[0]):
        value = cells[i]
        if value >= previous:
            run += 1
        else:
            total += points[run]
            run = 1
        previous = value
    return total + points[run]


def _score(cells: Any, points: Any, lowest: int) -> int:
    n = cells.shape[0]
    at = -1
    for i in range(n):
        if cells[i] == WILD:
            at = i
            break
    if at < 0:
        return _runs(cells, points)
    row = cells.copy()
    best = 0
    tried = False
    if at > 0:
        row[at] = cells[at - 1]
        best = max(best, _runs(row, points))
        tried = True
    if at + 1 < n:
        row[at] = cells[at + 1]
        best = max(best, _runs(row, points))
        tried = True
    if not tried:
        row[at] = lowest
        best = max(best, _runs(row, points))
    return best


MASK = (1 << 64) - 1
GOLDEN, MIX1, MIX2 = 0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB


def futures(pool: list[int], length: int, count: int, seed: int) -> list[list[int]]:
    """`count` random futures of `length` tiles drawn from `pool` without replacement: a partial
    Fisher-Yates shuffle of the pool per future, driven by splitmix64 from `seed` (0 <= seed < 2**63).
    The compiled kernel draws the very same futures."""
    state = seed
    result = []
    bag = list(pool)
    size = len(bag)
    for _ in range(count):
        for i in range(length):
            state = (state + GOLDEN) & MASK
            z = ((state ^ (state >> 30)) * MIX1) & MASK
            z = ((z ^ (z >> 27)) * MIX2) & MASK
            j = i + (z ^ (z >> 31)) % (size - i)
            bag[i], bag[j] = bag[j], bag[i]
        result.append(bag[:length])
    return result


def _futures(pool: Any, length: int, count: int, seed: int, out: Any) -> None:
    """futures() into out (count x length), in unsigned 64-bit arithmetic."""
    state = np.uint64(seed)
    bag = pool.copy()
    size = pool.shape[0]
    for f in range(count):
        for i in range(length):
            state = state + np.uint64(GOLDEN)
            z = (state ^ (state >> np.uint64(30))) * np.uint64(MIX1)
            z = (z ^ (z >> np.uint64(27))) * np.uint64(MIX2)
            z = z ^ (z >> np.uint64(31))
            j = i + np.int64(z % np.uint64(size - i))
            bag[i], bag[j] = bag[j], bag[i]
            out[f, i] = bag[i]


def _play_boxes(cells: Any, tile: int, boxes: Any, pool: Any, length: int, count: int, seed: int, unseen: Any,
                points: Any, lowest: int, sums: Any, squares: Any) -> None:
    """For each box: writes tile there, plays each of the `count` futures(pool, length, count, seed)
    with the gap heuristic and adds the final scores to sums[k] and their squares to squares[k]."""
    futures = np.zeros((count, length), np.int64)
    _futures(pool, length, count, seed, futures)
    n = cells.shape[0]
    top = unseen.shape[0] - 1
    gaps0 = np.zeros((n + 1, 4), np.int64)
    gaps = np.zeros((n + 1, 4), np.int64)
    pre = np.zeros(top + 2, np.int64)
    starts = np.zeros(n, np.int64)
    ends = np.zeros(n, np.int64)
    row = cells.copy()
    left = unseen.copy()
    for k in range(boxes.shape[0]):
        start = cells.copy()
        start[boxes[k]] = tile
        count0 = _gaps_of(start, top, gaps0)
        empties0 = 0
        for i in range(n):
            if start[i] == EMPTY:
                empties0 += 1
        total = 0
        total2 = 0
        for f in range(futures.shape[0]):
            row[:] = start
            left[:] = unseen
            gaps[:count0, :] = gaps0[:count0, :]
            count = count0
            empties = empties0
            for s in range(futures.shape[1]):
                t = futures[f, s]
                left[t] -= 1
                acc = 0
                for v in range(top + 1):
                    pre[v] = acc
                    acc += left[v]
                pre[top + 1] = acc
                g, at = _pick(gaps, count, t, left, pre, row, empties, points, starts, ends)
                row[at] = t
                empties -= 1
                count = _split(gaps, count, g, at, t)
            result = _score(row, points, lowest)
            total += result
            total2 += result * result
        sums[k] += total
        squares[k] += total2


np: Any = None
_compiled: Callable[..., None] | None = None
_tried = False
SIGNATURE = "void(i8[:], i8, i8[:], i8[:], i8, i8, i8, i8[:], i8[:], i8, i8[:], i8[:])"
SLOW_NOTICE_AFTER = 1.5
"""Seconds of loading after which `notice` is called (the first use after installing compiles)."""


notice: Callable[[], None] | None = None
"""Called (from a timer thread) when loading takes a while: the command line says it is compiling."""


def load() -> Callable[..., None] | None:
    """The compiled `_play_boxes`, or None without numba (or with PAPERPLAY_NO_JIT=1). The first
    call after installing compiles it (some seconds; `notice` is called if it takes a while) into
    numba's cache, later ones load it from there (about 0.7 s with numba's import)."""
    global _compiled, _tried
    if _tried:
        return _compiled
    _tried = True
    if os.environ.get("PAPERPLAY_NO_JIT"):
        return None
    with fragile():  # a Ctrl-C raised part-way through numba's import or compiling can crash it
        _compiled = _compile()
    return _compiled


def _compile() -> Callable[..., None] | None:
    global np
    try:
        import numba
        import numpy
    except ImportError:
        return None
    np = numpy
    timer = threading.Timer(SLOW_NOTICE_AFTER, notice) if notice is not None else None
    if timer is not None:
        timer.daemon = True
        timer.start()
    try:
        g = globals()
        helpers = ("_round_half_even", "_between", "_gaps_of", "_series", "_misfit", "_wild", "_pick", "_split",
                   "_runs", "_score", "_futures")
        for name in helpers:  # compiled only when _play_boxes is (its cache holds them all)
            g[name] = numba.njit(g[name])
        compiled: Callable[..., None] = numba.njit(SIGNATURE, cache=True, nogil=True)(_play_boxes)
        return compiled
    except Exception:  # a numba that cannot compile it: the plain-Python play-outs give the same results
        if debugging():
            raise
        return None
    finally:
        if timer is not None:
            timer.cancel()
