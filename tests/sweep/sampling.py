"""Samples of the sampling ops and the new_* factories (issue 21, data & random): random ones
are compared by dtype, shape, flags and errors; fixed probabilities come through `fixed`."""

from __future__ import annotations

from .families import A, S
from .spec import D

NAN, INF = float("nan"), float("inf")


def _probabilities(L, p):
    return L.tensor(p) if isinstance(p, tuple) else p


def multinomial(L, p, *args, **kwargs):
    """torch.multinomial; a tuple of fixed probabilities (errors for bad ones) as a tensor."""
    return L.multinomial(_probabilities(L, p), *args, **kwargs)


def bernoulli(L, p, *args, **kwargs):
    return L.bernoulli(_probabilities(L, p), *args, **kwargs)


MULTINOMIAL = (
    S("3,2", A(3, values="pos"), 2),
    S("3,5,repl", A(3, values="pos"), 5, True),
    S("2x3,2", A(2, 3, values="pos"), 2),
    S("2x3,4,repl", A(2, 3, values="pos"), 4, replacement=True),
    S("0x3,1", A(0, 3, values="pos"), 1),
    S("3,4", A(3, values="pos"), 4, _error=True),
    S("3,0", A(3, values="pos"), 0, _error=True),
    S("2x2x2,1", A(2, 2, 2, values="pos"), 1, _error=True),
    S("0d,1", A(values="pos"), 1, _error=True),
)
FIXED = dict(_dtypes=("f32",), _crossed=False)
MULTINOMIAL_FIXED = (
    S("{0,1,0},2", (0.0, 1.0, 0.0), 2, **FIXED),
    S("{-1,2},1", (-1.0, 2.0), 1, **FIXED, _error=True),
    S("{inf,1},1", (INF, 1.0), 1, **FIXED, _error=True),
    S("{nan,1},1,repl", (NAN, 1.0), 1, True, **FIXED, _error=True),
    S("{0,0},1", (0.0, 0.0), 1, **FIXED, _error=True),
    S("{{1,1},{0,0}},1,repl", ((1.0, 1.0), (0.0, 0.0)), 1, True, **FIXED, _error=True),
    S("{1,2},1,i64", (1, 2), 1, **FIXED, _error=True),
    S("{1,2},1.0", (1.0, 2.0), 1.0, **FIXED, _error=True),
)
NORMAL = (
    S("3x4,1.0", A(3, 4), 1.0),
    S("0.0,3x4", 0.0, A(3, 4, values="pos")),
    S("3x4,3x4", A(3, 4), A(3, 4, dtype="y", values="pos")),
    S("3,2x1", A(3), A(2, 1, values="pos")),
    S("0.,2.,(2,3)", 0.0, 2.0, (2, 3), _dtypes=("f32",)),
    S("0.,2.,(2,),f64", 0.0, 2.0, (2,), dtype=D("f64"), _dtypes=("f32",)),
    S("3x4,-1.0", A(3, 4), -1.0, _error=True),
    S("0.,-1.,(2,)", 0.0, -1.0, (2,), _dtypes=("f32",), _error=True),
    S("3,2", A(3), A(2, values="pos"), _error=True),
    S("0.,1.", 0.0, 1.0, _dtypes=("f32",), _error=True),
)
BERNOULLI = (
    S("3x4", A(3, 4, values="unit")),
    S("3x4,p0.3", A(3, 4), 0.3),
    S("0d", A(values="unit")),
)
BERNOULLI_FIXED = (
    S("{0,1}", (0.0, 1.0), **FIXED),
    S("{-0.5,1}", (-0.5, 1.0), **FIXED, _error=True),
    S("{nan}", (NAN,), **FIXED, _error=True),
    S("{1,0},i64", (1, 0), **FIXED, _error=True),
)
BERNOULLI_ = (
    S("3x4", A(3, 4)),
    S("3x4,0.3", A(3, 4), 0.3),
    S("3x4,4", A(3, 4), A(4, values="unit")),
    S("3x4,1.5", A(3, 4), 1.5, _error=True),
    S("3x4,5", A(3, 4), A(5, values="unit"), _error=True),
)
RANDINT_LIKE = (
    S("3x4,5", A(3, 4), 5),
    S("3x4,2,5", A(3, 4), 2, 5),
    S("0d,3", A(), 3),
    S("3x4,5,f64", A(3, 4), 5, dtype=D("f64")),
    S("3x4,5,2", A(3, 4), 5, 2, _error=True),
)
NEW_TENSOR = (
    S("{1.5,2}", A(3, 4), (1.5, 2)),
    S("3", A(3, 4), 3),
    S("{{1},{2}}", A(3, 4), ((1,), (2,))),
    S("{1},f64", A(3, 4), (1,), dtype=D("f64")),
    S("{1.0},grad", A(3, 4), (1.0,), requires_grad=True),
)
NEW_FULL = (
    S("(2,3),1.5", A(3, 4), (2, 3), 1.5),
    S("(),2", A(3, 4), (), 2),
    S("(2,),1,f64", A(3, 4), (2,), 1, dtype=D("f64")),
    S("2,1", A(3, 4), 2, 1, _error=True),
)
MULTINOMIAL_ALL = MULTINOMIAL + MULTINOMIAL_FIXED
BERNOULLI_ALL = BERNOULLI + BERNOULLI_FIXED
