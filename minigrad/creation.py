"""Tensor factories (tensor, zeros, ones, arange, rand...); the random ones draw from their
`generator=` or the default generator (core/generator.py)."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from .core import dtypes, ranges
from .core.device import check_cpu
from .core.generator import Generator, generator_of
from .core.shapes import empty_like
from .core.tensor import Tensor


def _size(size: tuple, factory: str = "") -> tuple:
    """Sizes given as f(2, 3) or f((2, 3)); negative ones are PyTorch's RuntimeError."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    size = tuple(int(s) for s in size)
    for s in size:
        if s < 0:
            if factory == "zeros":
                raise RuntimeError("zeros: Dimension size must be non-negative.")
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(size)}")
    return size


def _finish(data: np.ndarray, dtype: dtypes.dtype | None, requires_grad: bool) -> Tensor:
    if dtype is not None:
        data = data.astype(dtype.np, copy=False)
    t = Tensor._wrap(data)
    if requires_grad:
        if not t.dtype.is_floating_point:
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients"
            )
        t._requires_grad = True
    return t


def _check_nesting(data: Any, dim: int) -> None:
    """Raise PyTorch's error for the first ragged level of nested lists."""
    if not isinstance(data, (list, tuple)):
        return
    lengths = [len(d) if isinstance(d, (list, tuple)) else None for d in data]
    for n in lengths:
        if None not in (n, lengths[0]) and n != lengths[0]:
            raise ValueError(f"expected sequence of length {lengths[0]} at dim {dim + 1} (got {n})")
    for d in data:
        _check_nesting(d, dim + 1)


def _infer_np(data: Any, dtype: dtypes.dtype | None = None) -> np.ndarray:
    """Python data as an array of the dtype PyTorch infers; with `dtype` given, the numbers go
    straight to it (0.1 as float64 is 0.1, not float32's 0.10000000149)."""
    if isinstance(data, Tensor):
        return data._data.copy()
    try:
        arr = np.array(data)
    except ValueError:
        _check_nesting(data, 0)
        raise
    if isinstance(data, (np.ndarray, np.generic)):  # numpy data keeps its dtype, as in torch
        return arr.astype(dtypes.from_numpy_dtype(arr.dtype).np, copy=False)
    if arr.dtype.kind == "f":
        return arr.astype((dtype or dtypes.get_default_dtype()).np)
    if arr.dtype.kind in "iu":
        return arr.astype(np.int64)
    if arr.dtype.kind == "b":
        return arr
    if arr.dtype == object:
        raise TypeError(f"Could not infer dtype of {type(data).__name__}")
    return arr


def tensor(
    data: Any, dtype: dtypes.dtype | None = None, device: Any = None, requires_grad: bool = False
) -> Tensor:
    check_cpu(device)
    if isinstance(data, Tensor):
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use "
            "sourceTensor.detach().clone() or "
            "sourceTensor.detach().clone().requires_grad_(True), rather than "
            "torch.tensor(sourceTensor).",
            UserWarning,
            stacklevel=2,
        )
    return _finish(_infer_np(data, dtype), dtype, requires_grad)


def as_tensor(data: Any, dtype: dtypes.dtype | None = None, device: Any = None) -> Tensor:
    """A tensor is returned as it is, or converted by `.to(dtype)` (history kept)."""
    check_cpu(device)
    if isinstance(data, Tensor):
        return data if dtype is None else data.to(dtype)
    return tensor(data, dtype)


def from_numpy(arr: np.ndarray) -> Tensor:
    return Tensor._wrap(arr)


def _default(dtype):
    return (dtype or dtypes.get_default_dtype()).np


def zeros(*size: Any, dtype=None, requires_grad: bool = False, device: Any = None) -> Tensor:
    check_cpu(device)
    return _finish(np.zeros(_size(size, "zeros"), _default(dtype)), None, requires_grad)


def ones(*size: Any, dtype=None, requires_grad: bool = False, device: Any = None) -> Tensor:
    check_cpu(device)
    return _finish(np.ones(_size(size), _default(dtype)), None, requires_grad)


def empty(*size: Any, dtype=None, requires_grad: bool = False, device: Any = None) -> Tensor:
    check_cpu(device)
    return _finish(np.zeros(_size(size), _default(dtype)), None, requires_grad)


def full(
    size: Any, fill_value: Any, dtype=None, requires_grad: bool = False, device: Any = None
) -> Tensor:
    check_cpu(device)
    if dtype is None:
        dtype = (
            dtypes.bool_
            if isinstance(fill_value, bool)
            else dtypes.int64
            if isinstance(fill_value, int)
            else dtypes.get_default_dtype()
        )
    return _finish(np.full(_size((size,)), fill_value, dtype.np), None, requires_grad)


def _filled_like(t: Tensor, dtype, fn: str, value: Any) -> np.ndarray:
    """`value` everywhere, laid out as `t` is (PyTorch's preserve_format: zeros_like of a
    transpose is a transpose)."""
    if not isinstance(t, Tensor):
        raise TypeError(
            f"{fn}(): argument 'input' (position 1) must be Tensor, not {type(t).__name__}"
        )
    out = empty_like(t._data, (dtype or t.dtype).np)
    out.fill(value)
    return out


def zeros_like(t: Tensor, dtype=None, requires_grad: bool = False, device: Any = None) -> Tensor:
    check_cpu(device)
    return _finish(_filled_like(t, dtype, "zeros_like", 0), None, requires_grad)


def ones_like(t: Tensor, dtype=None, requires_grad: bool = False, device: Any = None) -> Tensor:
    check_cpu(device)
    return _finish(_filled_like(t, dtype, "ones_like", 1), None, requires_grad)


def full_like(
    t: Tensor, fill_value: Any, dtype=None, requires_grad: bool = False, device: Any = None
) -> Tensor:
    check_cpu(device)
    return _finish(_filled_like(t, dtype, "full_like", fill_value), None, requires_grad)


def random_dtype(dtype: dtypes.dtype, kernel: str) -> dtypes.dtype:
    """PyTorch's random kernels exist for floating dtypes only."""
    if not dtype.is_floating_point:
        kind = dtypes.SCALAR_NAMES[dtype.name]
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{kind}'")
    return dtype


def rand_like(
    t: Tensor,
    dtype=None,
    requires_grad: bool = False,
    generator: Generator | None = None,
    device: Any = None,
) -> Tensor:
    check_cpu(device)
    dtype = random_dtype(dtype or t.dtype, "check_uniform_bounds")
    return _finish(generator_of(generator, "rand_like").random(t.shape), dtype, requires_grad)


def randn_like(
    t: Tensor,
    dtype=None,
    requires_grad: bool = False,
    generator: Generator | None = None,
    device: Any = None,
) -> Tensor:
    check_cpu(device)
    dtype = random_dtype(dtype or t.dtype, "normal_kernel_cpu")
    return _finish(
        generator_of(generator, "randn_like").standard_normal(t.shape), dtype, requires_grad
    )


def _number(value: Any, fn: str, name: str) -> Any:
    """A range bound: a number, or a 0-d tensor's number."""
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError(
                f"{fn} only supports 0-dimensional start and end tensors, but got {name} with "
                f"{value.ndim} dimension(s)."
            )
        return value.item()
    return value


def _range_dtype(dtype: dtypes.dtype, kernel: str) -> dtypes.dtype:
    if dtype is dtypes.bool_:
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")
    return dtype


def _cxx(value: Any) -> str:
    """A number as PyTorch's C++ messages print it (0.0 as 0)."""
    return f"{value:g}" if isinstance(value, float) else str(value)


def arange(
    start: Any,
    end: Any = None,
    step: Any = 1,
    dtype=None,
    requires_grad: bool = False,
    device: Any = None,
) -> Tensor:
    """start, start + step, ... below end, each value as PyTorch's kernel computes it
    (core/ranges.py): float outputs from double arithmetic, integer ones from int64."""
    check_cpu(device)
    if end is None:
        start, end = 0, start
    start, end, step = (
        _number(v, "arange", n) for v, n in ((start, "start"), (end, "end"), (step, "step"))
    )
    is_float = any(isinstance(v, float) for v in (start, end, step))
    if dtype is None:
        dtype = dtypes.get_default_dtype() if is_float else dtypes.int64
    _range_dtype(dtype, "arange_cpu")
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"unsupported range: {_cxx(start)} -> {_cxx(end)}")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dtype.is_floating_point:
        n = ranges.arange_size(start, end, step, integral=False)
        data = ranges.arange_float(float(start), float(step), n, dtype.np)
    else:
        if dtype is dtypes.int64 and int(step) == 0:
            raise ValueError("step must be nonzero")
        integral = dtype is dtypes.int64  # counted from the truncated bounds
        bounds = (int(start), int(end), int(step)) if integral else (start, end, step)
        n = ranges.arange_size(*bounds, integral=integral)
        data = int(start) + int(step) * np.arange(n, dtype=np.int64)
    return _finish(data, dtype, requires_grad)


def linspace(
    start: Any,
    end: Any,
    steps: int,
    dtype=None,
    requires_grad: bool = False,
    device: Any = None,
) -> Tensor:
    """steps values from start to end as PyTorch's kernel computes them (core/ranges.py);
    integer outputs truncate start, end and each value."""
    check_cpu(device)
    start, end = _number(start, "linspace", "start"), _number(end, "linspace", "end")
    if isinstance(steps, (bool, np.bool_)) or not hasattr(steps, "__index__"):
        got = ", ".join(type(v).__name__ for v in (start, end, steps))
        raise TypeError(f"linspace() received an invalid combination of arguments - got ({got})")
    steps = steps.__index__()  # (numpy integers and integer 0-d tensors too, as PyTorch takes)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    dtype = _range_dtype(dtype or dtypes.get_default_dtype(), "linspace_cpu")
    if not dtype.is_floating_point:
        start, end = int(start), int(end)
    data = ranges.linspace_values(start, end, steps, dtype.np) if steps else np.zeros(0)
    return _finish(data, dtype, requires_grad)


def eye(
    n: int, m: int | None = None, dtype=None, requires_grad: bool = False, device: Any = None
) -> Tensor:
    check_cpu(device)
    for name, value in (("n", n), ("m", m)):
        if value is not None and value < 0:
            raise RuntimeError(f"{name} must be greater or equal to 0, got {value}")
    return _finish(np.eye(n, m), dtype or dtypes.get_default_dtype(), requires_grad)


def rand(
    *size: Any,
    dtype=None,
    requires_grad: bool = False,
    generator: Generator | None = None,
    device: Any = None,
) -> Tensor:
    check_cpu(device)
    dtype = random_dtype(dtype or dtypes.get_default_dtype(), "check_uniform_bounds")
    return _finish(generator_of(generator, "rand").random(_size(size)), dtype, requires_grad)


def randn(
    *size: Any,
    dtype=None,
    requires_grad: bool = False,
    generator: Generator | None = None,
    device: Any = None,
) -> Tensor:
    check_cpu(device)
    dtype = random_dtype(dtype or dtypes.get_default_dtype(), "normal_kernel_cpu")
    return _finish(
        generator_of(generator, "randn").standard_normal(_size(size)), dtype, requires_grad
    )


def _integers(
    low: int, high: int, size: tuple, dtype: dtypes.dtype, generator: Generator | None
) -> np.ndarray:
    """Integers in [low, high) as PyTorch's random_ draws them, its range checks first."""
    if low >= high:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    if not dtype.is_floating_point:
        info = np.iinfo(dtype.np) if dtype is not dtypes.bool_ else np.iinfo(np.uint8)
        top = 1 if dtype is dtypes.bool_ else info.max
        kind = dtypes.C_NAMES[dtype.name]
        if not info.min <= low <= top:
            raise RuntimeError(f"from is out of bounds for {kind}")
        if not info.min <= high - 1 <= top:
            raise RuntimeError(f"to - 1 is out of bounds for {kind}")
    return generator_of(generator, "randint").integers(low, high, size=size).astype(dtype.np)


def _bounds(rest: list, low: int | None, high: int | None) -> tuple[int, int]:
    """randint's positional (high) or (low, high), one reading for randint and randint_like;
    keywords given take the place of the positions."""
    if high is None:
        high = rest.pop()
    if low is None:
        low = rest.pop() if rest else 0
    return low, high


def randint(
    *args: Any,
    low: int | None = None,
    high: int | None = None,
    size: Any = None,
    dtype=None,
    requires_grad: bool = False,
    generator: Generator | None = None,
    device: Any = None,
) -> Tensor:
    """randint(high, size) or randint(low, high, size): integers in [low, high)."""
    check_cpu(device)
    rest = list(args)
    if size is None:
        size = rest.pop()
    low, high = _bounds(rest, low, high)
    dtype = dtype or dtypes.int64
    data = _integers(low, high, _size((size,)), dtype, generator)
    return _finish(data, None, requires_grad)


def randint_like(
    t: Tensor,
    *args: int,
    low: int | None = None,
    high: int | None = None,
    dtype=None,
    requires_grad: bool = False,
    generator: Generator | None = None,
    device: Any = None,
) -> Tensor:
    """randint_like(t, high) or randint_like(t, low, high): t's shape and (by default) dtype."""
    check_cpu(device)
    low, high = _bounds(list(args), low, high)
    data = _integers(low, high, tuple(t.shape), dtype or t.dtype, generator)
    return _finish(data, None, requires_grad)


def randperm(
    n: int,
    generator: Generator | None = None,
    dtype=None,
    requires_grad: bool = False,
    device: Any = None,
) -> Tensor:
    """0..n-1 shuffled; the dtype must hold n - 1 (bool holds nothing, as in PyTorch)."""
    check_cpu(device)
    (n,) = _size((n,))
    dtype = dtype or dtypes.int64
    if dtype is dtypes.bool_:
        raise NotImplementedError("\"randperm\" not implemented for 'Bool'")
    if not dtype.is_floating_point and n - 1 > np.iinfo(dtype.np).max:
        raise RuntimeError(f"value cannot be converted to type {dtype.name}_t without overflow")
    return _finish(generator_of(generator, "randperm").permutation(n), dtype, requires_grad)


def normal_filled(
    mean: float,
    std: float,
    size: Any,
    generator: Generator | None = None,
    dtype=None,
    requires_grad: bool = False,
    device: Any = None,
) -> Tensor:
    """torch.normal(mean, std, size) with two numbers: a factory like randn."""
    check_cpu(device)
    dtype = random_dtype(dtype or dtypes.get_default_dtype(), "normal_kernel_cpu")
    data = random_normal(_size((size,)), mean, std, generator)
    return _finish(data, dtype, requires_grad)


def random_normal(
    shape: tuple, mean: float = 0.0, std: float = 1.0, generator: Generator | None = None
) -> np.ndarray:
    return generator_of(generator, "normal_").normal(mean, std, shape)


def random_uniform(
    shape: tuple, a: float = 0.0, b: float = 1.0, generator: Generator | None = None
) -> np.ndarray:
    return generator_of(generator, "uniform_").uniform(a, b, shape)


def normal_(
    t: Tensor, mean: float = 0.0, std: float = 1.0, generator: Generator | None = None
) -> Tensor:
    """nn.init's fill (no graph: nn.init runs under no_grad); Tensor.normal_ is ops/writes.py's."""
    t._data[...] = random_normal(t.shape, mean, std, generator)
    t._bump()
    return t


def uniform_(
    t: Tensor, a: float = 0.0, b: float = 1.0, generator: Generator | None = None
) -> Tensor:
    """nn.init's fill (no graph: nn.init runs under no_grad); Tensor.uniform_ is ops/writes.py's."""
    t._data[...] = random_uniform(t.shape, a, b, generator)
    t._bump()
    return t
