"""Samples and table entries of the reductions and selections: amax/amin, prod, index_select,
masked_select (differentiable), and isclose, nonzero, unique, bincount (forward only; their
corners and errors are also in tests/test_selections.py)."""

from __future__ import annotations

from .families import A, S, both
from .spec import FLOAT, NONFLOAT, Arg, D, OpInfo

ALL = FLOAT + NONFLOAT
KINK = ("n", "s", "k")  # ties for amax, zeros for prod and nonzero, repeats for unique
SHAPE = dict(values=("n",))
NOGRAD = dict(grad=False)
MASK = dict(dtype="bool", values="mask")


def index(*shape: int, below: int) -> Arg:
    return A(*shape, dtype="i64", values=f"idx{below}")


AMAX = (
    S("3x4", A(3, 4)),
    S("0d", A()),
    S("2x3x5", A(2, 3, 5)),
    S("3x4,d1", A(3, 4), 1),
    S("3x4,d-1,keep", A(3, 4), -1, keepdim=True),
    S("2x3x5,d0,2", A(2, 3, 5), (0, 2)),
    S("2x3x5,d-1,0,keep", A(2, 3, 5), dim=(-1, 0), keepdim=True),
    S("0d,d0", A(), 0),
    S("6x35,d0", A(6, 35), 0),
    S("0x3,d1", A(0, 3), 1),
    S("2x0x3,d0,2", A(2, 0, 3), (0, 2)),
    S("3x4,d2", A(3, 4), 2, _error=True),
    S("0", A(0), _error=True),
    S("2x0x3,d1", A(2, 0, 3), 1, _error=True),
)
PROD = (
    S("3x4", A(3, 4)),
    S("0d", A()),
    S("2x3x5", A(2, 3, 5)),
    S("3x4,d1", A(3, 4), 1),
    S("3x4,d0,keep", A(3, 4), 0, keepdim=True),
    S("2x3x5,d-1", A(2, 3, 5), dim=-1),
    S("0d,d0", A(), 0),
    S("0", A(0)),
    S("0x3,d0", A(0, 3), 0),
    S("2x0,d1", A(2, 0), 1),
    S("6x35,d1", A(6, 35), 1),
    S("3x4,zero", A(3, 4, values="zero")),
    S("3x4,d1,zero", A(3, 4, values="zero"), 1),
    S("3x4,f64", A(3, 4), dtype=D("f64")),
    S("3x4,d1,f64", A(3, 4), 1, dtype=D("f64")),
    S("3x4,d2", A(3, 4), 2, _error=True),
    S("3x4,d0,1", A(3, 4), (0, 1), _error=True),
)
INDEX_SELECT = (
    S("3x4,d1,idx5", A(3, 4), 1, index(5, below=4)),
    S("3x4,d0,idx2", A(3, 4), 0, index(2, below=3)),
    S("2x3x5,d-1,idx4", A(2, 3, 5), -1, index(4, below=5)),
    S("3x4,d1,idx0d", A(3, 4), 1, index(below=4)),
    S("0d,d0,idx1", A(), 0, index(1, below=1)),
    S("3x4,d1,idx0", A(3, 4), 1, index(0, below=4)),
    S("0x3,d1,idx2", A(0, 3), 1, index(2, below=3)),
    S("3x4,d0,idx2x2", A(3, 4), 0, index(2, 2, below=3), _error=True),
)
MASKED_SELECT = (
    S("3x4,m3x4", A(3, 4), A(3, 4, **MASK)),
    S("3x4,m4", A(3, 4), A(4, **MASK)),
    S("4,m3x4", A(4), A(3, 4, **MASK)),
    S("3x1,m1x4", A(3, 1), A(1, 4, **MASK)),
    S("0d,m0d", A(), A(**MASK)),
    S("0x3,m3", A(0, 3), A(3, **MASK)),
    S("3x4,m2", A(3, 4), A(2, **MASK), _error=True),
)
ISCLOSE = (
    S("3x4,3x4", A(3, 4), A(3, 4, dtype="y")),
    S("2x3x4,4", A(2, 3, 4), A(4, dtype="y")),
    S("3x4,3x4,tol.5", A(3, 4), A(3, 4, dtype="y"), rtol=0.5, atol=0.5),
    S("3x4,3x4,nan", A(3, 4), A(3, 4, dtype="y"), equal_nan=True),
    S("3x4,3x4,exact", A(3, 4), A(3, 4, dtype="y"), 0.0, 0.0),
    S("0d,3", A(), A(3, dtype="y")),
    S("0x3,3", A(0, 3), A(3, dtype="y")),
    S("3x4,f2.5", A(3, 4), 2.5, _error=True),
    S("2x3,4x5", A(2, 3), A(4, 5), _error=True),
)
NONZERO = (
    S("3x4", A(3, 4)),
    S("0d", A()),
    S("0", A(0)),
    S("2x3x5", A(2, 3, 5)),
    S("3x4,tuple", A(3, 4), as_tuple=True),
    S("0d,tuple", A(), as_tuple=True),
    S("0x3,tuple", A(0, 3), as_tuple=True),
)
UNIQUE = (
    S("12", A(12)),
    S("3x4,inv,counts", A(3, 4), return_inverse=True, return_counts=True),
    S("3x4,unsorted,inv", A(3, 4), sorted=False, return_inverse=True),
    S("0d,inv,counts", A(), return_inverse=True, return_counts=True),
    S("0,counts", A(0), return_counts=True),
    S("6x35,counts", A(6, 35), return_counts=True),
    S("4x2,d0,inv,counts", A(4, 2), dim=0, return_inverse=True, return_counts=True),
    S("2x4,d1,inv", A(2, 4), dim=1, return_inverse=True),
    S("2x3x2,d-1", A(2, 3, 2), dim=-1),
    S("3x4,d2", A(3, 4), dim=2, _error=True),
)
COUNTED = dict(_dtypes=("i64",))  # no weights: the case's dtype does not reach the op
BINCOUNT = (
    S("12", index(12, below=5), **COUNTED),
    S("12,minlength8", index(12, below=5), minlength=8, **COUNTED),
    S("12,w", index(12, below=5), A(12, grad=False)),
    S("12,w,minlength8", index(12, below=5), A(12, grad=False), 8),
    S("0", index(0, below=5), **COUNTED),
    S("0,w,minlength3", index(0, below=5), A(0, grad=False), minlength=3),
    S("2x3", index(2, 3, below=5), _error=True, **COUNTED),
)

ENTRIES: tuple[OpInfo, ...] = (
    *both("amax", AMAX, values=KINK),
    *both("amin", AMAX, values=KINK),
    *both("prod", PROD, values=KINK),
    *both("index_select", INDEX_SELECT, **SHAPE),
    *both("masked_select", MASKED_SELECT, **SHAPE),
    *both("isclose", ISCLOSE, values=KINK, **NOGRAD),
    *both("nonzero", NONZERO, values=KINK, **NOGRAD),
    *both("unique", UNIQUE, values=KINK, **NOGRAD),
    *both("bincount", BINCOUNT, **NOGRAD),
)
