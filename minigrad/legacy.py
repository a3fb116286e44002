"""PyTorch's legacy tensor types: `torch.FloatTensor([1, 2])`, `torch.LongTensor(2, 3)`, and
`isinstance(t, torch.FloatTensor)`. As in PyTorch they are not subclasses of Tensor: calling one
makes a plain Tensor of its dtype, and an isinstance test asks for a Tensor of that dtype."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import creation
from .core import dtypes
from .core.device import check_cpu
from .core.tensor import Size, Tensor

SIGNATURES = (
    "\n * (*, torch.device device = None)\n * (torch.Storage storage)\n * (Tensor other)\n"
    " * (tuple of ints size, *, torch.device device = None)\n"
    " * (object data, *, torch.device device = None)\n"
)
OPTIONS = (
    "TensorOptions(dtype={}, device=cpu, layout=Strided, requires_grad=false (default), "
    "pinned_memory=false (default), memory_format=(nullopt))"
)


class _LegacyType(type):
    """The metaclass: a Tensor of the type's dtype is an instance of the type."""

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, Tensor) and obj.dtype is cls.dtype

    def __repr__(cls) -> str:
        return f"<class 'torch.{cls.__name__}'>"

    def __call__(cls, *args: Any, device: Any = None, **kwargs: Any) -> Tensor:
        check_cpu(device)
        if kwargs:
            raise _combination_error(args, kwargs)
        return _construct(cls.dtype, args)


def _combination_error(args: tuple, kwargs: dict) -> TypeError:
    got = [type(a).__name__ for a in args] + [f"{k}={type(v).__name__}" for k, v in kwargs.items()]
    return TypeError(
        f"new() received an invalid combination of arguments - got ({', '.join(got)}), "
        f"but expected one of:{SIGNATURES}"
    )


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def _construct(dtype: dtypes.dtype, args: tuple) -> Tensor:
    if not args:
        return creation.empty(0, dtype=dtype)
    if all(_is_int(a) for a in args) or (len(args) == 1 and isinstance(args[0], Size)):
        return creation.empty(*args, dtype=dtype)
    if len(args) > 1:
        raise _combination_error(args, {})
    (data,) = args
    if isinstance(data, Tensor):
        if data.dtype is not dtype:
            expected, got = (OPTIONS.format(dtypes.C_NAMES[d.name]) for d in (dtype, data.dtype))
            raise TypeError(f"expected {expected} (got {got})")
        return data.detach()  # an alias of the same memory, as PyTorch's
    if isinstance(data, str):
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    if not isinstance(data, (list, tuple, np.ndarray)):
        raise TypeError(f"new(): data must be a sequence (got {type(data).__name__})")
    with np.errstate(invalid="ignore", over="ignore"):  # what does not fit fails below
        out = creation.tensor(data, dtype=dtype)  # (ragged lists fail here, in PyTorch's words)
    if dtype.category == 1:
        _check_range(data, dtype)
    return out


def _check_range(data: Any, dtype: dtypes.dtype) -> None:
    """Numbers the integer type cannot hold: Python ints beyond int64 fail as Python's own
    conversion does, the rest (floats untruncated: -0.5 does not fit uint8) as PyTorch's."""
    values = np.asarray(data)  # beyond int64, numpy keeps Python ints (uint64 or object)
    if values.dtype.kind == "f":
        values = values[np.isfinite(values)]
    if values.dtype.kind not in "iufO" or values.size == 0:
        return
    low, high = values.min(), values.max()
    if values.dtype.kind != "f" and (int(low) < -(2**63) or int(high) >= 2**63):
        raise ValueError("Overflow when unpacking long long")
    info = np.iinfo(dtype.np)
    if low < info.min or high > info.max:
        raise RuntimeError(f"value cannot be converted to type {dtype.name} without overflow")


def _legacy(name: str, dtype: dtypes.dtype) -> type:
    return _LegacyType(name, (), {"dtype": dtype, "__module__": "torch"})


FloatTensor = _legacy("FloatTensor", dtypes.float32)
DoubleTensor = _legacy("DoubleTensor", dtypes.float64)
HalfTensor = _legacy("HalfTensor", dtypes.float16)
LongTensor = _legacy("LongTensor", dtypes.int64)
IntTensor = _legacy("IntTensor", dtypes.int32)
BoolTensor = _legacy("BoolTensor", dtypes.bool_)
ByteTensor = _legacy("ByteTensor", dtypes.uint8)
