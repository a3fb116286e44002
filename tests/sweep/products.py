"""Samples of the products (matmul and friends) and of nn.functional's layers and losses."""

from __future__ import annotations

from .families import A, S

MATMUL = (
    S("3x4,4x5", A(3, 4), A(4, 5, dtype="y")),
    S("4x4,4x4", A(4, 4), A(4, 4, dtype="y")),
    S("4,4", A(4), A(4, dtype="y")),
    S("3x4,4", A(3, 4), A(4, dtype="y")),
    S("4,4x5", A(4), A(4, 5, dtype="y")),
    S("2x3x4,2x4x5", A(2, 3, 4), A(2, 4, 5, dtype="y")),
    S("2x1x3x4,3x4x5", A(2, 1, 3, 4), A(3, 4, 5, dtype="y")),
    S("2x3x4,4", A(2, 3, 4), A(4, dtype="y")),
    S("4,2x4x5", A(4), A(2, 4, 5, dtype="y")),
    S("3x0,0x4", A(3, 0), A(0, 4, dtype="y")),
    S("0x3,3x4", A(0, 3), A(3, 4, dtype="y")),
    S("3x4,5x6", A(3, 4), A(5, 6), _error=True),
    S("0d,3", A(), A(3), _error=True),
    S("2x2x3,2x4x5", A(2, 2, 3), A(2, 4, 5), _error=True),
)
MM = (
    S("3x4,4x5", A(3, 4), A(4, 5, dtype="y")),
    S("4x4,4x4", A(4, 4), A(4, 4, dtype="y")),
    S("1x1,1x1", A(1, 1), A(1, 1, dtype="y")),
    S("3x0,0x4", A(3, 0), A(0, 4, dtype="y")),
    S("0x3,3x4", A(0, 3), A(3, 4, dtype="y")),
    S("3x4,5x6", A(3, 4), A(5, 6), _error=True),
    S("2x3x4,4x5", A(2, 3, 4), A(4, 5), _error=True),
    S("4,4x5", A(4), A(4, 5), _error=True),
)
MV = (
    S("3x4,4", A(3, 4), A(4, dtype="y")),
    S("0x3,3", A(0, 3), A(3, dtype="y")),
    S("3x0,0", A(3, 0), A(0, dtype="y")),
    S("3x4,5", A(3, 4), A(5), _error=True),
    S("4,4", A(4), A(4), _error=True),
)
DOT = (
    S("4,4", A(4), A(4, dtype="y")),
    S("1,1", A(1), A(1, dtype="y")),
    S("0,0", A(0), A(0, dtype="y")),
    S("4,5", A(4), A(5), _error=True),
    S("3x4,3x4", A(3, 4), A(3, 4), _error=True),
)
BMM = (
    S("2x3x4,2x4x5", A(2, 3, 4), A(2, 4, 5, dtype="y")),
    S("2x4x4,2x4x4", A(2, 4, 4), A(2, 4, 4, dtype="y")),
    S("0x3x4,0x4x5", A(0, 3, 4), A(0, 4, 5, dtype="y")),
    S("2x3x0,2x0x5", A(2, 3, 0), A(2, 0, 5, dtype="y")),
    S("2x3x4,3x4x5", A(2, 3, 4), A(3, 4, 5), _error=True),
    S("3x4,4x5", A(3, 4), A(4, 5), _error=True),
)
ADDMM = (
    S("3x5;3x4,4x5", A(3, 5), A(3, 4), A(4, 5)),
    S("5;3x4,4x5", A(5), A(3, 4), A(4, 5)),
    S("0d;3x4,4x5", A(), A(3, 4), A(4, 5)),
    S("1x5;3x4,4x5", A(1, 5), A(3, 4), A(4, 5)),
    S("4x4;4x4,4x4", A(4, 4), A(4, 4), A(4, 4)),
    S("beta0", A(3, 5), A(3, 4), A(4, 5), beta=0),
    S("beta.5,alpha2", A(3, 5), A(3, 4), A(4, 5), beta=0.5, alpha=2.0),
    S("3x5;3x0,0x5", A(3, 5), A(3, 0), A(0, 5)),
    S("3x5;3x4,5x5", A(3, 5), A(3, 4), A(5, 5), _error=True),
)
LINEAR = (
    S("3x4;5x4;5", A(3, 4), A(5, 4), A(5)),
    S("3x4;5x4", A(3, 4), A(5, 4)),
    S("3x4;5x4;None", A(3, 4), A(5, 4), None),
    S("4;5x4;5", A(4), A(5, 4), A(5)),
    S("2x3x4;5x4;5", A(2, 3, 4), A(5, 4), A(5)),
    S("3x4;5x4;0d", A(3, 4), A(5, 4), A()),
    S("0x4;5x4;5", A(0, 4), A(5, 4), A(5)),
    S("3x4;5x3;5", A(3, 4), A(5, 3), A(5), _error=True),
)
CONV2D = (
    S("2x3x6x6;4x3x3x3;4", A(2, 3, 6, 6), A(4, 3, 3, 3), A(4)),
    S("2x3x6x6;4x3x3x3", A(2, 3, 6, 6), A(4, 3, 3, 3)),
    S("stride2,pad1", A(2, 3, 6, 6), A(4, 3, 3, 3), A(4), stride=2, padding=1),
    S("stride(1,2),pad(0,1)", A(2, 3, 6, 6), A(4, 3, 3, 3), None, (1, 2), (0, 1)),
    S("3x6x6;4x3x3x3;4", A(3, 6, 6), A(4, 3, 3, 3), A(4)),
    S("1x2x4x4;3x2x1x1;3", A(1, 2, 4, 4), A(3, 2, 1, 1), A(3)),
    S("dilation2", A(1, 2, 7, 7), A(3, 2, 3, 3), dilation=2),
    S("groups2", A(2, 4, 5, 5), A(6, 2, 3, 3), A(6), groups=2),
    S("pad-same", A(1, 2, 5, 5), A(3, 2, 3, 3), padding="same"),
    S("2x3x6x6;4x2x3x3", A(2, 3, 6, 6), A(4, 2, 3, 3), _error=True),
)
MAX_POOL2D = (
    S("2x3x6x6,k2", A(2, 3, 6, 6), 2),
    S("k3,s2,p1", A(2, 3, 6, 6), 3, 2, 1),
    S("k2,s1", A(2, 3, 6, 6), 2, stride=1),
    S("k(2,3)", A(1, 2, 5, 7), (2, 3)),
    S("3x6x6,k2", A(3, 6, 6), 2),
    S("ceil", A(1, 2, 5, 5), 2, ceil_mode=True),
    S("dilation2", A(1, 2, 7, 7), 2, dilation=2),
    S("indices", A(1, 2, 4, 4), 2, return_indices=True),
    S("k2,p2", A(1, 1, 4, 4), 2, padding=2, _error=True),
)
TARGET = dict(dtype="y")
MSE = (
    S("3x4,3x4", A(3, 4), A(3, 4, **TARGET)),
    S("none", A(3, 4), A(3, 4, **TARGET), reduction="none"),
    S("sum", A(3, 4), A(3, 4, **TARGET), reduction="sum"),
    S("3x4,4", A(3, 4), A(4, **TARGET)),
    S("4,3x4", A(4), A(3, 4, **TARGET)),
    S("3x1,1x4,none", A(3, 1), A(1, 4, **TARGET), reduction="none"),
    S("0d,0d", A(), A(**TARGET)),
    S("0,0", A(0), A(0, **TARGET)),
    S("avg", A(3, 4), A(3, 4), reduction="avg", _error=True),
)
IDX5 = dict(dtype="i64", values="idx5")
NLL = (
    S("3x5,3", A(3, 5), A(3, **IDX5)),
    S("none", A(3, 5), A(3, **IDX5), reduction="none"),
    S("sum", A(3, 5), A(3, **IDX5), reduction="sum"),
    S("ignore1", A(6, 5), A(6, **IDX5), ignore_index=1),
    S("5,0d", A(5), A(**IDX5)),
    S("2x5x4,2x4", A(2, 5, 4), A(2, 4, **IDX5)),
    S("0x5,0", A(0, 5), A(0, **IDX5)),
    S("3x5,4", A(3, 5), A(4, **IDX5), _error=True),
    S("3x5,out-of-range", A(3, 5), A(3, dtype="i64", values="fill7"), _error=True),
)
CROSS_ENTROPY = (
    *NLL,
    S("3x5,probs", A(3, 5), A(3, 5, dtype="y", values="unit")),
    S("3x5,probs,none", A(3, 5), A(3, 5, dtype="y", values="unit"), reduction="none"),
    S("smoothing", A(3, 5), A(3, **IDX5), label_smoothing=0.1),
)
DROPOUT = (
    S("p0", A(3, 4), 0.0),
    S("p1", A(3, 4), 1.0),
    S("eval", A(3, 4), 0.5, False),
    S("0d,p0", A(), p=0.0),
    S("p1.5", A(3, 4), 1.5, _error=True),
)
