"""multi_head_attention_forward, PyTorch's functional multi-head attention, composed of
ordinary ops: the in-projection (three linears), heads split by views, then either the
explicit softmax(q k^T / sqrt(d) + mask) v when the weights are wanted (a row with every key
masked gives NaN, as PyTorch's softmax does) or scaled_dot_product_attention (the same row
gives zeros), and the out-projection.

Sequences are (length, batch, embed) here; an unbatched (length, embed) input gets a batch of
one. Masks arrive bool (True: masked out) or float (added to the scores); canonical_mask turns
the bool ones into floats of the query's dtype. The checks raise what PyTorch raises, in its
order (mostly AssertionError: PyTorch writes them as asserts)."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable

import numpy as np

from ...core import dtypes
from ...core.tensor import Size, Tensor
from ..shape import cat
from .attention import scaled_dot_product_attention
from .linear import linear
from .pad import pad

Dropout = Callable[[Tensor, float], Tensor]


def canonical_mask(
    mask: Tensor | None,
    name: str,
    like: Tensor,
    other: Tensor | None = None,
    other_name: str = "",
) -> Tensor | None:
    """A bool mask as the float scores to add (-inf where True, else 0) in `like`'s dtype; a
    float mask as it is. Mixing a mask's dtype with `other`'s is deprecated in PyTorch: a
    warning."""
    if mask is None:
        return None
    if mask.dtype != dtypes.bool_ and not mask.dtype.is_floating_point:
        raise AssertionError(f"only bool and floating types of {name} are supported")
    if other is not None and other.dtype != mask.dtype:
        warnings.warn(
            f"Support for mismatched {name} and {other_name} is deprecated. Use same type "
            "for both instead.",
            stacklevel=3,
        )
    if mask.dtype.is_floating_point:
        return mask
    np_dtype = like._data.dtype
    return Tensor._wrap(np.where(mask._data, np_dtype.type(-np.inf), np_dtype.type(0)))


def _is_batched(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    key_padding_mask: Tensor | None,
    attn_mask: Tensor | None,
    num_heads: int,
) -> bool:
    """Whether the inputs are batched (3-d query) or not (2-d), each other input's rank
    checked against that."""
    if query.ndim not in (2, 3):
        raise AssertionError(
            "query should be unbatched 2D or batched 3D tensor but received "
            f"{query.ndim}-D query tensor"
        )
    batched = query.ndim == 3
    kind = "batched (3-D)" if batched else "unbatched (2-D)"
    if key.ndim != query.ndim or value.ndim != query.ndim:
        raise AssertionError(
            f"For {kind} `query`, expected `key` and `value` to be {query.ndim}-D but found "
            f"{key.ndim}-D and {value.ndim}-D tensors respectively"
        )
    if key_padding_mask is not None and key_padding_mask.ndim != query.ndim - 1:
        raise AssertionError(
            f"For {kind} `query`, expected `key_padding_mask` to be `None` or "
            f"{query.ndim - 1}-D but found {key_padding_mask.ndim}-D tensor instead"
        )
    if attn_mask is not None:
        if attn_mask.ndim not in (2, 3):
            raise AssertionError(
                f"For {kind} `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found "
                f"{attn_mask.ndim}-D tensor instead"
            )
        expected = (num_heads, query.shape[0], key.shape[0])
        if not batched and attn_mask.ndim == 3 and tuple(attn_mask.shape) != expected:
            raise AssertionError(
                f"Expected `attn_mask` shape to be {expected} but got {attn_mask.shape}"
            )
    return batched


def _in_projection(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    in_proj_weight: Tensor | None,
    in_proj_bias: Tensor | None,
    separate: tuple[Tensor | None, Tensor | None, Tensor | None] | None,
) -> tuple[Tensor, Tensor, Tensor]:
    """q, k, v: each input through its third of the packed weight (and bias), or through its
    own weight when `separate` holds them."""
    if separate is None:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        weights = in_proj_weight.chunk(3)
    else:
        for which, weight in zip("qkv", separate, strict=True):
            if weight is None:
                raise AssertionError(
                    f"use_separate_proj_weight is True but {which}_proj_weight is None"
                )
        weights = separate
    biases = (None,) * 3 if in_proj_bias is None else in_proj_bias.chunk(3)
    inputs = (query, key, value)
    return tuple(linear(x, w, b) for x, w, b in zip(inputs, weights, biases, strict=True))


def _check_attn_mask(attn_mask: Tensor, tgt_len: int, src_len: int, heads: int) -> Tensor:
    """A 2-d (tgt, src) mask, shared by every batch and head, as (1, tgt, src); a 3-d one must
    be (batch * heads, tgt, src)."""
    if attn_mask.ndim == 2:
        if tuple(attn_mask.shape) != (tgt_len, src_len):
            raise RuntimeError(
                f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                f"{(tgt_len, src_len)}."
            )
        return attn_mask.unsqueeze(0)
    if attn_mask.ndim == 3:
        if tuple(attn_mask.shape) != (heads, tgt_len, src_len):
            raise RuntimeError(
                f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                f"{(heads, tgt_len, src_len)}."
            )
        return attn_mask
    raise RuntimeError(f"attn_mask's dimension {attn_mask.ndim} is not supported")


def _pad_masks(*masks: Tensor | None) -> tuple[Tensor | None, ...]:
    """Each mask with a zero column for a key appended (bias_k or the zero key)."""
    return tuple(None if m is None else pad(m, (0, 1)) for m in masks)


def _heads(x: Tensor, static: Tensor | None, name: str, rows: int, head_dim: int) -> Tensor:
    """(length, batch, embed) as (batch * heads, length, head_dim), or the given `static`
    keys/values already in that form."""
    if static is None:
        return x.view(x.shape[0], rows, head_dim).transpose(0, 1)
    for dim, want in ((0, rows), (2, head_dim)):
        if static.size(dim) != want:
            raise AssertionError(
                f"expecting {name}.size({dim}) of {want}, but got {static.size(dim)}"
            )
    return static


def multi_head_attention_forward(  # noqa: PLR0913 - PyTorch's signature
    query: Tensor,
    key: Tensor,
    value: Tensor,
    embed_dim_to_check: int,
    num_heads: int,
    in_proj_weight: Tensor | None,
    in_proj_bias: Tensor | None,
    bias_k: Tensor | None,
    bias_v: Tensor | None,
    add_zero_attn: bool,
    dropout_p: float,
    out_proj_weight: Tensor,
    out_proj_bias: Tensor | None,
    training: bool = True,
    key_padding_mask: Tensor | None = None,
    need_weights: bool = True,
    attn_mask: Tensor | None = None,
    use_separate_proj_weight: bool = False,
    q_proj_weight: Tensor | None = None,
    k_proj_weight: Tensor | None = None,
    v_proj_weight: Tensor | None = None,
    static_k: Tensor | None = None,
    static_v: Tensor | None = None,
    average_attn_weights: bool = True,
    is_causal: bool = False,
    *,
    dropout: Dropout,
) -> tuple[Tensor, Tensor | None]:
    """(attn_output, attn_weights); `dropout(weights, p)` is nn.functional's dropout, which
    nn.functional binds."""
    batched = _is_batched(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    key_padding_mask = canonical_mask(
        key_padding_mask, "key_padding_mask", query, attn_mask, "attn_mask"
    )
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer "
            "module method `generate_square_subsequent_mask` to create this mask."
        )
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # scaled_dot_product_attention makes the causal mask itself
    else:
        attn_mask = canonical_mask(attn_mask, "attn_mask", query)
        is_causal = is_causal and key_padding_mask is None
    if embed_dim != embed_dim_to_check:
        raise AssertionError(
            f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}"
        )
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight and key.shape[:2] != value.shape[:2]:
        key_dims, value_dims = Size(key.shape[:2]), Size(value.shape[:2])  # (slices are tuples)
        raise AssertionError(
            f"key's sequence and batch dims {key_dims} do not match value's {value_dims}"
        )
    if not use_separate_proj_weight and key.shape != value.shape:
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
    separate = (q_proj_weight, k_proj_weight, v_proj_weight) if use_separate_proj_weight else None
    q, k, v = _in_projection(query, key, value, in_proj_weight, in_proj_bias, separate)
    rows = bsz * num_heads
    if attn_mask is not None:
        attn_mask = _check_attn_mask(attn_mask, tgt_len, key.shape[0], rows)
    if bias_k is not None and bias_v is not None:
        for name, static in (("key", static_k), ("value", static_v)):
            if static is not None:
                raise AssertionError(f"bias cannot be added to static {name}.")
        k = cat([k, bias_k.repeat(1, bsz, 1)])
        v = cat([v, bias_v.repeat(1, bsz, 1)])
        attn_mask, key_padding_mask = _pad_masks(attn_mask, key_padding_mask)
    elif bias_k is not None or bias_v is not None:
        given, missing = ("bias_k", "bias_v") if bias_v is None else ("bias_v", "bias_k")
        raise AssertionError(f"{given} is set but {missing} is None")
    q = _heads(q, None, "q", rows, head_dim)
    k = _heads(k, static_k, "static_k", rows, head_dim)
    v = _heads(v, static_v, "static_v", rows, head_dim)
    if add_zero_attn:
        zeros = Tensor._wrap(np.zeros((rows, 1, head_dim), dtype=k._data.dtype))
        k, v = cat([k, zeros], dim=1), cat([v, zeros], dim=1)
        attn_mask, key_padding_mask = _pad_masks(attn_mask, key_padding_mask)
    src_len = k.size(1)
    if key_padding_mask is not None:
        for dim, want in ((0, bsz), (1, src_len)):
            if key_padding_mask.shape[dim] != want:
                raise AssertionError(
                    f"Expected key_padded_mask.shape[{dim}] to be {want}, but got "
                    f"{key_padding_mask.shape[dim]}"
                )
        per_head = key_padding_mask.view(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1)
        per_head = per_head.reshape(rows, 1, src_len)
        attn_mask = per_head if attn_mask is None else attn_mask + per_head
    if not training:
        dropout_p = 0.0
    if need_weights:
        scores = (q * math.sqrt(1.0 / head_dim)) @ k.transpose(-2, -1)
        if attn_mask is not None:
            scores = attn_mask + scores
        weights = scores.softmax(-1)
        if dropout_p > 0.0:
            weights = dropout(weights, dropout_p)
        out = (weights @ v).transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
    else:
        if attn_mask is not None:
            if attn_mask.size(0) == 1 and attn_mask.ndim == 3:
                attn_mask = attn_mask.unsqueeze(0)
            else:
                attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
        drop = (lambda w: dropout(w, dropout_p)) if dropout_p > 0.0 else None
        out = scaled_dot_product_attention(
            q.reshape(bsz, num_heads, tgt_len, head_dim),
            k.reshape(bsz, num_heads, src_len, head_dim),
            v.reshape(bsz, num_heads, src_len, head_dim),
            attn_mask,
            is_causal,
            dropout=drop,
        )
        out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
        weights = None
    out = linear(out, out_proj_weight, out_proj_bias)
    out = out.view(tgt_len, bsz, out.size(1))
    if not batched:
        out = out.squeeze(1)
        weights = None if weights is None else weights.squeeze(0)
    return out, weights
