"""isclose: elementwise, whether two tensors of one dtype agree within a tolerance. Never
differentiable (its result is bool)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import dtypes
from ..core.tensor import Tensor
from ._record import argument_error
from .elementwise import broadcast_operands


def _isclose(a: Tensor, b: Any, rtol: float, atol: float, equal_nan: bool, position: int) -> Tensor:
    """Equal, or |a - b| <= atol + |rtol * b| with the difference finite (so inf is close to
    the same inf only); NaN is close to NaN only with equal_nan. Integers and bools are
    compared in the default float dtype, as PyTorch compares them."""
    if not isinstance(b, Tensor):
        raise argument_error("isclose", "other", position, b)
    if a.dtype is not b.dtype:
        names = dtypes.SCALAR_NAMES
        raise RuntimeError(f"{names[a.dtype.name]} did not match {names[b.dtype.name]}")
    for name, tol in (("rtol", rtol), ("atol", atol)):
        if not tol >= 0:  # (NaN too)
            raise RuntimeError(f"{name} must be greater than or equal to zero, but got {tol:g}")
    _, (x, y), _ = broadcast_operands(a, b)
    close = x == y
    if rtol == 0 and atol == 0:
        return Tensor._wrap(np.array(close, order="C"))
    if not a.dtype.is_floating_point:
        x, y = (v.astype(dtypes.get_default_dtype().np) for v in (x, y))
    elif equal_nan:
        close |= np.isnan(x) & np.isnan(y)
    with np.errstate(invalid="ignore", over="ignore"):
        error = np.abs(x - y)
        close |= np.isfinite(error) & (error <= atol + np.abs(rtol * y))
    return Tensor._wrap(np.array(close, order="C"))


def isclose(
    input: Tensor,  # noqa: A002
    other: Tensor,
    rtol: float = 1e-05,
    atol: float = 1e-08,
    equal_nan: bool = False,
) -> Tensor:
    return _isclose(input, other, rtol, atol, equal_nan, 2)


def isclose_method(
    self: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> Tensor:
    return _isclose(self, other, rtol, atol, equal_nan, 1)
