"""Tensor printing close to PyTorch's: `tensor([1., 2.], requires_grad=True)`."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from . import dtypes

THRESHOLD, EDGE_ITEMS = 1000, 3  # PyTorch's print options: summarize above 1000 elements


def _summarized(data: np.ndarray) -> np.ndarray:
    """The elements PyTorch looks at to choose a format: the first and last 3 of each long dim."""
    if data.size <= THRESHOLD:
        return data
    for axis, size in enumerate(data.shape):
        if size > 2 * EDGE_ITEMS:
            keep = np.r_[0:EDGE_ITEMS, size - EDGE_ITEMS : size]
            data = np.take(data, keep, axis=axis)
    return data


def _float_formatter(values: np.ndarray) -> Callable[[float], str]:
    """PyTorch's _Formatter: integers print as `3.`, scientific notation when the nonzero finite
    values span more than 1e3, exceed 1e8 or (non-integers) go below 1e-4, else 4 decimals."""
    finite = np.abs(values[np.isfinite(values) & (values != 0)])
    if finite.size == 0:
        return lambda v: f"{v:.0f}." if np.isfinite(v) else f"{v}"
    low, high = finite.min(), finite.max()
    int_mode = bool(np.all(finite == np.ceil(finite)))
    if high / low > 1e3 or high > 1e8 or (not int_mode and low < 1e-4):
        return lambda v: f"{v:.4e}" if np.isfinite(v) else f"{v}"
    if int_mode:
        return lambda v: f"{v:.0f}." if np.isfinite(v) else f"{v}"
    return lambda v: f"{v:.4f}" if np.isfinite(v) else f"{v}"


def _nested(data: np.ndarray, indent: int, summarize: bool, cell: Callable, step: int) -> str:
    """PyTorch's layout: a row holds as many elements of `step` characters (value, comma, space)
    as fit in 80 columns after its indent; inner brackets indent one more, and a blank line per
    dim separates blocks; long dims (when summarizing) show 3 at each end around `...`."""
    if data.ndim == 0:
        return cell(data.item())
    long = summarize and data.shape[0] > 2 * EDGE_ITEMS
    if data.ndim == 1:
        items = [cell(v) for v in data.tolist()]
        if long:
            items = items[:EDGE_ITEMS] + [" ..."] + items[-EDGE_ITEMS:]
        per_line = max(1, (80 - indent) // step)
        lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    rows = range(data.shape[0])
    picked = [*rows[:EDGE_ITEMS], None, *rows[-EDGE_ITEMS:]] if long else list(rows)
    blocks = [
        "..." if i is None else _nested(data[i], indent + 1, summarize, cell, step) for i in picked
    ]
    return "[" + ("," + "\n" * (data.ndim - 1) + " " * (indent + 1)).join(blocks) + "]"


def format_tensor(
    data: np.ndarray, dtype: dtypes.dtype, default: dtypes.dtype, extras: list[str]
) -> str:
    shown = _summarized(data)
    if dtype.is_floating_point:
        shown = np.asarray(shown, dtype=np.float64)
        fmt = _float_formatter(shown)
        shown = shown[np.isfinite(shown) & (shown != 0)]  # PyTorch sizes columns by these only
    elif dtype is dtypes.bool_:
        fmt = lambda v: "True" if v else "False"  # noqa: E731
    else:
        fmt = lambda v: str(int(v))  # noqa: E731
    width = max((len(fmt(v)) for v in shown.flat), default=1)
    summarize = data.size > THRESHOLD
    body = _nested(data, len("tensor("), summarize, lambda v: fmt(v).rjust(width), width + 2)
    suffixes = []
    if data.size == 0:
        body = "[]"
        suffixes = [f"size={tuple(data.shape)}"] if data.ndim != 1 else []
    show_dtype = dtype is not default and dtype not in (dtypes.int64, dtypes.bool_)
    if show_dtype or (data.size == 0 and dtype is not default):
        suffixes.append(f"dtype=torch.{dtype.name}")
    return _with_suffixes("tensor(" + body, suffixes + list(extras)) + ")"


def _with_suffixes(text: str, suffixes: list[str]) -> str:
    """`, dtype=...`, `, requires_grad=True`...: on the last line while it stays within 80
    columns, else on a line of their own under the first bracket, as PyTorch places them."""
    line = len(text) - text.rfind("\n") - 1
    for suffix in suffixes:
        if line + len(suffix) + 4 > 80:  # (measured against PyTorch 2.13)
            text += ",\n" + " " * len("tensor(") + suffix
            line = len("tensor(") + len(suffix)
        else:
            text += ", " + suffix
            line += len(suffix) + 2
    return text
