"""minigrad: a numpy autograd with PyTorch's names and semantics (`import minigrad as torch`)."""

# ruff: noqa: F401 - this module re-exports the public names

import importlib as _importlib

from . import accelerator, autograd, cuda
from . import ops as _ops  # binds the Tensor methods and operators
from .autograd import enable_grad, inference_mode, no_grad, set_grad_enabled
from .core.anomaly import is_anomaly_enabled, set_detect_anomaly
from .core.device import device, get_default_device, set_default_device
from .core.dtypes import bool_ as bool  # noqa: A004 - torch.bool
from .core.dtypes import (
    dtype,
    float16,
    float32,
    float64,
    get_default_dtype,
    int32,
    int64,
    set_default_dtype,
)
from .core.grad_mode import is_grad_enabled, is_inference_mode_enabled
from .core.tensor import Size, Tensor
from .creation import (
    arange,
    as_tensor,
    empty,
    eye,
    from_numpy,
    full,
    full_like,
    linspace,
    manual_seed,
    ones,
    ones_like,
    rand,
    rand_like,
    randint,
    randn,
    randn_like,
    randperm,
    tensor,
    zeros,
    zeros_like,
)
from .ops import binary_function as _binary_function
from .ops import elementwise as _ew
from .ops import index_add as _index_add
from .ops import indexing as _ix
from .ops import linalg as _la
from .ops import logical as _logical
from .ops import ordering as _ordering
from .ops import piecewise as _pw
from .ops import reduction as _red
from .ops import shape as _sh
from .ops import split as _split

float = float32  # noqa: A001
double = float64
long = int64
half = float16

add, sub, mul, div = (_binary_function(n, getattr(_ew, n)) for n in ("add", "sub", "mul", "div"))
pow = _ew.pow  # noqa: A001
neg, exp, log, sin, cos, tanh = _ew.neg, _ew.exp, _ew.log, _ew.sin, _ew.cos, _ew.tanh
sigmoid, relu, abs, sqrt, clamp = _ew.sigmoid, _ew.relu, _ew.abs, _ew.sqrt, _ew.clamp  # noqa: A001
clip, where, masked_fill = _ew.clamp, _ew.where, _ew.masked_fill
maximum, minimum, argmin = _red.maximum, _red.minimum, _red.argmin
sum, mean, max, min, argmax = _red.sum, _red.mean, _red.max, _red.min, _red.argmax  # noqa: A001
var, std, norm, softmax, log_softmax = _red.var, _red.std, _red.norm, _red.softmax, _red.log_softmax
reshape, transpose, permute, t = _sh.reshape, _sh.transpose, _sh.permute, _sh.t
unsqueeze, squeeze, flatten, cat, stack, clone = (
    _sh.unsqueeze,
    _sh.squeeze,
    _sh.flatten,
    _sh.cat,
    _sh.stack,
    _sh.clone,
)
concat = cat
sort, index_add = _ordering.sort, _index_add.index_add
select = _ix.select
sign, sgn, round, floor, ceil, trunc, argsort = (  # noqa: A001
    _pw.sign,
    _pw.sgn,
    _pw.round,
    _pw.floor,
    _pw.ceil,
    _pw.trunc,
    _pw.argsort,
)
split, chunk, unbind = _split.split, _split.chunk, _split.unbind
matmul, mm, mv, dot, addmm, bmm = _la.matmul, _la.mm, _la.mv, _la.dot, _la.addmm, _la.bmm


def is_tensor(obj) -> bool:  # noqa: D103
    return isinstance(obj, Tensor)


def numel(t: Tensor) -> int:  # noqa: D103
    return t.numel()


isnan, isinf, isfinite = _logical.isnan, _logical.isinf, _logical.isfinite
isposinf, isneginf, allclose = _logical.isposinf, _logical.isneginf, _logical.allclose
all, any = _logical.all, _logical.any  # noqa: A001


eq, ne, lt, le, gt, ge = (_ops.METHODS[n] for n in ("eq", "ne", "lt", "le", "gt", "ge"))
greater, less, greater_equal, less_equal, not_equal = (
    _ops.METHODS[n] for n in ("greater", "less", "greater_equal", "less_equal", "not_equal")
)
# PyTorch's module-level in-place functions: `torch.sin_(t)` is `t.sin_()`
sin_, cos_, exp_, log_, tanh_, sigmoid_, relu_, abs_, neg_, sqrt_, clamp_, fill_, zero_ = (
    _ops.METHODS[n]
    for n in (
        "sin_",
        "cos_",
        "exp_",
        "log_",
        "tanh_",
        "sigmoid_",
        "relu_",
        "abs_",
        "neg_",
        "sqrt_",
        "clamp_",
        "fill_",
        "zero_",
    )
)


def equal(a: Tensor, b: Tensor) -> bool:  # noqa: D103
    return a.equal(b)


__version__ = "0.1.0"


def __getattr__(name: str):
    # nn, optim, utils and serialization load on first use: `import minigrad` stays light.
    if name in ("nn", "optim", "utils", "serialization"):
        return _importlib.import_module(f".{name}", __name__)
    if name in ("save", "load"):
        return getattr(_importlib.import_module(".serialization", __name__), name)
    raise AttributeError(f"module 'minigrad' has no attribute '{name}'")
