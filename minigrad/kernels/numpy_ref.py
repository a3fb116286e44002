"""Plain-numpy reference kernels: correct, readable, the baseline the numba ones are tested on.

Every function here has a numba twin with the same name and signature (see jit.py).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view


def _out_size(size: int, k: int, stride: int, pad: int) -> int:
    return (size + 2 * pad - k) // stride + 1


def _windows(x: np.ndarray, kh: int, kw: int, stride: int, pad: int, fill: float = 0.0):
    if pad:
        x = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)), constant_values=fill)
    return sliding_window_view(x, (kh, kw), axis=(2, 3))[:, :, ::stride, ::stride]


# --- convolution -------------------------------------------------------------------------
def conv2d_forward(
    x: np.ndarray, w: np.ndarray, bias: np.ndarray | None, stride: int, pad: int
) -> np.ndarray:
    """(N,C,H,W) * (O,C,kh,kw) (+ bias (O,)) -> (N,O,Ho,Wo), cross-correlation like torch."""
    win = _windows(x, w.shape[2], w.shape[3], stride, pad)
    out = np.ascontiguousarray(
        np.tensordot(win, w, axes=([1, 4, 5], [1, 2, 3])).transpose(0, 3, 1, 2)
    )
    if bias is not None:
        out += bias.reshape(1, -1, 1, 1)
    return out


def conv2d_input_grad(
    g: np.ndarray, w: np.ndarray, x_shape: tuple, stride: int, pad: int
) -> np.ndarray:
    """Gradient of conv2d_forward with respect to x, given the output gradient g."""
    n, c, h, wd = x_shape
    _, _, kh, kw = w.shape
    ho, wo = g.shape[2], g.shape[3]
    dxp = np.zeros((n, c, h + 2 * pad, wd + 2 * pad), dtype=g.dtype)
    for i in range(kh):
        for j in range(kw):
            dxp[:, :, i : i + stride * ho : stride, j : j + stride * wo : stride] += np.einsum(
                "nohw,oc->nchw", g, w[:, :, i, j], optimize=True
            )
    return np.ascontiguousarray(dxp[:, :, pad : pad + h, pad : pad + wd]) if pad else dxp


def conv2d_weight_grad(
    x: np.ndarray, g: np.ndarray, w_shape: tuple, stride: int, pad: int
) -> np.ndarray:
    """Gradient of conv2d_forward with respect to w, given the output gradient g."""
    win = _windows(x, w_shape[2], w_shape[3], stride, pad)
    return np.tensordot(g, win, axes=([0, 2, 3], [0, 2, 3])).astype(g.dtype, copy=False)


def conv2d_bias_grad(g: np.ndarray) -> np.ndarray:
    """Gradient of a per-channel bias: g summed over batch and space (einsum: 4x sum's speed)."""
    return np.einsum("nchw->c", g)


# --- max pooling -------------------------------------------------------------------------
def max_pool2d_forward(x: np.ndarray, k: int, stride: int, pad: int):
    """Values and the flat index (into x.ravel()) of each window's maximum (first on ties)."""
    n, c, h, w = x.shape
    win = _windows(x, k, k, stride, pad, fill=-np.inf)
    ho, wo = win.shape[2], win.shape[3]
    flat = win.reshape(n, c, ho, wo, k * k)
    arg = flat.argmax(axis=-1)
    values = np.take_along_axis(flat, arg[..., None], -1)[..., 0]
    rows = np.arange(ho)[:, None] * stride - pad + arg // k
    cols = np.arange(wo)[None, :] * stride - pad + arg % k
    base = (np.arange(n)[:, None, None, None] * c + np.arange(c)[None, :, None, None]) * (h * w)
    return values, base + rows * w + cols


def max_pool2d_backward(g: np.ndarray, indices: np.ndarray, x_shape: tuple) -> np.ndarray:
    """Each output gradient added at the flat input index it came from (overlaps add up)."""
    out = np.bincount(indices.ravel(), weights=g.ravel(), minlength=int(np.prod(x_shape)))
    return out.astype(g.dtype, copy=False).reshape(x_shape)


# --- relu --------------------------------------------------------------------------------
def relu_forward(x: np.ndarray) -> np.ndarray:
    """max(x, 0); NaN stays NaN."""
    return np.maximum(x, 0).astype(x.dtype, copy=False)


def relu_backward(g: np.ndarray, result: np.ndarray) -> np.ndarray:
    """g where relu's result is above 0 (or NaN, as torch's threshold_backward has it), else
    exactly 0 even where g holds inf or NaN: a select, never a bare multiply by the mask."""
    if g.size <= 512:  # a copy and a masked store: the cheapest select on small arrays
        out = g.copy()
        np.putmask(out, result <= 0, 0)
        return out
    out = g * ~(result <= 0)  # only an inf or NaN in g can make this differ from the select
    flat = out.reshape(-1)  # its dot with itself is finite when every entry is (BLAS-fast);
    if math.isfinite(np.dot(flat, flat)):  # an overflow only sends us to the exact select
        return out
    return np.where(result <= 0, 0, g)


# --- softmax + cross-entropy -------------------------------------------------------------
def cross_entropy_forward(x: np.ndarray, target: np.ndarray, ignore_index: int):
    """log_softmax(x, 1) of (N,C) logits and each sample's loss -logp[n, target[n]] (0 where
    target == ignore_index): one pass for what cross_entropy's two graph nodes need."""
    shifted = x - x.max(axis=1, keepdims=True)
    logp = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    valid = target != ignore_index
    picked = logp[np.arange(x.shape[0]), np.where(valid, target, 0)]
    return logp, np.where(valid, -picked, 0).astype(x.dtype, copy=False)


def nll_loss_backward(
    coef: np.ndarray, target: np.ndarray, ignore_index: int, n_classes: int
) -> np.ndarray:
    """(N,C) zeros with coef[n] at [n, target[n]]: the gradient of a per-sample pick."""
    out = np.zeros((coef.shape[0], n_classes), dtype=coef.dtype)
    valid = target != ignore_index
    out[np.nonzero(valid)[0], target[valid]] = coef[valid]
    return out


def log_softmax_backward(g: np.ndarray, logp: np.ndarray) -> np.ndarray:
    """g - softmax * g.sum(1): log_softmax's backward along dim 1 of an (N,C) array."""
    return g - np.exp(logp) * g.sum(axis=1, keepdims=True)
