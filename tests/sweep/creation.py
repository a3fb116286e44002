"""Samples of the factories and other forward-only ops (the sweep checks their forward alone:
values where deterministic, otherwise dtype, shape and requires_grad)."""

from __future__ import annotations

import numpy as np

from .families import A, S
from .spec import FLOAT, D

NAN, INF = float("nan"), float("inf")

SIZES = (
    S("2,3", 2, 3),
    S("(2,3)", (2, 3)),
    S("{2,3}", [2, 3]),
    S("0", 0),
    S("()", ()),
    S("2,f64", 2, dtype=D("f64")),
    S("2,i64", 2, dtype=D("i64")),
    S("2,bool", 2, dtype=D("bool")),
    S("2,grad", 2, requires_grad=True),
    S("2,i64,grad", 2, dtype=D("i64"), requires_grad=True, _error=True),
    S("-1", -1, _error=True),
)
RANDOM_SIZES = (
    S("2,3", 2, 3),
    S("(2,3)", (2, 3)),
    S("0", 0),
    S("2,f64", 2, dtype=D("f64")),
    S("2,grad", 2, requires_grad=True),
    S("2,i64", 2, dtype=D("i64"), _error=True),
)
FULL = (
    S("(2,3),1.5", (2, 3), 1.5),
    S("(2,),2", (2,), 2),
    S("(2,),True", (2,), True),
    S("(),3.0", (), 3.0),
    S("(2,),nan", (2,), NAN),
    S("(2,),1.5,f64", (2,), 1.5, dtype=D("f64")),
    S("(2,),1.0,grad", (2,), 1.0, requires_grad=True),
    S("(2,),1,i64,grad", (2,), 1, dtype=D("i64"), requires_grad=True, _error=True),
)
LIKE = (
    S("3x4", A(3, 4)),
    S("0d", A()),
    S("0", A(0)),
    S("3x4,f64", A(3, 4), dtype=D("f64")),
    S("3x4,grad", A(3, 4), requires_grad=True),
)
FULL_LIKE = (
    S("3x4,2.5", A(3, 4), 2.5),
    S("3x4,2", A(3, 4), 2),
    S("0d,True", A(), True),
    S("3x4,1.0,f64", A(3, 4), 1.0, dtype=D("f64")),
)
RANDOM_LIKE = (S("3x4", A(3, 4)), S("0d", A()), S("3x4,f64", A(3, 4), dtype=D("f64")))
RANDINT = (
    S("0,10,(2,3)", 0, 10, (2, 3)),
    S("5,(3,)", 5, (3,)),
    S("0,10,(2,),f32", 0, 10, (2,), dtype=D("f32")),
    S("5,0,(2,)", 5, 0, (2,), _error=True),
)
RANDPERM = (S("5", 5), S("0", 0), S("1", 1))
ARANGE = (
    S("5", 5),
    S("1,4", 1, 4),
    S("0,1,.25", 0, 1, 0.25),
    S("5.0", 5.0),
    S("0,-3,-1", 0, -3, -1),
    S("0,1,.1", 0, 1, 0.1),
    S("5,f64", 5, dtype=D("f64")),
    S("0", 0),
    S("3.0,grad", 3.0, requires_grad=True),
    S("1,0", 1, 0, _error=True),
    S("0,1,0", 0, 1, 0, _error=True),
)
LINSPACE = (
    S("0,1,5", 0, 1, 5),
    S("-1,1,1", -1, 1, 1),
    S("0,1,0", 0, 1, 0),
    S("0,10,3", 0, 10, 3),
    S("0,1,5,f64", 0, 1, 5, dtype=D("f64")),
    S("0,1,-1", 0, 1, -1, _error=True),
)
EYE = (
    S("3", 3),
    S("2,4", 2, 4),
    S("0", 0),
    S("3,i64", 3, dtype=D("i64")),
    S("3,grad", 3, requires_grad=True),
    S("-1", -1, _error=True),
)
TENSOR = (
    S("1.5", 1.5),
    S("3", 3),
    S("True", True),
    S("{1,2}", (1, 2)),
    S("{1,2.0}", (1, 2.0)),
    S("{T,F}", (True, False)),
    S("{nan,inf}", (NAN, INF)),
    S("{{1,2},{3,4}},f64", ((1, 2), (3, 4)), dtype=D("f64")),
    S("{}", ()),
    S("{1.5},grad", (1.5,), requires_grad=True),
    S("3x4", A(3, 4)),
    S("{{1,2},{3}}", ((1, 2), (3,)), _error=True),
    S("{1},i64,grad", (1,), dtype=D("i64"), requires_grad=True, _error=True),
)
AS_TENSOR = (
    S("{1,2}", (1, 2)),
    S("1.5", 1.5),
    S("{1,2},f64", (1, 2), dtype=D("f64")),
    S("3x4", A(3, 4)),
    S("3x4,f64", A(3, 4), dtype=D("f64")),
)
FROM_NUMPY = (
    S("f32", (1.0, 2.0), "float32"),
    S("f64", ((1.0, 2.0), (3.0, 4.0)), "float64"),
    S("i64", (1, 2), "int64"),
    S("i32", (1, 2), "int32"),
    S("bool", (True, False), "bool"),
    S("0d", 1.5, "float64"),
    S("empty", (), "float32"),
)


def from_numpy(L, values, dtype):
    return L.from_numpy(np.array(values, dtype=dtype))


NUMEL = (S("3x4", A(3, 4)), S("0d", A()), S("0", A(0)))
ALLCLOSE = (
    S("3x4,3x4", A(3, 4), A(3, 4, dtype="y")),
    S("3x4,3x4,tol10", A(3, 4), A(3, 4, dtype="y"), rtol=10.0, atol=10.0),
    S("3x4,3x4,nan", A(3, 4), A(3, 4, dtype="y"), equal_nan=True),
    S("3x4,4", A(3, 4), A(4, dtype="y")),
    S("0d,0d", A(), A(dtype="y")),
)
ALLCLOSE_DTYPES = FLOAT + ("f32+f64", "i64")
