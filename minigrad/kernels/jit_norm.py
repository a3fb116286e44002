"""numba twins of numpy_ref's row normalisation (layer_norm, group_norm): one pass per row for
the statistics (accumulated in float64), one for the gradient. numpy needs about ten
temporaries for each; rows are short, so these run serially."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def row_stats(x, eps):
    rows, n = x.shape
    mean = np.empty(rows, x.dtype)
    rstd = np.empty(rows, x.dtype)
    for r in range(rows):
        total = 0.0
        for j in range(n):
            total += np.float64(x[r, j])
        m = total / n
        spread = 0.0
        for j in range(n):
            d = np.float64(x[r, j]) - m
            spread += d * d
        mean[r] = m
        rstd[r] = 1.0 / np.sqrt(spread / n + eps)
    return mean, rstd


@njit(cache=True)
def normalize_backward(gs, x, mean, rstd):
    rows, n = x.shape
    dx = np.empty((rows, n), gs.dtype)
    for r in range(rows):
        db = 0.0
        ds = 0.0
        for j in range(n):
            db += np.float64(gs[r, j])
            ds += np.float64(gs[r, j]) * np.float64(x[r, j])
        m, s = np.float64(mean[r]), np.float64(rstd[r])
        b = (db * m - ds) * (s * s * s) / n
        c = -b * m - db * s / n
        for j in range(n):
            dx[r, j] = np.float64(gs[r, j]) * s + np.float64(x[r, j]) * b + c
    return dx
