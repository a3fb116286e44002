"""Sample lists of the nn-layer functionals (issue 21): activations, normalization, embedding,
pooling and padding."""

from __future__ import annotations

from .families import A, S, inplace_unary, unary

# --- activations -------------------------------------------------------------------------
ACT = unary()
ACT_INPLACE = inplace_unary()
GELU = unary(
    S("3x4,tanh", A(3, 4), approximate="tanh"),
    S("2x3x5,tanh", A(2, 3, 5), "tanh"),
    S("3x4,bad", A(3, 4), approximate="erf", _error=True),
)
LEAKY = unary(
    S("3x4,s0.2", A(3, 4), 0.2),
    S("3x4,s-0.5", A(3, 4), negative_slope=-0.5),
    S("3x4,inplace", A(3, 4), inplace=True),
)
LEAKY_ = inplace_unary(S("3x4,s0.2", A(3, 4), 0.2), S("3x4,s-0.5", A(3, 4), -0.5))
ELU = unary(S("3x4,a0.5", A(3, 4), 0.5), S("3x4,inplace", A(3, 4), inplace=True))
ELU_ = inplace_unary(S("3x4,a2", A(3, 4), 2.0), S("3x4,a-1", A(3, 4), alpha=-1.0))
SOFTPLUS = unary(
    S("3x4,b2,t1", A(3, 4), 2.0, 1.0),
    S("3x4,b0.5", A(3, 4), beta=0.5),
    S("3x4,t0", A(3, 4), threshold=0.0),
)
HARDTANH = unary(
    S("3x4,-.5,.5", A(3, 4), -0.5, 0.5),
    S("3x4,min0,max2", A(3, 4), min_val=0.0, max_val=2.0),
    S("3x4,inplace", A(3, 4), inplace=True),
    S("3x4,min>max", A(3, 4), 1.0, -1.0, _error=True),
)
HARDTANH_ = inplace_unary(S("3x4,-.5,.5", A(3, 4), -0.5, 0.5))
WITH_INPLACE = unary(S("3x4,inplace", A(3, 4), inplace=True))

# --- normalization -----------------------------------------------------------------------
LAYER_NORM = (
    S("2x3x4,(4,),w,b", A(2, 3, 4), (4,), A(4), A(4)),
    S("2x3x4,(3,4)", A(2, 3, 4), (3, 4)),
    S("3x4,[4],w", A(3, 4), [4], A(4)),
    S("3x4,b,eps0.1", A(3, 4), (4,), None, A(4), eps=0.1),
    S("4,(4,),w,b", A(4), (4,), A(4), A(4)),
    S("2x3x4,(3,4),w,b", A(2, 3, 4), (3, 4), A(3, 4), A(3, 4)),
    S("0x4", A(0, 4), (4,), A(4), A(4)),
    S("3x4,(3,)", A(3, 4), (3,), _error=True),
    S("3x4,w3", A(3, 4), (4,), A(3), _error=True),
    S("3x4,()", A(3, 4), (), _error=True),
    S("3x4,int", A(3, 4), 4, _error=True),
)
GROUP_NORM = (
    S("2x4x3,g2,w,b", A(2, 4, 3), 2, A(4), A(4)),
    S("2x6x2x2,g3", A(2, 6, 2, 2), 3),
    S("3x4,g2,w", A(3, 4), 2, A(4)),
    S("2x4x3,g1,b,eps0.1", A(2, 4, 3), 1, None, A(4), eps=0.1),
    S("2x4x3,g4,w,b", A(2, 4, 3), 4, A(4), A(4)),
    S("2x4x3,g3", A(2, 4, 3), 3, _error=True),
    S("4,g1", A(4), 1, _error=True),
    S("2x4x3,w3", A(2, 4, 3), 2, A(3), _error=True),
)

# --- embedding ---------------------------------------------------------------------------
IDX = dict(dtype="i64", values="idx5")
EMBEDDING = (
    S("2x3;5x4", A(2, 3, **IDX), A(5, 4)),
    S("4;5x4,pad1", A(4, **IDX), A(5, 4), 1),
    S("2x3;5x4,pad-1", A(2, 3, **IDX), A(5, 4), padding_idx=-1),
    S("0d;5x4", A(**IDX), A(5, 4)),
    S("6;5x4,freq", A(6, **IDX), A(5, 4), scale_grad_by_freq=True),
    S("6;5x4,pad0,freq", A(6, **IDX), A(5, 4), padding_idx=0, scale_grad_by_freq=True),
    S("0;5x4", A(0, dtype="i64"), A(5, 4)),
    S("3,i32;5x4", A(3, dtype="i32", values="idx5"), A(5, 4)),
    S("4;5x4,max_norm1", A(4, **IDX), A(5, 4), max_norm=1.0),
    S("4;5x4,max_norm0.5,p1", A(4, **IDX), A(5, 4), max_norm=0.5, norm_type=1.0),
    S("3,f32;5x4", A(3, dtype="f32", values="idx5", grad=False), A(5, 4), _error=True),
    S("out-of-range", A(3, dtype="i64", values="fill5"), A(5, 4), _error=True),
    S("pad5", A(3, **IDX), A(5, 4), padding_idx=5, _error=True),
    S("weight1d", A(3, **IDX), A(5), _error=True),
)

# --- padding -----------------------------------------------------------------------------
PAD = (
    S("2x3x4,(1,2)", A(2, 3, 4), (1, 2)),
    S("2x3x4,(1,0,2,1),v1.5", A(2, 3, 4), (1, 0, 2, 1), value=1.5),
    S("2x3x4,(-1,2)", A(2, 3, 4), [-1, 2]),
    S("3x4,(0,0,-1,-2)", A(3, 4), (0, 0, -1, -2)),
    S("0d,()", A(), ()),
    S("0x3,(1,1)", A(0, 3), (1, 1)),
    S("2x3x4,(1,1,1,1,1,1),vnan", A(2, 3, 4), (1, 1, 1, 1, 1, 1), "constant", float("nan")),
    S("2x3x4,reflect(2,3)", A(2, 3, 4), (2, 3), "reflect"),
    S("2x3x4,reflect(-1,2)", A(2, 3, 4), (-1, 2), mode="reflect"),
    S("1x2x3x4,reflect(1,2,2,1)", A(1, 2, 3, 4), (1, 2, 2, 1), "reflect"),
    S("2x3x4,reflect(1,1,2,0)", A(2, 3, 4), (1, 1, 2, 0), "reflect"),
    S("1x2x2x3x4,reflect3d", A(1, 2, 2, 3, 4), (1, 1, 1, 2, 1, 0), "reflect"),
    S("3x4,replicate(2,3)", A(3, 4), (2, 3), "replicate"),
    S("1x2x3x4,replicate(1,-1,3,0)", A(1, 2, 3, 4), (1, -1, 3, 0), mode="replicate"),
    S("2x2x3x4,replicate3d", A(2, 2, 3, 4), (1, 1, 2, 0, 1, 1), "replicate"),
    S("2x3x4,circular(1,2)", A(2, 3, 4), (1, 2), "circular"),
    S("1x2x3x4,circular(2,-1,0,3)", A(1, 2, 3, 4), (2, -1, 0, 3), "circular"),
    S("(1,)", A(3, 4), (1,), _error=True),
    S("3x4,too long", A(3, 4), (1, 1, 1, 1, 1, 1), _error=True),
    S("3x4,crop too far", A(3, 4), (-3, -2), _error=True),
    S("3x4,bogus", A(3, 4), (1, 1), "bogus", _error=True),
    S("3x4,reflect,value", A(3, 4), (1, 1), "reflect", 1.0, _error=True),
    S("4,reflect", A(4), (1, 1), "reflect", _error=True),
    S("3x4,reflect(4,0)", A(3, 4), (4, 0), "reflect", _error=True),
    S("3x4,replicate(-2,-2)", A(3, 4), (-2, -2), "replicate", _error=True),
    S("3x4,circular(5,0)", A(3, 4), (5, 0), "circular", _error=True),
    S("2x3x4,circular(1,1)x2", A(2, 3, 4), (1, 1), "circular", _dtypes=("bool",)),
)

# --- pooling -----------------------------------------------------------------------------
AVG_POOL2D = (
    S("2x3x6x6,k2", A(2, 3, 6, 6), 2),
    S("k3,s2,p1", A(2, 3, 6, 6), 3, 2, 1),
    S("k3,s2,p1,no-pad-count", A(2, 3, 6, 6), 3, 2, 1, count_include_pad=False),
    S("k(2,3),s1", A(1, 2, 5, 7), (2, 3), stride=1),
    S("3x6x6,k2", A(3, 6, 6), 2),
    S("ceil", A(1, 2, 5, 5), 2, ceil_mode=True),
    S("ceil,k3,s2,p1", A(2, 2, 6, 7), 3, 2, 1, True),
    S("ceil,k3,s2,p1,no-pad-count", A(2, 2, 6, 7), 3, 2, 1, True, False),
    S("divisor3", A(1, 2, 4, 4), 2, divisor_override=3),
    S("0x2x4x4,k2", A(0, 2, 4, 4), 2),
    S("k2,p2", A(1, 1, 4, 4), 2, padding=2, _error=True),
    S("k3,1x1x2x2", A(1, 1, 2, 2), 3, _error=True),
    S("4x4,k2", A(4, 4), 2, _error=True),
    S("divisor0", A(1, 1, 4, 4), 2, divisor_override=0, _error=True),
)
ADAPTIVE_AVG_POOL2D = (
    S("2x3x6x6,3", A(2, 3, 6, 6), 3),
    S("2x3x7x5,(3,2)", A(2, 3, 7, 5), (3, 2)),
    S("3x5x7,(4,None)", A(3, 5, 7), (4, None)),
    S("1x2x3x3,(5,4)", A(1, 2, 3, 3), (5, 4)),
    S("2x3x4x4,1", A(2, 3, 4, 4), 1),
    S("0x2x4x4,2", A(0, 2, 4, 4), 2),
    S("4x4,2", A(4, 4), 2, _error=True),
    S("2x3x4x4,(1,2,3)", A(2, 3, 4, 4), (1, 2, 3), _error=True),
)
AVG_POOL1D = (
    S("2x3x8,k2", A(2, 3, 8), 2),
    S("3x8,k3,s2,p1", A(3, 8), 3, 2, 1),
    S("2x3x7,k3,s2,p1,ceil,no-pad-count", A(2, 3, 7), 3, 2, 1, True, False),
    S("2x3x2,k3", A(2, 3, 2), 3, _error=True),
)
MAX_POOL1D = (
    S("2x3x8,k2", A(2, 3, 8), 2),
    S("3x8,k3,s2,p1", A(3, 8), 3, 2, 1),
    S("2x3x9,k2,d2,ceil", A(2, 3, 9), 2, dilation=2, ceil_mode=True),
    S("2x3x8,k2,indices", A(2, 3, 8), 2, return_indices=True),
    S("2x3x2,k3", A(2, 3, 2), 3, _error=True),
)
ADAPTIVE_MAX_POOL2D = (
    S("2x3x6x6,3", A(2, 3, 6, 6), 3),
    S("2x3x7x5,(3,2),indices", A(2, 3, 7, 5), (3, 2), True),
    S("3x5x7,(4,None)", A(3, 5, 7), (4, None)),
    S("1x2x3x3,(5,4)", A(1, 2, 3, 3), (5, 4), return_indices=True),
    S("0x2x4x4,2", A(0, 2, 4, 4), 2),
    S("4x4,2", A(4, 4), 2, _error=True),
    S("2x0x4,2", A(2, 0, 4), 2, _error=True),
)
