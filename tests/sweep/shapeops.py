"""Samples and table entries of the shape ops: flip/fliplr/flipud, roll, diagonal/diag_embed/
diag, trace, repeat, repeat_interleave, hstack/vstack/dstack with atleast_1d/2d/3d, diff, and
rsqrt (an elementwise function, swept like those of mathops.py)."""

from __future__ import annotations

from .families import A, S, function, inplace_unary, method, op, seq, unary
from .mathops import few
from .spec import FLOAT, NONFLOAT, OpInfo

ALL = FLOAT + NONFLOAT
SHAPE = dict(values=("n",))  # shape ops move values: special values add nothing
REPEATS = dict(dtype="i64", values="idx3")  # a tensor of repeats: ints in [0, 3)


def pair(name: str, samples, **kw) -> list[OpInfo]:
    """Tensor.name swept in full, torch.name (the same function) with `few` samples."""
    return [
        op(f"Tensor.{name}", method(name), samples, **kw),
        op(f"torch.{name}", function(name), few(samples), **kw),
    ]


# --- flip and roll -------------------------------------------------------------------------
FLIP = (
    S("3x4,0", A(3, 4), 0),
    S("2x3x5,0,2", A(2, 3, 5), 0, 2),
    S("2x3x5,(-1,1)", A(2, 3, 5), (-1, 1)),
    S("3x4,dims=[1]", A(3, 4), dims=[1]),
    S("3x4,()", A(3, 4), ()),
    S("0d,0", A(), 0),
    S("0x3,1", A(0, 3), 1),
    S("3x4,0,0", A(3, 4), 0, 0, _error=True),
    S("3x4,2", A(3, 4), 2, _error=True),
    S("3x4,0.5", A(3, 4), 0.5, _error=True),
)
FLIP_FN = (
    S("3x4,(0,)", A(3, 4), (0,)),
    S("2x3x5,[0,2]", A(2, 3, 5), [0, 2]),
    S("0d,()", A(), ()),
    S("3x4,int", A(3, 4), 0, _error=True),
)
FLIPLR = (S("3x4", A(3, 4)), S("2x3x5", A(2, 3, 5)), S("0x3", A(0, 3)), S("4", A(4), _error=True))
FLIPUD = (S("4", A(4)), S("3x4", A(3, 4)), S("0x3", A(0, 3)), S("0d", A(), _error=True))
ROLL = (
    S("3x4,1", A(3, 4), 1),
    S("3x4,-2,0", A(3, 4), -2, 0),
    S("2x3x5,(1,-7),(2,0)", A(2, 3, 5), (1, -7), (2, 0)),
    S("3x4,(1,1),(1,1)", A(3, 4), shifts=(1, 1), dims=(1, 1)),
    S("0d,3", A(), 3),
    S("0x3,1,0", A(0, 3), 1, 0),
    S("6x35,5,1", A(6, 35), 5, 1),
    S("3x4,(1,2)", A(3, 4), (1, 2), _error=True),
    S("3x4,1,2", A(3, 4), 1, 2, _error=True),
    S("3x4,(),()", A(3, 4), (), (), _error=True),
    S("0d,1,-1", A(), 1, -1, _error=True),
)

# --- diagonals -----------------------------------------------------------------------------
DIAGONAL = (
    S("3x4", A(3, 4)),
    S("3x4,1", A(3, 4), 1),
    S("3x4,-2", A(3, 4), -2),
    S("2x3x4,0,0,2", A(2, 3, 4), 0, 0, 2),
    S("2x3x4,1,-1,0", A(2, 3, 4), offset=1, dim1=-1, dim2=0),
    S("3x4,9", A(3, 4), 9),
    S("0x3", A(0, 3)),
    S("3x4,0,1,1", A(3, 4), 0, 1, 1, _error=True),
    S("4", A(4), _error=True),
)
DIAG_EMBED = (
    S("3", A(3)),
    S("3x4", A(3, 4)),
    S("3x4,1", A(3, 4), 1),
    S("3x4,-1,0,2", A(3, 4), -1, 0, 2),
    S("2x3,1,2,0", A(2, 3), offset=1, dim1=2, dim2=0),
    S("0", A(0)),
    S("0d", A(), _error=True),
    S("3,0,1,1", A(3), 0, 1, 1, _error=True),
)
DIAG = (
    S("4", A(4)),
    S("4,1", A(4), 1),
    S("4,-2", A(4), -2),
    S("3x4", A(3, 4)),
    S("3x4,1", A(3, 4), 1),
    S("3x4,-5", A(3, 4), diagonal=-5),
    S("0", A(0)),
    S("2x3x4", A(2, 3, 4), _error=True),
    S("0d", A(), _error=True),
)
TRACE = (
    S("3x4", A(3, 4)),
    S("4x4", A(4, 4)),
    S("1x1", A(1, 1)),
    S("0x3", A(0, 3)),
    S("4", A(4), _error=True),
    S("2x3x4", A(2, 3, 4), _error=True),
)

# --- repeating -----------------------------------------------------------------------------
REPEAT = (
    S("3x4,2,1", A(3, 4), 2, 1),
    S("3x4,(1,3)", A(3, 4), (1, 3)),
    S("3x4,2,1,2", A(3, 4), 2, 1, 2),
    S("2x3x5,1,2,1", A(2, 3, 5), 1, 2, 1),
    S("0d,3", A(), 3),
    S("0d,()", A(), ()),
    S("3x4,0,2", A(3, 4), 0, 2),
    S("3x4,repeats=[1,2]", A(3, 4), repeats=[1, 2]),
    S("3x4,2", A(3, 4), 2, _error=True),
    S("3x4,-1,2", A(3, 4), -1, 2, _error=True),
)
REPEAT_INTERLEAVE = (
    S("3x4,2", A(3, 4), 2),
    S("3x4,2,d0", A(3, 4), 2, 0),
    S("3x4,3,d-1", A(3, 4), 3, dim=-1),
    S("2x3x5,2,d1", A(2, 3, 5), 2, 1),
    S("0d,2", A(), 2),
    S("3x4,0,d1", A(3, 4), 0, 1),
    S("3x4,2,d0,os6", A(3, 4), 2, 0, output_size=6),
    S("3x4,t3,d0", A(3, 4), A(3, **REPEATS), 0),
    S("3x4,t4,d1", A(3, 4), A(4, **REPEATS), dim=1),
    S("3x4,t12", A(3, 4), A(12, **REPEATS)),
    S("3x4,t1,d1", A(3, 4), A(1, **REPEATS), 1),
    S("3x4,t0d,d0", A(3, 4), A(dtype="i64", values="fill2"), 0),
    S("3x4,-1", A(3, 4), -1, _error=True),
    S("3x4,2,os5", A(3, 4), 2, output_size=5, _error=True),
    S("3x4,t3,d1", A(3, 4), A(3, **REPEATS), 1, _error=True),
    S("3x4,t2x2", A(3, 4), A(2, 2, **REPEATS), _error=True),
    S("3x4,f2.5", A(3, 4), 2.5, _error=True),
    S("0d,2,d0", A(), 2, 0, _error=True),
    S("0d,t1,d-1", A(), A(1, **REPEATS), -1, _error=True),
)
# torch.repeat_interleave(repeats): each index repeated (an int64 tensor, no gradient)
I64 = dict(_dtypes=("i64",))
INDICES = (
    S("t4", A(4, **REPEATS), **I64),
    S("t0", A(0, **REPEATS), **I64),
    S("t4,os", A(4, dtype="i64", values="fill2"), output_size=8, **I64),
    S("t2x2", A(2, 2, **REPEATS), _error=True, **I64),
    S("t4,os3", A(4, dtype="i64", values="fill2"), output_size=3, _error=True, **I64),
)

# --- stacking ------------------------------------------------------------------------------
HSTACK = (
    S("{2x3,2x5}", seq((2, 3), (2, 5))),
    S("{3,4}", seq((3,), (4,))),
    S("{0d,3}", seq((), (3,))),
    S("{0d,0d}", seq((), ())),
    S("{2x1x3,2x2x3}", seq((2, 1, 3), (2, 2, 3))),
    S("{2x3}", seq((2, 3))),
    S("{2x3,3}", seq((2, 3), (3,)), _error=True),
    S("{}", [], _error=True),
)
VSTACK = (
    S("{3,3}", seq((3,), (3,))),
    S("{2x3,1x3}", seq((2, 3), (1, 3))),
    S("{0d,0d}", seq((), ())),
    S("{3,2x3}", seq((3,), (2, 3))),
    S("{2x3x4,1x3x4}", seq((2, 3, 4), (1, 3, 4))),
    S("{3,4}", seq((3,), (4,)), _error=True),
    S("{}", [], _error=True),
)
DSTACK = (
    S("{3,3}", seq((3,), (3,))),
    S("{2x3,2x3}", seq((2, 3), (2, 3))),
    S("{0d,0d}", seq((), ())),
    S("{2x3x1,2x3x4}", seq((2, 3, 1), (2, 3, 4))),
    S("{1x3,3}", seq((1, 3), (3,))),
    S("{2x3,3}", seq((2, 3), (3,)), _error=True),
    S("{}", [], _error=True),
)
ATLEAST = (
    S("0d", A()),
    S("3", A(3)),
    S("3x4", A(3, 4)),
    S("2x3x4", A(2, 3, 4)),
    S("0d,3", A(), A(3)),
    S("[0d,3x4]", seq((), (3, 4))),
)

# --- diff ----------------------------------------------------------------------------------
DIFF = (
    S("3x4", A(3, 4)),
    S("3x4,n2", A(3, 4), 2),
    S("3x4,n2,d0", A(3, 4), 2, 0),
    S("2x3x5,d1", A(2, 3, 5), dim=1),
    S("3x4,n0", A(3, 4), 0),
    S("3x4,n9", A(3, 4), 9),
    S("3x4,prepend", A(3, 4), prepend=A(3, 2, dtype="y")),
    S("3x4,d0,append", A(3, 4), 1, 0, append=A(1, 4, dtype="y")),
    S("3x4,both,n3", A(3, 4), 3, prepend=A(3, 1, dtype="y"), append=A(3, 2, dtype="y")),
    S("0x3,d0", A(0, 3), dim=0),
    S("6x35", A(6, 35)),
    S("0d", A(), _error=True),
    S("3x4,n-1", A(3, 4), -1, _error=True),
    S("3x4,prepend4", A(3, 4), prepend=A(4), _error=True),
    S("3x4,prepend2x1", A(3, 4), prepend=A(2, 1), _error=True),
    S("3x4,prepend1.0", A(3, 4), prepend=1.0, _error=True),
)

ENTRIES: tuple[OpInfo, ...] = (
    op("Tensor.flip", method("flip"), FLIP, **SHAPE),
    op("torch.flip", function("flip"), FLIP_FN, **SHAPE),
    *pair("fliplr", FLIPLR, **SHAPE),
    *pair("flipud", FLIPUD, **SHAPE),
    *pair("roll", ROLL, **SHAPE),
    *pair("diagonal", DIAGONAL, **SHAPE),
    *pair("diag_embed", DIAG_EMBED, **SHAPE),
    *pair("diag", DIAG, **SHAPE),
    *pair("trace", TRACE),
    op("Tensor.repeat", method("repeat"), REPEAT, **SHAPE),
    op("Tensor.repeat_interleave", method("repeat_interleave"), REPEAT_INTERLEAVE, **SHAPE),
    op(
        "torch.repeat_interleave",
        function("repeat_interleave"),
        (*few(REPEAT_INTERLEAVE), *INDICES),
        **SHAPE,
    ),
    *(
        op(f"torch.{n}", function(n), s, **SHAPE)
        for n, s in (("hstack", HSTACK), ("vstack", VSTACK), ("dstack", DSTACK))
    ),
    *(op(f"torch.atleast_{n}d", function(f"atleast_{n}d"), ATLEAST, **SHAPE) for n in (1, 2, 3)),
    *pair("diff", DIFF, dtypes=ALL + ("f32+f64",)),
    *pair("rsqrt", unary(), dtypes=ALL, domain=(0.1, 3.0)),
    *pair("rsqrt_", inplace_unary(), dtypes=FLOAT + ("i64",), inplace=True, domain=(0.1, 3.0)),
)
