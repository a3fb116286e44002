"""flip and roll: the elements reordered along some dims, as a new tensor (never a view in
PyTorch). Each is its own gradient's inverse, so backward runs the op again, undone: on
arrays in a plain backward, recorded (FlipBackward0, RollBackward0) under create_graph."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.node import Node
from ..core.shapes import empty_like
from ..core.tensor import Tensor
from . import tangents
from ._record import record
from .int_args import int_tuple, no_dims, varargs
from .shape import wrap_dims


class FlipBackward0(Node):
    jvp = tangents.linear(lambda node, out, t: _flip(t, node.dims))

    def backward(self, g):
        if isinstance(g, Tensor):
            return (_flip(g, self.dims),)
        return (np.flip(g, self.dims),)


def _flip(a: Tensor, dims: tuple) -> Tensor:
    axes = tuple(wrap_dims(dims, a.ndim))
    if not a.ndim:
        axes = ()  # a 0-d tensor takes dim 0 or -1, and has nothing to flip
    out = empty_like(a._data)  # laid out as the input, as PyTorch's flip is
    np.copyto(out, np.flip(a._data, axes))
    return record(FlipBackward0, out, (a,), dims=axes)


def flip(input: Tensor, dims: Any) -> Tensor:  # noqa: A002 - PyTorch's argument name
    """torch.flip(x, dims): dims a tuple or list (a lone int is PyTorch's TypeError)."""
    return _flip(input, int_tuple(dims, "flip", "dims", 2))


def flip_method(self: Tensor, *dims: Any, **kwargs: Any) -> Tensor:
    """x.flip(0, 1), x.flip((0, 1)) or x.flip(dims=[0])."""
    if "dims" in kwargs:
        return _flip(self, int_tuple(kwargs["dims"], "flip", "dims", None))
    if not dims:
        raise TypeError('flip() missing 1 required positional arguments: "dims"')
    return _flip(self, varargs(dims, "flip", "dims"))


def fliplr(input: Tensor) -> Tensor:  # noqa: A002
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return _flip(input, (1,))


def flipud(input: Tensor) -> Tensor:  # noqa: A002
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return _flip(input, (0,))


class RollBackward0(Node):
    jvp = tangents.linear(lambda node, out, t: _roll(t, node.shifts, node.dims))

    def backward(self, g):
        back = tuple(-s for s in self.shifts)
        if isinstance(g, Tensor):
            return (_roll(g, back, self.dims),)
        return (_rolled(g, back, self.dims),)


def _rolled(x: np.ndarray, shifts: tuple, dims: tuple) -> np.ndarray:
    """x rolled, contiguous whatever x's layout (PyTorch's roll writes a fresh tensor); no
    dims: the flattened elements, put back in x's shape."""
    if not dims:
        return np.roll(x.reshape(-1), shifts[0]).reshape(x.shape)
    return np.ascontiguousarray(np.roll(x, shifts, dims))


def _roll(a: Tensor, shifts: tuple, dims: tuple) -> Tensor:
    return record(RollBackward0, _rolled(a._data, shifts, dims), (a,), shifts=shifts, dims=dims)


def roll(input: Tensor, shifts: Any, dims: Any = None) -> Tensor:  # noqa: A002
    """Shift the elements along `dims` (wrapping around); without dims, along the flattened
    tensor. One shift per dim (a dim named twice is rolled twice)."""
    shifts = int_tuple(shifts, "roll", "shifts", 1, one=True)
    dims = () if dims is None else int_tuple(dims, "roll", "dims", 2, one=True)
    if not shifts:
        raise RuntimeError("`shifts` required")
    if len(shifts) != len(dims) and not (len(shifts) == 1 and not dims):
        raise RuntimeError(
            f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}"
        )
    if input.ndim == 0 and dims:
        raise no_dims(dims[0])
    axes = tuple(wrap_dims(d, input.ndim)[0] for d in dims)  # (a dim may come twice)
    return _roll(input, shifts, axes)
