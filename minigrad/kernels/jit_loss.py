"""numba softmax + cross-entropy kernels (twins of numpy_ref's): one pass per row, no
temporaries. Rows are short (10 classes), so these run serially: threads would cost more."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def cross_entropy_forward(x, target, ignore_index):
    n, c = x.shape
    logp = np.empty((n, c), x.dtype)
    loss = np.zeros(n, x.dtype)
    for r in range(n):
        top = x[r, 0]
        for j in range(1, c):
            top = max(top, x[r, j])
        total = 0.0
        for j in range(c):
            total += np.exp(x[r, j] - top)
        shift = top + np.log(total)
        for j in range(c):
            logp[r, j] = x[r, j] - shift
        if target[r] != ignore_index:
            loss[r] = -logp[r, target[r]]
    return logp, loss


@njit(cache=True)
def nll_loss_backward(coef, target, ignore_index, n_classes):
    out = np.zeros((coef.shape[0], n_classes), coef.dtype)
    for r in range(coef.shape[0]):
        if target[r] != ignore_index:
            out[r, target[r]] = coef[r]
    return out


@njit(cache=True)
def log_softmax_backward(g, logp):
    n, c = g.shape
    out = np.empty((n, c), g.dtype)
    for r in range(n):
        total = g.dtype.type(0)
        for j in range(c):
            total += g[r, j]
        for j in range(c):
            out[r, j] = g[r, j] - np.exp(logp[r, j]) * total
    return out


@njit(cache=True)
def softmax_forward(x):
    n, c = x.shape
    out = np.empty((n, c), x.dtype)
    for r in range(n):
        top = x[r, 0]
        for j in range(1, c):
            v = x[r, j]
            if v > top or v != v:  # (a NaN stays the maximum, as numpy's max keeps it)
                top = v
        total = x.dtype.type(0)
        for j in range(c):
            e = np.exp(x[r, j] - top)
            out[r, j] = e
            total += e
        for j in range(c):
            out[r, j] = out[r, j] / total
    return out


@njit(cache=True)
def softmax_backward(g, out):
    n, c = g.shape
    res = np.empty((n, c), g.dtype)
    for r in range(n):
        total = g.dtype.type(0)
        for j in range(c):
            total += g[r, j] * out[r, j]
        for j in range(c):
            res[r, j] = out[r, j] * (g[r, j] - total)
    return res
