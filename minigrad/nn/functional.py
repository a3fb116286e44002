"""nn.functional: PyTorch's signatures over the ops in minigrad/ops (no math of its own).

Keyword-compatible with torch.nn.functional, so positional calls bind the same arguments; the
options minigrad does not implement (class weights, label smoothing, the pre-0.4 size_average /
reduce flags) raise NotImplementedError instead of being silently ignored.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .. import creation
from ..core.tensor import Tensor
from ..ops import nn as _ops

__all__ = [
    "conv2d",
    "cross_entropy",
    "dropout",
    "linear",
    "log_softmax",
    "max_pool2d",
    "mse_loss",
    "nll_loss",
    "relu",
    "relu_",
    "sigmoid",
    "softmax",
    "tanh",
]

linear = _ops.linear
conv2d = _ops.conv2d
max_pool2d = _ops.max_pool2d

_REDUCTIONS = ("none", "mean", "sum")


def _check_loss_args(reduction: str, **unsupported: Any) -> None:
    for name, value in unsupported.items():
        if value is not None and not (name == "label_smoothing" and value == 0.0):
            raise NotImplementedError(f"minigrad's losses do not support {name}={value!r}")
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    return input.relu_() if inplace else input.relu()


def relu_(input: Tensor) -> Tensor:
    return input.relu_()


def sigmoid(input: Tensor) -> Tensor:
    return input.sigmoid()


def tanh(input: Tensor) -> Tensor:
    return input.tanh()


def _get_softmax_dim(name: str, ndim: int, stacklevel: int) -> int:
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to "
        "include dim=X as an argument.",
        stacklevel=stacklevel,
    )
    return 0 if ndim in (0, 1, 3) else 1


def softmax(
    input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None
) -> Tensor:
    if dim is None:
        dim = _get_softmax_dim("softmax", input.dim(), _stacklevel)
    return input.softmax(dim, dtype=dtype)


def log_softmax(
    input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None
) -> Tensor:
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.dim(), _stacklevel)
    return input.log_softmax(dim, dtype=dtype)


def mse_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    weight: Tensor | None = None,
) -> Tensor:
    _check_loss_args(reduction, size_average=size_average, reduce=reduce, weight=weight)
    return _ops.mse_loss(input, target, reduction)


def nll_loss(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    ignore_index: int = -100,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    _check_loss_args(reduction, weight=weight, size_average=size_average, reduce=reduce)
    return _ops.nll_loss(input, target, reduction, ignore_index)


def cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    ignore_index: int = -100,
    reduce: bool | None = None,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Tensor:
    _check_loss_args(
        reduction,
        weight=weight,
        size_average=size_average,
        reduce=reduce,
        label_smoothing=label_smoothing,
    )
    return _ops.cross_entropy(input, target, reduction, ignore_index)


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero each element with probability p and scale the rest by 1/(1-p) (training only)."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training:
        return input
    keep = creation._Generator.rng.random(input.shape) >= p
    scale = np.float64(0.0) if p == 1.0 else 1.0 / (1.0 - p)
    mask = Tensor._wrap((keep * scale).astype(input._data.dtype))
    return input.mul_(mask) if inplace else input * mask
