"""cumsum and cumprod: running sums and products along a dim.

cumprod's gradient follows PyTorch's treatment of zeros: in a slice whose first zero is at z,
element k < z gets sum_{k <= j < z} g_j out_j / x_k (the usual formula, over the part of the
slice before the zero), element z gets prod_{i<z} x_i * sum_{j>=z} g_j prod_{z<i<=j} x_i, and
every element after z gets 0 (the sum over j stops before a second zero, past which the
products are exactly 0). Written with masks (never multiplied by 0), so inf and NaN land
where PyTorch's land, and with formula helpers, so it differentiates again."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import dtypes
from ..core.node import Node
from ..core.shapes import wrap_dim
from ..core.tensor import Tensor
from . import formula, tangents
from ._record import record, should_record
from .reduction import numpy_names


def _result_dtype(a: Tensor, dtype: Any) -> np.dtype:
    """An integer or bool input scans in int64 (PyTorch's promotion); dtype= casts first."""
    if dtype is not None:
        return dtype.np
    return np.dtype(np.int64) if a.dtype.category < 2 else a._data.dtype


def _back_to(g: Any, node: Node) -> Any:
    """A scan run in another dtype (dtype=) sends its gradient back in the input's dtype."""
    return g if node.input_dtype is None else formula.to(g, node.input_dtype)


class ReverseCumsum(Node):
    """g summed from the end (flip, cumsum, flip), recorded under create_graph: linear, its own
    gradient is the forward cumsum of what arrives. Named as PyTorch's outermost step."""

    jvp = tangents.linear(lambda node, out, t: reverse_cumsum(t, node.dim))

    def name(self) -> str:
        return "FlipBackward0"

    def backward(self, gg):
        return (cumsum(gg, self.dim) if isinstance(gg, Tensor) else np.cumsum(gg, self.dim),)


def reverse_cumsum(g: Any, dim: int) -> Any:
    data = np.flip(np.cumsum(np.flip(formula.data(g), dim), dim), dim)
    return formula.result(ReverseCumsum, np.ascontiguousarray(data), (g,), dim=dim)


class CumsumBackward0(Node):
    input_dtype = None
    jvp = tangents.linear(lambda node, out, t: cumsum(t.to(out.dtype), node.dim))

    def backward(self, g):
        if not np.ndim(formula.data(g)):
            return (_back_to(g, self),)
        return (_back_to(reverse_cumsum(g, self.dim), self),)


def _scan(a: Tensor, dim: int, dtype: Any, kernel) -> tuple[np.ndarray, dict]:
    """The scan's numbers, and the node's attributes: its dim and, when dtype= changed the
    dtype, the input's (for the gradient)."""
    d = wrap_dim(dim, a.ndim)
    x = a._data.astype(_result_dtype(a, dtype), copy=False)
    data = x.copy() if x.ndim == 0 else kernel(x, axis=d, dtype=x.dtype)
    cast = dtypes.from_numpy_dtype(a._data.dtype) if x.dtype != a._data.dtype else None
    return data, {"dim": d, "input_dtype": cast}


@numpy_names
def cumsum(a: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    data, attrs = _scan(a, dim, dtype, np.cumsum)
    return record(CumsumBackward0, data, (a,), **attrs)


def _along(n: int, dim: int, ndim: int) -> np.ndarray:
    return np.arange(n).reshape([-1 if i == dim else 1 for i in range(ndim)])


def _last(t: Any, dim: int) -> Any:
    return t[(slice(None),) * dim + (slice(-1, None),)]


def _cumprod(t: Any, dim: int) -> Any:
    return cumprod(t, dim) if isinstance(t, Tensor) else np.cumprod(t, axis=dim)


def _or_one(mask: np.ndarray, x: Any) -> Any:
    """x where mask holds, exactly 1 elsewhere (inf and NaN there do not get through)."""
    ones = np.where(mask, 0, 1).astype(formula.data(x).dtype)
    return formula.keep(mask, x) + ones


def cumprod_backward(g: Any, x: Any, out: Any, dim: int) -> Any:
    data = formula.data(x)
    if data.size <= 1:  # (PyTorch returns g itself: no history for an empty or 1-element x)
        return g
    zero = data == 0
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if not zero.any():  # PyTorch's formula for input without zeros
            return reverse_cumsum(g * out, dim) / x
        if isinstance(g, Tensor) and should_record((g, x, out)):
            return _differentiable(g, x, dim)
        return _around_first_zero(g, x, out, dim, zero)


def _first(mask: np.ndarray, dim: int, n: int) -> np.ndarray:
    """Where mask first holds along dim (n where it never does), keeping dim."""
    return np.where(mask.any(axis=dim, keepdims=True), mask.argmax(axis=dim, keepdims=True), n)


def _around_first_zero(g: Any, x: Any, out: Any, dim: int, zero: np.ndarray) -> Any:
    """The gradient as PyTorch computes it for a first-order backward (module docstring)."""
    n = zero.shape[dim]
    k = _along(n, dim, zero.ndim)
    z = _first(zero, dim, n)
    z2 = _first(zero & (k > z), dim, n)  # the second zero: products past it are 0
    before, at, after = k < z, k == z, k > z
    first = reverse_cumsum(formula.keep(before, g * out), dim) / _or_one(before, x)
    prefix = _last(_cumprod(_or_one(before, x), dim), dim)  # prod_{i<z} x_i
    tail = _cumprod(_or_one(after, x), dim)  # prod_{z<i<=j} x_i at j >= z
    total = formula.sum_keepdim(formula.keep((k >= z) & (k < z2), g * tail), dim)
    return first + formula.keep(at, prefix * total)


def _differentiable(g: Tensor, x: Tensor, dim: int) -> Tensor:
    """Under create_graph, with zeros in x: the gradient as a function of every x_i, so that
    the second derivative through a zero is right too (the first-order formula above drops
    the elements after the zero, whose gradient is 0 but not its derivative). Element k is
    sum_{j>=k} g_j prod_{i<=j, i!=k} x_i, from an (n, n) cumprod with x_k replaced by 1."""
    xt, gt = x.transpose(dim, -1), g.transpose(dim, -1)
    n = xt.shape[-1]
    rows = xt.unsqueeze(-2).expand(*xt.shape[:-1], n, n)
    products = cumprod(_or_one(~np.eye(n, dtype=bool), rows), -1)
    terms = formula.keep(np.triu(np.ones((n, n), dtype=bool)), products * gt.unsqueeze(-2))
    return terms.sum(-1).transpose(dim, -1)


def _tangent_past_zeros(x: Tensor, t: Tensor, generic: Tensor, dim: int) -> Tensor:
    """cumprod's tangent from the first zero z of a slice on: the products there have x_z as
    a factor, so only the term of t_z survives, t_z prod_{i<=k, i!=z} x_i, a cumprod of x
    with t_z put in x_z's place (the terms dropped are exactly 0, even where an inf would
    have made them NaN). Before z the generic formula holds."""
    zero = x._data == 0
    if zero.ndim:
        first = zero & (np.cumsum(zero, axis=dim) == 1)
        past = np.cumsum(first, axis=dim) > 0
    else:
        first = past = zero
    replaced = cumprod(formula.keep(first, t) + formula.keep(~first, x), dim)
    return formula.keep(past, replaced) + formula.keep(~past, generic)


class CumprodBackward0(Node):
    input_dtype = None

    def jvp(self, out, tangents):
        """cumsum(t / x) * result, as PyTorch's, up to a slice's first zero."""
        x, t = self.saved("self").to(out.dtype), tangents[0].to(out.dtype)
        generic = cumsum(t / x, self.dim) * out
        if not (x._data == 0).any():
            return generic
        return _tangent_past_zeros(x, t, generic, self.dim)

    def backward(self, g):
        x, out = self.saved("self"), self.saved("result")
        if self.input_dtype is not None:  # the product was taken in out's dtype
            x = formula.to(x, dtypes.from_numpy_dtype(formula.data(out).dtype))
        return (_back_to(cumprod_backward(g, x, out, self.dim), self),)


@numpy_names
def cumprod(a: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    data, attrs = _scan(a, dim, dtype, np.cumprod)
    return record(CumprodBackward0, data, (a,), save={"self": a}, save_result=True, **attrs)
