"""bincount: how often each value 0, 1, ... occurs in a 1-D tensor of non-negative integers
(or the sum of the weights found at its places). No derivative in PyTorch: weights that
require grad give an output whose backward says so."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import dtypes
from ..core.tensor import Tensor
from ._record import argument_error, record
from .not_implemented import NotImplementedBackward


def _bincount(input: Tensor, weights: Any, minlength: int, method: bool) -> Tensor:  # noqa: A002
    """Counts as int64; sums of weights in the weights' float dtype (float64 for integer or
    bool weights). An empty input gives int64 zeros whatever the weights."""
    for name, position, value in (("input", 1, input), ("weights", 2 - method, weights)):
        if value is not None and not isinstance(value, Tensor):
            raise argument_error("bincount", name, position, value)
    x = input._data
    if x.dtype.kind not in "iu":
        name = dtypes.SCALAR_NAMES[input.dtype.name]
        raise NotImplementedError(f"\"bincount_cpu\" not implemented for '{name}'")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if x.ndim != 1 or (x.size and x.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is None or not x.size:
        return Tensor._wrap(np.bincount(x, minlength=minlength).astype(np.int64))
    if weights.shape != input.shape:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    w = weights._data
    out_dtype = w.dtype if w.dtype.kind == "f" else np.float64
    data = np.bincount(x, w.astype(np.float64), minlength).astype(out_dtype)
    return record(NotImplementedBackward, data, (weights,), op="bincount")


def bincount(input: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:  # noqa: A002
    return _bincount(input, weights, minlength, method=False)


def bincount_method(self: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    return _bincount(self, weights, minlength, method=True)
