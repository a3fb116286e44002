"""numba max-pool kernels (twins of numpy_ref's). One (sample, channel) plane per prange step:
a window's indices never leave its plane, so the backward scatter needs no locks."""

from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(parallel=True, cache=True)
def max_pool2d_forward(x, k, stride, pad):
    n, c, h, w = x.shape
    ho = (h + 2 * pad - k) // stride + 1
    wo = (w + 2 * pad - k) // stride + 1
    values = np.empty((n, c, ho, wo), x.dtype)
    indices = np.empty((n, c, ho, wo), np.int64)
    for plane in prange(n * c):
        b, ci = plane // c, plane % c
        base = plane * h * w
        for y in range(ho):
            for xo in range(wo):
                best = x[b, ci, 0, 0]
                where = -1
                for i in range(k):
                    iy = y * stride - pad + i
                    if iy < 0 or iy >= h:
                        continue
                    for j in range(k):
                        ix = xo * stride - pad + j
                        if ix < 0 or ix >= w:
                            continue
                        v = x[b, ci, iy, ix]
                        # first maximum wins; a NaN beats every number (numpy's argmax rule)
                        if where < 0 or v > best or (v != v and best == best):
                            best = v
                            where = iy * w + ix
                values[b, ci, y, xo] = best
                indices[b, ci, y, xo] = base + where
    return values, indices


@njit(parallel=True, cache=True)
def max_pool2d_backward(g, indices, x_shape):
    n, c, h, w = x_shape
    out = np.zeros(n * c * h * w, g.dtype)
    ho, wo = g.shape[2], g.shape[3]
    for plane in prange(n * c):
        b, ci = plane // c, plane % c
        for y in range(ho):
            for xo in range(wo):
                out[indices[b, ci, y, xo]] += g[b, ci, y, xo]
    return out.reshape((n, c, h, w))
