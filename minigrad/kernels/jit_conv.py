"""numba conv2d kernels: forward, input, weight and bias gradients (twins of numpy_ref's).

Images in lessons are small (8x8 digits) and channels few (16-32), so every kernel keeps the
output-channel axis innermost and contiguous: that loop vectorizes, the spatial loops are too
short to. A group's output channels are a run of that axis, indexed as o0 + k (measured: as
fast as the whole axis; a loop over range(o0, o1), or over a slice, is 1.3-8x slower). Samples
are spread over threads with prange; the weight gradient sums over samples, so each of `parts`
sample ranges (one per thread, chosen by the caller) fills its own partial sum. Inputs must be
C-contiguous (jit.py ensures it).

The loops skip the taps that read padding. PyTorch's im2col path multiplies the padded zeros
instead, which differs only where the other factor is inf or NaN (0 * inf is NaN): `poison_*`
put those NaNs in afterwards, for the callers that want that arithmetic.
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
def correlate(x, wt, bias, stride, pad, dilation, groups):
    """conv2d's forward with channels-last weights `wt` (C/groups,kh,kw,O), plus a bias per O."""
    n, c, h, wd = x.shape
    cg, kh, kw, o = wt.shape
    sh, sw = stride
    ph, pw = pad
    dh, dw = dilation
    og = o // groups
    ho = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    wo = (wd + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    out = np.empty((n, o, ho, wo), x.dtype)
    for b in prange(n):
        acc = np.zeros((ho, wo, o), x.dtype)
        for gi in range(groups):
            o0 = gi * og
            for cl in range(cg):
                ci = gi * cg + cl
                for y in range(ho):
                    for i in range(kh):
                        iy = y * sh - ph + i * dh
                        if iy < 0 or iy >= h:
                            continue
                        for xo in range(wo):
                            for j in range(kw):
                                ix = xo * sw - pw + j * dw
                                if ix < 0 or ix >= wd:
                                    continue
                                v = x[b, ci, iy, ix]
                                for k in range(og):
                                    acc[y, xo, o0 + k] += v * wt[cl, i, j, o0 + k]
        for oi in range(o):
            for y in range(ho):
                for xo in range(wo):
                    out[b, oi, y, xo] = acc[y, xo, oi] + bias[oi]
    return out


@njit(parallel=True, cache=True, fastmath=FAST)
def conv2d_input_grad(g, wt, x_shape, stride, pad, dilation, groups):
    """Any stride, with channels-last weights `wt` (C/groups,kh,kw,O); what lands in the
    padding is dropped."""
    n, c, h, wd = x_shape
    cg, kh, kw, o = wt.shape
    sh, sw = stride
    ph, pw = pad
    dh, dw = dilation
    og = o // groups
    ho, wo = g.shape[2], g.shape[3]
    gx = np.zeros((n, c, h, wd), g.dtype)
    for b in prange(n):
        gt = _sample_channels_last(g, b)
        for gi in range(groups):
            o0 = gi * og
            for cl in range(cg):
                ci = gi * cg + cl
                for y in range(ho):
                    for i in range(kh):
                        iy = y * sh - ph + i * dh
                        if iy < 0 or iy >= h:
                            continue
                        for xo in range(wo):
                            for j in range(kw):
                                ix = xo * sw - pw + j * dw
                                if ix < 0 or ix >= wd:
                                    continue
                                s = g.dtype.type(0)
                                for k in range(og):
                                    s += gt[y, xo, o0 + k] * wt[cl, i, j, o0 + k]
                                gx[b, ci, iy, ix] += s
    return gx


@njit(parallel=True, cache=True, fastmath=FAST)
def conv2d_weight_grad(x, g, w_shape, stride, pad, dilation, groups, parts):
    n, c, h, wd = x.shape
    o, cg, kh, kw = w_shape
    sh, sw = stride
    ph, pw = pad
    dh, dw = dilation
    og = o // groups
    ho, wo = g.shape[2], g.shape[3]
    partial = np.zeros((parts, cg, kh, kw, o), g.dtype)
    for p in prange(parts):
        for b in range(p * n // parts, (p + 1) * n // parts):
            gt = _sample_channels_last(g, b)
            for gi in range(groups):
                o0 = gi * og
                for cl in range(cg):
                    ci = gi * cg + cl
                    for y in range(ho):
                        for i in range(kh):
                            iy = y * sh - ph + i * dh
                            if iy < 0 or iy >= h:
                                continue
                            for xo in range(wo):
                                for j in range(kw):
                                    ix = xo * sw - pw + j * dw
                                    if ix < 0 or ix >= wd:
                                        continue
                                    v = x[b, ci, iy, ix]
                                    for k in range(og):
                                        partial[p, cl, i, j, o0 + k] += v * gt[y, xo, o0 + k]
    total = partial[0]
    for p in range(1, parts):
        total += partial[p]
    gw = np.empty((o, cg, kh, kw), g.dtype)
    for oi in range(o):
        for ci in range(cg):
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


@njit(cache=True)
def _reads_padding(y, i, size, stride, pad, dilation):
    at = y * stride - pad + i * dilation
    return at < 0 or at >= size


@njit(cache=True)
def poison_forward(out, w, x_hw, stride, pad, dilation):
    """NaN where an inf or NaN weight w (O,C/groups,kh,kw) meets the padding."""
    o, cg, kh, kw = w.shape
    ho, wo = out.shape[2], out.shape[3]
    for oi in range(o):
        for cl in range(cg):
            for i in range(kh):
                for j in range(kw):
                    if np.isfinite(w[oi, cl, i, j]):
                        continue
                    for y in range(ho):
                        row = _reads_padding(y, i, x_hw[0], stride[0], pad[0], dilation[0])
                        for xo in range(wo):
                            if row or _reads_padding(
                                xo, j, x_hw[1], stride[1], pad[1], dilation[1]
                            ):
                                out[:, oi, y, xo] = np.nan


@njit(cache=True)
def poison_weight_grad(gw, g, x_hw, stride, pad, dilation):
    """NaN in the weight gradient gw (O,C/groups,kh,kw) where an inf or NaN output gradient g
    meets the padding."""
    n, o, ho, wo = g.shape
    kh, kw = gw.shape[2], gw.shape[3]
    for b in range(n):
        for oi in range(o):
            for y in range(ho):
                for xo in range(wo):
                    if np.isfinite(g[b, oi, y, xo]):
                        continue
                    for i in range(kh):
                        row = _reads_padding(y, i, x_hw[0], stride[0], pad[0], dilation[0])
                        for j in range(kw):
                            if row or _reads_padding(
                                xo, j, x_hw[1], stride[1], pad[1], dilation[1]
                            ):
                                gw[oi, :, i, j] = np.nan
