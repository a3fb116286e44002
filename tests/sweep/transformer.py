"""Samples of F.multi_head_attention_forward (transformer layers): embed_dim 4, 2 heads,
the weights passed as a MultiheadAttention module passes them (packed in-projection, bias,
out-projection), sequences (length, batch, embed) or unbatched (length, embed). The samples
named sdpa* want no weights: attention goes through scaled_dot_product_attention, which
PyTorch runs on its fused CPU kernel (no second derivative, see known_failures.py)."""

from __future__ import annotations

from .families import A, S
from .spec import Same

E, H = 4, 2
_Q, _K, _V = A(3, 2, E), A(5, 2, E, dtype="y"), A(5, 2, E, dtype="y")
_W = (A(3 * E, E), A(3 * E), A(E, E), A(E))  # in_proj_weight, in_proj_bias, out_proj w, b


def multi_head_attention_forward(L, q, k, v, w_in, b_in, w_out, b_out, **kw):
    """PyTorch's functional call with embed_dim, num_heads, no bias_k/v, no dropout."""
    return L.nn.functional.multi_head_attention_forward(
        q, k, v, E, H, w_in, b_in, None, None, False, 0.0, w_out, b_out, **kw
    )


MHA = (
    S("3x2x4,5x2x4", _Q, _K, _V, *_W),
    S("self", _Q, Same(0), Same(0), *_W),
    S("sdpa", _Q, _K, _V, *_W, need_weights=False),
    S("per-head", _Q, _K, _V, *_W, average_attn_weights=False),
    S("unbatched", A(3, E), A(5, E, dtype="y"), A(5, E, dtype="y"), *_W),
    S("no-bias", _Q, _K, _V, _W[0], None, _W[2], None),
    S("float-mask", _Q, _K, _V, *_W, attn_mask=A(3, 5, grad=False)),
    S("sdpa,float-mask-3d", _Q, _K, _V, *_W, attn_mask=A(4, 3, 5, grad=False), need_weights=False),
    S("float-padding", _Q, _K, _V, *_W, key_padding_mask=A(2, 5, grad=False)),
    S(
        "sdpa,bool-padding",
        _Q,
        _K,
        _V,
        *_W,
        key_padding_mask=A(2, 5, dtype="bool", values="mask"),
        need_weights=False,
    ),
    S("3x2x4,5x2x4,4x2x4", _Q, _K, A(4, 2, E, dtype="y"), *_W, _error=True),
    S("3x2x6", A(3, 2, 6), A(3, 2, 6), A(3, 2, 6), *_W, _error=True),
    S("causal-no-mask", _Q, _K, _V, *_W, is_causal=True, _error=True),
)
