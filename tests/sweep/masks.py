"""Samples of the ops that pick or write elements: where, masked_fill, fill_, copy_, random
fills."""

from __future__ import annotations

from .families import A, S

MASK = dict(dtype="bool", values="mask")

WHERE = (
    S("3x4", A(3, 4, **MASK), A(3, 4), A(3, 4, dtype="y")),
    S("3x1;4;0d", A(3, 1, **MASK), A(4), A(dtype="y")),
    S("3x4;3x4;f0", A(3, 4, **MASK), A(3, 4), 0.0),
    S("3x4;f1.5;3x4", A(3, 4, **MASK), 1.5, A(3, 4)),
    S("0d", A(**MASK), A(), A(dtype="y")),
    S("2x0", A(2, 0, **MASK), A(2, 0), A(2, 0, dtype="y")),
    S("cond-only", A(3, 4, **MASK), _dtypes=("f32",)),
    S("3x4;3x4;4x5", A(3, 4, **MASK), A(3, 4), A(4, 5), _error=True),
)
WHERE_METHOD = (
    S("3x4", A(3, 4), A(3, 4, **MASK), A(3, 4, dtype="y")),
    S("3x4;3x1;0d", A(3, 4), A(3, 1, **MASK), A(dtype="y")),
    S("3x4;3x4;f0", A(3, 4), A(3, 4, **MASK), 0.0),
    S("0d", A(), A(**MASK), A(dtype="y")),
)
MASKED_FILL = (
    S("3x4;3x4;0", A(3, 4), A(3, 4, **MASK), 0.0),
    S("3x4;4;-inf", A(3, 4), A(4, **MASK), float("-inf")),
    S("3x4;3x1;t0d", A(3, 4), A(3, 1, **MASK), A(dtype="y")),
    S("3x4;3x4;i2", A(3, 4), A(3, 4, **MASK), 2),
    S("0d;0d;1", A(), A(**MASK), 1.0),
    S("0x3;3;1", A(0, 3), A(3, **MASK), 1.0),
    S("3x4;5;0", A(3, 4), A(5, **MASK), 0.0, _error=True),
    S("3x4;3x4;t2", A(3, 4), A(3, 4, **MASK), A(2), _error=True),
)
MASKED_FILL_INPLACE = (
    *MASKED_FILL,
    S("3x1;3x4;0", A(3, 1), A(3, 4, **MASK), 0.0, _error=True),
    S("leaf", A(3, 4), A(3, 4, **MASK), 0.0, _error=True, _leaf=True),
)
FILL = (
    S("3x4,2.5", A(3, 4), 2.5),
    S("3x4,i2", A(3, 4), 2),
    S("3x4,t0d", A(3, 4), A(dtype="y")),
    S("0d,1", A(), 1.0),
    S("0,1", A(0), 1.0),
    S("3x4,t2", A(3, 4), A(2), _error=True),
    S("leaf", A(3, 4), 1.0, _error=True, _leaf=True),
)
COPY = (
    S("3x4,3x4", A(3, 4), A(3, 4, dtype="y")),
    S("3x4,4", A(3, 4), A(4, dtype="y")),
    S("3x4,0d", A(3, 4), A(dtype="y")),
    S("0,0", A(0), A(0, dtype="y")),
    S("3x4,5", A(3, 4), A(5), _error=True),
    S("leaf", A(3, 4), A(3, 4), _error=True, _leaf=True),
)
RANDOM_FILL = (S("3x4", A(3, 4)), S("3x4,-1,1", A(3, 4), -1.0, 1.0), S("0d", A()))
