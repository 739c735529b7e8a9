"""From cell probabilities to box readings, and the most likely placement of the drawn tiles.

Pure numpy. A box holds one of 1-30 or the wild; its probabilities come from its tens and units
cells. With the draw known, the 20 drawn tiles are assigned to the 20 boxes by the assignment of
greatest joint probability (the Hungarian algorithm on -log p).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

import numpy as np

from paperplay.scan.model import EMPTY, STAR
from paperplay.streams.rules import WILD, Tile, tile_text

VALUES: tuple[Tile, ...] = (*range(1, 31), WILD)
"""What a box can hold, in this order (index 30 is the wild)."""
FLOOR = 1e-6


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
    kept_free: bool = False
    """A sure free reading kept against a weak matched tile (read_boxes)."""

    @property
    def value(self) -> Tile:
        """The tile the box is scored with."""
        return self.matched if self.matched is not None and not self.kept_free else self.free


MARGIN = 4.0
"""A matched box is flagged when the best placement of the draw that puts another tile in it is less than
this much less likely (in nats: e^4, about 55 times) than the best placement of all (the assignment's
margin for that box). Chosen on the validation sources (python -m lab.train --tune)."""
LOW_MARGIN = 5.0
"""MARGIN for a photo read by the low-resolution net (model.LOW_RES): its coarse cells' probabilities are less
well calibrated (on the validation photos under 4 px/mm, a box was wrong with a margin of 4.07 nats; none
above 4.5)."""
SURE_FREE = 0.99
"""A free reading at least this sure is not overruled by the draw: where the matched tile differs, the box is
flagged, and it keeps the free reading unless its own reading gives the matched tile at least WEAK."""
WEAK = 0.05
SUPPORT = 0.1
"""A matched tile that differs from the free reading is flagged when the box's own reading gives it less than
this, whatever the margin: the draw alone would "correct" a number the player wrote but was never drawn."""
BIG = 1e6


def assignment(probs: Any, tiles: Sequence[int]) -> tuple[list[int], Any]:
    """The most likely placement of the drawn tiles (indexes into VALUES) in the boxes, and each box's
    margin: how much less likely (nats) the best placement is that puts any other value in that box."""
    cost = -np.log(probs[:, list(tiles)].T)  # rows: drawn tiles, columns: boxes
    rows = hungarian(cost)
    matched = [0] * len(probs)
    for tile_row, box in enumerate(rows):
        matched[box] = tiles[tile_row]
    best = float(sum(cost[r, b] for r, b in enumerate(rows)))
    values = np.asarray(tiles)
    margins = np.zeros(len(probs))
    for box, value in enumerate(matched):
        other = values != value
        if not other.any():  # every drawn tile is this value: no other placement exists
            margins[box] = np.inf
            continue
        forbidden = cost.copy()
        forbidden[~other, box] = BIG
        again = hungarian(forbidden)
        margins[box] = float(sum(forbidden[r, b] for r, b in enumerate(again))) - best
    return matched, margins


def read_boxes(probs: Any, drawn: Sequence[Tile] | None, threshold: float, blank: Sequence[int] = (),
               unreadable: Sequence[int] = (), margin: float = MARGIN, linked: bool = True) -> list[BoxReading]:
    """Free readings, matched ones (with a draw), and a flag on every box that a person should check.

    Flagged: a `blank` box (1-based: nothing written in it); a box with an `unreadable` inked cell;
    without a draw, a free reading less sure than `threshold`; with a draw, a box whose assignment margin
    is under `margin`, or whose free reading is sure (SURE_FREE) and differs from the matched tile (then
    the free reading is kept where the box's own reading gives the matched tile less than WEAK). A sheet
    holds one wild: where several boxes read as the wild, all but the likeliest are read as their likeliest
    number, and flagged."""
    free_idx = probs.argmax(axis=1)
    wild = len(VALUES) - 1
    wilds = [b for b, f in enumerate(free_idx) if f == wild]
    second_wilds = [b for b in wilds if b != max(wilds, key=lambda w: probs[w, wild])]
    for b in second_wilds:
        free_idx[b] = int(probs[b, :wild].argmax())
    matched: list[int] | None = None
    margins = None
    if drawn is not None:
        matched, margins = assignment(probs, [VALUES.index(t) for t in drawn])
    readings = []
    for b, f in enumerate(free_idx):
        free_p = float(probs[b, f])
        why = ""
        if b + 1 in blank:
            why = "nothing written"
        elif b + 1 in unreadable:
            why = "a written digit could not be read"
        elif b in second_wilds:
            why = "read as a second wild; a sheet has one"
        if matched is None or margins is None:
            if not why and free_p < threshold:
                why = f"unsure ({math.floor(100 * free_p + 1e-9)}%)"  # rounded down: 0.57 is 57 %
            readings.append(BoxReading(b + 1, VALUES[f], free_p, None, None, bool(why), why))
            continue
        m = matched[b]
        # (a sure wild is not kept against the draw's own wild, placed in another box: a sheet has one)
        keep_free = m != f and free_p >= SURE_FREE and probs[b, m] < WEAK and not (f == wild and wild in matched)
        if not why and m != f and (free_p >= SURE_FREE or probs[b, m] < SUPPORT):
            why = f"read {tile_text(VALUES[f])}, the draw fits {tile_text(VALUES[m])}"
        elif not why and margins[b] < margin:
            why = (f"unsure: {tile_text(VALUES[m])} or another drawn tile" if m == f else
                   f"read {tile_text(VALUES[f])}, the draw fits {tile_text(VALUES[m])}")
        sure = 1.0 / (1.0 + math.exp(-min(float(margins[b]), 50.0)))
        readings.append(BoxReading(b + 1, VALUES[f], free_p, VALUES[m], sure, bool(why), why, bool(keep_free)))
    return _linked(readings) if linked else readings


def _linked(readings: list[BoxReading]) -> list[BoxReading]:
    """With `linked` (read_boxes): a flagged box whose own reading is another drawn tile also flags the box that
    tile was placed in: if the reading is right, the two boxes were swapped (a box 10 written 19, read 17 and
    flagged, left a sure-looking 19 in box 15, written 17, unflagged)."""
    disputed = {r.free: r.box for r in readings if r.flagged and r.matched is not None and r.free != r.matched}
    return [replace(r, flagged=True, why=f"box {disputed[r.value]} reads {tile_text(r.value)} too")
            if not r.flagged and r.value in disputed else r for r in readings]
