"""amax and amin: the largest or smallest element over any set of dims, as values only (no
indices, unlike max/min along a dim), so ties share the gradient instead of one index taking it.
matrix_norm builds its 1/inf norms on `extreme` too."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.node import Node
from ..core.tensor import Tensor
from . import formula
from ._record import record
from .reduction import _dims, _keep, numpy_names, tangent_at_extremes


class AmaxBackward0(Node):
    """The gradient shared evenly between the elements equal to the extreme, as PyTorch's
    formula has it: (g / count) * mask, multiplied (so a NaN or inf in g, or a NaN extreme,
    which nothing equals, spreads NaN over the slice); linear in g."""

    def jvp(self, out, tangents):
        x, r = self.saved("self")._data, self.saved("result")._data
        return tangent_at_extremes(x, r, tangents[0], self.dim, self.keepdim)

    def backward(self, g):
        x, r = formula.data(self.saved("self")), formula.data(self.saved("result"))
        r = np.expand_dims(r, self.dim) if not self.keepdim else r
        mask = x == r
        count = mask.sum(axis=self.dim, keepdims=True).astype(x.dtype)
        g = _keep(g, self.dim, self.keepdim, x.ndim)
        with np.errstate(divide="ignore", invalid="ignore"):
            return (g / count * mask.astype(x.dtype),)


class AminBackward0(AmaxBackward0):
    pass


def extreme(a: Tensor, dim: tuple, keepdim: bool, largest: bool) -> Tensor:
    """The max (largest) or min of `a` over the sorted, non-negative `dim` (() for all)."""
    x = a._data
    data = (np.max if largest else np.min)(x, axis=dim, keepdims=keepdim)
    cls = AmaxBackward0 if largest else AminBackward0
    data = np.array(data, order="C")  # (a copy, contiguous; 0-d stays 0-d)
    return record(cls, data, (a,), save={"self": a}, save_result=True, dim=dim, keepdim=keepdim)


def _checked_dims(name: str, a: Tensor, dim: Any) -> tuple:
    """dim as `_dims` reads it, after PyTorch's checks: ints only, and no empty dim reduced
    (named as the caller wrote it)."""
    given = () if dim is None else (dim,) if isinstance(dim, int) else dim
    if isinstance(dim, bool) or not isinstance(given, (tuple, list)):
        raise TypeError(
            f"{name}(): argument 'dim' (position 2) must be tuple of ints, not {type(dim).__name__}"
        )
    dims = _dims(given, a.ndim)
    if a._data.size == 0:
        if not given:
            raise RuntimeError(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument."
            )
        for d in given:  # (an empty tensor has dims)
            if a.shape[d % a.ndim] == 0:
                raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    return dims


@numpy_names
def amax(input: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:  # noqa: A002
    return extreme(input, _checked_dims("amax", input, dim), keepdim, largest=True)


@numpy_names
def amin(input: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:  # noqa: A002
    return extreme(input, _checked_dims("amin", input, dim), keepdim, largest=False)
