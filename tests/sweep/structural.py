"""Samples and table entries of issue 21's structural ops: cumsum/cumprod, logsumexp, topk,
dist, tril/triu, gather/scatter/scatter_add, outer/ger, meshgrid, histc/histogram, and
torch.linalg's norm, vector_norm, matrix_norm, det, inv, solve, matrix_exp (with torch.det/inverse
and torch.matrix_exp)."""

from __future__ import annotations

from .families import A, S, both, function, method, norm_like, op, seq
from .spec import FLOAT, NONFLOAT, D, OpInfo

ALL = FLOAT + NONFLOAT
INF = float("inf")
KINK = ("n", "s", "k")
SHAPE = dict(values=("n",))
NOGRAD = dict(grad=False)
IDX = dict(dtype="i64", values="idx3")
# inf and NaN inside a matrix spread through LU in the order of PyTorch's blocked LAPACK
# kernels, which minigrad's plain LU does not follow: finite matrices only
LAPACK = dict(values=("n",))


def linalg(name: str):
    return lambda L, *a, **k: getattr(L.linalg, name)(*a, **k)


def leaf(*args, **kw):
    return S("leaf", *args, _error=True, _leaf=True, **kw)


# --- scans and reductions ------------------------------------------------------------------
SCAN = (
    S("3x4,d1", A(3, 4), 1),
    S("3x4,d0", A(3, 4), dim=0),
    S("2x3x5,d-1", A(2, 3, 5), -1),
    S("0d,d0", A(), 0),
    S("0x3,d1", A(0, 3), 1),
    S("6x35,d1", A(6, 35), 1),
    S("3x4,d1,f64", A(3, 4), 1, dtype=D("f64")),
    S("3x4,d2", A(3, 4), 2, _error=True),
)
SCAN_ = (*SCAN[:5], leaf(A(3, 4), 1))
LOGSUMEXP = (
    S("3x4,d1", A(3, 4), 1),
    S("3x4,d0,keep", A(3, 4), 0, keepdim=True),
    S("2x3x5,d0,2", A(2, 3, 5), (0, 2)),
    S("0d,d0", A(), 0),
    S("2x0,d1", A(2, 0), 1),
    S("6x35,d1", A(6, 35), 1),
    S("3x4,d2", A(3, 4), 2, _error=True),
)
TOPK = (
    S("3x4,k2", A(3, 4), 2),
    S("3x4,k1,d0", A(3, 4), 1, 0),
    S("3x4,k3,smallest", A(3, 4), 3, largest=False),
    S("2x3x5,k2,d1", A(2, 3, 5), 2, dim=1),
    S("0d,k1", A(), 1),
    S("3x4,k0", A(3, 4), 0),
    S("3x4,k5", A(3, 4), 5, _error=True),
)
DIST = (
    S("3x4,3x4", A(3, 4), A(3, 4, dtype="y")),
    S("2x3x4,4", A(2, 3, 4), A(4, dtype="y")),
    S("3x4,3x4,p1", A(3, 4), A(3, 4, dtype="y"), 1),
    S("3x4,3x4,p3", A(3, 4), A(3, 4, dtype="y"), 3),
    S("3x4,3x4,p0.5", A(3, 4), A(3, 4, dtype="y"), 0.5),
    S("3x4,3x4,pinf", A(3, 4), A(3, 4, dtype="y"), INF),
    S("3x4,3x4,p0", A(3, 4), A(3, 4, dtype="y"), 0),
    S("0d,0d", A(), A(dtype="y")),
    S("3x4,same", A(3, 4, values="zero"), A(3, 4, values="zero")),
    S("2x3,4x5", A(2, 3), A(4, 5), _error=True),
)

# --- triangles, gather/scatter, outer, meshgrid --------------------------------------------
TRIANGLE = (
    S("3x4", A(3, 4)),
    S("3x4,1", A(3, 4), 1),
    S("3x4,-1", A(3, 4), -1),
    S("2x3x3,diag2", A(2, 3, 3), diagonal=2),
    S("3x4,-5", A(3, 4), -5),
    S("0x3", A(0, 3)),
    S("4", A(4), _error=True),
)
TRIANGLE_ = (*TRIANGLE[:5], leaf(A(3, 4)))
GATHER = (
    S("3x4,1,idx3x2", A(3, 4), 1, A(3, 2, **IDX)),
    S("3x4,0,idx2x4", A(3, 4), 0, A(2, 4, **IDX)),
    S("2x3x5,-1,idx2x3x4", A(2, 3, 5), -1, A(2, 3, 4, **IDX)),
    S("3x4,1,idx2x5", A(3, 4), 1, A(2, 5, **IDX)),
    S("0d,0,idx0d", A(), 0, A(dtype="i64", values="idx1")),
    S("3x4,1,idx3x0", A(3, 4), 1, A(3, 0, **IDX)),
    S("3x4,1,idx4x2", A(3, 4), 1, A(4, 2, **IDX), _error=True),
)
SCATTER_SRC = (
    S("3x4,1,idx3x2,3x2", A(3, 4), 1, A(3, 2, **IDX), A(3, 2)),
    S("3x4,0,idx2x4,2x4", A(3, 4), 0, A(2, 4, **IDX), A(2, 4)),
    S("3x4,1,idx2x2,3x3", A(3, 4), 1, A(2, 2, **IDX), A(3, 3)),
    S("2x3x5,-1,idx2x3x2", A(2, 3, 5), -1, A(2, 3, 2, **IDX), A(2, 3, 2)),
    S("3x4,1,idx3x0,3x2", A(3, 4), 1, A(3, 0, **IDX), A(3, 2)),
    S("3x4,1,idx4x2,4x2", A(3, 4), 1, A(4, 2, **IDX), A(4, 2), _error=True),
)
SCATTER = (
    *SCATTER_SRC,
    S("3x4,1,idx3x2,f2.5", A(3, 4), 1, A(3, 2, **IDX), 2.5),
    S("3x4,1,idx3x2,value-1", A(3, 4), 1, A(3, 2, **IDX), value=-1.0),
)
SCATTER_ = (*SCATTER[:5], *SCATTER[6:], leaf(A(3, 4), 1, A(3, 2, **IDX), A(3, 2)))
SCATTER_ADD_ = (*SCATTER_SRC[:5], leaf(A(3, 4), 1, A(3, 2, **IDX), A(3, 2)))
OUTER = (
    S("3,4", A(3), A(4, dtype="y")),
    S("0,4", A(0), A(4, dtype="y")),
    S("1,1", A(1), A(1, dtype="y")),
    S("2x2,4", A(2, 2), A(4), _error=True),
)
MESHGRID = (
    S("3,4,ij", A(3), A(4), indexing="ij"),
    S("3,4,xy", A(3), A(4), indexing="xy"),
    S("3,4,2,xy", A(3), A(4), A(2), indexing="xy"),
    S("0d,4,ij", A(), A(4), indexing="ij"),
    S("3,4", A(3), A(4)),
    S("[3,4],ij", seq((3,), (4,)), indexing="ij"),
    S("3,ij", A(3), indexing="ij"),
    S("2x2,ij", A(2, 2), A(3), indexing="ij", _error=True),
)

EINSUM = (
    S("ij,jk->ik", "ij,jk->ik", A(3, 4), A(4, 5)),
    S("ij,jk", "ij,jk", A(3, 4), A(4, 5)),
    S("ij,jk->ki", "ij,jk->ki", A(3, 4), A(4, 5)),
    S("ij,j->i", "ij,j->i", A(3, 4), A(4)),
    S("i,i", "i,i", A(4), A(4)),
    S("i,j", "i,j", A(3), A(4)),
    S("ij->", "ij->", A(3, 4)),
    S("ji", "ji", A(3, 4)),
    S("ii->i", "ii->i", A(3, 3)),
    S("ii", "ii", A(3, 3)),
    S("bij,bjk->bik", "bij,bjk->bik", A(2, 3, 4), A(2, 4, 5)),
    S("...ij,...jk", "...ij,...jk", A(2, 3, 4), A(4, 5)),
    S("ij,ij->ij", "ij,ij->ij", A(3, 4), A(3, 4)),
    S("ij,ij->i", "ij,ij->i", A(3, 4), A(3, 4)),
    S("ij,jk,kl->il", "ij,jk,kl->il", A(3, 4), A(4, 5), A(5, 2)),
    S("[ij,jk]", "ij,jk", seq((3, 4), (4, 2))),
    S("ij,jk,0", "ij,jk", A(0, 4), A(4, 2)),
    S("ij,jk,mismatch", "ij,jk", A(3, 4), A(5, 2), _error=True),
    S("ij,missing", "ij,jk", A(3, 4), _error=True),
)

# --- histograms (no gradient: their inputs do not require grad) ----------------------------
HIST_X = dict(grad=False)
HISTC = (
    S("12,bins4", A(12, **HIST_X), bins=4),
    S("3x4,bins3,-1,1", A(3, 4, **HIST_X), bins=3, min=-1, max=1),
    S("0,bins4", A(0, **HIST_X), bins=4),
    S("1,bins2", A(1, **HIST_X), 2),
    S("3x4,bins0", A(3, 4, **HIST_X), bins=0, _error=True),
)
HISTOGRAM = (
    S("12,bins4", A(12, **HIST_X), 4),
    S("12,range", A(12, **HIST_X), 4, range=(-1.0, 1.0)),
    S("12,weight", A(12, **HIST_X), 3, weight=A(12, grad=False, values="pos")),
    S("12,density", A(12, **HIST_X), 3, density=True),
    S("0,bins2", A(0, **HIST_X), 2),
)

# --- linalg --------------------------------------------------------------------------------
DET = (
    S("3x3", A(3, 3)),
    S("2x3x3", A(2, 3, 3)),
    S("1x1", A(1, 1)),
    S("0x0", A(0, 0)),
    S("3x3,zero", A(3, 3, values="zero")),
    S("2x3", A(2, 3), _error=True),
)
INV = (
    S("3x3", A(3, 3)),
    S("2x3x3", A(2, 3, 3)),
    S("1x1", A(1, 1, values="nz")),
    S("0x0", A(0, 0)),
    S("3x3,zero", A(3, 3, values="zero"), _error=True),
    S("3", A(3), _error=True),
)
MATRIX_EXP = (
    S("3x3", A(3, 3)),
    S("2x3x3", A(2, 3, 3)),
    S("4x4", A(4, 4), _crossed=False),  # (1-norms past the Padé degrees': squarings)
    S("1x1", A(1, 1)),
    S("0x0", A(0, 0)),
    S("0x3x3", A(0, 3, 3)),
    S("3x3,zero", A(3, 3, values="zero")),
    S("2x3", A(2, 3), _error=True),
    S("3", A(3), _error=True),
)
SOLVE = (
    S("3x3,3x2", A(3, 3), A(3, 2)),
    S("3x3,3", A(3, 3), A(3)),
    S("2x3x3,3x1", A(2, 3, 3), A(3, 1)),
    S("3x3,2x3x2", A(3, 3), A(2, 3, 2)),
    S("2x3x3,2x3", A(2, 3, 3), A(2, 3)),
    S("3x3,2x3,right", A(3, 3), A(2, 3), left=False),
    S("3x3,4", A(3, 3), A(4), _error=True),
    S("3x3,zero", A(3, 3, values="zero"), A(3), _error=True),
)
VECTOR_NORM = (
    *(s for s in norm_like() if s.name != "3x4,fro"),
    S("2x3x5,d0,2", A(2, 3, 5), 2, (0, 2)),
    S("3x4,f64", A(3, 4), dtype=D("f64")),
)
MATRIX_NORM = (
    S("3x4", A(3, 4)),
    *(S(f"3x4,{o}", A(3, 4), o) for o in ("fro", "nuc", 1, -1, 2, -2, INF, -INF)),
    S("2x3x4,1,d0,2", A(2, 3, 4), 1, (0, 2)),
    S("2x3x4,inf,keep", A(2, 3, 4), INF, keepdim=True),
    S("2x3x4,nuc,d2,0", A(2, 3, 4), "nuc", (2, 0)),
    S("0x3", A(0, 3)),
    S("3x4,ord3", A(3, 4), 3, _error=True),
    S("4", A(4), _error=True),
)
NORM = (
    S("3x4", A(3, 4)),
    S("4,p3", A(4), 3),
    S("3x4,1", A(3, 4), 1),
    S("3x4,nuc", A(3, 4), "nuc"),
    S("2x3x4", A(2, 3, 4)),
    S("2x3x4,p3,d1", A(2, 3, 4), 3, 1),
    S("2x3x4,inf,d0,2", A(2, 3, 4), INF, (0, 2)),
    S("2x3x4,ord2", A(2, 3, 4), 2, _error=True),
)

ENTRIES: tuple[OpInfo, ...] = (
    *both("cumsum", SCAN),
    *both("cumprod", SCAN, values=KINK),
    op("Tensor.cumsum_", method("cumsum_"), SCAN_, dtypes=FLOAT + ("i64",), inplace=True),
    op("Tensor.cumprod_", method("cumprod_"), SCAN_, dtypes=FLOAT, inplace=True, values=KINK),
    *both("logsumexp", LOGSUMEXP),
    *both("topk", TOPK, dtypes=FLOAT + ("i64",), values=KINK),
    *both("dist", DIST, dtypes=FLOAT + ("i64", "f32+f64"), values=KINK),
    *both("tril", TRIANGLE, **SHAPE),
    *both("triu", TRIANGLE, **SHAPE),
    op("Tensor.tril_", method("tril_"), TRIANGLE_, inplace=True, **SHAPE),
    op("Tensor.triu_", method("triu_"), TRIANGLE_, inplace=True, **SHAPE),
    *both("gather", GATHER, **SHAPE),
    *both("scatter", SCATTER, **SHAPE),
    op("Tensor.scatter_", method("scatter_"), SCATTER_, inplace=True, **SHAPE),
    *both("scatter_add", SCATTER_SRC, **SHAPE),
    op("Tensor.scatter_add_", method("scatter_add_"), SCATTER_ADD_, inplace=True, **SHAPE),
    *both("outer", OUTER, dtypes=ALL + ("f32+f64",)),
    *both("ger", OUTER, dtypes=ALL + ("f32+f64",)),
    op("torch.meshgrid", function("meshgrid"), MESHGRID, **SHAPE),
    op("torch.einsum", function("einsum"), EINSUM, dtypes=FLOAT + ("i64",)),
    *both("histc", HISTC, dtypes=FLOAT + ("i64",), **NOGRAD),
    *both("histogram", HISTOGRAM, dtypes=FLOAT + ("i64",), **NOGRAD),
    *both("det", DET, dtypes=FLOAT + ("i64",), **LAPACK),
    *both("inverse", INV, dtypes=FLOAT + ("i64",), **LAPACK),
    op("torch.linalg.det", linalg("det"), DET, dtypes=FLOAT + ("i64",), **LAPACK),
    op("torch.linalg.inv", linalg("inv"), INV, dtypes=FLOAT + ("i64",), **LAPACK),
    op("torch.linalg.solve", linalg("solve"), SOLVE, dtypes=FLOAT + ("i64", "f32+f64"), **LAPACK),
    *both("matrix_exp", MATRIX_EXP, dtypes=FLOAT + ("i64",)),
    op("torch.linalg.matrix_exp", linalg("matrix_exp"), MATRIX_EXP, dtypes=FLOAT + ("i64",)),
    op("torch.linalg.vector_norm", linalg("vector_norm"), VECTOR_NORM, values=KINK),
    op("torch.linalg.matrix_norm", linalg("matrix_norm"), MATRIX_NORM, values=KINK),
    op("torch.linalg.norm", linalg("norm"), NORM, values=KINK),
)
