"""nn.functional: PyTorch's signatures over the ops in minigrad/ops (no math of its own).

Keyword-compatible with torch.nn.functional, so positional calls bind the same arguments; the
options minigrad does not implement (the pre-0.4 size_average / reduce flags) raise
NotImplementedError instead of being silently ignored.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .. import creation
from ..core.tensor import Tensor
from ..ops import nn as _ops

__all__ = [
    "batch_norm",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "conv2d",
    "conv_transpose2d",
    "cross_entropy",
    "dropout",
    "linear",
    "log_softmax",
    "max_pool2d",
    "mse_loss",
    "nll_loss",
    "one_hot",
    "relu",
    "relu_",
    "sigmoid",
    "softmax",
    "tanh",
]

linear = _ops.linear
conv2d = _ops.conv2d
conv_transpose2d = _ops.conv_transpose2d
max_pool2d = _ops.max_pool2d
batch_norm = _ops.batch_norm
one_hot = _ops.one_hot

_REDUCTIONS = ("none", "mean", "sum")


def _check_loss_args(reduction: str, **unsupported: Any) -> None:
    for name, value in unsupported.items():
        if value is not None:
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
    # with weights, PyTorch checks the reduction only after the loss is computed
    checked = "mean" if weight is not None else reduction
    _check_loss_args(checked, size_average=size_average, reduce=reduce)
    return _ops.mse_loss(input, target, reduction, weight)


def nll_loss(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    ignore_index: int = -100,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    _check_loss_args(reduction, size_average=size_average, reduce=reduce)
    return _ops.nll_loss(input, target, weight, reduction, ignore_index)


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
    _check_loss_args(reduction, size_average=size_average, reduce=reduce)
    return _ops.cross_entropy(input, target, weight, reduction, ignore_index, label_smoothing)


def binary_cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    _check_loss_args(reduction, size_average=size_average, reduce=reduce)
    return _ops.binary_cross_entropy(input, target, weight, reduction)


def binary_cross_entropy_with_logits(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    pos_weight: Tensor | None = None,
) -> Tensor:
    _check_loss_args(reduction, size_average=size_average, reduce=reduce)
    return _ops.binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction)


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero each element with probability p and scale the rest by 1/(1-p) (training only).
    As in PyTorch, nothing to drop (p=0, eval, no elements) returns `input` itself, and p=1
    multiplies by a 0-d zero."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if p == 0.0 or not training or input.numel() == 0:
        return input
    dtype = input._data.dtype
    if p == 1.0:
        mask = np.zeros((), dtype=dtype)
    else:
        keep = creation._Generator.rng.random(input.shape) >= p
        mask = keep.astype(dtype) / dtype.type(1.0 - p)
    noise = Tensor._wrap(mask)
    return input.mul_(noise) if inplace else input * noise
