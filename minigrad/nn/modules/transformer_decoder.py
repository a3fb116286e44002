"""The transformer decoder: TransformerDecoderLayer (self-attention over the target, attention
from the target to the encoder's output `memory`, then a feed-forward block; each a residual
with LayerNorm after it, or before it with norm_first) and TransformerDecoder (num_layers
deep copies of one layer, an optional final norm). Masks are MultiheadAttention's."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from ...core.tensor import Tensor
from .. import functional as F
from .attention import MultiheadAttention
from .container import ModuleList
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .normalization import LayerNorm
from .transformer_parts import (
    SelfAttentionBlock,
    activation_fn,
    attend,
    feed_forward,
    is_causal_mask,
    seq_len,
)

__all__ = ["TransformerDecoder", "TransformerDecoderLayer"]


class TransformerDecoderLayer(SelfAttentionBlock, Module):
    """x -> norm1(x + self_attention(x)) -> norm2(x + attention(x, memory))
    -> norm3(x + feed_forward(x)); with norm_first each block reads norm_i(x) and adds."""

    def __init__(
        self,
        d_model: int,
        nhead: int,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation: str | Callable[[Tensor], Tensor] = F.relu,
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        for name in ("self_attn", "multihead_attn"):
            attention = MultiheadAttention(
                d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, dtype=dtype
            )
            setattr(self, name, attention)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, dtype=dtype)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, dtype=dtype)
        self.norm_first = norm_first
        for i in (1, 2, 3):
            setattr(self, f"norm{i}", LayerNorm(d_model, layer_norm_eps, bias=bias, dtype=dtype))
        for i in (1, 2, 3):
            setattr(self, f"dropout{i}", Dropout(dropout))
        self.activation = activation_fn(activation)

    def forward(
        self,
        tgt: Tensor,
        memory: Tensor,
        tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None,
        tgt_key_padding_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None,
        tgt_is_causal: bool = False,
        memory_is_causal: bool = False,
    ) -> Tensor:
        x = tgt
        target = (tgt_mask, tgt_key_padding_mask, tgt_is_causal)
        source = (memory, memory_mask, memory_key_padding_mask, memory_is_causal)
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), *target)
            x = x + self._mha_block(self.norm2(x), *source)
            return x + self._ff_block(self.norm3(x))
        x = self.norm1(x + self._sa_block(x, *target))
        x = self.norm2(x + self._mha_block(x, *source))
        return self.norm3(x + self._ff_block(x))

    def _mha_block(
        self,
        x: Tensor,
        mem: Tensor,
        attn_mask: Tensor | None,
        key_padding_mask: Tensor | None,
        is_causal: bool = False,
    ) -> Tensor:
        return self.dropout2(
            attend(self.multihead_attn, x, mem, attn_mask, key_padding_mask, is_causal)
        )

    def _ff_block(self, x: Tensor) -> Tensor:
        return self.dropout3(feed_forward(self, x))


class TransformerDecoder(Module):
    """`num_layers` independent copies of `decoder_layer`, each reading `memory`, then `norm`."""

    def __init__(self, decoder_layer: Module, num_layers: int, norm: Module | None = None) -> None:
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(decoder_layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def forward(
        self,
        tgt: Tensor,
        memory: Tensor,
        tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None,
        tgt_key_padding_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None,
        tgt_is_causal: bool | None = None,
        memory_is_causal: bool = False,
    ) -> Tensor:
        length = seq_len(tgt, self.layers[0].self_attn.batch_first)
        tgt_is_causal = is_causal_mask(tgt_mask, tgt_is_causal, length)
        output = tgt
        for layer in self.layers:
            output = layer(
                output,
                memory,
                tgt_mask=tgt_mask,
                memory_mask=memory_mask,
                tgt_key_padding_mask=tgt_key_padding_mask,
                memory_key_padding_mask=memory_key_padding_mask,
                tgt_is_causal=tgt_is_causal,
                memory_is_causal=memory_is_causal,
            )
        return output if self.norm is None else self.norm(output)
