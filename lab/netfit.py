"""Training the digit reader's network (paperplay/scan/net.py): its gradients (backward) and Adam (fit).

The forward pass that `paperplay scan` runs stays in the package; this is the half only training needs
(lab/train.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from paperplay.scan.net import SIZE, Params, forward, softmax

__all__ = ["backward", "fit", "init"]

def init(rng: Any, c1: int = 16, c2: int = 32, hidden: int = 128, extra: int = 130, classes: int = 12) -> Params:
    def he(fan: int, *shape: int) -> Any:
        return rng.normal(0, np.sqrt(2 / fan), size=shape).astype(np.float32)

    flat = (SIZE // 4) ** 2 * c2 + extra
    return {"k1": he(25, 25, c1), "b1": np.zeros(c1, np.float32), "k2": he(9 * c1, 9 * c1, c2),
            "b2": np.zeros(c2, np.float32), "w3": he(flat, flat, hidden), "b3": np.zeros(hidden, np.float32),
            "w4": he(hidden, hidden, classes) * 0.5, "b4": np.zeros(classes, np.float32)}


def _unpatch(grad: Any, shape: tuple[int, ...], k: int) -> Any:
    """The gradient of _patches: patch gradients summed back onto the image."""
    b, h, w, c = shape
    p = k // 2
    g = grad.reshape(b, h, w, k, k, c)
    out = np.zeros((b, h + 2 * p, w + 2 * p, c), np.float32)
    for i in range(k):
        for j in range(k):
            out[:, i:i + h, j:j + w, :] += g[:, :, :, i, j, :]
    return out[:, p:p + h, p:p + w, :]


def _unpool(x: Any, pooled: Any, grad: Any) -> Any:
    up = np.repeat(np.repeat(pooled, 2, axis=1), 2, axis=2)
    return (x == up) * np.repeat(np.repeat(grad, 2, axis=1), 2, axis=2)


def backward(params: Params, cache: Any, dlogits: Any) -> Params:
    """Gradients of every parameter, given the gradient of the loss on the logits."""
    p1_in, a1, m1, p2_in, a2, m2, flat, hidden = cache
    g: Params = {"w4": hidden.T @ dlogits, "b4": dlogits.sum(0)}
    dh = (dlogits @ params["w4"].T) * (hidden > 0)
    g["w3"], g["b3"] = flat.T @ dh, dh.sum(0)
    dm2 = (dh @ params["w3"].T)[:, :m2[0].size].reshape(m2.shape)
    da2 = (_unpool(a2, m2, dm2) * (a2 > 0)).reshape(-1, a2.shape[-1])
    g["k2"], g["b2"] = p2_in.T @ da2, da2.sum(0)
    dm1 = _unpatch(da2 @ params["k2"].T, m1.shape, 3)
    da1 = (_unpool(a1, m1, dm1) * (a1 > 0)).reshape(-1, a1.shape[-1])
    g["k1"], g["b1"] = p1_in.T @ da1, da1.sum(0)
    return g


def _jitter(x: Any, rng: Any) -> Any:
    """The batch's glyphs moved by up to one pixel (the same move for the whole batch)."""
    out = x.copy()
    dy, dx = rng.integers(-1, 2, size=2)
    image = x[:, :SIZE * SIZE].reshape(len(x), SIZE, SIZE)
    out[:, :SIZE * SIZE] = np.roll(np.roll(image, dy, axis=1), dx, axis=2).reshape(len(x), -1)
    return out


def fit(x: Any, y: Any, rng: Any, epochs: int = 8, batch: int = 128, rate: float = 2e-3, decay: float = 1e-4,
        shape: tuple[int, int, int] = (16, 32, 128), log: Any = print) -> Params:
    """Trains a net on feature vectors x and classes y: Adam, cosine learning rate, weight decay."""
    import time

    params = init(rng, *shape, extra=x.shape[1] - SIZE * SIZE)
    m = {k: np.zeros_like(v) for k, v in params.items()}
    v = {k: np.zeros_like(v) for k, v in params.items()}
    step = 0
    for epoch in range(epochs):
        started = time.perf_counter()
        order = rng.permutation(len(x))
        lr = rate * 0.5 * (1 + np.cos(np.pi * epoch / epochs))
        loss = 0.0
        for s in range(0, len(x), batch):
            idx = order[s:s + batch]
            xb = _jitter(x[idx], rng)
            logits, cache = forward(params, xb, keep=True)
            p = softmax(logits)
            rows = np.arange(len(idx))
            loss -= float(np.log(p[rows, y[idx]] + 1e-9).sum())
            p[rows, y[idx]] -= 1
            grads = backward(params, cache, p / len(idx))
            step += 1
            for k in params:
                grad = grads[k] + decay * params[k] if k[0] in "kw" else grads[k]
                m[k] = 0.9 * m[k] + 0.1 * grad
                v[k] = 0.999 * v[k] + 0.001 * grad * grad
                params[k] -= (lr * (m[k] / (1 - 0.9 ** step)) / (np.sqrt(v[k] / (1 - 0.999 ** step)) + 1e-8)
                              ).astype(np.float32)
        log(f"epoch {epoch + 1}/{epochs}: loss {loss / len(x):.4f} ({time.perf_counter() - started:.0f} s)")
    return params
