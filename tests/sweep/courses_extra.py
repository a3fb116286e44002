"""Sample lists of the nn functionals the courses use: conv1d, normalize,
cosine_similarity and scaled_dot_product_attention."""

from __future__ import annotations

from .families import A, S

CONV1D = (
    S("2x3x7;4x3x3;4", A(2, 3, 7), A(4, 3, 3), A(4)),
    S("2x3x7;4x3x2", A(2, 3, 7), A(4, 3, 2)),
    S("stride2,pad1", A(2, 3, 7), A(4, 3, 3), A(4), stride=2, padding=1),
    S("3x7;4x3x3;4", A(3, 7), A(4, 3, 3), A(4)),
    S("dilation2", A(1, 2, 9), A(3, 2, 3), dilation=2),
    S("groups2", A(2, 4, 6), A(6, 2, 3), A(6), groups=2),
    S("pad-same,k2", A(1, 2, 6), A(3, 2, 2), A(3), padding="same"),
    S("pad-same,k3,d2", A(1, 2, 6), A(3, 2, 3), padding="same", dilation=2),
    S("pad-valid", A(1, 2, 5), A(3, 2, 3), padding="valid"),
    S("0x3x7;4x3x3", A(0, 3, 7), A(4, 3, 3), A(4)),
    S("2x3x7;4x2x3", A(2, 3, 7), A(4, 2, 3), _error=True),
    S("1x2x2;3x2x3", A(1, 2, 2), A(3, 2, 3), _error=True),
    S("stride(1,1)", A(1, 2, 5), A(3, 2, 3), stride=(1, 1), _error=True),
    S("pad-same,stride2", A(1, 2, 5), A(3, 2, 3), stride=2, padding="same", _error=True),
    S("2x3x4x5", A(2, 3, 4, 5), A(4, 3, 3), _error=True),
)
NORMALIZE = (
    S("3x4", A(3, 4)),
    S("3x4,p1,d0", A(3, 4), 1.0, 0),
    S("2x3x4,d-1", A(2, 3, 4), dim=-1),
    S("3x4,pinf", A(3, 4), p=float("inf")),
    S("3x4,eps0.5", A(3, 4), eps=0.5),
    S("4,d0", A(4), dim=0),
    S("3x4,d2", A(3, 4), dim=2, _error=True),
)
COSINE_SIMILARITY = (
    S("3x4,3x4", A(3, 4), A(3, 4, dtype="y")),
    S("3x4,1x4", A(3, 4), A(1, 4, dtype="y")),
    S("2x3x4,4,d-1", A(2, 3, 4), A(4, dtype="y"), dim=-1),
    S("3x4,3x4,d0,eps0.5", A(3, 4), A(3, 4, dtype="y"), 0, 0.5),
    S("4,4,d0", A(4), A(4, dtype="y"), dim=0),
    S("3x4,3x5", A(3, 4), A(3, 5, dtype="y"), _error=True),
)
_Q, _K, _V = A(2, 4, 3), A(2, 5, 3, dtype="y"), A(2, 5, 2, dtype="y")
SDPA = (
    S("2x4x3", _Q, _K, _V),
    S("4x3,self", A(4, 3), A(4, 3, dtype="y"), A(4, 2, dtype="y")),
    S("2x2x4x3", A(2, 2, 4, 3), A(2, 2, 5, 3, dtype="y"), A(2, 2, 5, 2, dtype="y")),
    S("causal", _Q, _K, _V, is_causal=True),
    S("bool-mask", _Q, _K, _V, A(4, 5, dtype="bool", values="mask")),
    S("float-mask", _Q, _K, _V, A(4, 5, dtype="x")),
    S("scale0.3", _Q, _K, _V, scale=0.3),
    S("scale-0.5", _Q, _K, _V, scale=-0.5),
    S("gqa", A(1, 4, 3, 3), A(1, 2, 5, 3, dtype="y"), A(1, 2, 5, 2, dtype="y"), enable_gqa=True),
    S("1d", A(3), A(3, dtype="y"), A(3, dtype="y"), _error=True),
    S("causal+mask", _Q, _K, _V, A(4, 5, dtype="bool", values="mask"), is_causal=True, _error=True),
)
