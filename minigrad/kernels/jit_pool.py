"""numba max-pool kernels (twins of numpy_ref's). One (sample, channel) plane per prange step:
a window's indices never leave its plane, so the backward scatter needs no locks."""

from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(cache=True)
def _first_in(start, dilation):
    """The first tap at or after `start` that is not in the leading padding."""
    return start if start >= 0 else start + (-start + dilation - 1) // dilation * dilation


@njit(parallel=True, cache=True)
def max_pool2d_forward(x, k, stride, pad, dilation, out_hw):
    """PyTorch's loop: the maximum starts at -inf, and a larger value or any NaN takes over
    (so the first maximum, but the last NaN). Where nothing took over, the index is the
    window's first real position; a window inside the padding only (possible with dilation)
    keeps -inf and the position PyTorch names, which may lie past the row's end."""
    n, c, h, w = x.shape
    kh, kw = k
    sh, sw = stride
    ph, pw = pad
    dh, dw = dilation
    ho, wo = out_hw
    planes = x.reshape(n * c, h, w)
    values = np.empty((n * c, ho, wo), x.dtype)
    indices = np.empty((n * c, ho, wo), np.int64)
    for plane in prange(n * c):
        base = plane * h * w
        for y in range(ho):
            top = y * sh - ph
            for xo in range(wo):
                left = xo * sw - pw
                best = x.dtype.type(-np.inf)
                where = -1
                for i in range(kh):
                    iy = top + i * dh
                    if iy < 0 or iy >= h:
                        continue
                    for j in range(kw):
                        ix = left + j * dw
                        if ix < 0 or ix >= w:
                            continue
                        v = planes[plane, iy, ix]
                        if v > best or v != v:
                            best = v
                            where = iy * w + ix
                if where < 0:
                    where = _first_in(top, dh) * w + _first_in(left, dw)
                values[plane, y, xo] = best
                indices[plane, y, xo] = base + where
    return values.reshape((n, c, ho, wo)), indices.reshape((n, c, ho, wo))


@njit(parallel=True, cache=True)
def max_pool2d_backward(g, indices, x_shape):
    """Scatters by flat index, one plane per thread. An index outside its plane (from a window
    inside the padding only) is added afterwards, serially, where PyTorch adds it; past the
    tensor's end it is dropped."""
    n, c, h, w = x_shape
    size = h * w
    out = np.zeros(n * c * size, g.dtype)
    per = g.shape[2] * g.shape[3]
    grads = g.reshape(n * c, per)
    where = indices.reshape(n * c, per)
    strays = 0
    for plane in prange(n * c):
        lo = plane * size
        for q in range(per):
            i = where[plane, q]
            if lo <= i < lo + size:
                out[i] += grads[plane, q]
            else:
                strays += 1
    if strays:
        for plane in range(n * c):
            lo = plane * size
            for q in range(per):
                i = where[plane, q]
                if (i < lo or i >= lo + size) and i < out.size:
                    out[i] += grads[plane, q]
    return out.reshape((n, c, h, w))
