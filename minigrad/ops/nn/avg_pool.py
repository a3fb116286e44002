"""Average pooling: avg_pool2d (fixed windows) and adaptive_avg_pool2d (windows that split the
input evenly). Both are linear maps of the input (linear_map.py): their nodes are PyTorch's
AvgPool2DBackward0 / AvgPool2DBackwardBackward0 and the adaptive twins."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ...core.dtypes import SCALAR_NAMES
from ...core.tensor import Tensor
from .linear_map import apply_map, node_pair
from .pooling import _check, _output_size, window_pairs

AvgPool2DBackward0 = node_pair("AvgPool2D")
AdaptiveAvgPool2DBackward0 = node_pair("AdaptiveAvgPool2D")


def _batched(fn: Callable) -> Callable:
    """fn on (N, C, H, W), applied to an unbatched (C, H, W) array too."""

    def run(a: np.ndarray) -> np.ndarray:
        return fn(a[None])[0] if a.ndim == 3 else fn(a)

    return run


# --- avg_pool2d ----------------------------------------------------------------------------
def _spans(size: int, out: int, k: int, s: int, p: int, include_pad: bool) -> np.ndarray:
    """Each window's divisor along one dim: its length within the padded input, or within
    the input alone when padding is not counted."""
    start = np.arange(out) * s - p
    end = np.minimum(start + k, size + p)
    if include_pad:
        return end - start
    return np.minimum(end, size) - np.maximum(start, 0)


class _Windows:
    """The geometry of one avg_pool2d call: kernel, stride, padding, output size, divisors."""

    def __init__(self, shape: tuple, k, s, p, out_hw, include_pad: bool, divisor) -> None:
        self.k, self.s, self.p, self.out_hw = k, s, p, out_hw
        self.hw = shape[-2:]
        if divisor is not None:
            self.divisor = np.full(out_hw, divisor, dtype=np.float64)
        else:
            h = _spans(self.hw[0], out_hw[0], k[0], s[0], p[0], include_pad)
            w = _spans(self.hw[1], out_hw[1], k[1], s[1], p[1], include_pad)
            self.divisor = np.outer(h, w).astype(np.float64)
        # the padded extent every window fits in
        self.padded = tuple(max((out_hw[a] - 1) * s[a] + k[a], self.hw[a] + p[a]) for a in (0, 1))

    def _taps(self):
        """(row slice, column slice) of the padded input read by each kernel offset."""
        (kh, kw), (sh, sw), (oh, ow) = self.k, self.s, self.out_hw
        for i in range(kh):
            for j in range(kw):
                yield (slice(i, i + sh * (oh - 1) + 1, sh), slice(j, j + sw * (ow - 1) + 1, sw))

    def pool(self, x: np.ndarray) -> np.ndarray:
        n, c = x.shape[:2]
        (ph, pw), (h, w) = self.p, self.hw
        wide = np.zeros((n, c, *self.padded), dtype=np.float64)
        wide[..., ph : ph + h, pw : pw + w] = x
        total = np.zeros((n, c, *self.out_hw), dtype=np.float64)
        for rows, cols in self._taps():
            total += wide[..., rows, cols]
        with np.errstate(divide="ignore", invalid="ignore"):
            out = total / self.divisor
        return (np.trunc(out) if x.dtype.kind in "iu" else out).astype(x.dtype)

    def unpool(self, g: np.ndarray) -> np.ndarray:
        n, c = g.shape[:2]
        (ph, pw), (h, w) = self.p, self.hw
        share = g / self.divisor.astype(g.dtype)
        wide = np.zeros((n, c, *self.padded), dtype=g.dtype)
        for rows, cols in self._taps():
            wide[..., rows, cols] += share
        return np.ascontiguousarray(wide[..., ph : ph + h, pw : pw + w])


def avg_pool2d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> Tensor:
    x = input
    k, s, p = window_pairs("avg_pool2d", kernel_size, stride, padding)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    if x.ndim < 3:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-max(x.ndim, 1)}, "
            f"{max(x.ndim, 1) - 1}], but got -3)"
        )
    if x.ndim > 4:
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    if x._data.dtype == np.bool_:
        raise NotImplementedError("\"avg_pool2d\" not implemented for 'Bool'")
    shape = x._data.shape
    out_hw = tuple(_output_size(shape[a - 2], k[a], p[a], s[a], 1, ceil_mode) for a in (0, 1))
    _check(shape, k, s, p, (1, 1), out_hw)
    win = _Windows(shape, k, s, p, out_hw, count_include_pad, divisor_override)
    save = {
        "self": x,
        "kernel_size": k,
        "stride": s,
        "padding": p,
        "ceil_mode": ceil_mode,
        "count_include_pad": count_include_pad,
        "divisor_override": divisor_override,
    }
    return apply_map(x, _batched(win.pool), _batched(win.unpool), AvgPool2DBackward0, **save)


# --- adaptive_avg_pool2d -------------------------------------------------------------------
def _bounds(size: int, out: int) -> tuple[np.ndarray, np.ndarray]:
    """PyTorch's adaptive windows along one dim: [floor(i size / out), ceil((i+1) size / out))."""
    i = np.arange(out)
    return (i * size) // out, -((-(i + 1) * size) // out)


class _Adaptive:
    """adaptive_avg_pool2d of one input size to one output size. Rows then columns are summed
    window by window (never by differences of running sums, which would spread an inf)."""

    def __init__(self, hw: tuple, out_hw: tuple) -> None:
        self.hw = hw
        (self.h0, self.h1), (self.w0, self.w1) = (_bounds(hw[a], out_hw[a]) for a in (0, 1))
        self.count = np.outer(self.h1 - self.h0, self.w1 - self.w0).astype(np.float64)

    def pool(self, x: np.ndarray) -> np.ndarray:
        total = np.zeros(x.shape[:-2] + self.count.shape)
        if total.size:
            wide = x.astype(np.float64)
            rows = np.stack([wide[..., a:b, :].sum(-2) for a, b in zip(self.h0, self.h1)], -2)
            total = np.stack([rows[..., a:b].sum(-1) for a, b in zip(self.w0, self.w1)], -1)
        return (total / self.count).astype(x.dtype)

    def unpool(self, g: np.ndarray) -> np.ndarray:
        share = g.astype(np.float64) / self.count
        rows = np.zeros(g.shape[:-1] + (self.hw[1],))
        for j, (a, b) in enumerate(zip(self.w0, self.w1)):
            rows[..., a:b] += share[..., j : j + 1]
        out = np.zeros(g.shape[:-2] + self.hw)
        for i, (a, b) in enumerate(zip(self.h0, self.h1)):
            out[..., a:b, :] += rows[..., i : i + 1, :]
        return out.astype(g.dtype)


def adaptive_output_size(x: Tensor, output_size: Any, name: str) -> tuple[int, int]:
    """The (h, w) asked for: an int, or a pair whose None entries keep the input's size."""
    sizes = list(output_size) if isinstance(output_size, (tuple, list)) else [output_size] * 2
    if len(sizes) != 2:
        raise RuntimeError(f"{name}: output_size must be 2")
    if x.ndim not in (3, 4):
        raise RuntimeError(f"{name}(): Expected 3D or 4D tensor, but got {list(x.shape)}")
    return tuple(x.shape[a - 2] if n is None else int(n) for a, n in enumerate(sizes))


def check_dtype(x: Tensor, name: str, even_empty: bool = False) -> None:
    """Floats only; an empty input is not checked unless `even_empty` (PyTorch's average
    pooling runs no kernel on it, its max pooling checks first)."""
    if x.dtype.name not in ("float32", "float64") and (x.numel() or even_empty):
        dtype = SCALAR_NAMES.get(x.dtype.name, x.dtype.name)
        raise NotImplementedError(f"\"{name}\" not implemented for '{dtype}'")


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:
    """An output of size (1, 1) is the mean over the last two dims, as in PyTorch."""
    out_hw = adaptive_output_size(input, output_size, "adaptive_avg_pool2d")
    if out_hw == (1, 1):
        return input.mean((-1, -2), keepdim=True)
    check_dtype(input, "adaptive_avg_pool2d")
    if 0 in input.shape[-2:] and math.prod(out_hw):
        raise RuntimeError(
            "adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch "
            f"dimensions, but input has sizes {list(input.shape)} with dimension "
            f"{input.ndim - 2 + input.shape[-2:].index(0)} being empty"
        )
    pool = _Adaptive(tuple(input.shape[-2:]), out_hw)
    return apply_map(
        input, _batched(pool.pool), _batched(pool.unpool), AdaptiveAvgPool2DBackward0, self=input
    )
