"""histc and histogram: counts of values in equal-width bins (or given edges for histogram).
Not differentiable; values outside the range and NaNs are not counted; a value on the last
edge falls into the last bin. histogram records PyTorch's NotImplemented node (its outputs
require grad where the input does; backward, or a tangent, raises), histc nothing."""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np

from ..core import dtypes
from ..core.tensor import Tensor
from ._record import record_many
from .not_implemented import NotImplementedBackward

HistogramResult = namedtuple("histogram", ["hist", "bin_edges"])


def _float_only(a: Tensor, kernel: str) -> None:
    if not a.dtype.is_floating_point:
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{dtypes.SCALAR_NAMES[a.dtype.name]}'"
        )


def _number(v: float) -> str:
    return "-nan" if np.isnan(v) else f"{v:g}"


def _count(x: np.ndarray, edges: np.ndarray, weight: np.ndarray | None) -> np.ndarray:
    """Counts (or summed weights) of x per bin of `edges`, in x's dtype."""
    bins = len(edges) - 1
    x = x.reshape(-1)
    inside = (x >= edges[0]) & (x <= edges[-1])
    values = x[inside]
    w = None if weight is None else weight.reshape(-1)[inside]
    if len(edges) > 1 and np.allclose(np.diff(edges), edges[1] - edges[0], rtol=0, atol=0):
        lo, hi = edges[0], edges[-1]
        pos = np.floor((values - lo) * bins / (hi - lo)).astype(np.int64) if hi > lo else 0 * values
    else:
        pos = np.searchsorted(edges, values, side="right") - 1
    pos = np.clip(pos, 0, bins - 1).astype(np.int64)
    return np.bincount(pos, weights=w, minlength=bins).astype(x.dtype)


def histc(a: Tensor, bins: int = 100, min: float = 0, max: float = 0) -> Tensor:  # noqa: A002
    """min == max (the default 0, 0) takes the data's range, widened by 1 each way when it is a
    single value."""
    _float_only(a, "histogram_cpu")
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    x = a._data
    lo, hi = float(min), float(max)
    if lo == hi and x.size:
        lo, hi = float(np.min(x)), float(np.max(x))
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise RuntimeError(f"torch.histc: range of [{_number(lo)}, {_number(hi)}] is not finite")
    if lo > hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    edges = np.linspace(lo, hi, bins + 1).astype(x.dtype)
    return Tensor._wrap(_count(x, edges, None))


def histogram(
    a: Tensor,
    bins: Any = 100,
    *,
    range: tuple | None = None,  # noqa: A002
    weight: Tensor | None = None,
    density: bool = False,
) -> HistogramResult:
    """bins: a count (equal bins over `range`, else the data's range, widened by 0.5 each way
    when it is a single value) or a Tensor of edges."""
    x = a._data
    # (PyTorch's kernel, named in its error for integers: the one finding the data's range)
    finds_range = range is None and x.size and not isinstance(bins, Tensor)
    _float_only(a, "histogramdd" if finds_range else "histogram_cpu")
    if isinstance(bins, Tensor):
        edges = bins._data.astype(x.dtype)
    else:
        if range is not None:
            lo, hi = float(range[0]), float(range[1])
        elif x.size:
            lo, hi = float(np.min(x)), float(np.max(x))
        else:
            lo, hi = 0.0, 1.0
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        if not (np.isfinite(lo) and np.isfinite(hi)):
            raise RuntimeError(
                f"torch.histogramdd: dimension 0's range [{_number(lo)}, {_number(hi)}] is not "
                "finite"
            )
        edges = np.linspace(lo, hi, int(bins) + 1).astype(x.dtype)
    hist = _count(x, edges, None if weight is None else weight._data)
    if density:
        total = hist.sum()
        hist = (hist / (total * np.diff(edges))).astype(x.dtype)
    inputs = (a,) if weight is None else (a, weight)
    outs = record_many(NotImplementedBackward, [hist, edges], inputs, op="histogram")
    return HistogramResult(*outs)
