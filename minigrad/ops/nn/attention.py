"""scaled_dot_product_attention as PyTorch's CPU math path computes it, a graph of ordinary
ops: q and k^T each scaled by sqrt(scale) (MulBackward1), matmul, the mask added in place,
_safe_softmax (SafeSoftmaxBackward0: a row with every score -inf gives zeros, not NaN), then
dropout and matmul with v.

PyTorch runs 4-d inputs (without dropout) on its fused CPU flash kernel instead, one
ScaledDotProductFlashAttentionForCpuBackward0 node; minigrad records the math graph for every
shape (same values within float tolerance, and twice differentiable)."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ...core import autocast, dtypes
from ...core.forward_grad import Levels
from ...core.node import Node
from ...core.tensor import Tensor
from .. import tangents
from .._record import record
from ..reduction import softmax_backward_data


class MulBackward1(Node):
    """Tensor * Scalar as PyTorch's own code calls it (at::mul); Python's `t * 2` records
    MulBackward0."""

    jvp = tangents.linear(lambda node, out, t: t * node.other)

    def backward(self, g):
        return (g * self.other,)


def _mul_scalar(a: Tensor, other: float) -> Tensor:
    return record(MulBackward1, a._data * a._data.dtype.type(other), (a,), other=other)


class SafeSoftmaxBackward0(Node):
    """softmax's gradient: an all-masked row's zeros give zeros."""

    # (softmax's tangent is its gradient formula applied to the input's tangent)
    jvp = tangents.linear(lambda node, out, t: softmax_backward_data(t, out, node.dim))

    def backward(self, g):
        return (softmax_backward_data(g, self.saved("result"), self.dim),)


def _safe_softmax(a: Tensor) -> Tensor:
    """softmax over the last dim, 0 (not NaN) across a row whose scores are all -inf."""
    x = a._data
    top = x.max(axis=-1, keepdims=True, initial=-np.inf)
    masked = top == -np.inf
    shifted = np.exp(x - np.where(masked, 0, top))
    with np.errstate(invalid="ignore"):
        data = np.where(masked, 0, shifted / shifted.sum(axis=-1, keepdims=True))
    return record(SafeSoftmaxBackward0, data.astype(x.dtype), (a,), save_result=True, dim=(-1,))


def _check(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None) -> None:
    """PyTorch's validate_sdpa_input, in its order and words."""
    q, k, v = query.dtype, key.dtype, value.dtype
    if not q == k == v:
        raise RuntimeError(
            "Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{dtypes.C_NAMES[q.name]} key.dtype: {dtypes.C_NAMES[k.name]} and value.dtype: "
            f"{dtypes.C_NAMES[v.name]} instead."
        )
    if attn_mask is not None and attn_mask.dtype not in (dtypes.bool_, dtypes.float32, q):
        raise RuntimeError(
            "Expected attn_mask dtype to be bool or float or to match query dtype, but got "
            f"attn_mask.dtype: {dtypes.C_NAMES[attn_mask.dtype.name]} and  query.dtype: "
            f"{dtypes.C_NAMES[q.name]} instead."
        )
    if min(query.ndim, key.ndim, value.ndim) < 2:
        raise RuntimeError(
            "Expected query, key, and value to all be  at least 2 dimensional, but got "
            f"query.dim: {query.ndim} key.dim: {key.ndim} and value.dim: {value.ndim} instead."
        )
    if not q.is_floating_point:
        raise RuntimeError(f"expected scalar type Float but found {dtypes.SCALAR_NAMES[q.name]}")


def _additive(mask: np.ndarray, dtype: np.dtype) -> Tensor:
    """A bool mask (True: attend) as the scores to add: 0 where True, -inf where False."""
    return Tensor._wrap(np.where(mask, dtype.type(0), dtype.type(-np.inf)))


def _repeat_heads(x: Tensor, heads: int) -> Tensor:
    """x's heads (dim -3) each repeated to make `heads`: repeat_interleave on dim -3, a copy
    (the matmul must not save a view of x, which may be written in place later)."""
    times = heads // x.size(-3)
    if times == 1:
        return x
    shape = x.shape
    grown = x.unsqueeze(-3).expand(*shape[:-2], times, *shape[-2:])
    return grown.reshape(*shape[:-3], heads, *shape[-2:]).contiguous()


def _check_forward_ad(query: Tensor, key: Tensor, value: Tensor, dropout: Callable | None) -> None:
    """Where PyTorch picks its fused CPU kernel (4-d inputs of one batch size and one head
    size, each head's numbers adjacent, no dropout), forward AD is not supported: PyTorch's
    error, as it words it."""
    inputs = (query, key, value)
    if not (Levels.active and tangents.has_tangents(inputs)) or dropout is not None:
        return
    shapes = [x.shape for x in inputs]
    packed = all(x._data.strides[-1] == x._data.itemsize for x in inputs if x.ndim)
    if packed and all(len(s) == 4 for s in shapes) and all(0 not in s for s in shapes):
        if len({s[0] for s in shapes}) == 1 and len({s[-1] for s in shapes}) == 1:
            raise NotImplementedError(
                "Trying to use forward AD with _scaled_dot_product_flash_attention_for_cpu that "
                "does not support it because it has not been implemented yet.\nPlease file an "
                "issue to PyTorch at https://github.com/pytorch/pytorch/issues/new?template="
                "feature-request.yml so that we can prioritize its implementation or submit a PR "
                "adding the implementation to derivatives.yaml"
            )


def scaled_dot_product_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Tensor | None = None,
    is_causal: bool = False,
    scale: float | None = None,
    enable_gqa: bool = False,
    dropout: Callable[[Tensor], Tensor] | None = None,
) -> Tensor:
    """softmax(q k^T * scale + mask) v; `dropout` (applied to the weights) is nn.functional's,
    which the caller binds to its p."""
    if autocast.cpu_on:
        query, key, value, attn_mask = autocast.lower(query, key, value, attn_mask)
    _check(query, key, value, attn_mask)
    _check_forward_ad(query, key, value, dropout)
    if is_causal and attn_mask is not None:
        raise RuntimeError(
            "_scaled_dot_product_attention: Explicit attn_mask should not be set when "
            "is_causal=True"
        )
    if enable_gqa:
        heads = query.size(-3)
        if heads % key.size(-3) or heads % value.size(-3):
            raise RuntimeError(
                "Number of heads in key and value must divide the number of heads in "
            )
        key, value = _repeat_heads(key, heads), _repeat_heads(value, heads)
    np_dtype = query._data.dtype
    if is_causal:
        rows, cols = query.shape[-2], key.shape[-2]
        attn_mask = _additive(np.tri(rows, cols, dtype=bool), np_dtype)
    elif attn_mask is not None and attn_mask.dtype == dtypes.bool_:
        attn_mask = _additive(attn_mask._data, np_dtype)
    if scale is None:
        scale = 1.0 / math.sqrt(query.size(-1))
    factor = math.sqrt(abs(scale))
    q = _mul_scalar(query, -factor if scale < 0 else factor)
    attn = q @ _mul_scalar(key.transpose(-2, -1), factor)
    if attn_mask is not None:
        attn = attn.add_(attn_mask)
    attn = _safe_softmax(attn)
    if dropout is not None:
        attn = dropout(attn)
    return attn @ value
