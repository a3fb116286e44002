"""minigrad: a numpy autograd with PyTorch's names and semantics (`import minigrad as torch`)."""

# ruff: noqa: F401 - this module re-exports the public names

import importlib as _importlib

from . import accelerator, amp, autograd, backends, cuda, func, linalg, random
from . import ops as _ops  # binds the Tensor methods and operators
from .autograd import enable_grad, inference_mode, no_grad, set_grad_enabled
from .core import autocast as _autocast_state
from .core import quiet as _quiet  # silences numpy's inf/NaN warnings, as PyTorch is silent
from .core.anomaly import is_anomaly_enabled, set_detect_anomaly
from .core.device import device, get_default_device, set_default_device
from .core.dtypes import (
    bfloat16,
    dtype,
    float16,
    float32,
    float64,
    get_default_dtype,
    int32,
    int64,
    set_default_dtype,
    uint8,
)
from .core.dtypes import bool_ as bool  # noqa: A004 - torch.bool
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
    ones,
    ones_like,
    rand,
    rand_like,
    randint,
    randint_like,
    randn,
    randn_like,
    randperm,
    tensor,
    zeros,
    zeros_like,
)
from .determinism import (
    are_deterministic_algorithms_enabled,
    is_deterministic_algorithms_warn_only_enabled,
    use_deterministic_algorithms,
)
from .legacy import (
    BoolTensor,
    ByteTensor,
    DoubleTensor,
    FloatTensor,
    HalfTensor,
    IntTensor,
    LongTensor,
)
from .ops import binary_function as _binary_function
from .ops import diagonal as _diagonal
from .ops import diff as _diff
from .ops import elementwise as _ew
from .ops import flip_roll as _flip_roll
from .ops import index_add as _index_add
from .ops import indexing as _ix
from .ops import lerp as _lerp
from .ops import linalg as _la
from .ops import logical as _logical
from .ops import ordering as _ordering
from .ops import piecewise as _pw
from .ops import reduction as _red
from .ops import remainder as _rem
from .ops import repeat as _repeat
from .ops import shape as _sh
from .ops import split as _split
from .ops import stacking as _stacking
from .ops import tensor_operand as _tensor_operand
from .ops import tensor_or_number as _tensor_or_number
from .ops import transcendental as _tr
from .ops.einsum import einsum
from .ops.meshgrid import meshgrid
from .ops.sampling import bernoulli, multinomial, normal
from .random import (
    Generator,
    default_generator,
    get_rng_state,
    initial_seed,
    manual_seed,
    seed,
    set_rng_state,
)

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

# --- issue 21, elementwise math: torch.log10 ... torch.erfc (and numpy's aliases, arcsin ...)
# with their in-place twins, atan2, remainder, fmod, lerp, clamp_min/max, the logical ops
globals().update(_tr.FUNCTIONS)
globals().update({f"{_n}_": _ops.METHODS[f"{_n}_"] for _n in _tr.FUNCTIONS})
atan2 = _tensor_operand("atan2", _tr.atan2, position=2)
arctan2 = _tensor_operand("arctan2", _tr.atan2, position=2)
remainder, fmod = (
    _tensor_or_number(_n, getattr(_rem, _n), method=False) for _n in ("remainder", "fmod")
)
lerp = _lerp.lerp
clamp_min, clamp_min_ = (
    _tensor_or_number(_n, _ops.METHODS[_n], "min", method=False)
    for _n in ("clamp_min", "clamp_min_")
)
clamp_max, clamp_max_ = (
    _tensor_or_number(_n, _ops.METHODS[_n], "max", method=False)
    for _n in ("clamp_max", "clamp_max_")
)
logical_and, logical_or, logical_xor = (
    _tensor_operand(_n, getattr(_logical, _n), position=2)
    for _n in ("logical_and", "logical_or", "logical_xor")
)
logical_not = _logical.logical_not
# --- end of issue 21's elementwise block
# --- issue 21, structural ops (torch.linalg is minigrad/linalg.py)
cumsum, cumprod, logsumexp, topk, dist = (
    _ops.METHODS[_n] for _n in ("cumsum", "cumprod", "logsumexp", "topk", "dist")
)
tril, triu, gather, scatter, scatter_add, outer, ger = (
    _ops.METHODS[_n] for _n in ("tril", "triu", "gather", "scatter", "scatter_add", "outer", "ger")
)
histc, histogram, det, inverse = (
    _ops.METHODS[_n] for _n in ("histc", "histogram", "det", "inverse")
)
# --- end of issue 21's structural block
# --- issue 21, courses: torch.square (x ** 2)
square, square_ = _ops.METHODS["square"], _ops.METHODS["square_"]
# --- end of the courses block
# --- shape ops: flip/roll, diagonals and trace, repeat_interleave, hstack & co, diff
# (torch.rsqrt/rsqrt_ come with the transcendental functions above)
flip, fliplr, flipud, roll = _flip_roll.flip, _flip_roll.fliplr, _flip_roll.flipud, _flip_roll.roll
diagonal, diag_embed, diag, trace = (
    _diagonal.diagonal,
    _diagonal.diag_embed,
    _diagonal.diag,
    _diagonal.trace,
)
repeat_interleave, diff = _repeat.repeat_interleave, _diff.diff
hstack, vstack, dstack = _stacking.hstack, _stacking.vstack, _stacking.dstack
atleast_1d, atleast_2d, atleast_3d = (getattr(_stacking, f"atleast_{_n}d") for _n in (1, 2, 3))
# --- end of the shape ops block
# --- reductions and selections: amax/amin, prod, isclose, index_select, masked_select,
# nonzero, unique, bincount (the modules reached through the ops package)
amax, amin, prod = _ops.extremes.amax, _ops.extremes.amin, _ops.prod.prod
isclose, unique, bincount = _ops.isclose.isclose, _ops.unique.unique, _ops.bincount.bincount
index_select, masked_select, nonzero = (
    _ops.selection.index_select,
    _ops.selection.masked_select,
    _ops.selection.nonzero,
)
# --- end of the reductions and selections block
# --- mixed precision: torch.amp and torch.autocast, the autocast queries, bfloat16 (a
# dtype that names but stores nothing: numpy has none), float32 matmul precision (TF32 flags)
autocast = amp.autocast
get_autocast_dtype, set_autocast_dtype, set_autocast_enabled = (
    _autocast_state.get_dtype,
    _autocast_state.set_dtype,
    _autocast_state.set_enabled,
)
get_float32_matmul_precision = backends.cuda.get_float32_matmul_precision
set_float32_matmul_precision = backends.cuda.set_float32_matmul_precision


def is_autocast_enabled(device_type: str = "cuda") -> bool:  # noqa: D103
    return _autocast_state.is_enabled(device_type)


# --- end of the mixed precision block
matrix_exp = _ops.matrix_exp.matrix_exp
vmap = func.vmap  # torch.vmap is torch.func.vmap


def equal(a: Tensor, b: Tensor) -> bool:  # noqa: D103
    return a.equal(b)


# out=: the torch-level functions that take it in PyTorch, wrapped once (ops/out.py)
globals().update({_n: _ops.out.with_out(_n, globals()[_n]) for _n in _ops.out.NAMES})


__version__ = "0.1.0"


def __getattr__(name: str):
    # nn, optim, utils, serialization and distributions load on first use: `import minigrad`
    # stays light.
    if name in ("nn", "optim", "utils", "serialization", "distributions"):
        return _importlib.import_module(f".{name}", __name__)
    if name in ("save", "load"):
        return getattr(_importlib.import_module(".serialization", __name__), name)
    raise AttributeError(f"module 'minigrad' has no attribute '{name}'")
