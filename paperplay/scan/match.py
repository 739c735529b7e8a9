"""From cell probabilities to box readings, and the most likely placement of the drawn tiles.

Pure numpy. A box holds one of 1-30 or the wild; its probabilities come from its tens and units
cells. With the draw known, the 20 drawn tiles are assigned to the 20 boxes by the assignment of
greatest joint probability (the Hungarian algorithm on -log p).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from paperplay.scan.model import EMPTY, STAR
from paperplay.streams.rules import WILD, Tile, tile_text

VALUES: tuple[Tile, ...] = (*range(1, 31), WILD)
"""What a box can hold, in this order (index 30 is the wild)."""
FLOOR = 1e-6
EVEN = 0.5
"""A matched box is also flagged when its own reading gives the placed tile less than an even chance
(chosen with the threshold on validation sources: python -m paperplay.scan.train --tune)."""


@cache
def bag_prior() -> Any:
    """How often each of VALUES is in the published game's bag (11-19 twice, the others once)."""
    from paperplay.streams.rules import standard_rules

    bag = list(standard_rules().bag)
    return np.array([bag.count(v) or 1 for v in VALUES], dtype=np.float64)


def box_probabilities(cells: Any) -> Any:
    """(20 × 31) probabilities of each box's value from (40 × 12) cell probabilities (tens, units, …).

    A one-digit number may stand in either cell (or after a 0); the wild is a star in either cell.
    Each value is weighted by how often it is in the bag (bag_prior). Rows are normalised over the
    31 values: an impossible reading such as 45 or an empty box adds nothing.
    """
    boxes = len(cells) // 2
    out = np.zeros((boxes, len(VALUES)))
    for b in range(boxes):
        t, u = cells[2 * b], cells[2 * b + 1]
        for v in range(1, 10):
            out[b, v - 1] = t[EMPTY] * u[v] + t[0] * u[v] + t[v] * u[EMPTY]
        for v in range(10, 31):
            out[b, v - 1] = t[v // 10] * u[v % 10]
        out[b, 30] = t[STAR] * u[EMPTY] + t[EMPTY] * u[STAR] + t[STAR] * u[STAR]
    out = (out + FLOOR) * bag_prior()
    return out / out.sum(axis=1, keepdims=True)


def hungarian(cost: Any) -> list[int]:
    """For a square cost matrix, the column assigned to each row with the least total cost."""
    cost = np.asarray(cost, dtype=np.float64)
    n = cost.shape[0]
    u = np.zeros(n + 1)
    v = np.zeros(n + 1)
    p = np.zeros(n + 1, dtype=int)  # p[j]: row matched to column j (1-based; 0 = none)
    way = np.zeros(n + 1, dtype=int)
    for i in range(1, n + 1):
        p[0] = i
        j0 = 0
        minv = np.full(n + 1, np.inf)
        used = np.zeros(n + 1, dtype=bool)
        while True:
            used[j0] = True
            i0 = p[j0]
            cur = cost[i0 - 1] - u[i0] - v[1:]
            free = ~used[1:]
            better = free & (cur < minv[1:])
            minv[1:][better] = cur[better]
            way[1:][better] = j0
            candidates = np.where(free, minv[1:], np.inf)
            j1 = int(np.argmin(candidates)) + 1
            delta = candidates[j1 - 1]
            u[p[used]] += delta
            v[used] -= delta
            minv[1:][free] -= delta
            j0 = j1
            if p[j0] == 0:
                break
        while j0:
            j1 = way[j0]
            p[j0] = p[j1]
            j0 = j1
    result = [0] * n
    for j in range(1, n + 1):
        result[p[j] - 1] = j - 1
    return result


@dataclass(frozen=True)
class BoxReading:
    box: int
    """1-based."""
    free: Tile
    free_p: float
    matched: Tile | None
    matched_p: float | None
    flagged: bool
    why: str

    @property
    def value(self) -> Tile:
        return self.matched if self.matched is not None else self.free


def swap_confidence(probs: Any, matched: Sequence[int]) -> Any:
    """How sure the placement is of each box's tile: against every placement that swaps its tile
    with another box's (different) tile, 1 / (1 + sum of their likelihood ratios)."""
    logp = np.log(probs)
    a = logp[:, list(matched)]  # a[j, k]: log p of box j holding the tile placed in box k
    own = np.diag(a)
    delta = own[:, None] + own[None, :] - a - a.T  # how much less likely the swap of j and k is
    same = np.equal.outer(np.asarray(matched), np.asarray(matched))
    ratios = np.where(same, 0.0, np.exp(-np.clip(delta, -50, 50)))
    return 1.0 / (1.0 + ratios.sum(axis=1))


def read_boxes(probs: Any, drawn: Sequence[Tile] | None, threshold: float,
               blank: Sequence[int] = ()) -> list[BoxReading]:
    """Free readings, matched ones (with a draw), and a flag on every box that a person should check:
    a `blank` box (1-based: nothing written in it), free and matched readings disagree, or the reading
    is less sure than `threshold` (free: its probability; matched: its confidence against swapping
    tiles with another box, or the box's own probability of the placed tile below EVEN)."""
    free_idx = probs.argmax(axis=1)
    matched: list[int] | None = None
    sure = probs.max(axis=1)
    if drawn is not None:
        tiles = [VALUES.index(t) for t in drawn]
        cost = -np.log(probs[:, tiles].T)  # rows: drawn tiles, columns: boxes
        matched = [0] * len(probs)
        for tile_row, box in enumerate(hungarian(cost)):
            matched[box] = tiles[tile_row]
        sure = swap_confidence(probs, matched)
    readings = []
    for b, f in enumerate(free_idx):
        m = None if matched is None else matched[b]
        why = ""
        if b + 1 in blank:
            why = "nothing written"
        elif m is not None and m != f:
            why = f"read {tile_text(VALUES[f])}, the draw fits {tile_text(VALUES[m])}"
        elif sure[b] < threshold or (m is not None and probs[b, m] < EVEN):
            # rounded down: a 97.7 % reading is not shown as the 98 % that would not have been flagged
            why = f"unsure ({math.floor(100 * min(sure[b], probs[b, f if m is None else m]) + 1e-9)}%)"  # 0.57: 57
        readings.append(BoxReading(b + 1, VALUES[f], float(probs[b, f]), None if m is None else VALUES[m],
                                   None if m is None else float(sure[b]), bool(why), why))
    return readings
