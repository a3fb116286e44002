"""nn.functional: PyTorch's signatures over the ops in minigrad/ops (no math of its own).

Keyword-compatible with torch.nn.functional, so positional calls bind the same arguments; the
options minigrad does not implement (the pre-0.4 size_average / reduce flags) raise
NotImplementedError instead of being silently ignored.
"""

from __future__ import annotations

import functools
import warnings
from typing import Any

import numpy as np

from .. import creation
from ..core.tensor import Tensor
from ..ops import inplace as _inplace
from ..ops import nn as _ops
from ..ops.nn import interpolate as _interpolate  # resizing
from ..ops.nn import multi_head_attention as _mha  # transformer layers
from ..ops.nn import nll as _nll

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

_REDUCTIONS = _nll.REDUCTIONS


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
        keep = creation.generator_of(None).random(input.shape) >= p
        mask = keep.astype(dtype) / dtype.type(1.0 - p)
    noise = Tensor._wrap(mask)
    return input.mul_(noise) if inplace else input * noise


# --- nn layers (issue 21): activations ----------------------------------------------------
__all__ += [  # (extended here, beside the functions it names)
    "elu",
    "elu_",
    "gelu",
    "hardsigmoid",
    "hardswish",
    "hardtanh",
    "hardtanh_",
    "leaky_relu",
    "leaky_relu_",
    "logsigmoid",
    "mish",
    "relu6",
    "silu",
    "softplus",
    "softsign",
]

gelu = _ops.gelu
logsigmoid = _ops.logsigmoid
softplus = _ops.softplus


def _in_place(input: Tensor, op: Any, *args: Any, overlap: str = _inplace.EARLY) -> Tensor:
    """op(input, *args) written back into input, with PyTorch's in-place autograd rules
    (`overlap`: when an expanded input is refused, see run_inplace)."""
    return _inplace.run_inplace(input, op, args, {}, overlap)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """In place, the result is saved (LeakyReluBackward1), as in PyTorch."""
    if inplace:
        return _in_place(input, _ops.leaky_relu_result, negative_slope)
    return _ops.leaky_relu(input, negative_slope)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    return leaky_relu(input, negative_slope, inplace=True)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """In place, the result is saved (EluBackward1), as in PyTorch."""
    if inplace:
        return _in_place(input, _ops.elu_result, alpha)
    return _ops.elu(input, alpha)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return elu(input, alpha, inplace=True)


def _maybe_in_place(op: Any, input: Tensor, inplace: bool, *args: Any) -> Tensor:
    return _in_place(input, op, *args) if inplace else op(input, *args)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    return _maybe_in_place(_ops.silu, input, inplace)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    return _maybe_in_place(_ops.mish, input, inplace)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    return _maybe_in_place(_ops.hardswish, input, inplace)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    return _maybe_in_place(_ops.hardsigmoid, input, inplace)


def hardtanh(
    input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False
) -> Tensor:
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if inplace:  # (a bool input is refused before an expanded one)
        return _in_place(input, _ops.hardtanh, min_val, max_val, overlap=_inplace.LATE)
    return _ops.hardtanh(input, min_val, max_val)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    return hardtanh(input, 0.0, 6.0, inplace)


def softsign(input: Tensor) -> Tensor:
    """x / (1 + |x|), composed of ops as in PyTorch (its grad_fn is DivBackward0)."""
    return input / (input.abs() + 1)


# --- nn layers (issue 21): normalization ---------------------------------------------------
__all__ += ["group_norm", "layer_norm"]

layer_norm = _ops.layer_norm
group_norm = _ops.group_norm


# --- nn layers (issue 21): embedding -------------------------------------------------------
__all__ += ["embedding"]


def embedding(
    input: Tensor,
    weight: Tensor,
    padding_idx: int | None = None,
    max_norm: float | None = None,
    norm_type: float = 2.0,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Tensor:
    """weight's rows at `input`; max_norm first rescales (in place, without grad) the rows
    used whose norm exceeds it, as PyTorch does."""
    if padding_idx is not None:
        rows = weight.size(0)
        if not -rows <= padding_idx < rows:
            raise AssertionError("Padding_idx must be within num_embeddings")
        padding_idx = padding_idx % rows
    if sparse:
        raise NotImplementedError("minigrad has no sparse tensors: embedding(sparse=True)")
    if max_norm is not None:
        input = input.contiguous()  # (as PyTorch: a copy, if any, is what backward keeps)
        _ops.embedding_renorm_(weight, input, max_norm, norm_type)
    return _ops.embedding(input, weight, padding_idx, scale_grad_by_freq)


# --- nn layers (issue 21): padding ---------------------------------------------------------
__all__ += ["pad"]

pad = _ops.pad


# --- nn layers (issue 21): pooling ---------------------------------------------------------
__all__ += [
    "adaptive_avg_pool2d",
    "adaptive_max_pool2d",
    "avg_pool1d",
    "avg_pool2d",
    "max_pool1d",
]

avg_pool2d = _ops.avg_pool2d
adaptive_avg_pool2d = _ops.adaptive_avg_pool2d
adaptive_max_pool2d = _ops.adaptive_max_pool2d
avg_pool1d = _ops.avg_pool1d
max_pool1d = _ops.max_pool1d


# --- nn pieces the courses use: conv1d, attention, normalize, cosine_similarity ------
__all__ += ["conv1d", "cosine_similarity", "normalize", "scaled_dot_product_attention"]

conv1d = _ops.conv1d
normalize = _ops.normalize
cosine_similarity = _ops.cosine_similarity


def scaled_dot_product_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Tensor | None = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale: float | None = None,
    enable_gqa: bool = False,
) -> Tensor:
    """softmax(q k^T * scale + mask) v, dropout on the weights when dropout_p > 0 (as in
    PyTorch, always: the function has no training flag)."""
    drop = None
    if dropout_p > 0.0:
        if dropout_p > 1.0:  # (PyTorch's C++ dropout: a RuntimeError, not F.dropout's)
            raise RuntimeError(
                f"dropout probability has to be between 0 and 1, but got {dropout_p}"
            )
        drop = functools.partial(dropout, p=dropout_p)
    return _ops.scaled_dot_product_attention(
        query, key, value, attn_mask, is_causal, scale, enable_gqa, drop
    )


# --- transformer layers: multi-head attention -----------------------------------------
__all__ += ["multi_head_attention_forward"]


@functools.wraps(_mha.multi_head_attention_forward)
def multi_head_attention_forward(*args: Any, **kwargs: Any) -> tuple[Tensor, Tensor | None]:
    # (signature and docstring are the op's, through wraps; the weights' dropout is `dropout`)
    return _mha.multi_head_attention_forward(*args, **kwargs, dropout=dropout)


# --- resizing: interpolate (ops/nn/interpolate.py) ---------------------------------------
__all__ += ["interpolate"]

interpolate = _interpolate.interpolate
