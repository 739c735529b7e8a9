"""From a cell's pixels to what the digit reader sees: ink mask, ink amount, a centred 20×20 glyph.

Numpy and OpenCV only. The same function prepares training samples and cells read from photos,
so the model never sees a difference between the two beyond the pixels themselves.
"""

from __future__ import annotations

from typing import Any

import numpy as np

SIZE = 20
"""The glyph is scaled to fit a 16×16 square and centred by its ink's centre of mass in 20×20."""
FIT = 16
CELLS, BINS = 4, 8
"""Gradient histograms: 4×4 blocks of the 20×20 glyph, 8 directions each."""
FEATURES = SIZE * SIZE + 2 + CELLS * CELLS * BINS
SYMBOLS = ("0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "*")
STAR = 10


def ink_mask(gray: Any) -> Any:
    """Ink (1.0) against paper (0.0) in a grey cell crop (uint8, paper light), lighting evened out.

    The paper level comes from a bright percentile of the crop itself; ink is what is clearly darker.
    """
    import cv2

    g = gray.astype(np.float32)
    paper = float(np.percentile(g, 90))
    if paper < 1:
        return np.zeros_like(g)
    # Darkness relative to the paper, 0 (paper) .. 1 (black). Ink is a soft ramp between 35 % and 70 %
    # of the darkest ink in the cell (faint, blurred strokes count too), if anything is clearly darker.
    dark = 1.0 - g / paper
    darkest = float(np.percentile(dark, 99.7))
    if darkest < 0.2:
        return np.zeros_like(g)
    ink = np.clip((dark - 0.35 * darkest) / (0.35 * darkest), 0.0, 1.0)
    # Drop specks (noise, dust) smaller than ~0.4 % of the cell.
    binary = (ink > 0.5).astype(np.uint8)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(binary, connectivity=8)
    keep = np.zeros(count, dtype=bool)
    least = max(4, int(0.004 * gray.size))
    keep[1:] = stats[1:, cv2.CC_STAT_AREA] >= least
    return ink * keep[labels]


def glyph_features(ink: Any) -> tuple[float, Any]:
    """Returns (ink amount as a fraction of the cell, feature vector) for an ink mask.

    The features: the ink's bounding box scaled (aspect kept) to fit 16×16, centred in 20×20 by
    its centre of mass, then its width/height ratio and its ink amount.
    """
    import cv2

    amount = float(ink.sum()) / ink.size
    ys, xs = np.nonzero(ink > 0.5)
    features = np.zeros(FEATURES, dtype=np.float32)
    if len(xs) == 0:
        return amount, features
    top, bottom, left, right = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    box = ink[top:bottom, left:right].astype(np.float32)
    h, w = box.shape
    scale = FIT / max(h, w)
    nh, nw = max(1, round(h * scale)), max(1, round(w * scale))
    small = cv2.resize(box, (nw, nh), interpolation=cv2.INTER_AREA)
    canvas = np.zeros((SIZE, SIZE), dtype=np.float32)
    total = small.sum()
    if total > 0:
        cy = (small.sum(axis=1) * np.arange(nh)).sum() / total
        cx = (small.sum(axis=0) * np.arange(nw)).sum() / total
    else:
        cy, cx = nh / 2, nw / 2
    oy = int(round(SIZE / 2 - cy - 0.5))
    ox = int(round(SIZE / 2 - cx - 0.5))
    oy = min(max(oy, 0), SIZE - nh)
    ox = min(max(ox, 0), SIZE - nw)
    canvas[oy:oy + nh, ox:ox + nw] = small
    peak = canvas.max()
    if peak > 0:
        canvas /= peak
    features[: SIZE * SIZE] = canvas.ravel()
    features[SIZE * SIZE] = min(w / h, 3.0) / 3.0
    features[SIZE * SIZE + 1] = min(amount * 5, 1.0)
    features[SIZE * SIZE + 2:] = _gradient_histograms(canvas)
    return amount, features


def _gradient_histograms(canvas: Any) -> Any:
    """Directions of the strokes' edges, pooled in 4×4 blocks (a small HOG, in numpy)."""
    import cv2

    smooth = cv2.GaussianBlur(canvas, (0, 0), 0.8)
    gy, gx = np.gradient(smooth)
    magnitude = np.hypot(gx, gy)
    angle = np.arctan2(gy, gx) % (2 * np.pi)
    bins = np.minimum((angle / (2 * np.pi) * BINS).astype(int), BINS - 1)
    step = SIZE // CELLS
    out = np.zeros((CELLS, CELLS, BINS), dtype=np.float32)
    rows, cols = np.indices((SIZE, SIZE))
    np.add.at(out, (np.minimum(rows // step, CELLS - 1), np.minimum(cols // step, CELLS - 1), bins), magnitude)
    total = np.linalg.norm(out)
    return (out / total).ravel() * 4 if total > 0 else out.ravel()
