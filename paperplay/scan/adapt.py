"""Writer adaptation: a sheet's surely read digits teach the reader that writer's hand.

A sheet holds about 30 digits by one writer. The boxes whose tile the draw places beyond doubt (a
wide assignment margin, the free reading agreeing) label their cells: this writer's 2s, 0s and 7s.
Every cell is then read again against them: its embedding (the networks' last hidden layer,
model.read_cells) is compared with the mean embedding of each digit the writer has shown, and a
digit it resembles more than the others gains weight. Pure numpy.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from paperplay.scan.model import CLASSES, EMPTY, STAR
from paperplay.streams.rules import WILD

SURE_MARGIN = 8.0
"""A box labels its cells when the draw places its tile with at least this margin (nats) and its free
reading is that tile."""
WEIGHT = 12.0
"""How strongly likeness to the writer's own digits moves a cell's probabilities: each class's
probability is multiplied by exp(WEIGHT × (its likeness − the best likeness)). Chosen on the
validation sources (python -m lab.train --tune)."""


def cell_labels(cells: Any, readings: Any) -> dict[int, int]:
    """The cells (index into the 40) that sure boxes label, with their class."""
    labels: dict[int, int] = {}
    for r in readings:
        if r.matched is None or r.matched != r.free or r.flagged or r.matched_p is None:
            continue
        if r.matched_p < 1.0 / (1.0 + np.exp(-SURE_MARGIN)):
            continue
        tens, units = 2 * (r.box - 1), 2 * (r.box - 1) + 1
        value = r.matched
        if value == WILD:
            cell = tens if cells[tens][STAR] > cells[units][STAR] else units
            labels[cell] = STAR
        elif value < 10:
            cell = tens if cells[tens][value] > cells[units][value] else units
            labels[cell] = value
        else:
            labels[tens], labels[units] = value // 10, value % 10
    return labels


def adapt(cells: Any, embeddings: Any, labels: dict[int, int], weight: float = WEIGHT) -> Any:
    """The cells' probabilities (40 × 12) read again against the writer's labelled cells: a cell's
    classes are weighed by how much its embedding resembles the writer's mean embedding of each class
    (classes the writer has not shown, and the empty class, keep the likeness of the best class)."""
    if not labels:
        return cells
    units = embeddings / np.maximum(np.linalg.norm(embeddings, axis=1, keepdims=True), 1e-6)
    out = np.array(cells, dtype=np.float64)
    prototypes = {}
    for cls in set(labels.values()):
        members = [i for i, c in labels.items() if c == cls]
        mean = units[members].mean(axis=0)
        prototypes[cls] = mean / max(float(np.linalg.norm(mean)), 1e-6)
    shown = sorted(prototypes)
    likeness = units @ np.array([prototypes[c] for c in shown]).T  # cells × shown classes
    for i in range(len(out)):
        if i in labels:
            continue
        best = float(likeness[i].max())
        factor = np.ones(CLASSES)
        for k, cls in enumerate(shown):
            factor[cls] = np.exp(weight * (float(likeness[i, k]) - best))
        factor[EMPTY] = 1.0
        # classes the writer has not shown keep the factor of the best shown one (nothing is known of them)
        row = out[i] * factor
        out[i] = row / row.sum()
    return out
