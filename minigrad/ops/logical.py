"""Comparisons, bitwise operators, elementwise tests (isnan, isinf...) and boolean reductions
(all, any, allclose). None is differentiable, so none records a node.

Operands are promoted and broadcast as for arithmetic (`broadcast_operands`): an int tensor
compares with 2.5 as a float, and shapes that do not broadcast get PyTorch's error. An operand
that is not a number or a tensor gives NotImplemented, so Python answers `x == None` (False) and
refuses `x < None` as it does for PyTorch.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

import numpy as np

from ..core.dtypes import SCALAR_NAMES
from ..core.grad_mode import no_grad
from ..core.shapes import iterator_layout
from ..core.tensor import Tensor
from . import inplace
from .elementwise import broadcast_operands
from .reduction import numpy_names
from .shape import wrap_dims


def _is_operand(value: Any) -> bool:
    return isinstance(value, (Tensor, np.ndarray, np.generic, numbers.Number))


def comparison(np_op: Callable) -> Callable:
    """`a < b` and its kin: a bool tensor, compared in the promoted dtype."""

    def compare(a: Tensor, b: Any) -> Any:
        if not _is_operand(b):
            return NotImplemented
        _, (x, y), _ = broadcast_operands(a, b)
        return Tensor._wrap(iterator_layout(np.asarray(np_op(x, y)), x, y))

    return compare


def named_comparison(name: str, operator: Callable) -> Callable:
    """`t.eq(b)` / `torch.eq(t, b)`: the operator's result, but a method has no reflected
    fallback, so an operand it cannot compare is PyTorch's TypeError."""

    def compare(a: Tensor, b: Any) -> Tensor:
        out = operator(a, b) if isinstance(a, Tensor) else NotImplemented
        if out is NotImplemented:
            raise TypeError(
                f"{name}() received an invalid combination of arguments - got "
                f"({type(a).__name__}, {type(b).__name__}), but expected (Tensor input, Tensor "
                "other) or (Tensor input, Number other)"
            )
        return out

    compare.__name__ = name
    return compare


def bitwise(np_op: Callable, kernel: str) -> Callable:
    """`&`, `|`, `^`: logical on bool, bitwise on integers (an int64 result for int64 and bool
    operands), PyTorch's NotImplementedError on floats. The operation is symmetric, so the
    reflected operator (`2 & t`) is the same function with the tensor first."""

    def apply(a: Tensor, b: Any) -> Any:
        if not _is_operand(b):
            return NotImplemented
        _, (x, y), dtype = broadcast_operands(a, b)
        if dtype.is_floating_point:
            raise NotImplementedError(
                f"\"{kernel}\" not implemented for '{SCALAR_NAMES[dtype.name]}'"
            )
        return Tensor._wrap(iterator_layout(np.asarray(np_op(x, y)), x, y))

    return apply


bitwise_and = bitwise(np.bitwise_and, "bitwise_and_cpu")
bitwise_or = bitwise(np.bitwise_or, "bitwise_or_cpu")
bitwise_xor = bitwise(np.bitwise_xor, "bitwise_xor_cpu")


def invert(a: Tensor) -> Tensor:
    """`~t`: logical not on bool, bitwise not on integers."""
    if a.dtype.is_floating_point:
        raise TypeError(
            "~ (operator.invert) is only implemented on integer and Boolean-type tensors"
        )
    return Tensor._wrap(np.asarray(np.invert(a._data)))


def logical(np_op: Callable, name: str) -> Callable[[Tensor, Tensor], Tensor]:
    """logical_and/or/xor: a bool tensor, each operand read as nonzero or not (NaN is
    nonzero)."""

    def apply(a: Tensor, b: Tensor) -> Tensor:
        _, (x, y), _ = broadcast_operands(a, b)
        return Tensor._wrap(iterator_layout(np.asarray(np_op(x, y)), x, y))

    apply.__name__ = name
    return apply


logical_and = logical(np.logical_and, "logical_and")
logical_or = logical(np.logical_or, "logical_or")
logical_xor = logical(np.logical_xor, "logical_xor")


def logical_not(a: Tensor) -> Tensor:
    return Tensor._wrap(np.asarray(np.logical_not(a._data)))


def logical_inplace(fn: Callable) -> Callable[..., Tensor]:
    """`t.logical_and_(u)`: the bool result written into t in t's own dtype (1 and 0). Not
    differentiable, so PyTorch neither checks nor changes t's history (a leaf that requires
    grad is written too), as an in-place op under no_grad; only t's version counts it."""

    def method(t: Tensor, *args: Any) -> Tensor:
        with no_grad():
            return inplace.run_inplace(t, fn, args, {})

    method.__name__ = f"{fn.__name__}_"
    return method


def elementwise_test(np_op: Callable) -> Callable[[Tensor], Tensor]:
    """isnan, isinf, ...: a bool tensor of a's shape (integers and bools are finite numbers)."""

    def test(a: Tensor) -> Tensor:
        return Tensor._wrap(np.asarray(np_op(a._data)))

    return test


isnan = elementwise_test(np.isnan)
isinf = elementwise_test(np.isinf)
isfinite = elementwise_test(np.isfinite)
isposinf = elementwise_test(np.isposinf)
isneginf = elementwise_test(np.isneginf)


def _bool_reduction(np_op: Callable) -> Callable:
    """all/any over every element, one dim or a tuple of dims (an empty tuple reduces none)."""

    @numpy_names
    def reduce(a: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
        axes = None
        if dim is not None:
            axes = tuple(wrap_dims(dim, a.ndim)) if a.ndim else ()
        return Tensor._wrap(np.asarray(np_op(a._data, axis=axes, keepdims=keepdim)))

    reduce.__name__ = reduce.__qualname__ = np_op.__name__
    return reduce


all = _bool_reduction(np.all)  # noqa: A001
any = _bool_reduction(np.any)  # noqa: A001


def allclose(
    a: Tensor, b: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> bool:
    """Whether every element of `a` is close to `b`'s, as PyTorch's isclose decides: equal, or
    |a - b| <= atol + |rtol * b| and finite (NaN equal to NaN only with equal_nan)."""
    if not isinstance(b, Tensor):
        raise TypeError(
            f"allclose(): argument 'other' (position 2) must be Tensor, not {type(b).__name__}"
        )
    if a.dtype is not b.dtype:
        raise RuntimeError(
            f"{SCALAR_NAMES[a.dtype.name]} did not match {SCALAR_NAMES[b.dtype.name]}"
        )
    for name, tol in (("rtol", rtol), ("atol", atol)):
        if tol < 0:
            raise RuntimeError(f"{name} must be greater than or equal to zero, but got {tol:g}")
    _, (x, y), _ = broadcast_operands(a, b)
    close = x == y
    if x.dtype == np.bool_ or (rtol == 0 and atol == 0):
        return bool(close.all())
    if equal_nan:
        close |= np.isnan(x) & np.isnan(y)
    with np.errstate(invalid="ignore", over="ignore"):
        error = np.abs(x - y)
        close |= np.isfinite(error) & (error <= atol + np.abs(rtol * y))
    return bool(close.all())
