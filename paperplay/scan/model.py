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
def _weights(path: Path = WEIGHTS) -> tuple[Any, Any, Any, Any, float]:
    with np.load(path) as data:
        return (data["w1"].astype(np.float32), data["b1"], data["w2"].astype(np.float32), data["b2"],
                float(data["temperature"]))


def probabilities(features: Any, amounts: Any) -> Any:
    """Class probabilities (n × 12) of n cells; a cell without any ink is empty for certain."""
    w1, b1, w2, b2, temperature = _weights()
    hidden = np.maximum(features @ w1 + b1, 0)
    logits = (hidden @ w2 + b2) / temperature
    logits -= logits.max(axis=1, keepdims=True)
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)
    blank = np.asarray(amounts) <= 0
    p[blank] = 0.0
    p[blank, EMPTY] = 1.0
    return p
