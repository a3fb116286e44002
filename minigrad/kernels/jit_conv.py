"""numba conv2d kernels: forward, input, weight and bias gradients (twins of numpy_ref's).

Images in lessons are small (8x8 digits) and channels few (16-32), so every kernel keeps the
output-channel axis innermost and contiguous: that loop vectorizes, the spatial loops are too
short to. Samples are spread over threads with prange; the weight gradient sums over samples,
so each of `parts` sample ranges (one per thread, chosen by the caller) fills its own partial
sum. Inputs must be C-contiguous (jit.py ensures it).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

# Reassociation lets LLVM vectorize the sums; no nnan/ninf, so NaN and inf still propagate.
FAST = {"reassoc", "contract", "nsz"}


@njit(cache=True)
def _sample_channels_last(g, b):
    """g[b] (O,Ho,Wo) -> (Ho,Wo,O)."""
    o, ho, wo = g.shape[1], g.shape[2], g.shape[3]
    out = np.empty((ho, wo, o), g.dtype)
    for oi in range(o):
        for y in range(ho):
            for x in range(wo):
                out[y, x, oi] = g[b, oi, y, x]
    return out


@njit(parallel=True, cache=True, fastmath=FAST)
def correlate(x, wt, bias, stride, pad):
    """conv2d's forward with channels-last weights `wt` (C,kh,kw,O), plus a bias per O."""
    n, c, h, wd = x.shape
    _, kh, kw, o = wt.shape
    ho = (h + 2 * pad - kh) // stride + 1
    wo = (wd + 2 * pad - kw) // stride + 1
    out = np.empty((n, o, ho, wo), x.dtype)
    for b in prange(n):
        acc = np.zeros((ho, wo, o), x.dtype)
        for ci in range(c):
            for y in range(ho):
                for i in range(kh):
                    iy = y * stride - pad + i
                    if iy < 0 or iy >= h:
                        continue
                    for xo in range(wo):
                        for j in range(kw):
                            ix = xo * stride - pad + j
                            if ix < 0 or ix >= wd:
                                continue
                            v = x[b, ci, iy, ix]
                            for oi in range(o):
                                acc[y, xo, oi] += v * wt[ci, i, j, oi]
        for oi in range(o):
            for y in range(ho):
                for xo in range(wo):
                    out[b, oi, y, xo] = acc[y, xo, oi] + bias[oi]
    return out


@njit(parallel=True, cache=True, fastmath=FAST)
def conv2d_input_grad(g, wt, x_shape, stride, pad):
    """Any stride, with channels-last weights `wt` (C,kh,kw,O)."""
    n, c, h, wd = x_shape
    _, kh, kw, o = wt.shape
    ho, wo = g.shape[2], g.shape[3]
    gx = np.zeros((n, c, h, wd), g.dtype)
    for b in prange(n):
        gt = _sample_channels_last(g, b)
        for ci in range(c):
            for y in range(ho):
                for i in range(kh):
                    iy = y * stride - pad + i
                    if iy < 0 or iy >= h:
                        continue
                    for xo in range(wo):
                        for j in range(kw):
                            ix = xo * stride - pad + j
                            if ix < 0 or ix >= wd:
                                continue
                            s = g.dtype.type(0)
                            for oi in range(o):
                                s += gt[y, xo, oi] * wt[ci, i, j, oi]
                            gx[b, ci, iy, ix] += s
    return gx


@njit(parallel=True, cache=True, fastmath=FAST)
def conv2d_weight_grad(x, g, w_shape, stride, pad, parts):
    n, c, h, wd = x.shape
    o, _, kh, kw = w_shape
    ho, wo = g.shape[2], g.shape[3]
    partial = np.zeros((parts, c, kh, kw, o), g.dtype)
    for p in prange(parts):
        for b in range(p * n // parts, (p + 1) * n // parts):
            gt = _sample_channels_last(g, b)
            for ci in range(c):
                for y in range(ho):
                    for i in range(kh):
                        iy = y * stride - pad + i
                        if iy < 0 or iy >= h:
                            continue
                        for xo in range(wo):
                            for j in range(kw):
                                ix = xo * stride - pad + j
                                if ix < 0 or ix >= wd:
                                    continue
                                v = x[b, ci, iy, ix]
                                for oi in range(o):
                                    partial[p, ci, i, j, oi] += v * gt[y, xo, oi]
    total = partial[0]
    for p in range(1, parts):
        total += partial[p]
    gw = np.empty((o, c, kh, kw), g.dtype)
    for oi in range(o):
        for ci in range(c):
            for i in range(kh):
                for j in range(kw):
                    gw[oi, ci, i, j] = total[ci, i, j, oi]
    return gw


@njit(cache=True, fastmath=FAST)
def conv2d_bias_grad(g):
    """Each (sample, channel) plane summed as one contiguous run (vectorized), then per channel."""
    n, o, ho, wo = g.shape
    planes = g.reshape(n * o, ho * wo)
    gb = np.zeros(o, g.dtype)
    for r in range(n * o):
        s = g.dtype.type(0)
        for k in range(ho * wo):
            s += planes[r, k]
        gb[r % o] += s
    return gb
