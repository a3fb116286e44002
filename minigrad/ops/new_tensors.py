"""Tensor.new_*: factories that default to the calling tensor's dtype (and device), so code
can make a buffer "like this one" without naming its dtype."""

from __future__ import annotations

from typing import Any

from .. import creation
from ..core import dtypes
from ..core.tensor import Tensor
from .shape import _shape_arg


def new_tensor(
    self: Tensor,
    data: Any,
    dtype: dtypes.dtype | None = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    return creation.tensor(data, dtype or self.dtype, device, requires_grad)


def _sized(factory):
    """x.new_zeros(2, 3) or x.new_zeros((2, 3)), in x's dtype unless told otherwise."""

    def method(
        self: Tensor, *size: Any, dtype=None, device: Any = None, requires_grad: bool = False
    ) -> Tensor:
        return factory(
            _shape_arg(size), dtype=dtype or self.dtype, device=device, requires_grad=requires_grad
        )

    return method


new_zeros, new_ones, new_empty = (
    _sized(f) for f in (creation.zeros, creation.ones, creation.empty)
)


def new_full(
    self: Tensor,
    size: Any,
    fill_value: Any,
    dtype: dtypes.dtype | None = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    if not isinstance(size, (tuple, list)):
        raise TypeError(
            "new_full(): argument 'size' (position 1) must be tuple of ints, not "
            f"{type(size).__name__}"
        )
    return creation.full(tuple(size), fill_value, dtype or self.dtype, requires_grad, device)
