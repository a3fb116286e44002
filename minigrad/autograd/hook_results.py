"""What a hook may hand back, checked as PyTorch's python_hook.cpp checks it: a tensor hook
returns a Tensor or None; a node hook a tuple as long as the one it was given, each entry None
or a Tensor of the same dtype and size, and never a value where it was given None."""

from __future__ import annotations

from typing import Any

from ..core.dtypes import LEGACY_NAMES
from ..core.hooks import hook_name
from ..core.tensor import Tensor

_HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class defined in Python, named without its module


def type_name(value: Any) -> str:
    """The name PyTorch prints for a value's type (C's tp_name: 'list', 'numpy.ndarray')."""
    cls = type(value)
    if cls.__module__ == "builtins" or cls.__flags__ & _HEAP_TYPE:
        return cls.__name__
    return f"{cls.__module__}.{cls.__name__}"


def _legacy(t: Tensor) -> str:
    name = t._data.dtype.name
    return f"torch.{LEGACY_NAMES.get(name, name)}"


def checked_value(fn: Any, old: Tensor | None, new: Any) -> Tensor | None:
    """One gradient as a hook returned it (None keeps the one it was given)."""
    if new is None:
        return None
    if old is None:
        raise RuntimeError("can't replace a None gradient with a non-None value")
    if not isinstance(new, Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type_name(new)}'")
    if new._data.dtype != old._data.dtype:
        raise RuntimeError(
            f"hook '{hook_name(fn)}' has changed the type of value (was {_legacy(old)} "
            f"got {_legacy(new)})"
        )
    if new._data.shape != old._data.shape:
        raise RuntimeError(f"hook '{hook_name(fn)}' has changed the size of value")
    return new


def checked_tuple(fn: Any, old: tuple, new: Any) -> list:
    """A node hook's result: what replaces the gradients it was given (None entries stay None)."""
    if not isinstance(new, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type_name(new)}'")
    if len(new) != len(old):
        raise RuntimeError(
            f"hook '{hook_name(fn)}' has returned an incorrect number of values "
            f"(got {len(new)}, but expected {len(old)})"
        )
    return [checked_value(fn, o, n) for o, n in zip(old, new)]
