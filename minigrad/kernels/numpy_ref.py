"""Plain-numpy reference kernels: correct, readable, the baseline the numba ones are tested on.

Every function here has a numba twin with the same name and signature (see jit.py).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

Pair = tuple[int, int]
Size = int | tuple[int, int]


def pair(v: Size) -> Pair:
    """One int for both spatial dims, or a pair (every conv and pool kernel takes either)."""
    return (v, v) if isinstance(v, int) else tuple(v)


def output_size(
    size: int, k: int, stride: int, pad: int, dilation: int = 1, ceil_mode: bool = False
) -> int:
    """One spatial size after a convolution or pooling window (PyTorch's formula; in ceil
    mode the last window must start inside the input or its left padding)."""
    span = dilation * (k - 1) + 1
    out = (size + 2 * pad - span + (stride - 1 if ceil_mode else 0)) // stride + 1
    if ceil_mode and (out - 1) * stride >= size + pad:
        out -= 1
    return out


def _windows(
    x: np.ndarray,
    k: Pair,
    stride: Pair,
    dilation: Pair,
    pad: Pair,
    fill: float = 0,
    extra: Pair = (0, 0),
) -> np.ndarray:
    """(N,C,Ho,Wo,kh,kw): each output position's window, `pad` (plus `extra` at the far ends)
    filled with `fill`; a view of x when nothing is padded."""
    if pad != (0, 0) or extra != (0, 0):
        ends = ((0, 0), (0, 0), (pad[0], pad[0] + extra[0]), (pad[1], pad[1] + extra[1]))
        x = np.pad(x, ends, constant_values=fill)
    span = (dilation[0] * (k[0] - 1) + 1, dilation[1] * (k[1] - 1) + 1)
    win = sliding_window_view(x, span, axis=(2, 3))
    return win[:, :, :: stride[0], :: stride[1], :: dilation[0], :: dilation[1]]


def _tap(i: int, size: int, out_size: int, stride: int, pad: int, dilation: int):
    """Where kernel tap i reads: (output slice, input slice) along one axis, or None when it
    reads only padding. The taps' loops never touch padding: no padded zero enters a product."""
    offset = i * dilation - pad
    first = max(0, -(offset // stride))  # the first output whose tap lands at input >= 0
    stop = min(out_size, (size - 1 - offset) // stride + 1)
    if stop <= first:
        return None
    start = first * stride + offset
    return slice(first, stop), slice(start, (stop - 1) * stride + offset + 1, stride)


def _taps(x_hw: tuple, out_hw: tuple, k: Pair, stride: Pair, pad: Pair, dilation: Pair):
    """(output rows, output cols, input rows, input cols, i, j) of every tap that reads input."""
    for i in range(k[0]):
        rows = _tap(i, x_hw[0], out_hw[0], stride[0], pad[0], dilation[0])
        if rows is None:
            continue
        for j in range(k[1]):
            cols = _tap(j, x_hw[1], out_hw[1], stride[1], pad[1], dilation[1])
            if cols is not None:
                yield rows[0], cols[0], rows[1], cols[1], i, j


def _split(a: np.ndarray, groups: int) -> np.ndarray:
    """(N, G*c, ...) -> (N, G, c, ...): channels by group (a view)."""
    return a.reshape(a.shape[0], groups, a.shape[1] // groups, *a.shape[2:])


# --- convolution -------------------------------------------------------------------------
# Padding: PyTorch's im2col path multiplies the padded zeros by the weights (a non-finite
# weight makes NaN where its tap reads padding), its oneDNN direct kernels skip them (the
# default here). The window products below include the zeros; where that could differ from
# skipping them (a non-finite weight, or output gradient, and padding), and skipping is asked
# for, the per-tap loops run instead, which never read the padding.
def conv2d_forward(
    x: np.ndarray,
    w: np.ndarray,
    bias: np.ndarray | None,
    stride: Size,
    pad: Size,
    dilation: Size = 1,
    groups: int = 1,
    multiply_padding: bool = False,
) -> np.ndarray:
    """(N,C,H,W) * (O,C/groups,kh,kw) (+ bias (O,)) -> (N,O,Ho,Wo), cross-correlation."""
    stride, pad, dilation, k = pair(stride), pair(pad), pair(dilation), w.shape[2:]
    if multiply_padding or pad == (0, 0) or np.isfinite(w).all():
        win = _windows(x, k, stride, dilation, pad)
        if groups == 1:
            out = np.tensordot(win, w, axes=([1, 4, 5], [1, 2, 3])).transpose(0, 3, 1, 2)
        else:
            wg = w.reshape(groups, -1, *w.shape[1:])
            out = np.einsum("ngcyxij,gocij->ngoyx", _split(win, groups), wg, optimize=True)
            out = out.reshape(out.shape[0], -1, *out.shape[3:])
        out = np.ascontiguousarray(out)
    else:
        out_hw = [output_size(x.shape[2 + a], k[a], stride[a], pad[a], dilation[a]) for a in (0, 1)]
        out = np.zeros((x.shape[0], w.shape[0], *out_hw), np.result_type(x, w))
        outg, xg = _split(out, groups), _split(x, groups)
        wg = w.reshape(groups, -1, *w.shape[1:])
        for oy, ox, iy, ix, i, j in _taps(x.shape[2:], out_hw, k, stride, pad, dilation):
            outg[..., oy, ox] += np.einsum("ngcyx,goc->ngoyx", xg[..., iy, ix], wg[..., i, j])
    if bias is not None:
        out += bias.reshape(1, -1, 1, 1)
    return out


def conv2d_input_grad(
    g: np.ndarray,
    w: np.ndarray,
    x_shape: tuple,
    stride: Size,
    pad: Size,
    dilation: Size = 1,
    groups: int = 1,
) -> np.ndarray:
    """Gradient of conv2d_forward with respect to x, given the output gradient g (what lands
    in the padding is dropped, so padding never matters here)."""
    stride, pad, dilation = pair(stride), pair(pad), pair(dilation)
    gx = np.zeros(x_shape, dtype=g.dtype)
    if groups == 1:  # einsum's fast path (BLAS); with a group index it loops in C
        gxg, gg, wg, spec = gx, g, w, "noyx,oc->ncyx"
    else:
        gxg, gg, wg = _split(gx, groups), _split(g, groups), w.reshape(groups, -1, *w.shape[1:])
        spec = "ngoyx,goc->ngcyx"
    for oy, ox, iy, ix, i, j in _taps(x_shape[2:], g.shape[2:], w.shape[2:], stride, pad, dilation):
        gxg[..., iy, ix] += np.einsum(spec, gg[..., oy, ox], wg[..., i, j], optimize=True)
    return gx


def conv2d_weight_grad(
    x: np.ndarray,
    g: np.ndarray,
    w_shape: tuple,
    stride: Size,
    pad: Size,
    dilation: Size = 1,
    groups: int = 1,
    multiply_padding: bool = False,
) -> np.ndarray:
    """Gradient of conv2d_forward with respect to w, given the output gradient g."""
    stride, pad, dilation, k = pair(stride), pair(pad), pair(dilation), w_shape[2:]
    if multiply_padding or pad == (0, 0) or np.isfinite(g).all():
        win = _windows(x, k, stride, dilation, pad)[:, :, : g.shape[2], : g.shape[3]]
        if groups == 1:
            gw = np.tensordot(g, win, axes=([0, 2, 3], [0, 2, 3]))
        else:
            gw = np.einsum(
                "ngoyx,ngcyxij->gocij", _split(g, groups), _split(win, groups), optimize=True
            )
        return gw.reshape(w_shape).astype(g.dtype, copy=False)
    gw = np.zeros(w_shape, g.dtype)
    gwg, gg, xg = gw.reshape(groups, -1, *w_shape[1:]), _split(g, groups), _split(x, groups)
    for oy, ox, iy, ix, i, j in _taps(x.shape[2:], g.shape[2:], k, stride, pad, dilation):
        gwg[..., i, j] = np.einsum("ngoyx,ngcyx->goc", gg[..., oy, ox], xg[..., iy, ix])
    return gw


def conv2d_bias_grad(g: np.ndarray) -> np.ndarray:
    """Gradient of a per-channel bias: g summed over batch and space (einsum: 4x sum's speed)."""
    return np.einsum("nchw->c", g)


# --- max pooling -------------------------------------------------------------------------
def max_pool2d_forward(
    x: np.ndarray, k: Size, stride: Size, pad: Size, dilation: Size = 1, ceil_mode: bool = False
):
    """Values and the flat index (into x.ravel()) of each window's maximum, as PyTorch picks
    it: the first maximum, but the last NaN; only real positions, never the padding."""
    k, stride, pad, dilation = pair(k), pair(stride), pair(pad), pair(dilation)
    n, c, h, w = x.shape
    out_hw = (
        output_size(h, k[0], stride[0], pad[0], dilation[0], ceil_mode),
        output_size(w, k[1], stride[1], pad[1], dilation[1], ceil_mode),
    )
    ho, wo = out_hw
    fill = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    # ceil mode: the last windows may reach past the end padding (filled too, then cut)
    reach = [(out_hw[a] - 1) * stride[a] + dilation[a] * (k[a] - 1) + 1 for a in (0, 1)]
    extra = (max(0, reach[0] - h - 2 * pad[0]), max(0, reach[1] - w - 2 * pad[1]))
    win = _windows(x, k, stride, dilation, pad, fill, extra)[:, :, :ho, :wo]
    flat = win.reshape(n, c, ho, wo, k[0] * k[1])
    arg = flat.argmax(axis=-1)
    values = np.take_along_axis(flat, arg[..., None], -1)[..., 0]
    if x.dtype.kind == "f":
        nan = np.isnan(values)
        if nan.any():
            last = flat.shape[-1] - 1 - np.isnan(flat[..., ::-1]).argmax(axis=-1)
            arg = np.where(nan, last, arg)
    if pad != (0, 0) or extra != (0, 0):
        at_fill = values == fill  # every real value is the fill: PyTorch's first real position
        if at_fill.any():
            first = [
                np.maximum(0, -((np.arange(out_hw[a]) * stride[a] - pad[a]) // dilation[a]))
                for a in (0, 1)
            ]
            arg = np.where(at_fill, first[0][:, None] * k[1] + first[1][None, :], arg)
    rows = np.arange(ho)[:, None] * stride[0] - pad[0] + arg // k[1] * dilation[0]
    cols = np.arange(wo)[None, :] * stride[1] - pad[1] + arg % k[1] * dilation[1]
    base = (np.arange(n)[:, None, None, None] * c + np.arange(c)[None, :, None, None]) * (h * w)
    return values, base + rows * w + cols


def max_pool2d_backward(g: np.ndarray, indices: np.ndarray, x_shape: tuple) -> np.ndarray:
    """Each output gradient added at the flat input index it came from (overlaps add up; an
    index past the end, from a window inside the padding only, is dropped)."""
    size = int(np.prod(x_shape))
    out = np.bincount(indices.ravel(), weights=g.ravel(), minlength=size)[:size]
    return out.astype(g.dtype, copy=False).reshape(x_shape)


# --- relu --------------------------------------------------------------------------------
def relu_forward(x: np.ndarray) -> np.ndarray:
    """max(x, 0); NaN stays NaN and -0.0 stays -0.0, as in PyTorch (numpy's maximum returns its
    second argument on a tie)."""
    return np.maximum(0, x).astype(x.dtype, copy=False)


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
    """log_softmax(x, 1) of (N,C) logits; each sample's loss -logp[n, target[n]] and weight
    (both 0 where target == ignore_index); how many samples count; and the first sample whose
    target is out of range (-1: none). One pass for what cross_entropy's two nodes need."""
    shifted = x - x.max(axis=1, keepdims=True)
    logp = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    valid = target != ignore_index
    wrong = np.flatnonzero(valid & ((target < 0) | (target >= x.shape[1])))
    valid &= (target >= 0) & (target < x.shape[1])
    picked = logp[np.arange(x.shape[0]), np.where(valid, target, 0)]
    losses = np.where(valid, -picked, 0).astype(x.dtype, copy=False)
    bad = int(wrong[0]) if wrong.size else -1
    return logp, losses, valid.astype(x.dtype), int(valid.sum()), bad


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


def softmax_forward(x: np.ndarray) -> np.ndarray:
    """exp(x - max) / sum along dim 1 of an (N,C) array, C-contiguous whatever x's layout, as
    the numba twin's (NaN where a row holds NaN or +inf, or is all -inf, as PyTorch's, without
    numpy's warnings)."""
    with np.errstate(invalid="ignore"):
        shifted = np.exp(x - x.max(axis=1, keepdims=True))
        return np.ascontiguousarray(shifted / shifted.sum(axis=1, keepdims=True))


def softmax_backward(g: np.ndarray, out: np.ndarray) -> np.ndarray:
    """out * (g - sum(g * out)) along dim 1: softmax's backward from its output (C-contiguous,
    as the numba twin's)."""
    return np.ascontiguousarray(out * (g - (g * out).sum(axis=1, keepdims=True)))


# --- row normalisation (layer_norm, group_norm) -------------------------------------------
def row_stats(x: np.ndarray, eps: float) -> tuple[np.ndarray, np.ndarray]:
    """Mean and 1 / sqrt(biased var + eps) of each row of an (R,N) array, accumulated in
    float64, returned as (R,) arrays in x's dtype."""
    wide = x.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = wide.mean(1)
        var = ((wide - mean[:, None]) ** 2).mean(1)
        rstd = 1 / np.sqrt(var + eps)
    return mean.astype(x.dtype), rstd.astype(x.dtype)


def normalize_backward(
    gs: np.ndarray, x: np.ndarray, mean: np.ndarray, rstd: np.ndarray
) -> np.ndarray:
    """dx of normalised (R,N) rows given gs = g * scale, in PyTorch's CPU form: with the row
    sums db = sum(gs), ds = sum(gs x), dx = rstd gs + b x + c, where b = (db mean - ds) rstd^3
    / n and c = -b mean - db rstd / n (an inf in g makes its row NaN, as in PyTorch)."""
    n = x.shape[1]
    mean, rstd = mean[:, None], rstd[:, None]
    db = gs.sum(1, keepdims=True)
    ds = (gs * x).sum(1, keepdims=True)
    with np.errstate(invalid="ignore", over="ignore"):
        b = (db * mean - ds) * (rstd * rstd * rstd) / n
        c = -b * mean - db * rstd / n
        return gs * rstd + x * b + c


# --- scattering rows ----------------------------------------------------------------------
def add_rows(out: np.ndarray, index: np.ndarray, rows: np.ndarray) -> None:
    """out[index[i]] += rows[i], in order: numpy's unbuffered add (index may repeat)."""
    np.add.at(out, index, rows)
