"""The digit reader: small convolutional networks (paperplay.scan.net) run with numpy from
committed weights (ENSEMBLE: digits.npz and digits-2.npz, averaged).

Classes: the digits 0-9, the star (wild) and the empty cell. Trained by lab/train.py (outside the
package). Photos coarser than LOW_RES are read by a net of their own (digits-low.npz), trained on such
photos. The weight files are named here one by one: no other file beside them joins the reader.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from paperplay.scan.net import Params, forward, softmax

CLASSES = 12
STAR = 10
EMPTY = 11
HERE = Path(__file__).parent
ENSEMBLE = (HERE / "digits.npz", HERE / "digits-2.npz")
"""The networks whose probabilities are averaged (pyproject's package-data lists the same files)."""
LOW_WEIGHTS = HERE / "digits-low.npz"
LOW_RES = 4.0
"""A photo with fewer pixels a millimetre than this across its boxes (digits under about 36 px tall) is read by
the low-resolution net alone (LOW_WEIGHTS): on the validation writers' photos below it, 96.4 % of boxes right
after matching, 25.5 % flagged (match.LOW_MARGIN), where the two nets had 93.1 % right and 31.3 % flagged at
the smaller margin (python -m lab.train --tune)."""


@cache
def _models(low: bool = False) -> tuple[tuple[Params, float], ...]:
    models = []
    for path in (LOW_WEIGHTS,) if low else ENSEMBLE:
        with np.load(path) as data:
            params = {k: data[k].astype(np.float32) for k in data.files if k != "temperature"}
            models.append((params, float(data["temperature"])))
    return tuple(models)


def read_cells(features: Any, amounts: Any, low: bool = False) -> tuple[Any, Any]:
    """Class probabilities (n × 12) of n cells, averaged over the committed networks (ENSEMBLE; with `low`,
    the low-resolution one, digits-low.npz; a cell without any ink is empty for certain), and each cell's
    embedding: the networks' last hidden layers, each scaled to length 1 and put side by side (for writer
    adaptation: paperplay.scan.adapt)."""
    models = _models(low)
    assert models, "no digit reader weights (paperplay/scan/digits.npz)"
    x = np.asarray(features, dtype=np.float32)
    p, parts = 0.0, []
    for params, temperature in models:
        logits, cache = forward(params, x, keep=True)
        p = p + softmax(logits / temperature)
        hidden = cache[-1]
        parts.append(hidden / np.maximum(np.linalg.norm(hidden, axis=1, keepdims=True), 1e-6))
    p = p / len(models)
    blank = np.asarray(amounts) <= 0
    p[blank] = 0.0
    p[blank, EMPTY] = 1.0
    return p, np.hstack(parts)


def probabilities(features: Any, amounts: Any) -> Any:
    """Class probabilities (n × 12) of n cells, averaged over the committed networks (ENSEMBLE);
    a cell without any ink is empty for certain."""
    return read_cells(features, amounts)[0]
