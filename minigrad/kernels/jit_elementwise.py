"""numba relu kernels (twins of numpy_ref's) on flat, contiguous arrays: one pass and no
temporaries, where numpy's maximum and its boolean masks take three.

Each comes twice: serial, and spread over threads for large arrays. The threaded one splits the
array as the conv and pool kernels split their batch, so each core goes on with the part of the
activations already in its own cache (measured: the W3 epoch 35.2 -> 34.4 ms)."""

from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(inline="always")
def _relu(v):
    return 0 if v < 0 else v  # NaN stays NaN, and so does -0.0 (PyTorch keeps x where x == 0)


@njit(inline="always")
def _relu_grad(g, result):
    return 0 if result <= 0 else g  # NaN lets the gradient through, as in torch


@njit(cache=True)
def relu_forward(x):
    out = np.empty_like(x)
    for i in range(x.size):
        out[i] = _relu(x[i])
    return out


@njit(parallel=True, cache=True)
def relu_forward_threads(x):
    out = np.empty_like(x)
    for i in prange(x.size):
        out[i] = _relu(x[i])
    return out


@njit(cache=True)
def relu_backward(g, result):
    out = np.empty_like(g)
    for i in range(g.size):
        out[i] = _relu_grad(g[i], result[i])
    return out


@njit(parallel=True, cache=True)
def relu_backward_threads(g, result):
    out = np.empty_like(g)
    for i in prange(g.size):
        out[i] = _relu_grad(g[i], result[i])
    return out
