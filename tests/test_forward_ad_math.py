"""Forward-mode AD of the math ops (issue 22, part 2): the same code run under
torch.autograd.forward_ad and minigrad.autograd.forward_ad, comparing primals and tangents
(values, dtypes, shapes) or the errors raised; then forward over reverse: inside a dual level,
the create_graph gradient of each op and that gradient's tangent.

Cases are generated: every op of the table below x its shapes x float32/float64 x contiguous
or transposed inputs x every input or only the first one carrying a tangent, plus special
values (0, -0.0, inf, NaN) for the elementwise ops and reductions."""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import pytest
import torch

import minigrad

INF, NAN = math.inf, math.nan
DOMAINS: dict[str, Callable[[np.random.Generator, tuple], np.ndarray]] = {
    "any": lambda rng, shape: rng.uniform(-2, 2, shape),
    "pos": lambda rng, shape: rng.uniform(0.5, 2, shape),
    "unit": lambda rng, shape: rng.uniform(-0.9, 0.9, shape),
    "gt1": lambda rng, shape: rng.uniform(1.1, 3, shape),
    "nonzero": lambda rng, shape: rng.choice([-1, 1], shape) * rng.uniform(0.5, 2, shape),
    "zeros": lambda rng, shape: np.where(rng.random(shape) < 0.3, 0.0, rng.uniform(-2, 2, shape)),
    "matrix": lambda rng, shape: rng.uniform(-1, 1, shape) + 3 * np.eye(shape[-1]),
}
SPECIAL = np.array([0.0, -0.0, INF, -INF, NAN, 1.0, -1.5, 0.5])


class Op(NamedTuple):
    name: str
    call: Callable[..., Any]  # call(lib, *tensors)
    shapes: tuple  # each: one shape per tensor argument
    domains: tuple = ("any",)  # one per argument (the last repeats)
    special: bool = False  # also run on SPECIAL values


UNARY_SHAPES = (((),), ((5,),), ((3, 4),), ((2, 3, 4),))
BINARY_SHAPES = (((3, 4), (3, 4)), ((2, 3, 4), (4,)), ((3, 1), (1, 4)), ((), (3,)))
REDUCE_SHAPES = (((3, 4),), ((2, 3, 4),))
FULL_SHAPES = (((),), ((5,),), ((3, 4),))


def _unary(name: str, domain: str = "any", **kwargs: Any) -> Op:
    return Op(name, lambda lib, x: getattr(lib, name)(x, **kwargs), UNARY_SHAPES, (domain,), True)


def _reduce(name: str, call: Callable, shapes: tuple = REDUCE_SHAPES, domain: str = "any") -> Op:
    return Op(name, call, shapes, (domain,), True)


def _mask(shape: tuple) -> np.ndarray:
    return (np.arange(math.prod(shape)).reshape(shape) % 3) != 1


OPS: tuple[Op, ...] = (
    # transcendental.py
    *(
        _unary(name, domain)
        for name, domain in (
            ("rsqrt", "pos"),
            ("log10", "pos"),
            ("log2", "pos"),
            ("log1p", "pos"),
            ("expm1", "any"),
            ("tan", "unit"),
            ("asin", "unit"),
            ("acos", "unit"),
            ("atan", "any"),
            ("sinh", "any"),
            ("cosh", "any"),
            ("asinh", "any"),
            ("acosh", "gt1"),
            ("atanh", "unit"),
            ("erf", "any"),
            ("erfc", "any"),
            ("arcsin", "unit"),
            ("arctanh", "unit"),
        )
    ),
    Op("atan2", lambda lib, a, b: lib.atan2(a, b), BINARY_SHAPES, ("any",), True),
    # piecewise.py
    *(_unary(name) for name in ("sign", "sgn", "round", "floor", "ceil", "trunc")),
    _unary("round", decimals=1),
    # remainder.py
    Op("remainder", lambda lib, a, b: lib.remainder(a, b), BINARY_SHAPES, ("any", "nonzero")),
    Op("fmod", lambda lib, a, b: lib.fmod(a, b), BINARY_SHAPES, ("any", "nonzero")),
    Op("mod_number", lambda lib, a: a % 1.5, UNARY_SHAPES, ("any",), True),
    Op("fmod_number", lambda lib, a: lib.fmod(a, -1.5), UNARY_SHAPES, ("any",), True),
    # lerp.py
    Op("lerp_number", lambda lib, a, b: lib.lerp(a, b, 0.3), BINARY_SHAPES[:3]),
    Op(
        "lerp_tensor",
        lambda lib, a, b, w: lib.lerp(a, b, w),
        (((3, 4), (3, 4), (3, 4)), ((2, 3, 4), (4,), (3, 1))),
        ("any", "any", "unit"),
    ),
    # reduction.py
    _reduce("sum", lambda lib, x: x.sum(), FULL_SHAPES),
    _reduce("sum_dim", lambda lib, x: x.sum(1)),
    _reduce("sum_dims_keep", lambda lib, x: x.sum((0, -1), keepdim=True)),
    _reduce("sum_dtype", lambda lib, x: x.sum(-1, dtype=lib.float64)),
    _reduce("mean", lambda lib, x: x.mean(), FULL_SHAPES),
    _reduce("mean_dim_keep", lambda lib, x: x.mean(0, keepdim=True)),
    _reduce("var", lambda lib, x: x.var(), FULL_SHAPES[1:]),
    _reduce("var_dim", lambda lib, x: x.var(1)),
    _reduce("var_dim_corr0", lambda lib, x: x.var(-1, correction=0, keepdim=True)),
    _reduce("std", lambda lib, x: x.std(), FULL_SHAPES[1:]),
    _reduce("std_dim_keep", lambda lib, x: x.std(0, keepdim=True)),
    *(
        _reduce(f"norm_p{p}", lambda lib, x, p=p: lib.linalg.vector_norm(x, p), FULL_SHAPES[1:])
        for p in (2, 1, 3, 0.5, 1.5, INF, -INF, 0)
    ),
    *(
        _reduce(f"norm_p{p}_dim", lambda lib, x, p=p: lib.linalg.vector_norm(x, p, dim=1))
        for p in (2, 1, 3, 0.5, INF)
    ),
    *(
        Op(f"dist_p{p}", lambda lib, a, b, p=p: lib.dist(a, b, p), BINARY_SHAPES[:3])
        for p in (2, 1, 3, INF, 0)
    ),
    _reduce("max", lambda lib, x: x.max(), FULL_SHAPES),
    _reduce("min", lambda lib, x: x.min(), FULL_SHAPES),
    _reduce("max_dim", lambda lib, x: x.max(1).values),
    _reduce("min_dim_keep", lambda lib, x: x.min(0, keepdim=True).values),
    _reduce("max_0d", lambda lib, x: x.max(0).values, (((),),)),
    _reduce("amax", lambda lib, x: x.amax(), FULL_SHAPES),
    _reduce("amax_dims", lambda lib, x: x.amax((0, 1))),
    _reduce("amin_dim_keep", lambda lib, x: x.amin(1, keepdim=True)),
    Op("maximum", lambda lib, a, b: lib.maximum(a, b), BINARY_SHAPES, ("any",), True),
    Op("minimum", lambda lib, a, b: lib.minimum(a, b), BINARY_SHAPES, ("any",), True),
    _reduce("softmax", lambda lib, x: x.softmax(1)),
    _reduce("softmax_0", lambda lib, x: lib.softmax(x, 0)),
    _reduce("log_softmax", lambda lib, x: x.log_softmax(-1)),
    _reduce("logsumexp", lambda lib, x: x.logsumexp(1)),
    _reduce("logsumexp_keep", lambda lib, x: lib.logsumexp(x, (0, 1), keepdim=True)),
    # prod.py, scan.py
    _reduce("prod", lambda lib, x: x.prod(), FULL_SHAPES, "zeros"),
    _reduce("prod_dim", lambda lib, x: x.prod(1), REDUCE_SHAPES, "zeros"),
    _reduce("prod_dim_nonzero", lambda lib, x: x.prod(0, keepdim=True), REDUCE_SHAPES, "nonzero"),
    _reduce("cumsum", lambda lib, x: x.cumsum(1)),
    _reduce("cumsum_dtype", lambda lib, x: x.cumsum(0, dtype=lib.float64)),
    _reduce("cumprod", lambda lib, x: x.cumprod(1), REDUCE_SHAPES, "zeros"),
    _reduce("cumprod_nonzero", lambda lib, x: x.cumprod(-1), REDUCE_SHAPES, "nonzero"),
    # extremes, ordering.py, selection.py
    _reduce("sort", lambda lib, x: x.sort(1).values),
    _reduce("sort_desc", lambda lib, x: x.sort(dim=0, descending=True, stable=True).values),
    _reduce("topk", lambda lib, x: x.topk(2).values),
    _reduce("topk_smallest", lambda lib, x: x.topk(1, 0, largest=False).values),
    _reduce("index_select", lambda lib, x: x.index_select(1, lib.tensor([2, 0, 2]))),
    _reduce("masked_select", lambda lib, x: x.masked_select(lib.tensor(_mask(x.shape)))),
    # linalg.py
    Op("mm", lambda lib, a, b: a.mm(b), (((3, 4), (4, 5)), ((1, 1), (1, 1)))),
    Op("bmm", lambda lib, a, b: a.bmm(b), (((2, 3, 4), (2, 4, 5)),)),
    Op("mv", lambda lib, a, b: a.mv(b), (((3, 4), (4,)),)),
    Op("dot", lambda lib, a, b: a.dot(b), (((4,), (4,)),)),
    Op(
        "matmul",
        lambda lib, a, b: a @ b,
        (
            ((3, 4), (4,)),
            ((4,), (4, 5)),
            ((2, 3, 4), (4, 5)),
            ((2, 1, 3, 4), (3, 4, 5)),
            ((4,), (2, 4, 5)),
            ((2, 3, 4), (4,)),
        ),
    ),
    Op("outer", lambda lib, a, b: lib.outer(a, b), (((3,), (4,)),)),
    Op("addmm", lambda lib, c, a, b: lib.addmm(c, a, b), (((3, 5), (3, 4), (4, 5)),)),
    Op(
        "addmm_scaled",
        lambda lib, c, a, b: lib.addmm(c, a, b, beta=0.5, alpha=2.0),
        (((5,), (3, 4), (4, 5)), ((), (3, 4), (4, 5))),
    ),
    # solve.py, matrix_exp.py, matrix_norm.py
    Op("det", lambda lib, a: lib.linalg.det(a), (((3, 3),), ((2, 3, 3),), ((1, 1),)), ("matrix",)),
    Op("inv", lambda lib, a: lib.linalg.inv(a), (((3, 3),), ((2, 3, 3),)), ("matrix",)),
    Op(
        "solve",
        lambda lib, a, b: lib.linalg.solve(a, b),
        (((3, 3), (3,)), ((3, 3), (3, 2)), ((2, 3, 3), (2, 3)), ((2, 3, 3), (3, 2))),
        ("matrix", "any"),
    ),
    Op(
        "solve_right",
        lambda lib, a, b: lib.linalg.solve(a, b, left=False),
        (((3, 3), (2, 3)), ((2, 3, 3), (2, 4, 3))),
        ("matrix", "any"),
    ),
    Op("matrix_exp", lambda lib, a: lib.linalg.matrix_exp(a), (((3, 3),), ((2, 3, 3),))),
    *(
        Op(
            f"matrix_norm_{ord}",
            lambda lib, a, ord=ord: lib.linalg.matrix_norm(a, ord),
            (((3, 4),), ((2, 4, 3),)),
        )
        for ord in ("fro", "nuc", 2, -2, 1, -1, INF)
    ),
)


def _squared(op: Op) -> Op:
    """op(x)² : its create_graph gradient sends op's backward a gradient that carries a
    tangent itself (2 op(x) seed), so forward over reverse runs the tangent formulas of the
    nodes that backward records (the softmax's backward-of-data, keep, divide, reverse cumsum,
    the masked scatter...) in both of their inputs."""
    return op._replace(name=f"{op.name}_squared", call=lambda lib, *a: op.call(lib, *a) ** 2)


SQUARED_NAMES = (
    "softmax",
    "log_softmax",
    "mean_dim_keep",
    "var_dim",
    "std_dim_keep",
    "cumsum",
    "cumprod",
    "masked_select",
    "index_select",
    "maximum",
    "amax_dims",
    "max",
    "max_dim",
    "prod_dim",
    "sort",
    "logsumexp",
    "norm_p2_dim",
    "norm_pinf_dim",
    "atan2",
    "remainder",
    "lerp_tensor",
    "mm",
    "addmm_scaled",
    "inv",
    "solve",
    "det",
    "matrix_exp",
)
OPS += tuple(_squared(op) for op in OPS if op.name in SQUARED_NAMES)

# the forward over reverse check: ops whose create_graph gradient PyTorch and minigrad
# differentiate alike (svd-based ones take U and V as constants in minigrad's gradient)
SECOND_ORDER_SKIP = {"matrix_norm_nuc", "matrix_norm_2", "matrix_norm_-2"}


def _params() -> list:
    params = []
    for op in OPS:
        for shapes in op.shapes:
            for dtype in ("float64", "float32"):
                layouts = ["c"] + (["T"] if any(len(s) >= 2 for s in shapes) else [])
                for layout in layouts:
                    duals = ["all"] + (["first"] if len(shapes) > 1 else [])
                    for which in duals:
                        label = "x".join(map(str, shapes[0])) or "0d"
                        rest = ",".join("x".join(map(str, s)) or "0d" for s in shapes[1:])
                        shape_id = f"{label},{rest}" if rest else label
                        params.append(
                            pytest.param(
                                op,
                                shapes,
                                dtype,
                                layout,
                                which,
                                id=f"{op.name}-{shape_id}-{dtype}-{layout}-{which}",
                            )
                        )
    return params


def _rng(key: str) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(key.encode()))


def _arrays(op: Op, shapes: tuple, dtype: str, key: str) -> tuple[list, list]:
    rng = _rng(key)
    primals, tangents = [], []
    for i, shape in enumerate(shapes):
        domain = op.domains[min(i, len(op.domains) - 1)]
        primals.append(DOMAINS[domain](rng, shape).astype(dtype))
        tangents.append(rng.uniform(-1, 1, shape).astype(dtype))
    return primals, tangents


def _tensor(lib: Any, array: np.ndarray, layout: str = "c", requires_grad: bool = False) -> Any:
    """A tensor of `array`'s values; "T": laid out transposed (non-contiguous)."""
    if layout == "T" and array.ndim >= 2:
        return lib.tensor(np.ascontiguousarray(np.swapaxes(array, -1, -2))).transpose(-1, -2)
    return lib.tensor(array.copy(), requires_grad=requires_grad)


def _numbers(t: Any) -> np.ndarray:
    if isinstance(t, torch.Tensor):  # (force: a tangent may be PyTorch's ZeroTensor)
        return np.array(t.detach().numpy(force=True))
    return np.array(t.detach().numpy())


def _described(t: Any) -> Any:
    if t is None:
        return None
    return (str(t.dtype).split(".")[-1], tuple(t.shape), _numbers(t))


def _outcome(run: Callable[[], Any]) -> Any:
    try:
        return ("ok", run())
    except Exception as e:  # noqa: BLE001 - an error is an outcome compared with PyTorch's
        return ("raises", type(e).__name__, str(e))


def _forward(lib: Any, op: Op, primals: list, tangents: list, layout: str, which: str) -> Any:
    fw = lib.autograd.forward_ad
    with fw.dual_level():
        args = []
        for i, (p, t) in enumerate(zip(primals, tangents)):
            x = _tensor(lib, p, layout)
            args.append(fw.make_dual(x, _tensor(lib, t, layout)) if which == "all" or i == 0 else x)
        out = op.call(lib, *args)
        primal, tangent = fw.unpack_dual(out)
        return _described(primal), _described(tangent)


def _forward_over_reverse(lib: Any, op: Op, primals: list, tangents: list, seed: Any) -> Any:
    fw = lib.autograd.forward_ad
    leaves = [_tensor(lib, p, requires_grad=True) for p in primals]
    with fw.dual_level():
        duals = [fw.make_dual(x, lib.tensor(t)) for x, t in zip(leaves, tangents)]
        out = op.call(lib, *duals)
        grads = lib.autograd.grad(out, leaves, lib.tensor(seed), create_graph=True)
        return [(_described(g), _described(fw.unpack_dual(g).tangent)) for g in grads]


def _tolerance(dtype: str) -> dict:
    return {"rtol": 1e-4, "atol": 1e-5} if dtype == "float32" else {"rtol": 1e-7, "atol": 1e-9}


def _same_tensor(expected: Any, got: Any, dtype: str, where: str) -> None:
    """Two `_described` tensors (or None) agree: dtype, shape, values (inf/NaN in place)."""
    if expected is None or got is None:
        assert expected is got, f"{where}: torch {expected}, minigrad {got}"
        return
    assert expected[:2] == got[:2], f"{where}: torch {expected}, minigrad {got}"
    np.testing.assert_allclose(
        got[2], expected[2], equal_nan=True, err_msg=where, **_tolerance(dtype)
    )


def _same(expected: tuple, got: tuple, dtype: str) -> None:
    """Outcomes agree: the same error (type and message), or the same pairs of tensors."""
    assert expected[0] == got[0], f"torch {expected}, minigrad {got}"
    if expected[0] == "raises":
        assert expected == got
        return
    pairs = expected[1] if isinstance(expected[1], list) else [expected[1]]
    found = got[1] if isinstance(got[1], list) else [got[1]]
    assert len(pairs) == len(found)
    for i, (e, g) in enumerate(zip(pairs, found)):
        for part, e_t, g_t in zip(("primal", "tangent"), e, g):
            _same_tensor(e_t, g_t, dtype, f"[{i}] {part}")


@pytest.mark.parametrize(("op", "shapes", "dtype", "layout", "which"), _params())
def test_forward_mode(op: Op, shapes: tuple, dtype: str, layout: str, which: str) -> None:
    primals, tangents = _arrays(op, shapes, dtype, f"{op.name}/{shapes}/{dtype}")
    expected = _outcome(lambda: _forward(torch, op, primals, tangents, layout, which))
    got = _outcome(lambda: _forward(minigrad, op, primals, tangents, layout, which))
    _same(expected, got, dtype)


def _special_params() -> list:
    return [
        pytest.param(op, dtype, id=f"{op.name}-{dtype}")
        for op in OPS
        if op.special
        for dtype in ("float64", "float32")
    ]


@pytest.mark.parametrize(("op", "dtype"), _special_params())
def test_forward_mode_special_values(op: Op, dtype: str) -> None:
    """0, -0.0, inf, -inf and NaN among the primals (and one inf tangent): the tangents carry
    inf and NaN where PyTorch's do."""
    n = len(op.shapes[0])
    rng = _rng(f"special/{op.name}")
    primals = [rng.permutation(SPECIAL).reshape(2, 4).astype(dtype) for _ in range(n)]
    tangents = [rng.uniform(-1, 1, (2, 4)).astype(dtype) for _ in range(n)]
    tangents[0][1, 3] = INF
    expected = _outcome(lambda: _forward(torch, op, primals, tangents, "c", "all"))
    got = _outcome(lambda: _forward(minigrad, op, primals, tangents, "c", "all"))
    _same(expected, got, dtype)


def _second_order_params() -> list:
    return [
        pytest.param(op, shapes, id=f"{op.name}-{'-'.join(map(str, shapes))}")
        for op in OPS
        if op.name not in SECOND_ORDER_SKIP
        for shapes in op.shapes
    ]


@pytest.mark.parametrize(("op", "shapes"), _second_order_params())
def test_forward_over_reverse(op: Op, shapes: tuple) -> None:
    """Inside a dual level, autograd.grad(f(x), x, create_graph=True): the gradients and their
    tangents (the Hessian times the tangent) agree with PyTorch's, or both raise alike."""
    primals, tangents = _arrays(op, shapes, "float64", f"{op.name}/{shapes}/fwd-over-rev")
    out_shape = tuple(op.call(torch, *(torch.tensor(p) for p in primals)).shape)
    seed = _rng(f"seed/{op.name}/{shapes}").uniform(-1, 1, out_shape)
    expected = _outcome(lambda: _forward_over_reverse(torch, op, primals, tangents, seed))
    got = _outcome(lambda: _forward_over_reverse(minigrad, op, primals, tangents, seed))
    _same(expected, got, "float64")


# --- ops PyTorch has no forward formula for: minigrad raises the same error ----------------
REFUSED = (
    ("asinh_", lambda lib, x: x.clone().asinh_()),
    ("acosh_", lambda lib, x: (x + 3).acosh_()),
    ("atanh_", lambda lib, x: (x / 3).atanh_()),
    ("arcsinh_", lambda lib, x: x.clone().arcsinh_()),
    ("number % tensor", lambda lib, x: lib.remainder(5.0, x)),
    ("bincount", lambda lib, x: lib.bincount(lib.tensor([0, 2, 2]), weights=x)),
    ("histogram", lambda lib, x: lib.histogram(x, bins=3).hist),
    ("histogram_weight", lambda lib, x: lib.histogram(x.detach(), bins=2, weight=x).hist),
)


@pytest.mark.parametrize(("name", "call"), REFUSED, ids=[name for name, _ in REFUSED])
def test_no_forward_formula(name: str, call: Callable) -> None:
    primals = [np.array([0.5, 1.5, -2.0])]
    tangents = [np.array([1.0, -1.0, 2.0])]
    op = Op(name, call, (((3,),),))
    expected = _outcome(lambda: _forward(torch, op, primals, tangents, "c", "all"))
    assert expected[0] == "raises"
    assert _outcome(lambda: _forward(minigrad, op, primals, tangents, "c", "all")) == expected


@pytest.mark.parametrize("lib", [torch, minigrad], ids=["torch", "minigrad"])
def test_histogram_records_not_implemented(lib: Any) -> None:
    """Outside forward mode too: the outputs require grad, backward raises PyTorch's error."""
    x = lib.tensor([0.5, 1.5, 2.0], dtype=lib.float64, requires_grad=True)
    hist, edges = lib.histogram(x, bins=3)
    assert hist.requires_grad and edges.requires_grad
    assert hist.grad_fn.name() == "torch::autograd::NotImplemented"
    with pytest.raises(RuntimeError, match="derivative for aten::histogram is not implemented"):
        (hist.sum() + edges.sum()).backward()
