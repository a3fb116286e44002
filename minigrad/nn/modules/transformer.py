"""nn.Transformer: an encoder and a decoder stack (or custom ones) of d_model-wide layers,
every matrix re-initialised Xavier-uniform; the decoder reads the encoder's output."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...core.tensor import Tensor
from .. import functional as F
from .. import init
from .module import Module
from .normalization import LayerNorm
from .transformer_decoder import TransformerDecoder, TransformerDecoderLayer
from .transformer_encoder import TransformerEncoder, TransformerEncoderLayer
from .transformer_parts import generate_square_subsequent_mask

__all__ = ["Transformer"]


class Transformer(Module):
    """src -> encoder -> memory; (tgt, memory) -> decoder -> output."""

    def __init__(
        self,
        d_model: int = 512,
        nhead: int = 8,
        num_encoder_layers: int = 6,
        num_decoder_layers: int = 6,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation: str | Callable[[Tensor], Tensor] = F.relu,
        custom_encoder: Any = None,
        custom_decoder: Any = None,
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        layer_args = (d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps)
        layer_args += (batch_first, norm_first, bias)

        def norm() -> LayerNorm:
            return LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)

        if custom_encoder is None:
            layer = TransformerEncoderLayer(*layer_args, dtype=dtype)
            custom_encoder = TransformerEncoder(layer, num_encoder_layers, norm())
        self.encoder = custom_encoder
        if custom_decoder is None:
            layer = TransformerDecoderLayer(*layer_args, dtype=dtype)
            custom_decoder = TransformerDecoder(layer, num_decoder_layers, norm())
        self.decoder = custom_decoder
        self._reset_parameters()
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def _reset_parameters(self) -> None:
        for p in self.parameters():
            if p.ndim > 1:
                init.xavier_uniform_(p)

    generate_square_subsequent_mask = staticmethod(generate_square_subsequent_mask)

    def forward(
        self,
        src: Tensor,
        tgt: Tensor,
        src_mask: Tensor | None = None,
        tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None,
        tgt_key_padding_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None,
        src_is_causal: bool | None = None,
        tgt_is_causal: bool | None = None,
        memory_is_causal: bool = False,
    ) -> Tensor:
        batch_dim = 0 if self.batch_first else 1
        if src.ndim == 3 and src.size(batch_dim) != tgt.size(batch_dim):
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.size(-1) != self.d_model or tgt.size(-1) != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(
            src, mask=src_mask, src_key_padding_mask=src_key_padding_mask, is_causal=src_is_causal
        )
        return self.decoder(
            tgt,
            memory,
            tgt_mask=tgt_mask,
            memory_mask=memory_mask,
            tgt_key_padding_mask=tgt_key_padding_mask,
            memory_key_padding_mask=memory_key_padding_mask,
            tgt_is_causal=tgt_is_causal,
            memory_is_causal=memory_is_causal,
        )
