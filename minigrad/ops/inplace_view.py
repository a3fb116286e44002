"""In-place view ops (t_, transpose_, squeeze_, unsqueeze_): the tensor itself takes the view's
shape and strides, as in PyTorch. Its version counts up (saved references to it then refuse),
and when it requires grad its history becomes the view op's node, under PyTorch's in-place
name (TBackward1 for t's TBackward0: the same formula), whether the tensor is a view or not.
Views of it keep pointing at the same memory (inplace.memory_positions)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.forward_grad import Levels, computing_tangents
from ..core.tensor import Tensor
from ._record import should_record
from .inplace import check_inplace, view_tangent
from .shape import (
    SqueezeBackward0,
    SqueezeBackward1,
    SqueezeBackward2,
    SqueezeBackward4,
    TBackward0,
    TransposeBackward0,
    UnsqueezeBackward0,
    squeeze,
    t,
    transpose,
    unsqueeze,
)


class TBackward1(TBackward0):
    pass


class TransposeBackward1(TransposeBackward0):
    pass


class SqueezeBackward3(SqueezeBackward0):
    pass


class SqueezeBackward5(SqueezeBackward0):
    pass


class UnsqueezeBackward1(UnsqueezeBackward0):
    pass


IN_PLACE_NAME = {
    TBackward0: TBackward1,
    TransposeBackward0: TransposeBackward1,
    SqueezeBackward0: SqueezeBackward3,
    SqueezeBackward1: SqueezeBackward4,
    SqueezeBackward2: SqueezeBackward5,
    UnsqueezeBackward0: UnsqueezeBackward1,
}


def _become(a: Tensor, view: Tensor) -> Tensor:
    """`a` takes the geometry and history of `view`, an out-of-place view of it."""
    if view._grad_fn is None:
        a._keep_made_meta()
    a._data = view._data
    a._bump()
    node = view._grad_fn
    if node is not None:
        node.__class__ = IN_PLACE_NAME[type(node)]  # same formula, the in-place op's name
        # not _set_history: PyTorch's in-place view ops leave retain_grad and the tensor's hook
        # dict where they were (hooks registered later join that dict, on the old history)
        a._grad_fn, a._output_nr, a._made_meta = node, 0, None  # (made for what it is now)
        if a._base is not None:  # its history is current: no regeneration
            a._view_version = a._version_counter.value
    return a


def _in_place(a: Tensor, op: Callable[..., Tensor], *args: Any) -> Tensor:
    """`a` becomes `op(a, *args)`; in forward AD its tangent does too, in place (PyTorch's
    formula: the same in-place view op on the tangent), so the tensor keeps its tangent."""
    check_inplace(a, should_record((a,)))
    tangent = view_tangent(a) if Levels.active else None
    if tangent is None:
        return _become(a, op(a, *args))
    with computing_tangents():
        _in_place(tangent, op, *args)
        return _become(a, op(a, *args))


def t_(a: Tensor) -> Tensor:
    if a.ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {a.ndim}D")
    return _in_place(a, t)


def transpose_(a: Tensor, dim0: int, dim1: int) -> Tensor:
    return _in_place(a, transpose, dim0, dim1)


def squeeze_(a: Tensor, dim: Any = None) -> Tensor:
    return _in_place(a, squeeze, dim)


def unsqueeze_(a: Tensor, dim: int) -> Tensor:
    return _in_place(a, unsqueeze, dim)
