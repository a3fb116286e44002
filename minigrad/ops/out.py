"""`out=`: an op's result written into a tensor the caller gives (`torch.add(a, b, out=c)`).

PyTorch's rules: the op is not differentiable this way, so an input (or `out`) requiring grad
under grad mode is refused; the result's dtype must cast to out's within its kind (a float
result into an int64 `out` is refused, the other way is fine); an `out` of the wrong shape is
resized, with a warning unless it was empty; the write counts one version of `out` (and of the
tensor it is a view of). The function returns `out` itself.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from ..core import grad_mode
from ..core.dtypes import SCALAR_NAMES
from ..core.forward_grad import Levels, tangent_of
from ..core.tensor import Tensor

# torch-level functions that take out= in PyTorch and return one tensor (factories, and those
# returning (values, indices), are left out)
NAMES = (
    "abs acos acosh add addmm all amax amin any asin asinh atan atan2 atanh bmm cat ceil clamp "
    "cos cosh cumprod cumsum diag diff div dot dstack eq exp floor fmod gather ge gt histc "
    "hstack index_select isneginf isposinf le lerp log log10 log1p log2 logical_and logical_not "
    "logical_or logical_xor logsumexp lt masked_select matmul maximum mean minimum mm mul mv ne "
    "neg norm outer pow prod remainder round rsqrt sgn sign sin sinh sqrt square stack std sub "
    "sum tan tanh tril triu trunc var vstack where"
).split()

# the out= kernel PyTorch's error names, where it is not the function's own (a composite's last)
_ATEN_OUT = {
    "diff": "sub",
    "dstack": "cat",
    "hstack": "cat",
    "vstack": "cat",
    "matmul": "mm",
    "norm": "linalg_vector_norm",
    "outer": "mul",
}

RESIZED = (
    "An output with one or more elements was resized since it had shape {have}, which does not "
    "match the required output shape {want}. This behavior is deprecated, and in a future "
    "PyTorch release outputs will not be resized unless they have zero elements. You can "
    "explicitly reuse an out tensor t by resizing it, inplace, to zero elements with t.resize_(0)."
)


def with_out(name: str, fn: Callable[..., Tensor]) -> Callable[..., Tensor]:
    """`fn` taking an `out=` keyword as torch.<name> does."""

    @functools.wraps(fn)
    def function(*args: Any, out: Tensor | None = None, **kwargs: Any) -> Tensor:
        if out is None:
            return fn(*args, **kwargs)
        return write_out(name, fn, args, kwargs, out)

    return function


def write_out(name: str, fn: Callable, args: tuple, kwargs: dict, out: Any) -> Tensor:
    if name in ("sum", "prod") and len(args) < 2 and "dim" not in kwargs:  # (only with a dim)
        raise TypeError(
            f"{name}() received an invalid combination of arguments - got (Tensor, out=Tensor), "
            f"but expected one of:\n * (Tensor input, *, torch.dtype dtype = None)\n"
            f" * (Tensor input, dim, bool keepdim = False, *, torch.dtype dtype = None, "
            "Tensor out = None)"
        )
    if not isinstance(out, Tensor):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if grad_mode.is_grad_enabled() and any(t.requires_grad for t in _tensors(args, kwargs, out)):
        raise RuntimeError(
            f"{name}(): functions with out=... arguments don't support automatic "
            "differentiation, but one of the arguments requires grad."
        )
    if Levels.active and any(tangent_of(t) is not None for t in _tensors(args, kwargs, out)):
        raise NotImplementedError(
            f"Trying to use forward AD with {_ATEN_OUT.get(name, name)}_out that does not "
            "support it because it is an out= function"
        )
    result = fn(*args, **kwargs)._data
    have, want = out._data.dtype, result.dtype
    if have != want and not np.can_cast(want, have, "same_kind"):
        raise RuntimeError(
            f"result type {SCALAR_NAMES[want.name]} can't be cast to the desired output type "
            f"{SCALAR_NAMES[have.name]}"
        )
    if out._data.shape != result.shape:
        if out._data.size:
            shapes = {"have": list(out._data.shape), "want": list(result.shape)}
            warnings.warn(RESIZED.format(**shapes), UserWarning, stacklevel=3)
        out._data = np.empty(result.shape, have)  # (a resize gives out new storage)
    np.copyto(out._data, result, casting="unsafe")
    out._bump()
    return out


def _tensors(args: tuple, kwargs: dict, out: Tensor) -> list[Tensor]:
    """Every tensor among the arguments, those in a list (cat, stack) included, and `out`."""
    found = [out]
    for value in (*args, *kwargs.values()):
        items = value if isinstance(value, (list, tuple)) else (value,)
        found.extend(v for v in items if isinstance(v, Tensor))
    return found
