"""PyTorch's integer-list arguments (flip's dims, roll's shifts, repeat's repeats): a tuple or
list of ints, or, for a method's varargs, the ints themselves. Anything else is the TypeError
PyTorch's argument parser raises, naming the argument, so a float never rounds silently."""

from __future__ import annotations

import operator
from typing import Any

from ..core.tensor import Tensor


def _as_int(value: Any) -> int | None:
    """`value` as an int when PyTorch takes it as one (numpy and 0-d integer tensors too)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, Tensor):
        if value.ndim or value.dtype.is_floating_point or value.dtype.name == "bool":
            return None
        return int(value.item())
    try:
        return operator.index(value)
    except TypeError:
        return None


def _where(position: int | None) -> str:
    return f" (position {position})" if position else ""


def int_tuple(value: Any, fn: str, arg: str, position: int | None, one: bool = False) -> tuple:
    """A tuple/list of ints as a tuple; `one`: a lone int is taken too (roll's shifts)."""
    lone = _as_int(value)
    if one and lone is not None:
        return (lone,)
    if isinstance(value, (tuple, list)):
        ints = [_as_int(v) for v in value]
        for i, (v, n) in enumerate(zip(value, ints)):
            if n is None:
                raise TypeError(
                    f"{fn}(): argument '{arg}'{_where(position)} must be tuple of ints, but "
                    f"found element of type {type(v).__name__} at pos {i}"
                )
        return tuple(ints)
    raise TypeError(
        f"{fn}(): argument '{arg}'{_where(position)} must be tuple of ints, not "
        f"{type(value).__name__}"
    )


def varargs(args: tuple, fn: str, arg: str) -> tuple:
    """A method's `*ints` or one sequence of them: `x.flip(0, 1)`, `x.flip((0, 1))`."""
    if len(args) == 1:
        return int_tuple(args[0], fn, arg, 1, one=True)
    ints = [_as_int(v) for v in args]
    for i, (v, n) in enumerate(zip(args, ints)):
        if n is None:
            raise TypeError(
                f"{fn}(): argument '{arg}' failed to unpack the object at pos {i + 1} with "
                f'error "type must be tuple of ints,but got {type(v).__name__}"'
            )
    return tuple(ints)


def integer(value: Any, fn: str, arg: str, position: int | None = None) -> int:
    """One int argument (diagonal's offset, diff's n)."""
    n = _as_int(value)
    if n is None:
        raise TypeError(
            f"{fn}(): argument '{arg}'{_where(position)} must be int, not {type(value).__name__}"
        )
    return n


def no_dims(dim: int) -> IndexError:
    """What PyTorch says when an op that wants a dim (roll, repeat_interleave with a tensor of
    repeats) gets one with a 0-d tensor, where `wrap_dim` would let 0 and -1 through."""
    return IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
