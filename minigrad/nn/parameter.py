"""nn.Parameter: a leaf tensor that a Module registers as one of its parameters."""

from __future__ import annotations

from typing import Any

from ..core.shapes import copy_like
from ..core.tensor import Tensor
from ..creation import empty


class Parameter(Tensor):
    """A Tensor subclass so that `Module.__setattr__` can tell parameters from plain tensors.

    Like PyTorch's, it shares storage and version counter with the tensor it wraps and is always
    a leaf; results of ops on it are plain Tensors.
    """

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True) -> Parameter:
        if data is None:
            data = empty(0)
        p = Tensor.__new__(cls)
        p._init(data._data, False, counter=data._version_counter)
        if requires_grad:
            if not data.dtype.is_floating_point:
                raise RuntimeError(
                    "Only Tensors of floating point and complex dtype can require gradients"
                )
            p._requires_grad = True
        return p

    def __init__(self, *args: Any, **kwargs: Any) -> None:  # everything happened in __new__
        pass

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __reduce_ex__(self, proto: Any) -> tuple:
        return (_rebuild_parameter, (self._data, self._requires_grad))

    def __deepcopy__(self, memo: dict) -> Parameter:
        """A fresh parameter with the same values: unlike a plain tensor's deepcopy, PyTorch's
        leaves `.grad` (and any other attribute) behind, so a copied model starts clean."""
        if id(self) not in memo:
            memo[id(self)] = Parameter(Tensor._wrap(copy_like(self._data)), self._requires_grad)
        return memo[id(self)]


def _rebuild_parameter(data: Any, requires_grad: bool) -> Parameter:
    return Parameter(Tensor._wrap(data.copy()), requires_grad)
