"""hstack, vstack and dstack, and the atleast_Nd they stand on: each input given the dims the
stack needs (a reshape for a 0-d tensor, unsqueezes for the others: ViewBackward0 and
UnsqueezeBackward0, as PyTorch records them), then one cat (CatBackward0)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.tensor import Tensor
from .shape import cat, reshape, unsqueeze


def _each(fn: Callable[[Tensor], Tensor], tensors: tuple) -> Any:
    """PyTorch's atleast_Nd calling conventions: one tensor gives one tensor; several tensors,
    or one list or tuple of them, give a tuple."""
    if len(tensors) == 1 and isinstance(tensors[0], Tensor):
        return fn(tensors[0])
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    return tuple(fn(t) for t in tensors)


def _at_least_1d(t: Tensor) -> Tensor:
    return reshape(t, 1) if t.ndim == 0 else t


def _at_least_2d(t: Tensor) -> Tensor:
    if t.ndim == 0:
        return reshape(t, 1, 1)
    return unsqueeze(t, 0) if t.ndim == 1 else t


def _at_least_3d(t: Tensor) -> Tensor:
    if t.ndim == 0:
        return reshape(t, 1, 1, 1)
    if t.ndim == 1:
        return unsqueeze(unsqueeze(t, 0), -1)
    return unsqueeze(t, -1) if t.ndim == 2 else t


def atleast_1d(*tensors: Any) -> Any:
    return _each(_at_least_1d, tensors)


def atleast_2d(*tensors: Any) -> Any:
    return _each(_at_least_2d, tensors)


def atleast_3d(*tensors: Any) -> Any:
    return _each(_at_least_3d, tensors)


def _inputs(name: str, tensors: Any) -> list[Tensor]:
    """The list to stack, refused as PyTorch's argument parser refuses it."""
    if not isinstance(tensors, (list, tuple)):
        raise TypeError(
            f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, not "
            f"{type(tensors).__name__}"
        )
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}"
            )
    if not tensors:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    return list(tensors)


def hstack(tensors: Any) -> Tensor:
    """Joined along dim 1, or dim 0 when the first is a vector (or a number)."""
    ts = [_at_least_1d(t) for t in _inputs("hstack", tensors)]
    return cat(ts, 0 if ts[0].ndim == 1 else 1)


def vstack(tensors: Any) -> Tensor:
    """Joined along dim 0, vectors as rows."""
    return cat([_at_least_2d(t) for t in _inputs("vstack", tensors)], 0)


def dstack(tensors: Any) -> Tensor:
    """Joined along dim 2, vectors and matrices given a depth of 1."""
    return cat([_at_least_3d(t) for t in _inputs("dstack", tensors)], 2)
