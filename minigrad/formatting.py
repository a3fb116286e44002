"""Tensor printing close to PyTorch's: `tensor([1., 2.], requires_grad=True)`."""

from __future__ import annotations

import numpy as np

from . import dtypes


def _float_formatter(values: np.ndarray):
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return lambda v: f"{v}"
    amax, amin = np.abs(finite).max(), np.abs(finite).min()
    if np.all(finite == np.round(finite)) and amax < 1e8:
        return lambda v: f"{v:.0f}." if np.isfinite(v) else f"{v}"
    if amax >= 1e8 or (amin > 0 and (amin < 1e-4 or amax / amin > 1e3)):
        return lambda v: f"{v:.4e}" if np.isfinite(v) else f"{v}"
    return lambda v: f"{v:.4f}" if np.isfinite(v) else f"{v}"


def format_tensor(data: np.ndarray, dtype: dtypes.dtype, default: dtypes.dtype,
                  extras: list[str]) -> str:
    if dtype.is_floating_point:
        fmt = _float_formatter(np.asarray(data, dtype=np.float64))
    elif dtype is dtypes.bool_:
        fmt = lambda v: "True" if v else "False"  # noqa: E731
    else:
        fmt = lambda v: str(int(v))  # noqa: E731
    width = max((len(fmt(v)) for v in data.flat), default=0)
    body = np.array2string(data, separator=", ", prefix="tensor(", threshold=1000,
                           formatter={"all": lambda v: fmt(v).rjust(width)}, max_line_width=80)
    if data.size == 0:
        body = "[]"
    parts = [body]
    show_dtype = dtype is not default and dtype not in (dtypes.int64, dtypes.bool_)
    if data.size == 0 and dtype is not default:
        show_dtype = True
    if show_dtype:
        parts.append(f"dtype=torch.{dtype.name}")
    parts.extend(extras)
    return "tensor(" + ", ".join(parts) + ")"
