"""THE table: every public op of minigrad (and the PyTorch ops its namespaces lack, see
`MISSING`), each with how to call it and its sample inputs.

Names: "Tensor.x" (a method, operator or property), "torch.x" (module level), "F.x"
(nn.functional). test_table.py fails when minigrad has a public op this table lacks.
"""

from __future__ import annotations

from . import courses_extra as ce
from . import creation as cr
from . import interpolate as ip  # resizing: F.interpolate
from . import layers as ly
from . import masks as mk
from . import mathops as mo
from . import products as pr
from . import sampling as sp
from . import selections as sel
from . import shapeops as so
from . import structural as st
from . import transformer as tf  # transformer layers
from . import views as vw
from .families import (
    A,
    S,
    arg_reduce,
    attribute,
    binary,
    both,
    clamp_like,
    comparison,
    function,
    functional,
    inplace_binary,
    inplace_unary,
    max_like,
    method,
    norm_like,
    op,
    reduce_dims,
    softmax_like,
    unary,
    var_like,
)
from .spec import FLOAT, NONFLOAT, PROMOTIONS, D, OpInfo, shapes_token

ALL = FLOAT + NONFLOAT
BINARY_DT = ALL + PROMOTIONS
INPLACE_DT = FLOAT + ("i64", "f64+f32", "f32+f64", "f32+i64", "i64+f64")
LOGICAL_DT = ("bool", "i64", "bool+bool", "i64+bool", "f32")
SHAPE = dict(values=("n",))  # shape ops move values: special values add nothing
NOGRAD = dict(grad=False)
FORWARD = dict(grad=False, dtypes=("-",), values=("n",), layouts=())
RANDOM = dict(grad=False, random=True, values=("n",))
RANDOM_DT = FLOAT + ("i64",)  # random ops refuse integer inputs
POSITIVE = (0.1, 3.0)
KINK = ("n", "s", "k")  # ops with kinks or ties also get the "k" values (values.py)


def pair(name: str, samples, dtypes: tuple = ALL, **kw) -> list[OpInfo]:
    """Tensor.name swept in full, torch.name (the same function) with `mo.few` samples."""
    return [
        op(f"Tensor.{name}", method(name), samples, dtypes=dtypes, **kw),
        op(f"torch.{name}", function(name), mo.few(samples), dtypes=dtypes[:3], **kw),
    ]


def getitem(L, x, key):
    return x[key]


def setitem(L, x, key, value):
    x[key] = value
    return x


def rmatmul(L, a, b):
    return b.__rmatmul__(a)  # a @ b, through the right operand


# --- sample lists that differ by op --------------------------------------------------------

U = unary()
ROUND = unary(S("3x4,dec1", A(3, 4), decimals=1), S("3x4,dec-1", A(3, 4), decimals=-1))
RELU = unary(big=True)
F_RELU = unary(S("3x4,inplace", A(3, 4), inplace=True), big=True)
IU = inplace_unary()
ADD = binary("", "", S("3x4,3x4,alpha2", A(3, 4), A(3, 4, dtype="y"), alpha=2))
IADD = inplace_binary("", "", S("3x4,3x4,alpha-1.5", A(3, 4), A(3, 4, dtype="y"), alpha=-1.5))
MUL = binary()
IMUL = inplace_binary()
DIV = binary(
    "",
    "nz",
    S("3x4,3x4,trunc", A(3, 4), A(3, 4, dtype="y", values="nz"), rounding_mode="trunc"),
    S("3x4,3x4,floor", A(3, 4), A(3, 4, dtype="y", values="nz"), rounding_mode="floor"),
)
IDIV = inplace_binary("", "nz")
RDIV = binary("nz", "")
POW_EXTRA = (S("3x4,f0.5", A(3, 4, values="pos"), 0.5), S("3x4,i0", A(3, 4), 0))
POW = binary("pos", "", *POW_EXTRA)
POW_FN = (*POW, S("f2,3x4", 2.0, A(3, 4)), S("f0,3x4", 0.0, A(3, 4)))
IPOW = inplace_binary("pos", "")
# PyTorch fails an internal assert differentiating `True ** x`: no bool base here
RPOW = tuple(s for s in binary("", "pos") if "bTrue" not in s.name)
MAXIMUM = binary(scalars=False)
SUM = reduce_dims(
    S("3x4,f64", A(3, 4), dtype=D("f64")), S("3x4,d1,f64", A(3, 4), 1, dtype=D("f64"))
)
MEAN = reduce_dims(S("3x4,f64", A(3, 4), dtype=D("f64")))
BOOL_REDUCE = reduce_dims()
SOFTMAX_F = (*softmax_like(), S("3x4,implicit", A(3, 4)), S("2x3x5,implicit", A(2, 3, 5)))
ARGSORT = (
    S("3x4", A(3, 4)),
    S("3x4,d0", A(3, 4), 0),
    S("3x4,desc", A(3, 4), descending=True),
    S("2x3x5,d1,desc", A(2, 3, 5), 1, True),
    S("0d", A()),
    S("0", A(0)),
)
SORT = (*ARGSORT, S("3x4,stable", A(3, 4), stable=True), S("3x4,d2", A(3, 4), 2, _error=True))
ISNAN = tuple(S(shapes_token(s), A(*s)) for s in ((), (0,), (3, 4), (2, 3, 5)))

TABLE: tuple[OpInfo, ...] = (
    # unary math: method, function, operator, in place
    *both("abs", U, values=KINK),
    op("Tensor.__abs__", method("__abs__"), U, values=KINK),
    *both("abs_", IU, inplace=True, values=KINK),
    *both("neg", U),
    op("Tensor.__neg__", method("__neg__"), U),
    *both("neg_", IU, inplace=True),
    *both("exp", U),
    *both("exp_", IU, inplace=True),
    *both("log", U, domain=POSITIVE),
    *both("log_", IU, inplace=True, domain=POSITIVE),
    *both("sin", U),
    *both("sin_", IU, inplace=True),
    *both("cos", U),
    *both("cos_", IU, inplace=True),
    *both("tanh", U),
    *both("tanh_", IU, inplace=True),
    *both("sigmoid", U),
    *both("sigmoid_", IU, inplace=True),
    *both("relu", RELU, values=KINK),
    *both("relu_", IU, inplace=True, values=KINK),
    *both("sqrt", U, domain=POSITIVE),
    *both("sqrt_", IU, inplace=True, domain=POSITIVE),
    *both("sign", U, values=KINK),
    *both("sgn", U, values=KINK),
    op("Tensor.sign_", method("sign_"), IU, inplace=True, values=KINK),
    *both("round", ROUND, values=KINK),
    op("Tensor.round_", method("round_"), IU, inplace=True, values=KINK),
    *both("floor", U, values=KINK),
    op("Tensor.floor_", method("floor_"), IU, inplace=True, values=KINK),
    *both("ceil", U, values=KINK),
    op("Tensor.ceil_", method("ceil_"), IU, inplace=True, values=KINK),
    *both("trunc", U, values=KINK),
    op("Tensor.trunc_", method("trunc_"), IU, inplace=True, values=KINK),
    *both("clamp", clamp_like(), values=KINK),
    *both("clip", clamp_like(), values=KINK),
    *both("clamp_", clamp_like(inplace=True), inplace=True, values=KINK),
    op("Tensor.clip_", method("clip_"), clamp_like(inplace=True), inplace=True, values=KINK),
    op("F.relu", functional("relu"), F_RELU, values=KINK),
    op("F.relu_", functional("relu_"), IU, inplace=True, values=KINK),
    op("F.sigmoid", functional("sigmoid"), U),
    op("F.tanh", functional("tanh"), U),
    # arithmetic
    *both("add", ADD, dtypes=BINARY_DT),
    op("Tensor.__add__", method("__add__"), MUL, dtypes=BINARY_DT),
    op("Tensor.__radd__", method("__radd__"), MUL, dtypes=BINARY_DT),
    op("Tensor.add_", method("add_"), IADD, dtypes=INPLACE_DT, inplace=True),
    op("Tensor.__iadd__", method("__iadd__"), IMUL, dtypes=INPLACE_DT, inplace=True),
    *both("sub", ADD, dtypes=BINARY_DT),
    op("Tensor.__sub__", method("__sub__"), MUL, dtypes=BINARY_DT),
    op("Tensor.__rsub__", method("__rsub__"), MUL, dtypes=BINARY_DT),
    op("Tensor.sub_", method("sub_"), IADD, dtypes=INPLACE_DT, inplace=True),
    op("Tensor.__isub__", method("__isub__"), IMUL, dtypes=INPLACE_DT, inplace=True),
    *both("mul", MUL, dtypes=BINARY_DT),
    op("Tensor.__mul__", method("__mul__"), MUL, dtypes=BINARY_DT),
    op("Tensor.__rmul__", method("__rmul__"), MUL, dtypes=BINARY_DT),
    op("Tensor.mul_", method("mul_"), IMUL, dtypes=INPLACE_DT, inplace=True),
    op("Tensor.__imul__", method("__imul__"), IMUL, dtypes=INPLACE_DT, inplace=True),
    *both("div", DIV, dtypes=BINARY_DT),
    op("Tensor.__truediv__", method("__truediv__"), binary("", "nz"), dtypes=BINARY_DT),
    op("Tensor.__rtruediv__", method("__rtruediv__"), RDIV, dtypes=BINARY_DT),
    op("Tensor.div_", method("div_"), IDIV, dtypes=INPLACE_DT, inplace=True),
    op("Tensor.__itruediv__", method("__itruediv__"), IDIV, dtypes=INPLACE_DT, inplace=True),
    op("Tensor.pow", method("pow"), POW, dtypes=BINARY_DT, values=KINK),
    op("torch.pow", function("pow"), POW_FN, dtypes=BINARY_DT, values=KINK),
    op("Tensor.__pow__", method("__pow__"), POW, dtypes=BINARY_DT, values=KINK),
    op("Tensor.__rpow__", method("__rpow__"), RPOW, dtypes=BINARY_DT, values=KINK),
    op("Tensor.pow_", method("pow_"), IPOW, dtypes=INPLACE_DT, inplace=True, values=KINK),
    op("torch.maximum", function("maximum"), MAXIMUM, dtypes=BINARY_DT, values=KINK),
    op("torch.minimum", function("minimum"), MAXIMUM, dtypes=BINARY_DT, values=KINK),
    op("Tensor.maximum", method("maximum"), MAXIMUM, dtypes=BINARY_DT, values=KINK),
    op("Tensor.minimum", method("minimum"), MAXIMUM, dtypes=BINARY_DT, values=KINK),
    # comparisons and logic: never differentiable
    *(
        op(f"Tensor.{n}", method(n), comparison(), dtypes=BINARY_DT, values=KINK, **NOGRAD)
        for n in ("__gt__", "__lt__", "__ge__", "__le__", "__eq__", "__ne__")
    ),
    *(
        entry
        for n in ("eq", "ne", "not_equal", "lt", "less", "le", "less_equal", "gt", "greater")
        + ("ge", "greater_equal")
        for entry in both(n, comparison(), dtypes=BINARY_DT, values=KINK, **NOGRAD)
    ),
    *(
        op(f"Tensor.{n}", method(n), comparison(), dtypes=LOGICAL_DT, **NOGRAD)
        for n in ("__and__", "__or__", "__xor__", "__rand__", "__ror__", "__rxor__")
    ),
    op("Tensor.__invert__", method("__invert__"), ISNAN, dtypes=("bool", "i64", "f32"), **NOGRAD),
    *both("isnan", ISNAN, **NOGRAD),
    *both("isfinite", ISNAN, **NOGRAD),
    *both("isinf", ISNAN, **NOGRAD),
    *both("isposinf", ISNAN, **NOGRAD),
    *both("isneginf", ISNAN, **NOGRAD),
    # selection
    op("torch.where", function("where"), mk.WHERE, dtypes=BINARY_DT),
    op("Tensor.where", method("where"), mk.WHERE_METHOD, dtypes=BINARY_DT),
    *both("masked_fill", mk.MASKED_FILL),
    op("Tensor.masked_fill_", method("masked_fill_"), mk.MASKED_FILL_INPLACE, inplace=True),
    # reductions
    *both("sum", SUM),
    *both("mean", MEAN),
    *both("max", max_like(), values=KINK),
    *both("min", max_like(), values=KINK),
    *both("argmax", arg_reduce(), **NOGRAD, values=KINK),
    *both("argmin", arg_reduce(), **NOGRAD, values=KINK),
    *both("argsort", ARGSORT, **NOGRAD, values=KINK),
    *both("sort", SORT, values=KINK),
    *both("any", BOOL_REDUCE, **NOGRAD),
    *both("all", BOOL_REDUCE, **NOGRAD),
    *both("var", var_like(), values=KINK),
    *both("std", var_like(), values=KINK),
    *both("norm", norm_like(), values=KINK),
    *both("softmax", softmax_like()),
    *both("log_softmax", softmax_like()),
    op("F.softmax", functional("softmax"), SOFTMAX_F),
    op("F.log_softmax", functional("log_softmax"), SOFTMAX_F),
    # shapes and views
    op("Tensor.reshape", method("reshape"), vw.RESHAPE, **SHAPE),
    op("torch.reshape", function("reshape"), vw.RESHAPE_FN, **SHAPE),
    op("Tensor.view", method("view"), vw.RESHAPE, **SHAPE),
    *both("transpose", vw.TRANSPOSE, **SHAPE),
    op("Tensor.transpose_", method("transpose_"), vw.TRANSPOSE, inplace=True, **SHAPE),
    *both("t", vw.T_SAMPLES, **SHAPE),
    op("Tensor.t_", method("t_"), vw.T_SAMPLES, inplace=True, **SHAPE),
    op("Tensor.permute", method("permute"), vw.PERMUTE, **SHAPE),
    op("torch.permute", function("permute"), vw.PERMUTE_FN, **SHAPE),
    *both("unsqueeze", vw.UNSQUEEZE, **SHAPE),
    op("Tensor.unsqueeze_", method("unsqueeze_"), vw.UNSQUEEZE, inplace=True, **SHAPE),
    *both("squeeze", vw.SQUEEZE, **SHAPE),
    op("Tensor.squeeze_", method("squeeze_"), vw.SQUEEZE, inplace=True, **SHAPE),
    op("Tensor.expand", method("expand"), vw.EXPAND, **SHAPE),
    op("Tensor.expand_as", method("expand_as"), vw.EXPAND_AS, **SHAPE),
    op("Tensor.view_as", method("view_as"), vw.VIEW_AS, **SHAPE),
    op("Tensor.reshape_as", method("reshape_as"), vw.VIEW_AS, **SHAPE),
    *both("flatten", vw.FLATTEN, **SHAPE),
    op("Tensor.sum_to_size", method("sum_to_size"), vw.SUM_TO_SIZE, **SHAPE),
    *both("clone", vw.CAST, **SHAPE),
    op("Tensor.contiguous", method("contiguous"), vw.CAST, **SHAPE),
    *both("select", vw.SELECT, **SHAPE),
    op("Tensor.__getitem__", getitem, vw.GETITEM, **SHAPE),
    op("Tensor.__setitem__", setitem, vw.SETITEM, inplace=True, **SHAPE),
    *both("index_add", vw.INDEX_ADD, dtypes=FLOAT + ("i64", "f32+f64")),
    op("Tensor.index_add_", method("index_add_"), vw.INDEX_ADD_INPLACE, inplace=True),
    *both("split", vw.SPLIT, **SHAPE),
    *both("chunk", vw.CHUNK, **SHAPE),
    *both("unbind", vw.UNBIND, **SHAPE),
    op("torch.cat", function("cat"), vw.CAT, **SHAPE),
    op("torch.concat", function("concat"), vw.CAT, **SHAPE),
    op("torch.stack", function("stack"), vw.STACK, **SHAPE),
    op("Tensor.T", attribute("T"), vw.T_PROP, **SHAPE),
    op("Tensor.mT", attribute("mT"), vw.MT_PROP, **SHAPE),
    # dtypes
    op("Tensor.to", method("to"), vw.TO, **SHAPE),
    *(
        op(f"Tensor.{n}", method(n), vw.CAST, **SHAPE)
        for n in ("float", "double", "long", "int", "bool")
    ),
    op("Tensor.type_as", method("type_as"), vw.TYPE_AS, **SHAPE),
    op("Tensor.type", method("type"), vw.TYPE, **SHAPE),
    op("Tensor.new_zeros", method("new_zeros"), vw.NEW, dtypes=ALL, layouts=(), **NOGRAD, **SHAPE),
    op("Tensor.new_ones", method("new_ones"), vw.NEW, dtypes=ALL, layouts=(), **NOGRAD, **SHAPE),
    # products
    *both("matmul", pr.MATMUL, dtypes=ALL + ("f32+f64",)),
    op("Tensor.__matmul__", method("__matmul__"), pr.MATMUL, dtypes=ALL + ("f32+f64",)),
    op("Tensor.__rmatmul__", rmatmul, pr.MATMUL, dtypes=ALL + ("f32+f64",)),
    *both("mm", pr.MM, dtypes=ALL + ("f32+f64",)),
    *both("mv", pr.MV, dtypes=ALL + ("f32+f64",)),
    *both("dot", pr.DOT, dtypes=ALL + ("f32+f64",)),
    *both("bmm", pr.BMM, dtypes=ALL + ("f32+f64",)),
    *both("addmm", pr.ADDMM, dtypes=FLOAT + ("i64",)),
    # nn.functional
    op("F.linear", functional("linear"), pr.LINEAR, dtypes=FLOAT + ("i64",)),
    op("F.conv2d", functional("conv2d"), pr.CONV2D, dtypes=FLOAT, values=("n", "s")),
    op(
        "F.conv_transpose2d",
        functional("conv_transpose2d"),
        pr.CONV_TRANSPOSE2D,
        dtypes=FLOAT,
        values=("n", "s"),
    ),
    op("F.max_pool2d", functional("max_pool2d"), pr.MAX_POOL2D, dtypes=FLOAT, values=KINK),
    op("F.mse_loss", functional("mse_loss"), pr.MSE, dtypes=FLOAT + ("f32+f64",)),
    op("F.nll_loss", functional("nll_loss"), pr.NLL, dtypes=FLOAT),
    op("F.cross_entropy", functional("cross_entropy"), pr.CROSS_ENTROPY, dtypes=FLOAT),
    op("F.dropout", functional("dropout"), pr.DROPOUT, dtypes=FLOAT),
    # "e" left out: PyTorch writes running statistics through a stride-0 view in whatever
    # order its threads run (minigrad refuses such a write)
    op(
        "F.batch_norm",
        functional("batch_norm"),
        pr.BATCH_NORM,
        dtypes=FLOAT,
        layouts=("T", "s", "same"),
    ),
    op(
        "F.binary_cross_entropy",
        functional("binary_cross_entropy"),
        pr.BCE,
        dtypes=FLOAT + ("f32+f64",),
    ),
    op(
        "F.binary_cross_entropy_with_logits",
        functional("binary_cross_entropy_with_logits"),
        pr.BCE_LOGITS,
        dtypes=FLOAT + ("f32+f64", "f64+f32"),
    ),
    op("F.one_hot", functional("one_hot"), pr.ONE_HOT, dtypes=("i64",), values=("n",), **NOGRAD),
    # nn layers (issue 21): activations
    op("F.gelu", functional("gelu"), ly.GELU, dtypes=ALL, domain=(-4.0, 4.0)),
    op("F.leaky_relu", functional("leaky_relu"), ly.LEAKY, dtypes=ALL, values=KINK),
    op("F.leaky_relu_", functional("leaky_relu_"), ly.LEAKY_, inplace=True, values=KINK),
    op("F.elu", functional("elu"), ly.ELU, dtypes=ALL, values=KINK),
    op("F.elu_", functional("elu_"), ly.ELU_, inplace=True, values=KINK),
    op("F.silu", functional("silu"), ly.WITH_INPLACE, dtypes=ALL, domain=(-4.0, 4.0)),
    op("F.mish", functional("mish"), ly.WITH_INPLACE, dtypes=ALL, domain=(-4.0, 4.0)),
    op("F.softplus", functional("softplus"), ly.SOFTPLUS, dtypes=ALL, domain=(-4.0, 4.0)),
    op("F.logsigmoid", functional("logsigmoid"), ly.ACT, dtypes=ALL, domain=(-4.0, 4.0)),
    op("F.softsign", functional("softsign"), ly.ACT, dtypes=ALL),
    op("F.hardtanh", functional("hardtanh"), ly.HARDTANH, dtypes=ALL, values=KINK),
    op("F.hardtanh_", functional("hardtanh_"), ly.HARDTANH_, inplace=True, values=KINK),
    op("F.relu6", functional("relu6"), ly.WITH_INPLACE, dtypes=ALL, domain=(-2.0, 8.0)),
    *(
        op(f"F.{n}", functional(n), ly.WITH_INPLACE, dtypes=ALL, values=KINK, domain=(-4.0, 4.0))
        for n in ("hardswish", "hardsigmoid")
    ),
    # nn layers (issue 21): normalization
    op("F.layer_norm", functional("layer_norm"), ly.LAYER_NORM, dtypes=ALL),
    op("F.group_norm", functional("group_norm"), ly.GROUP_NORM, dtypes=ALL),
    op("F.embedding", functional("embedding"), ly.EMBEDDING, dtypes=FLOAT),
    op("F.pad", functional("pad"), ly.PAD, dtypes=ALL),
    op("F.avg_pool2d", functional("avg_pool2d"), ly.AVG_POOL2D, dtypes=ALL),
    op(
        "F.adaptive_avg_pool2d",
        functional("adaptive_avg_pool2d"),
        ly.ADAPTIVE_AVG_POOL2D,
        dtypes=ALL,
    ),
    op(
        "F.adaptive_max_pool2d",
        functional("adaptive_max_pool2d"),
        ly.ADAPTIVE_MAX_POOL2D,
        dtypes=ALL,
        values=KINK,
    ),
    op("F.avg_pool1d", functional("avg_pool1d"), ly.AVG_POOL1D, dtypes=FLOAT),
    op("F.max_pool1d", functional("max_pool1d"), ly.MAX_POOL1D, dtypes=FLOAT, values=KINK),
    # writes and factories
    *both("fill_", mk.FILL, dtypes=INPLACE_DT, inplace=True),
    *both("zero_", IU, inplace=True),
    op("Tensor.copy_", method("copy_"), mk.COPY, dtypes=INPLACE_DT, inplace=True),
    op("Tensor.uniform_", method("uniform_"), mk.RANDOM_FILL, inplace=True, **RANDOM),
    op("Tensor.normal_", method("normal_"), mk.RANDOM_FILL, inplace=True, **RANDOM),
    *(op(f"torch.{n}", function(n), cr.SIZES, **FORWARD) for n in ("zeros", "ones")),
    op("torch.empty", function("empty"), cr.SIZES, **{**FORWARD, "random": True}),
    op("torch.full", function("full"), cr.FULL, **FORWARD),
    *(
        op(f"torch.{n}", function(n), cr.LIKE, **NOGRAD, **SHAPE)
        for n in ("zeros_like", "ones_like")
    ),
    op("torch.full_like", function("full_like"), cr.FULL_LIKE, **NOGRAD, **SHAPE),
    *(
        op(f"torch.{n}", function(n), cr.RANDOM_SIZES, **{**FORWARD, "random": True})
        for n in ("rand", "randn")
    ),
    *(
        op(f"torch.{n}", function(n), cr.RANDOM_LIKE, dtypes=FLOAT + ("i64",), **RANDOM)
        for n in ("rand_like", "randn_like")
    ),
    op("torch.randint", function("randint"), cr.RANDINT, **{**FORWARD, "random": True}),
    op("torch.randperm", function("randperm"), cr.RANDPERM, **{**FORWARD, "random": True}),
    op("torch.arange", function("arange"), cr.ARANGE, **FORWARD),
    op("torch.linspace", function("linspace"), cr.LINSPACE, **FORWARD),
    op("torch.eye", function("eye"), cr.EYE, **FORWARD),
    op("torch.tensor", function("tensor"), cr.TENSOR, **{**FORWARD, "dtypes": ("f32",)}),
    op("torch.as_tensor", function("as_tensor"), cr.AS_TENSOR, **{**FORWARD, "dtypes": ("f32",)}),
    op("torch.from_numpy", cr.from_numpy, cr.FROM_NUMPY, **FORWARD),
    # --- data & random (issue 21): sampling ops and the new_* factories
    op("Tensor.multinomial", method("multinomial"), sp.MULTINOMIAL, dtypes=RANDOM_DT, **RANDOM),
    op("torch.multinomial", sp.multinomial, sp.MULTINOMIAL_ALL, dtypes=RANDOM_DT, **RANDOM),
    op("torch.normal", function("normal"), sp.NORMAL, dtypes=RANDOM_DT, **RANDOM),
    op("Tensor.bernoulli", method("bernoulli"), sp.BERNOULLI, dtypes=RANDOM_DT, **RANDOM),
    op("torch.bernoulli", sp.bernoulli, sp.BERNOULLI_ALL, dtypes=RANDOM_DT, **RANDOM),
    op("Tensor.bernoulli_", method("bernoulli_"), sp.BERNOULLI_, inplace=True, **RANDOM),
    op("torch.randint_like", function("randint_like"), sp.RANDINT_LIKE, **RANDOM),
    op("Tensor.new_tensor", method("new_tensor"), sp.NEW_TENSOR, dtypes=ALL, **NOGRAD, **SHAPE),
    op("Tensor.new_full", method("new_full"), sp.NEW_FULL, dtypes=ALL, **NOGRAD, **SHAPE),
    op("Tensor.new_empty", method("new_empty"), vw.NEW, dtypes=ALL, layouts=(), **RANDOM),
    # --- end data & random
    op("torch.numel", function("numel"), cr.NUMEL, dtypes=ALL, **NOGRAD, **SHAPE),
    *both("allclose", cr.ALLCLOSE, dtypes=cr.ALLCLOSE_DTYPES, **NOGRAD),
    *both("equal", vw.EQUAL, dtypes=ALL + ("f32+f64",), **NOGRAD),
    # elementwise math (issue 21; samples in mathops.py)
    *(
        entry
        for n, domain in mo.UNARY.items()
        for entry in (
            *pair(n, mo.U, domain=domain),
            *pair(f"{n}_", IU, mo.UNARY_INPLACE_DT, inplace=True, domain=domain),
        )
    ),
    *(
        entry
        for alias, n in mo.ALIASES.items()
        for entry in (
            *pair(alias, mo.ALIAS_U, FLOAT, domain=mo.UNARY[n]),
            *pair(f"{alias}_", mo.ALIAS_IU, FLOAT, inplace=True, domain=mo.UNARY[n]),
        )
    ),
    *pair("atan2", mo.ATAN2, BINARY_DT),
    op("Tensor.atan2_", method("atan2_"), mo.TENSORS_ONLY, dtypes=INPLACE_DT, inplace=True),
    *both("arctan2", mo.few(mo.ATAN2), dtypes=FLOAT),
    op("Tensor.arctan2_", method("arctan2_"), mo.few(mo.TENSORS_ONLY), dtypes=FLOAT, inplace=True),
    op("Tensor.remainder", method("remainder"), mo.NZ, dtypes=BINARY_DT),
    op("torch.remainder", function("remainder"), mo.REMAINDER_FN, dtypes=BINARY_DT[:3]),
    op("Tensor.__mod__", method("__mod__"), mo.few(mo.NZ), dtypes=BINARY_DT[:3]),
    op("Tensor.__rmod__", method("__rmod__"), mo.RMOD, dtypes=BINARY_DT[:3]),
    op("Tensor.remainder_", method("remainder_"), mo.IMOD, dtypes=INPLACE_DT, inplace=True),
    op("Tensor.__imod__", method("__imod__"), mo.few(mo.IMOD), dtypes=FLOAT, inplace=True),
    *pair("fmod", mo.NZ, BINARY_DT),
    op("Tensor.fmod_", method("fmod_"), mo.IMOD, dtypes=INPLACE_DT, inplace=True),
    *pair("lerp", mo.LERP, mo.LERP_DT),
    op("Tensor.lerp_", method("lerp_"), mo.ILERP, dtypes=FLOAT + ("i64", "f32+f64"), inplace=True),
    *(
        entry
        for n in ("clamp_min", "clamp_max")
        for entry in (
            *pair(n, mo.bound(), mo.BOUND_DT, values=KINK),
            *pair(f"{n}_", mo.bound(inplace=True), INPLACE_DT, inplace=True, values=KINK),
        )
    ),
    *(
        entry
        for n in ("logical_and", "logical_or", "logical_xor")
        for entry in (
            *pair(n, comparison(), mo.LOGICAL_DT, values=KINK, **NOGRAD),
            op(
                f"Tensor.{n}_",
                method(f"{n}_"),
                mo.ILOGICAL,
                dtypes=mo.LOGICAL_DT,
                inplace=True,
                values=KINK,
                **NOGRAD,
            ),
        )
    ),
    *pair("logical_not", mo.ELEMENTS, values=KINK, **NOGRAD),
    op(
        "Tensor.logical_not_",
        method("logical_not_"),
        mo.ELEMENTS,
        dtypes=ALL,
        inplace=True,
        values=KINK,
        **NOGRAD,
    ),
    # structural ops and torch.linalg (issue 21): tests/sweep/structural.py
    *st.ENTRIES,
    # reductions and selections: amax/amin, prod, index_select, masked_select, isclose,
    # nonzero, unique, bincount; tests/sweep/selections.py
    *sel.ENTRIES,
    # courses (issue 21): square, x ** 2
    *both("square", U),
    *both("square_", IU, inplace=True),
    # shape ops: flip, roll, diagonals, trace, repeat, stacking, diff, rsqrt;
    # tests/sweep/shapeops.py
    *so.ENTRIES,
    # nn pieces the courses use: tests/sweep/courses_extra.py
    op("F.conv1d", functional("conv1d"), ce.CONV1D, dtypes=FLOAT, values=("n", "s")),
    op("F.normalize", functional("normalize"), ce.NORMALIZE, dtypes=FLOAT),
    op(
        "F.cosine_similarity",
        functional("cosine_similarity"),
        ce.COSINE_SIMILARITY,
        dtypes=FLOAT + ("f32+f64",),
    ),
    op(
        "F.scaled_dot_product_attention",
        functional("scaled_dot_product_attention"),
        ce.SDPA,
        dtypes=FLOAT,
    ),
    # transformer layers: tests/sweep/transformer.py
    op(
        "F.multi_head_attention_forward",
        tf.multi_head_attention_forward,
        tf.MHA,
        dtypes=FLOAT,
        layouts=("T",),
    ),
    # resizing: F.interpolate, tests/sweep/interpolate.py
    op("F.interpolate", functional("interpolate"), ip.INTERPOLATE, dtypes=ALL),
    # the float16 cast (mixed precision)
    op("Tensor.half", method("half"), vw.CAST, **SHAPE),
)

# PyTorch ops that minigrad lacks although it has the same op in another namespace (or its
# in-place or argmin twin): listed so the sweep shows them, each a "missing op" known failure.
MISSING: tuple[str, ...] = ()

BY_NAME = {o.name: o for o in TABLE}
assert len(BY_NAME) == len(TABLE), "an op is listed twice"
