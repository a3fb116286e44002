"""numba softmax + cross-entropy kernels (twins of numpy_ref's): one pass per row. Rows are
short, so these run serially (threads would cost more); the exps come from numpy, whose
vectorised exp is several times faster than numba's scalar one."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def log_softmax_and_pick(shifted, e, target, ignore_index):
    """log_softmax from the rows shifted by their max and their exp (numpy's, see
    `shift_by_row_max`); each row's loss -logp[target] and weight (0 where ignored), how many
    rows count, and the first row whose target is out of range (-1: none)."""
    n, c = shifted.shape
    logp = np.empty((n, c), shifted.dtype)
    loss = np.zeros(n, shifted.dtype)
    weights = np.zeros(n, shifted.dtype)
    counted, bad = 0, -1
    for r in range(n):
        total = 0.0
        for j in range(c):
            total += e[r, j]
        lse = np.log(total)
        for j in range(c):
            logp[r, j] = shifted[r, j] - lse
        k = target[r]
        if k == ignore_index:
            continue
        if k < 0 or k >= c:
            if bad < 0:
                bad = r
            continue
        loss[r] = -logp[r, k]
        weights[r] = 1
        counted += 1
    return logp, loss, weights, counted, bad


@njit(cache=True)
def nll_loss_backward(coef, target, ignore_index, n_classes):
    out = np.zeros((coef.shape[0], n_classes), coef.dtype)
    for r in range(coef.shape[0]):
        if target[r] != ignore_index:
            out[r, target[r]] = coef[r]
    return out


@njit(cache=True)
def minus_share_of_row_sum(g, p):
    """g - p * sum(g) per row: log_softmax's backward, given p = exp(logp) (numpy's)."""
    n, c = g.shape
    out = np.empty((n, c), g.dtype)
    for r in range(n):
        total = g.dtype.type(0)
        for j in range(c):
            total += g[r, j]
        for j in range(c):
            out[r, j] = g[r, j] - p[r, j] * total
    return out


@njit(cache=True)
def shift_by_row_max(x):
    """x - max(row) for each row (a NaN stays the maximum, as numpy's max keeps it): numba's
    scalar exp is several times slower than numpy's vectorised one, so softmax takes its exp
    from numpy between this and `divide_by_row_sum`."""
    n, c = x.shape
    out = np.empty((n, c), x.dtype)
    for r in range(n):
        top = x[r, 0]
        for j in range(1, c):
            v = x[r, j]
            if v > top or v != v:
                top = v
        for j in range(c):
            out[r, j] = x[r, j] - top
    return out


@njit(cache=True)
def divide_by_row_sum(e):
    n, c = e.shape
    for r in range(n):
        total = e.dtype.type(0)
        for j in range(c):
            total += e[r, j]
        for j in range(c):
            e[r, j] = e[r, j] / total
    return e


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
