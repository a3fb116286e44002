"""Samples of the shape ops: views, reshapes, indexing, splitting and joining, dtype casts."""

from __future__ import annotations

from .families import A, S, seq
from .spec import FLOAT, NONFLOAT, D

RESHAPE = (
    S("3x4,12", A(3, 4), 12),
    S("3x4,(4,3)", A(3, 4), (4, 3)),
    S("3x4,-1", A(3, 4), -1),
    S("3x4,2,-1,2", A(3, 4), 2, -1, 2),
    S("2x3x5,6,5", A(2, 3, 5), 6, 5),
    S("0d,1", A(), 1),
    S("0d,()", A(), ()),
    S("1,()", A(1), ()),
    S("0x3,-1", A(0, 3), -1),
    S("0x3,3,0", A(0, 3), 3, 0),
    S("3x4,5", A(3, 4), 5, _error=True),
    S("3x4,-1,-1", A(3, 4), -1, -1, _error=True),
)
RESHAPE_FN = (
    S("3x4,(12,)", A(3, 4), (12,)),
    S("3x4,(2,-1,2)", A(3, 4), (2, -1, 2)),
    S("0d,(1,)", A(), (1,)),
    S("0x3,(-1,)", A(0, 3), (-1,)),
    S("3x4,(5,)", A(3, 4), (5,), _error=True),
)
TRANSPOSE = (
    S("3x4,0,1", A(3, 4), 0, 1),
    S("2x3x5,0,2", A(2, 3, 5), 0, 2),
    S("2x3x5,-1,0", A(2, 3, 5), -1, 0),
    S("3x4,1,1", A(3, 4), 1, 1),
    S("0d,0,-1", A(), 0, -1),
    S("4,0,0", A(4), 0, 0),
    S("3x4,0,2", A(3, 4), 0, 2, _error=True),
)
T_SAMPLES = (
    S("3x4", A(3, 4)),
    S("4", A(4)),
    S("0d", A()),
    S("0x3", A(0, 3)),
    S("2x3x5", A(2, 3, 5), _error=True),
)
PERMUTE = (
    S("3x4,1,0", A(3, 4), 1, 0),
    S("2x3x5,2,0,1", A(2, 3, 5), 2, 0, 1),
    S("2x3x5,(-1,0,1)", A(2, 3, 5), (-1, 0, 1)),
    S("0d,()", A(), ()),
    S("3x4,1,1", A(3, 4), 1, 1, _error=True),
    S("3x4,0", A(3, 4), 0, _error=True),
)
PERMUTE_FN = (
    S("3x4,(1,0)", A(3, 4), (1, 0)),
    S("2x3x5,(2,0,1)", A(2, 3, 5), (2, 0, 1)),
    S("0d,()", A(), ()),
    S("3x4,(1,1)", A(3, 4), (1, 1), _error=True),
)
UNSQUEEZE = (
    S("3x4,0", A(3, 4), 0),
    S("3x4,-1", A(3, 4), -1),
    S("3x4,2", A(3, 4), 2),
    S("0d,0", A(), 0),
    S("0d,-1", A(), -1),
    S("3x4,3", A(3, 4), 3, _error=True),
)
SQUEEZE = (
    S("1x3x1x4", A(1, 3, 1, 4)),
    S("1x3x1x4,0", A(1, 3, 1, 4), 0),
    S("1x3x1x4,1", A(1, 3, 1, 4), 1),
    S("1x3x1x4,(0,2)", A(1, 3, 1, 4), (0, 2)),
    S("0d", A()),
    S("0d,0", A(), 0),
    S("3x1,-1", A(3, 1), -1),
    S("1x0", A(1, 0)),
    S("3x4,2", A(3, 4), 2, _error=True),
)
EXPAND = (
    S("3x1,3,4", A(3, 1), 3, 4),
    S("3x1,-1,4", A(3, 1), -1, 4),
    S("4,2,3,4", A(4), 2, 3, 4),
    S("4,(2,3,4)", A(4), (2, 3, 4)),
    S("0d,2,3", A(), 2, 3),
    S("1,0", A(1), 0),
    S("3x4,2,4", A(3, 4), 2, 4, _error=True),
    S("3x4,4", A(3, 4), 4, _error=True),
)
OTHER = dict(grad=False)
EXPAND_AS = (
    S("3x1,3x4", A(3, 1), A(3, 4, **OTHER)),
    S("0d,2x3", A(), A(2, 3, **OTHER)),
    S("3x4,2x4", A(3, 4), A(2, 4, **OTHER), _error=True),
)
VIEW_AS = (
    S("3x4,12", A(3, 4), A(12, **OTHER)),
    S("3x4,2x6", A(3, 4), A(2, 6, **OTHER)),
    S("0d,1", A(), A(1, **OTHER)),
    S("3x4,5", A(3, 4), A(5, **OTHER), _error=True),
)
FLATTEN = (
    S("2x3x5", A(2, 3, 5)),
    S("0d", A()),
    S("2x3x5,1", A(2, 3, 5), 1),
    S("2x3x5,0,1", A(2, 3, 5), 0, 1),
    S("2x3x5,s-2", A(2, 3, 5), start_dim=-2),
    S("3x4,1,0", A(3, 4), 1, 0, _error=True),
)
FLATTEN_FN = FLATTEN
SUM_TO_SIZE = (
    S("3x4,1,4", A(3, 4), 1, 4),
    S("3x4,(3,1)", A(3, 4), (3, 1)),
    S("2x3x4,3,4", A(2, 3, 4), 3, 4),
    S("3x4,4", A(3, 4), 4),
    S("3x4,3,4", A(3, 4), 3, 4),
    S("3x4,2,4", A(3, 4), 2, 4, _error=True),
)
SELECT = (
    S("3x4,0,1", A(3, 4), 0, 1),
    S("3x4,1,-1", A(3, 4), 1, -1),
    S("2x3x5,2,4", A(2, 3, 5), 2, 4),
    S("3x4,0,3", A(3, 4), 0, 3, _error=True),
    S("0d,0,0", A(), 0, 0, _error=True),
)
ELL = Ellipsis
GETITEM = (
    S("3x4,1", A(3, 4), 1),
    S("3x4,-1", A(3, 4), -1),
    S("3x4,1:3", A(3, 4), slice(1, 3)),
    S("3x4,:,1", A(3, 4), (slice(None), 1)),
    S("2x3x5,...,0", A(2, 3, 5), (ELL, 0)),
    S("3x4,None", A(3, 4), None),
    S("3x4,None,1", A(3, 4), (None, 1)),
    S("3x4,::2", A(3, 4), (slice(None), slice(None, None, 2))),
    S("3x4,{0,2}", A(3, 4), [0, 2]),
    S("3x4,{0,0,1}", A(3, 4), [0, 0, 1]),
    S("3x4,mask", A(3, 4), A(3, 4, dtype="bool", values="mask")),
    S("3x4,mask3", A(3, 4), A(3, dtype="bool", values="mask")),
    S("3x4,idx5", A(3, 4), A(5, dtype="i64", values="idx3")),
    S("0d,...", A(), ELL),
    S("0d,None", A(), None),
    S("3x4,5:9", A(3, 4), slice(5, 9)),
    S("3x4,3", A(3, 4), 3, _error=True),
    S("0d,0", A(), 0, _error=True),
    S("3x4,::-1", A(3, 4), slice(None, None, -1), _error=True),
)
SETITEM = (
    S("3x4,1,f2.5", A(3, 4), 1, 2.5),
    S("3x4,1,t4", A(3, 4), 1, A(4, dtype="y")),
    S("3x4,:,1,t3", A(3, 4), (slice(None), 1), A(3, dtype="y")),
    S("3x4,1:3,t0d", A(3, 4), slice(1, 3), A(dtype="y")),
    S("3x4,mask,f0", A(3, 4), A(3, 4, dtype="bool", values="mask"), 0.0),
    S("3x4,{0,2},t2x4", A(3, 4), [0, 2], A(2, 4, dtype="y")),
    S("3x4,{0,0},t2x4", A(3, 4), [0, 0], A(2, 4, dtype="y")),
    S("0d,...,f1", A(), ELL, 1.0),
    S("3x4,1,t5", A(3, 4), 1, A(5), _error=True),
    S("leaf", A(3, 4), 1, 2.5, _error=True, _leaf=True),
)
SPLIT = (
    S("5x4,2", A(5, 4), 2),
    S("5x4,2,d1", A(5, 4), 2, 1),
    S("5x4,{2,3}", A(5, 4), [2, 3]),
    S("5x4,{1,1,2},d1", A(5, 4), [1, 1, 2], dim=1),
    S("5x4,10", A(5, 4), 10),
    S("0x3,2", A(0, 3), 2),
    S("5x4,{2,2}", A(5, 4), [2, 2], _error=True),
)
CHUNK = (
    S("5x4,2", A(5, 4), 2),
    S("5x4,3,d1", A(5, 4), 3, 1),
    S("5x4,10", A(5, 4), 10),
    S("6x4,3", A(6, 4), 3),
    S("5x4,0", A(5, 4), 0, _error=True),
)
UNBIND = (
    S("3x4", A(3, 4)),
    S("3x4,1", A(3, 4), 1),
    S("2x3x5,-1", A(2, 3, 5), -1),
    S("0x3", A(0, 3)),
    S("0d", A(), _error=True),
)
CAT = (
    S("{2x3,1x3}", seq((2, 3), (1, 3))),
    S("{2x3,2x5},d1", seq((2, 3), (2, 5)), 1),
    S("{2x3,2x3},d-1", seq((2, 3), (2, 3)), dim=-1),
    S("{2x3}", seq((2, 3))),
    S("{0,3}", seq((0,), (3,))),
    S("{2x3,0x3}", seq((2, 3), (0, 3))),
    S("{2x3,1x3}mixed", seq((2, 3), (1, 3), dtype="y"), _dtypes=("f32+f64",)),
    S("{2x3,4x5}", seq((2, 3), (4, 5)), _error=True),
    S("{0d}", seq(()), _error=True),
    S("{}", [], _error=True),
)
STACK = (
    S("{2x3,2x3}", seq((2, 3), (2, 3))),
    S("{2x3,2x3},d2", seq((2, 3), (2, 3)), 2),
    S("{2x3,2x3},d-1", seq((2, 3), (2, 3)), dim=-1),
    S("{0d,0d,0d}", seq((), (), ())),
    S("{0x3}", seq((0, 3))),
    S("{2x3,3x2}", seq((2, 3), (3, 2)), _error=True),
    S("{}", [], _error=True),
)
T_PROP = (
    S("3x4", A(3, 4)),
    S("4", A(4)),
    S("0d", A()),
    S("2x3x5", A(2, 3, 5)),
)
MT_PROP = (
    S("3x4", A(3, 4)),
    S("2x3x5", A(2, 3, 5)),
    S("4", A(4), _error=True),
)
CAST = (S("3x4", A(3, 4)), S("0d", A()), S("0", A(0)), S("2x3x5", A(2, 3, 5)))
TO = (
    S("3x4,f64", A(3, 4), D("f64")),
    S("3x4,dtype=f32", A(3, 4), dtype=D("f32")),
    S("3x4,i64", A(3, 4), D("i64")),
    S("3x4,bool", A(3, 4), D("bool")),
    S("3x4,cpu", A(3, 4), "cpu"),
    S("3x4,cpu,f64", A(3, 4), "cpu", D("f64")),
    S("3x4,like", A(3, 4), A(2, dtype="f64", grad=False)),
    S("0d,f64", A(), D("f64")),
)
TYPE_AS = (
    S("3x4,f64", A(3, 4), A(2, dtype="f64", grad=False)),
    S("3x4,i64", A(3, 4), A(2, dtype="i64")),
    S("3x4,same", A(3, 4), A(2, grad=False)),
)
TYPE = (
    S("3x4", A(3, 4)),
    S("3x4,f64", A(3, 4), D("f64")),
    S("3x4,i64", A(3, 4), dtype=D("i64")),
)
NEW = (
    S("2,3", A(3, 4), 2, 3),
    S("(2,3)", A(3, 4), (2, 3)),
    S("()", A(3, 4), ()),
    S("0", A(3, 4), 0),
    S("2,f64", A(3, 4), 2, dtype=D("f64")),
    S("2,grad", A(3, 4), 2, requires_grad=True),
)
EQUAL = (
    S("3x4,3x4", A(3, 4), A(3, 4, dtype="y")),
    S("3x4,4", A(3, 4), A(4, dtype="y")),
    S("0d,0d", A(), A(dtype="y")),
)
CAST_DTYPES = FLOAT + NONFLOAT
IDX = dict(dtype="i64", values="idx3")
INDEX_ADD = (
    S("3x4,0,idx2,2x4", A(3, 4), 0, A(2, **IDX), A(2, 4, dtype="y")),
    S("3x4,1,idx5,3x5", A(3, 4), 1, A(5, **IDX), A(3, 5, dtype="y")),
    S("3x4,-1,idx2,3x2", A(3, 4), -1, A(2, **IDX), A(3, 2, dtype="y")),
    S("3x4,0,idx2,2x4,alpha2", A(3, 4), 0, A(2, **IDX), A(2, 4, dtype="y"), alpha=2.0),
    S("3x4,0,idx0,0x4", A(3, 4), 0, A(0, **IDX), A(0, 4, dtype="y")),
    S("3x4,0,idx2,3x4", A(3, 4), 0, A(2, **IDX), A(3, 4), _error=True),
    S("3x4,2,idx2,2x4", A(3, 4), 2, A(2, **IDX), A(2, 4), _error=True),
)
INDEX_ADD_INPLACE = (
    *INDEX_ADD,
    S("leaf", A(3, 4), 0, A(2, **IDX), A(2, 4), _error=True, _leaf=True),
)
