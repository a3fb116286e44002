"""numba elementwise kernels (twins of numpy_ref's) on flat, contiguous arrays: one pass and no
temporaries, where numpy's maximum and its boolean masks take three."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def relu_forward(x):
    out = np.empty_like(x)
    for i in range(x.size):
        v = x[i]
        out[i] = v if v > 0 or v != v else 0  # NaN stays NaN
    return out


@njit(cache=True)
def relu_backward(g, result):
    out = np.empty_like(g)
    for i in range(g.size):
        out[i] = 0 if result[i] <= 0 else g[i]  # NaN lets the gradient through, as in torch
    return out
