"""What the transformer encoder and decoder layers share: the causal mask, the activation
named by a string, the is_causal hint read off a mask, and the two blocks built from a
layer's own submodules (self-attention, feed-forward)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ... import creation
from ...core.tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = [
    "SelfAttentionBlock",
    "activation_fn",
    "attend",
    "feed_forward",
    "generate_square_subsequent_mask",
    "is_causal_mask",
    "seq_len",
]


def generate_square_subsequent_mask(sz: int, device: Any = None, dtype: Any = None) -> Tensor:
    """The causal mask: 0 on and below the diagonal, -inf above it (position i sees 0..i)."""
    return creation.full((sz, sz), float("-inf"), dtype=dtype, device=device).triu(diagonal=1)


def activation_fn(activation: str | Callable[[Tensor], Tensor]) -> Callable[[Tensor], Tensor]:
    """A callable as it is; 'relu' and 'gelu' (PyTorch's legacy strings) as F's functions."""
    if not isinstance(activation, str):
        return activation
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


def is_causal_mask(mask: Tensor | None, is_causal: bool | None, size: int) -> bool:
    """The is_causal hint if given; else whether `mask` is exactly the causal mask."""
    if is_causal is not None or mask is None:
        return is_causal is True
    causal = generate_square_subsequent_mask(size, dtype=mask.dtype)
    return mask.shape == causal.shape and bool((mask == causal).all())


def seq_len(x: Tensor, batch_first: bool) -> int:
    """The sequence length of an unbatched (S, E) or batched input."""
    return x.size(0 if x.ndim == 2 or not batch_first else 1)


def feed_forward(layer: Module, x: Tensor) -> Tensor:
    """linear2(dropout(activation(linear1(x)))), the layer's position-wise block."""
    return layer.linear2(layer.dropout(layer.activation(layer.linear1(x))))


def attend(
    attention: Module,
    x: Tensor,
    memory: Tensor,
    attn_mask: Tensor | None,
    key_padding_mask: Tensor | None,
    is_causal: bool,
) -> Tensor:
    """x attending to `memory` (itself, for self-attention), without the weights: the attention
    step of every encoder and decoder block."""
    return attention(
        x,
        memory,
        memory,
        attn_mask=attn_mask,
        key_padding_mask=key_padding_mask,
        need_weights=False,
        is_causal=is_causal,
    )[0]


class SelfAttentionBlock:
    """_sa_block for a layer with self_attn and dropout1: attention without its weights."""

    def _sa_block(
        self,
        x: Tensor,
        attn_mask: Tensor | None,
        key_padding_mask: Tensor | None,
        is_causal: bool = False,
    ) -> Tensor:
        return self.dropout1(attend(self.self_attn, x, x, attn_mask, key_padding_mask, is_causal))
