"""The digit reader's network: a small convolutional net in plain numpy (the forward pass).

Input: a cell's feature vector (glyphs.FEATURES): the 20×20 glyph, then 130 more numbers (its
width/height ratio, its ink amount, its gradient-direction histograms). The glyph goes through
conv 5×5 (C1 maps) → ReLU → max-pool 2 → conv 3×3 (C2 maps) → ReLU → max-pool 2; the 5×5×C2
maps and the 130 numbers go through a hidden layer (ReLU) to 12 logits (0-9, star, empty).
Convolutions are matrix products over image patches (im2col), so numpy alone runs it; training
(lab/netfit.py, run by lab/train.py) uses the same forward pass plus its gradients and Adam.
"""

from __future__ import annotations

from typing import Any

import numpy as np

SIZE = 20
"""Side of the glyph image at the start of a feature vector."""

Params = dict[str, Any]


def _patches(x: Any, k: int) -> Any:
    """(B, H, W, C) images -> (B·H·W, k·k·C) patches around every pixel (zero padding: same size out)."""
    from numpy.lib.stride_tricks import sliding_window_view

    p = k // 2
    b, h, w, c = x.shape
    padded = np.pad(x, ((0, 0), (p, p), (p, p), (0, 0)))
    view = sliding_window_view(padded, (k, k), axis=(1, 2))  # B, H, W, C, k, k
    return np.ascontiguousarray(view.transpose(0, 1, 2, 4, 5, 3)).reshape(b * h * w, k * k * c)


def _pool(x: Any) -> Any:
    b, h, w, c = x.shape
    return x.reshape(b, h // 2, 2, w // 2, 2, c).max(axis=(2, 4))


def forward(params: Params, x: Any, keep: bool = False) -> Any:
    """Logits (n × 12) of n feature vectors; with keep, also the layers' values (training's backward pass needs
    them; the reader takes the last hidden layer as a cell's embedding)."""
    n = len(x)
    image = x[:, :SIZE * SIZE].reshape(n, SIZE, SIZE, 1)
    p1_in = _patches(image, 5)
    a1 = np.maximum(p1_in @ params["k1"] + params["b1"], 0).reshape(n, SIZE, SIZE, -1)
    m1 = _pool(a1)
    p2_in = _patches(m1, 3)
    a2 = np.maximum(p2_in @ params["k2"] + params["b2"], 0).reshape(n, SIZE // 2, SIZE // 2, -1)
    m2 = _pool(a2)
    flat = np.hstack([m2.reshape(n, -1), x[:, SIZE * SIZE:]])
    hidden = np.maximum(flat @ params["w3"] + params["b3"], 0)
    logits = hidden @ params["w4"] + params["b4"]
    return (logits, (p1_in, a1, m1, p2_in, a2, m2, flat, hidden)) if keep else logits


def softmax(logits: Any) -> Any:
    z = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)
