"""Plain-numpy reference kernels: correct, readable, the baseline the fast ones are tested on."""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view


def _out_size(size: int, k: int, stride: int, pad: int) -> int:
    return (size + 2 * pad - k) // stride + 1


def _windows(x: np.ndarray, kh: int, kw: int, stride: int, pad: int, fill: float = 0.0):
    if pad:
        x = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)), constant_values=fill)
    return sliding_window_view(x, (kh, kw), axis=(2, 3))[:, :, ::stride, ::stride]


def conv2d_forward(x: np.ndarray, w: np.ndarray, stride: int, pad: int) -> np.ndarray:
    """(N,C,H,W) * (O,C,kh,kw) -> (N,O,Ho,Wo), cross-correlation like torch.conv2d."""
    win = _windows(x, w.shape[2], w.shape[3], stride, pad)
    return np.ascontiguousarray(np.tensordot(win, w, axes=([1, 4, 5], [1, 2, 3])).transpose(0, 3, 1, 2))


def conv2d_input_grad(g: np.ndarray, w: np.ndarray, x_shape: tuple, stride: int,
                      pad: int) -> np.ndarray:
    n, c, h, wd = x_shape
    _, _, kh, kw = w.shape
    ho, wo = g.shape[2], g.shape[3]
    dxp = np.zeros((n, c, h + 2 * pad, wd + 2 * pad), dtype=g.dtype)
    for i in range(kh):
        for j in range(kw):
            dxp[:, :, i:i + stride * ho:stride, j:j + stride * wo:stride] += np.einsum(
                "nohw,oc->nchw", g, w[:, :, i, j], optimize=True)
    return dxp[:, :, pad:pad + h, pad:pad + wd] if pad else dxp


def conv2d_weight_grad(x: np.ndarray, g: np.ndarray, w_shape: tuple, stride: int,
                       pad: int) -> np.ndarray:
    win = _windows(x, w_shape[2], w_shape[3], stride, pad)
    return np.tensordot(g, win, axes=([0, 2, 3], [0, 2, 3])).astype(g.dtype, copy=False)


def max_pool2d_forward(x: np.ndarray, k: int, stride: int, pad: int):
    """Values and the flat index (into x.ravel()) of each window's maximum."""
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
