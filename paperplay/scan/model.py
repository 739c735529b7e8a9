"""The digit reader: a one-hidden-layer network run with numpy from committed weights (digits.npz).

Classes: the digits 0-9, the star (wild) and the empty cell. Trained by paperplay.scan.train.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

CLASSES = 12
STAR = 10
EMPTY = 11
WEIGHTS = Path(__file__).with_name("digits.npz")


def save_model(path: Path, w1: Any, b1: Any, w2: Any, b2: Any, temperature: float) -> None:
    with open(path, "wb") as out:
        np.savez_compressed(out, w1=w1.astype(np.float16), b1=b1.astype(np.float32), w2=w2.astype(np.float16),
                            b2=b2.astype(np.float32), temperature=np.float32(temperature))


@cache
def _models() -> tuple[tuple[Any, Any, Any, Any, float], ...]:
    models = []
    for path in sorted(WEIGHTS.parent.glob("digits*.npz")):
        with np.load(path) as data:
            models.append((data["w1"].astype(np.float32), data["b1"], data["w2"].astype(np.float32), data["b2"],
                           float(data["temperature"])))
    return tuple(models)


def probabilities(features: Any, amounts: Any) -> Any:
    """Class probabilities (n × 12) of n cells, averaged over the committed networks (digits*.npz);
    a cell without any ink is empty for certain."""
    total = None
    models = _models()
    for w1, b1, w2, b2, temperature in models:
        hidden = np.maximum(features @ w1 + b1, 0)
        logits = (hidden @ w2 + b2) / temperature
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        total = p if total is None else total + p
    assert total is not None, "no digit reader weights (paperplay/scan/digits*.npz)"
    p = total / len(models)
    blank = np.asarray(amounts) <= 0
    p[blank] = 0.0
    p[blank, EMPTY] = 1.0
    return p
