"""Sample lists shared by families of ops (elementwise, reductions, ...), and the call helpers.

Shapes cover 0-d, empty, broadcasting pairs and a larger tensor; layouts, value kinds, dtypes
and seeds are crossed with every sample by cases.py, not listed here.
"""

from __future__ import annotations

from typing import Any

from .spec import FLOAT, Arg, D, OpInfo, Sample, Seq, shapes_token

UNARY_SHAPES = ((), (0,), (3, 4), (2, 3, 5), (6, 35))
BROADCAST = (
    ((3, 4), (3, 4)),
    ((2, 3, 4), (4,)),
    ((3, 1), (1, 4)),
    ((), (2, 3)),
    ((2, 1, 3), (4, 1)),
    ((5,), ()),
    ((0, 3), (3,)),
    ((6, 35), (6, 35)),
)
# in place, the first operand already has the broadcast shape
INPLACE_BROADCAST = (((3, 4), (3, 4)), ((2, 3, 4), (4,)), ((3, 4), (3, 1)), ((2, 3), ()))


def A(*shape: int, **kw: Any) -> Arg:  # noqa: N802 - reads like a constructor
    return Arg(tuple(shape), **kw)


def S(name: str, *args: Any, _dtypes=None, _error=False, _crossed=True, _leaf=False, **kw):  # noqa: N802
    """A Sample; keyword arguments not starting with _ are the op's."""
    return Sample(name, tuple(args), tuple(kw.items()), _dtypes, _error, _crossed, _leaf)


# --- how each namespace calls an op --------------------------------------------------------


def method(name: str):
    return lambda L, x, *a, **k: getattr(x, name)(*a, **k)


def function(name: str):
    return lambda L, *a, **k: getattr(L, name)(*a, **k)


def functional(name: str):
    return lambda L, *a, **k: getattr(L.nn.functional, name)(*a, **k)


def op(name: str, call, samples, **kw) -> OpInfo:
    return OpInfo(name, call, tuple(samples), **kw)


def both(name: str, samples, **kw) -> list[OpInfo]:
    """Tensor.name and torch.name with the same samples."""
    return [
        op(f"Tensor.{name}", method(name), samples, **kw),
        op(f"torch.{name}", function(name), samples, **kw),
    ]


def attribute(name: str):
    return lambda L, x: getattr(x, name)


# --- elementwise ---------------------------------------------------------------------------


def unary(*extra: Sample, big: bool = False) -> tuple[Sample, ...]:
    out = [S(shapes_token(s), A(*s)) for s in UNARY_SHAPES]
    if big:  # past minigrad's threshold for threaded kernels (relu)
        out.append(S("64x520", A(64, 520), _crossed=False, _dtypes=FLOAT))
    return (*out, *extra)


def binary(x: str = "", y: str = "", *extra: Sample, scalars: bool = True) -> tuple[Sample, ...]:
    """Broadcasting pairs (the second operand takes the case's second dtype), Python scalars as
    the second operand, and a shape mismatch; ``x``/``y`` are the operands' "n" value kinds."""
    out = [S(shapes_token(a, b), A(*a, values=x), A(*b, dtype="y", values=y)) for a, b in BROADCAST]
    if scalars:
        out += [
            S("3x4,f2.5", A(3, 4, values=x), 2.5, _dtypes=FLOAT + ("i64", "bool")),
            S("3x4,i2", A(3, 4, values=x), 2, _dtypes=FLOAT + ("i64", "bool")),
            S("0d,f-1.5", A(values=x), -1.5, _dtypes=FLOAT + ("i64",)),
            S("3x4,bTrue", A(3, 4, values=x), True, _dtypes=FLOAT + ("i64", "bool")),
        ]
    out.append(S("2x3,4x5", A(2, 3), A(4, 5), _error=True))
    return (*out, *extra)


def inplace_binary(x: str = "", y: str = "", *extra: Sample) -> tuple[Sample, ...]:
    """Broadcasting into the first operand's shape; the mismatches PyTorch refuses in place."""
    out = [
        S(shapes_token(a, b), A(*a, values=x), A(*b, dtype="y", values=y))
        for a, b in INPLACE_BROADCAST
    ]
    out += [
        S("3x4,f2.5", A(3, 4, values=x), 2.5, _dtypes=FLOAT + ("i64",)),
        S("3x4,i2", A(3, 4, values=x), 2, _dtypes=FLOAT + ("i64",)),
        S("3x1,1x4", A(3, 1), A(1, 4), _error=True),
        S("leaf", A(3, 4, values=x), A(3, 4, values=y), _error=True, _leaf=True),
    ]
    return (*out, *extra)


def inplace_unary(*extra: Sample) -> tuple[Sample, ...]:
    out = [S(shapes_token(s), A(*s)) for s in UNARY_SHAPES[:4]]
    out.append(S("leaf", A(3, 4), _error=True, _leaf=True))
    return (*out, *extra)


def clamp_like(inplace: bool = False) -> tuple[Sample, ...]:
    out = [
        S("3x4,-.5,.5", A(3, 4), -0.5, 0.5),
        S("3x4,min0", A(3, 4), min=0.0),
        S("3x4,max0", A(3, 4), max=0.0),
        S("3x4,-1,1", A(3, 4), -1.0, 1.0),
        S("3x4,min>max", A(3, 4), 1.0, -1.0),
        S("0d,min0", A(), min=0.0),
        S("0,min0", A(0), min=0.0),
        S("3x4,tmin4", A(3, 4), min=A(4)),
        S("3x4,tmin4,tmax3x1", A(3, 4), A(4), A(3, 1)),
        S("3x4,imin-1", A(3, 4), min=-1),
        S("3x4,none", A(3, 4), _error=True),
    ]
    if inplace:
        out.append(S("leaf", A(3, 4), min=0.0, _error=True, _leaf=True))
    return tuple(out)


def comparison() -> tuple[Sample, ...]:
    return binary()


# --- reductions ----------------------------------------------------------------------------


def reduce_dims(*extra: Sample, empty_ok: bool = True) -> tuple[Sample, ...]:
    """sum/mean-like: everything, one dim, negative dims, a dim tuple, keepdim, 0-d, empty."""
    out = [
        S("3x4", A(3, 4)),
        S("0d", A()),
        S("2x3x5", A(2, 3, 5)),
        S("3x4,d1", A(3, 4), 1),
        S("3x4,d-1,keep", A(3, 4), -1, keepdim=True),
        S("2x3x5,d0,2", A(2, 3, 5), (0, 2)),
        S("2x3x5,d-1,0,keep", A(2, 3, 5), dim=(-1, 0), keepdim=True),
        S("0d,d0", A(), 0),
        S("6x35,d0", A(6, 35), 0),
        S("3x4,d2", A(3, 4), 2, _error=True),
    ]
    if empty_ok:
        out += [S("0", A(0)), S("2x0x3,d1", A(2, 0, 3), 1), S("2x0x3,d0", A(2, 0, 3), 0)]
    return (*out, *extra)


def max_like() -> tuple[Sample, ...]:
    """max/min: the whole tensor, along a dim (values, indices), keepdim, and elementwise."""
    return (
        S("3x4", A(3, 4)),
        S("0d", A()),
        S("2x3x5", A(2, 3, 5)),
        S("3x4,d1", A(3, 4), 1),
        S("3x4,d0,keep", A(3, 4), 0, keepdim=True),
        S("2x3x5,d-1", A(2, 3, 5), dim=-1),
        S("0d,d0", A(), 0),
        S("2x0x3,d0", A(2, 0, 3), 0),
        S("3x4,t3x4", A(3, 4), A(3, 4, dtype="y")),
        S("3x4,t4", A(3, 4), A(4, dtype="y")),
        S("0", A(0), _error=True),
        S("2x0x3,d1", A(2, 0, 3), 1, _error=True),
    )


def arg_reduce() -> tuple[Sample, ...]:
    return (
        S("3x4", A(3, 4)),
        S("0d", A()),
        S("3x4,d1", A(3, 4), 1),
        S("3x4,d0,keep", A(3, 4), dim=0, keepdim=True),
        S("2x3x5,d-1", A(2, 3, 5), -1),
        S("0d,d0", A(), 0),
        S("0", A(0), _error=True),
    )


def var_like() -> tuple[Sample, ...]:
    return (
        S("3x4", A(3, 4)),
        S("3x4,d1", A(3, 4), 1),
        S("3x4,d0,keep", A(3, 4), 0, keepdim=True),
        S("2x3x5,d0,2", A(2, 3, 5), (0, 2)),
        S("3x4,biased", A(3, 4), unbiased=False),
        S("3x4,d1,biased", A(3, 4), 1, False),
        S("3x4,d1,corr0", A(3, 4), 1, correction=0),
        S("3x4,d1,corr2", A(3, 4), dim=1, correction=2),
        S("1", A(1)),
        S("0d", A()),
        S("0", A(0)),
        S("3x1,d1", A(3, 1), 1),
        S("3x4,d2", A(3, 4), 2, _error=True),
    )


def norm_like() -> tuple[Sample, ...]:
    return (
        S("3x4", A(3, 4)),
        S("3x4,p1", A(3, 4), 1),
        S("3x4,pinf", A(3, 4), float("inf")),
        S("3x4,p-inf", A(3, 4), float("-inf")),
        S("3x4,p3,d1", A(3, 4), 3, 1),
        S("3x4,p0", A(3, 4), 0),
        S("3x4,fro", A(3, 4), "fro"),
        S("3x4,d0,keep", A(3, 4), dim=0, keepdim=True),
        S("3x4,zero", A(3, 4, values="zero")),
        S("3x4,zero,p1", A(3, 4, values="zero"), 1),
        S("0d", A()),
        S("0", A(0)),
    )


def softmax_like() -> tuple[Sample, ...]:
    return (
        S("3x4,d1", A(3, 4), 1),
        S("3x4,d0", A(3, 4), dim=0),
        S("2x3x5,d-1", A(2, 3, 5), -1),
        S("0d,d0", A(), 0),
        S("0x3,d1", A(0, 3), 1),
        S("3x4,d1,f64", A(3, 4), 1, dtype=D("f64")),
        S("3x4,d2", A(3, 4), 2, _error=True),
    )


def seq(*shapes: tuple, dtype: str = "x") -> Seq:
    return Seq(tuple(Arg(s, dtype=dtype) for s in shapes))
