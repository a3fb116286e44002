"""Sample lists of issue 21's elementwise math (their entries are in opinfo.py): the
transcendental functions (and numpy's aliases for them), atan2, remainder/fmod and `%`, lerp,
clamp_min/clamp_max and the logical ops."""

from __future__ import annotations

from .families import A, S, binary, inplace_binary, inplace_unary, unary
from .spec import FLOAT, NONFLOAT, Arg


def few(samples: tuple) -> tuple:
    """The first three samples and the refused ones: for a name that calls the same function
    as a fully swept one (torch.x beside Tensor.x, an alias, an operator), only the way in
    differs."""
    return (*samples[:3], *(s for s in samples[3:] if s.error))


# each function and the range its "n" values are drawn from (inside its domain)
UNARY = {
    "log10": (0.1, 3.0),
    "log2": (0.1, 3.0),
    "log1p": (-0.9, 2.0),
    "expm1": (-2.0, 2.0),
    "tan": (-1.4, 1.4),
    "asin": (-0.9, 0.9),
    "acos": (-0.9, 0.9),
    "atan": (-2.0, 2.0),
    "sinh": (-2.0, 2.0),
    "cosh": (-2.0, 2.0),
    "asinh": (-2.0, 2.0),
    "acosh": (1.1, 3.0),
    "atanh": (-0.9, 0.9),
    "erf": (-2.0, 2.0),
    "erfc": (-2.0, 2.0),
}
ALIASES = {
    "arcsin": "asin",
    "arccos": "acos",
    "arctan": "atan",
    "arcsinh": "asinh",
    "arccosh": "acosh",
    "arctanh": "atanh",
}
U, IU = unary(), inplace_unary()
UNARY_INPLACE_DT = FLOAT + ("i64",)
# an alias is the same op under another name: a few samples show that it is
ALIAS_U = (S("3x4", A(3, 4)), S("0d", A()))
ALIAS_IU = (S("3x4", A(3, 4)), S("leaf", A(3, 4), _error=True, _leaf=True))

NZ = binary("", "nz")
# `x.__rmod__(y)` is y % x, y a tensor or a number (PyTorch has no derivative for number % x)
RMOD = tuple(s for s in binary("nz", "") if s.name in ("3x4,3x4", "3x1,1x4", "3x4,f2.5", "3x4,i2"))
IMOD = inplace_binary("", "nz")
# torch.remainder takes a number first too (number % tensor: PyTorch has no derivative)
REMAINDER_FN = (
    *few(NZ),
    S("f2.5,3x4", 2.5, A(3, 4, values="nz")),
    S("i5,3x4", 5, A(3, 4, values="nz")),
)
ATAN2 = binary(scalars=False)
# in place with tensor operands only (atan2_ and the logical ops take no number)
TENSORS_ONLY = tuple(s for s in inplace_binary() if all(isinstance(a, Arg) for a in s.args))
LERP = (
    S("3x4,3x4,0.3", A(3, 4), A(3, 4, dtype="y"), 0.3),
    S("3x4,3x4,0.7", A(3, 4), A(3, 4, dtype="y"), 0.7),
    S("2x3x4,4,-1.5", A(2, 3, 4), A(4, dtype="y"), -1.5),
    S("3x1,1x4,t3x4", A(3, 1), A(1, 4, dtype="y"), A(3, 4, dtype="y")),
    S("3x4,3x4,t4", A(3, 4), A(3, 4, dtype="y"), A(4, dtype="y")),
    S("0d,0d,t0d", A(), A(dtype="y"), A(dtype="y")),
    S("0,0,0.5", A(0), A(0, dtype="y"), 0.5),
    S("3x4,3x4,t0d-f64", A(3, 4), A(3, 4, dtype="y"), A(dtype="f64")),
    S("2x3,4x5,0.5", A(2, 3), A(4, 5), 0.5, _error=True),
    S("3x4,f2.5,0.5", A(3, 4), 2.5, 0.5, _error=True),
)
ILERP = (
    S("3x4,3x4,0.3", A(3, 4), A(3, 4, dtype="y"), 0.3),
    S("2x3x4,4,t3x1", A(2, 3, 4), A(4, dtype="y"), A(3, 1, dtype="y")),
    S("3x1,1x4,0.5", A(3, 1), A(1, 4), 0.5, _error=True),
    S("leaf", A(3, 4), A(3, 4), 0.5, _error=True, _leaf=True),
)
LERP_DT = FLOAT + NONFLOAT + ("f32+f64",)


def bound(inplace: bool = False) -> tuple:
    """clamp_min/clamp_max: a number or a tensor bound (broadcast, promoted)."""
    out = [
        S("3x4,f0", A(3, 4), 0.0),
        S("3x4,f-0.5", A(3, 4), -0.5),
        S("3x4,i1", A(3, 4), 1, _dtypes=FLOAT + ("i64", "bool")),
        S("3x4,t3x4", A(3, 4), A(3, 4, dtype="y")),
        S("3x4,t4", A(3, 4), A(4, dtype="y")),
        S("0d,f0", A(), 0.0),
        S("0,f0", A(0), 0.0),
    ]
    out.append(S("3x4,none", A(3, 4), None, _error=True))
    if inplace:
        out += [
            S("3x1,t1x4", A(3, 1), A(1, 4), _error=True),
            S("leaf", A(3, 4), 0.0, _error=True, _leaf=True),
        ]
    else:
        out += [S("3x1,t1x4", A(3, 1), A(1, 4, dtype="y")), S("0d,t2x3", A(), A(2, 3, dtype="y"))]
    return tuple(out)


BOUND_DT = FLOAT + NONFLOAT + ("f32+f64", "f64+f32", "i64+f64", "f32+i64", "bool+bool")
LOGICAL_DT = ("bool", "i64", "f32", "bool+bool", "i64+bool", "f32+i64")
# not differentiable: PyTorch writes a leaf that requires grad without complaint
ILOGICAL = (
    *(s for s in TENSORS_ONLY if not s.leaf),
    S("leaf", A(3, 4), A(3, 4), _leaf=True),
)
ELEMENTS = (S("0d", A()), S("0", A(0)), S("3x4", A(3, 4)), S("2x3x5", A(2, 3, 5)))
