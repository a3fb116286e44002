"""The transformer encoder: TransformerEncoderLayer (self-attention then a feed-forward
block, each a residual with LayerNorm after it, or before it with norm_first) and
TransformerEncoder (num_layers deep copies of one layer, an optional final norm).

Masks follow MultiheadAttention: bool (True: masked out) or float (added to the scores).
PyTorch's inference fast paths (fused kernels, nested tensors) compute the same values with
one visible difference, which TransformerEncoder reproduces: in eval mode without autograd,
a batch_first input with a left-aligned src_key_padding_mask comes back with zeros at the
padded positions. (Not reproduced: there, a sequence whose every key is padded gives NaN in
PyTorch's fused layer and zeros in its other paths, and in minigrad.)"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from ...core.grad_mode import is_grad_enabled
from ...core.tensor import Tensor
from ...ops.nn.multi_head_attention import canonical_mask
from .. import functional as F
from .activation import GELU, ReLU
from .attention import MultiheadAttention
from .container import ModuleList
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .normalization import LayerNorm
from .transformer_parts import (
    SelfAttentionBlock,
    activation_fn,
    feed_forward,
    is_causal_mask,
    seq_len,
)

__all__ = ["TransformerEncoder", "TransformerEncoderLayer"]


class TransformerEncoderLayer(SelfAttentionBlock, Module):
    """x -> norm1(x + self_attention(x)) -> norm2(x + feed_forward(x)), or with norm_first
    x + self_attention(norm1(x)), then + feed_forward(norm2(x)); dropout after each block
    and inside the feed-forward one."""

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
        self.self_attn = MultiheadAttention(
            d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, dtype=dtype
        )
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, dtype=dtype)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, dtype=dtype)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        activation = activation_fn(activation)
        # which of PyTorch's fused activations this is (1 relu, 2 gelu, 0 neither)
        if activation is F.relu or isinstance(activation, ReLU):
            self.activation_relu_or_gelu = 1
        elif activation is F.gelu or isinstance(activation, GELU):
            self.activation_relu_or_gelu = 2
        else:
            self.activation_relu_or_gelu = 0
        self.activation = activation

    def forward(
        self,
        src: Tensor,
        src_mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None,
        is_causal: bool = False,
    ) -> Tensor:
        src_key_padding_mask = canonical_mask(
            src_key_padding_mask, "src_key_padding_mask", src, src_mask, "src_mask"
        )
        src_mask = canonical_mask(src_mask, "src_mask", src)
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            return x + self._ff_block(self.norm2(x))
        x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
        return self.norm2(x + self._ff_block(x))

    def _ff_block(self, x: Tensor) -> Tensor:
        return self.dropout2(feed_forward(self, x))


def _why_no_nested_tensor(layer: Module) -> str:
    """Why PyTorch's encoder could not run this layer on nested tensors ('' if it could)."""
    name = "encoder_layer"
    if not isinstance(layer, TransformerEncoderLayer):
        return f"{name} was not TransformerEncoderLayer"
    attn = layer.self_attn
    reasons = (
        (layer.norm_first, f"{name}.norm_first was True"),
        (
            not attn.batch_first,
            f"{name}.self_attn.batch_first was not True"
            "(use batch_first for better inference performance)",
        ),
        (not attn._qkv_same_embed_dim, f"{name}.self_attn._qkv_same_embed_dim was not True"),
        (attn.in_proj_bias is None, f"{name}.self_attn was passed bias=False"),
        (not layer.activation_relu_or_gelu, f"{name}.activation_relu_or_gelu was not True"),
        (
            layer.norm1.eps != layer.norm2.eps,
            f"{name}.norm1.eps was not equal to {name}.norm2.eps",
        ),
        (attn.num_heads % 2 == 1, f"{name}.self_attn.num_heads is odd"),
    )
    return next((reason for failed, reason in reasons if failed), "")


def _left_aligned(padding: np.ndarray) -> bool:
    """Whether every sequence's kept positions come first (then only padding)."""
    kept = padding == 0
    return bool((kept[:, 1:] <= kept[:, :-1]).all())


class TransformerEncoder(Module):
    """`num_layers` independent copies of `encoder_layer`, applied in turn, then `norm`."""

    def __init__(
        self,
        encoder_layer: Module,
        num_layers: int,
        norm: Module | None = None,
        enable_nested_tensor: bool = True,
        mask_check: bool = True,
    ) -> None:
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(encoder_layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        why_not = _why_no_nested_tensor(encoder_layer)
        if enable_nested_tensor and why_not:
            warnings.warn(
                "enable_nested_tensor is True, but self.use_nested_tensor is False because "
                f"{why_not}",
                stacklevel=2,
            )
            self.use_nested_tensor = False

    def forward(
        self,
        src: Tensor,
        mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None,
        is_causal: bool | None = None,
    ) -> Tensor:
        src_key_padding_mask = canonical_mask(
            src_key_padding_mask, "src_key_padding_mask", src, mask, "mask"
        )
        mask = canonical_mask(mask, "mask", src)
        first = self.layers[0]
        batch_first = first.self_attn.batch_first
        is_causal = is_causal_mask(mask, is_causal, seq_len(src, batch_first))
        output = src
        for layer in self.layers:
            output = layer(
                output,
                src_mask=mask,
                is_causal=is_causal,
                src_key_padding_mask=src_key_padding_mask,
            )
        if self._pads_with_zeros(src, mask, src_key_padding_mask):
            padded = Tensor._wrap(src_key_padding_mask._data[..., None] != 0)
            output = output.masked_fill(padded, 0.0)
        if self.norm is not None:
            output = self.norm(output)
        return output

    def _pads_with_zeros(self, src: Tensor, mask: Tensor | None, padding: Tensor | None) -> bool:
        """Whether PyTorch would run the layers on nested tensors, whose padded positions
        come back as zeros: an inference-only path (no training, nothing needing grad)."""
        if not self.use_nested_tensor or padding is None or mask is not None or src.ndim != 3:
            return False
        first = self.layers[0]
        if first.training or (self.mask_check and not _left_aligned(padding._data)):
            return False
        tensors = (src, *first.parameters())
        return not (is_grad_enabled() and any(t.requires_grad for t in tensors))
