"""Reductions and normalisations: sum, mean, max/min, norm, var, std, softmax, log_softmax with
every way of naming dims; forward, grad_fn names, gradients and double backward vs PyTorch."""

from __future__ import annotations

import warnings
from types import ModuleType
from typing import Any

import pytest

from ._support import FLOATS, Op, assert_same_outcome, check_op, op

DIMS = [None, 0, -1, 1, (0, 2), (-1, 0), (1,), ()]
SHAPE = (2, 3, 4)


def _dim_kwargs(dim: Any, keepdim: bool) -> dict:
    return {} if dim is None and not keepdim else {"dim": dim, "keepdim": keepdim}


def _reduce_cases(
    name: str, dims: list, extra: dict | None = None, domain: Any = (-2.0, 2.0)
) -> list:
    cases = []
    for dim in dims:
        for keepdim in (False, True):
            if dim is None and keepdim:
                continue
            kwargs = {**_dim_kwargs(dim, keepdim), **(extra or {})}
            cases.append(
                op(
                    f"{name}-{dim}-{keepdim}-{extra or ''}",
                    lambda L, a, k=kwargs: getattr(a, name)(**k),
                    SHAPE,
                    domain=domain,
                )
            )
    return cases


SUM_MEAN = (
    _reduce_cases("sum", DIMS)
    + _reduce_cases("mean", DIMS)
    + [
        op("sum_positional", lambda L, a: a.sum(1, True), SHAPE),
        op("sum_function", lambda L, a: L.sum(a, dim=(0, 1)), SHAPE),
        op("mean_function", lambda L, a: L.mean(a, -2), SHAPE),
        op("sum_0dim", lambda L, a: a.sum(), ()),
        op("sum_0dim_dim0", lambda L, a: a.sum(0), ()),
        op("mean_0dim_keepdim", lambda L, a: a.mean(-1, keepdim=True), ()),
        op("sum_1d", lambda L, a: a.sum(0), (5,)),
        op("mean_empty", lambda L, a: a.mean(0), (0, 3)),
        op("sum_empty", lambda L, a: a.sum(), (0, 3)),
        op("mean_dtype", lambda L, a: a.mean(dtype=L.float64), SHAPE),
        op("mean_dim_dtype", lambda L, a: L.mean(a, 1, dtype=L.float64), SHAPE),
        op("sum_numpy_names", lambda L, a: a.sum(axis=(0, 2), keepdims=True), SHAPE),
        op("mean_keepdims", lambda L, a: L.mean(a, -1, keepdims=True), SHAPE),
        op("var_keepdims", lambda L, a: a.var(1, keepdims=True), SHAPE),
    ]
)

STATS = []
for _name in ("var", "std"):
    STATS += _reduce_cases(_name, [None, 0, -1, (0, 2), (1,)])
    STATS += _reduce_cases(_name, [None, 1], {"unbiased": False})
    STATS += _reduce_cases(_name, [None, (0, 1)], {"correction": 0})
    STATS += _reduce_cases(_name, [None, 2], {"correction": 2})
    STATS += [
        op(f"{_name}_positional_unbiased", lambda L, a, n=_name: getattr(a, n)(1, False), SHAPE),
        op(f"{_name}_function", lambda L, a, n=_name: getattr(L, n)(a, 0), SHAPE),
    ]

NORMS = [
    op("norm", lambda L, a: a.norm(), SHAPE),
    op("norm_function", lambda L, a: L.norm(a), (5,)),
    op("norm_p1", lambda L, a: a.norm(p=1), SHAPE),
    op("norm_p3", lambda L, a: a.norm(p=3), SHAPE),
    op("norm_p1_5", lambda L, a: a.norm(1.5), (4, 3)),
    op("norm_fro", lambda L, a: a.norm("fro"), (4, 3)),
    op("norm_inf", lambda L, a: a.norm(float("inf")), (4, 3), second_order=False),
    op("norm_dim", lambda L, a: a.norm(dim=1), SHAPE),
    op("norm_dim_keepdim", lambda L, a: a.norm(dim=-1, keepdim=True), SHAPE),
    op("norm_dims", lambda L, a: a.norm(p=2, dim=(0, 2)), SHAPE),
    op("norm_p1_dim", lambda L, a: a.norm(p=1, dim=0), SHAPE),
    op("norm_p3_dim", lambda L, a: a.norm(p=3, dim=1, keepdim=True), SHAPE),
    op("norm_0dim", lambda L, a: a.norm(), ()),
]

MAX_MIN = [
    op("max", lambda L, a: a.max(), SHAPE),
    op("min", lambda L, a: a.min(), SHAPE),
    op("max_function", lambda L, a: L.max(a), (5,)),
    op("max_dim", lambda L, a: a.max(1).values, SHAPE),
    op("max_dim_keepdim", lambda L, a: a.max(-1, keepdim=True)[0], SHAPE),
    op("min_dim", lambda L, a: a.min(dim=0).values, SHAPE),
    op("min_dim_keepdim", lambda L, a: a.min(2, True).values, SHAPE),
    op("min_function_dim", lambda L, a: L.min(a, 1)[0], (4, 3)),
    op("max_0dim", lambda L, a: a.max(), ()),
    op("max_0dim_dim", lambda L, a: a.max(0).values, ()),
    op("max_binary", lambda L, a, b: L.max(a, b), (3, 4), (3, 4)),
    op("min_binary_broadcast", lambda L, a, b: L.min(a, b), (3, 4), (4,)),
    op("max_binary_method", lambda L, a, b: a.max(b), (2, 3), (2, 3)),
    op("maximum", lambda L, a, b: L.maximum(a, b), (3, 4), (4,)),
    op("minimum_method", lambda L, a, b: a.minimum(b), (3, 1), (1, 4)),
    op("max_numpy_names", lambda L, a: a.max(axis=1, keepdims=True).values, SHAPE),
]

SOFTMAX = [
    op(f"{fn}-{dim}-{shape}", lambda L, a, f=fn, d=dim: getattr(a, f)(d), shape)
    for fn in ("softmax", "log_softmax")
    for shape, dims in (((5,), (0, -1)), ((3, 4), (0, 1, -1)), (SHAPE, (0, 1, 2, -2)))
    for dim in dims
] + [
    op("softmax_function", lambda L, a: L.softmax(a, dim=1), (3, 4)),
    op("log_softmax_function", lambda L, a: L.log_softmax(a, 0), (3, 4)),
    op("softmax_large", lambda L, a: (a * 300).softmax(-1), (3, 4)),
    op("log_softmax_large", lambda L, a: (a * 300).log_softmax(-1), (3, 4)),
    op("softmax_0dim", lambda L, a: a.softmax(0), ()),
    op("softmax_dtype", lambda L, a: a.softmax(1, dtype=L.float64), (3, 4)),
]

CASES = SUM_MEAN + STATS + NORMS + MAX_MIN + SOFTMAX


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("case", CASES)
def test_reduction_matches_torch(case: Op, dtype: str, request: pytest.FixtureRequest) -> None:
    check_op(case, dtype, request.node.name)


TIES = [[1.0, 3.0, 3.0, 2.0], [-1.0, -1.0, 0.5, -1.0], [2.0, 2.0, 2.0, 2.0]]


@pytest.mark.parametrize(
    "reduce",
    [
        pytest.param(lambda x: x.max(), id="max"),
        pytest.param(lambda x: x.min(), id="min"),
        pytest.param(lambda x: x.max(1), id="max_dim"),
        pytest.param(lambda x: x.min(0, keepdim=True), id="min_dim"),
        pytest.param(lambda x: x.max(-1, True), id="max_dim_keepdim"),
        pytest.param(lambda x: x.norm(), id="norm"),
        pytest.param(lambda x: x.norm(p=1, dim=1), id="norm_p1"),
    ],
)
def test_ties_and_indices(reduce: Any) -> None:
    """Ties: full max/min share the gradient evenly; with dim, indices pick the first maximum."""

    def fn(L: ModuleType) -> Any:
        x = L.tensor(TIES, requires_grad=True)
        out = reduce(x)
        values = out if isinstance(out, L.Tensor) else out[0]
        values.sum().backward()
        return out, x.grad

    assert_same_outcome(fn)


@pytest.mark.parametrize(
    "reduce",
    [
        pytest.param(lambda x: x.norm(), id="norm"),
        pytest.param(lambda x: x.norm(dim=0), id="norm_dim"),
        pytest.param(lambda x: x.norm(p=1), id="norm_p1"),
        pytest.param(lambda x: x.std(), id="std"),
        pytest.param(lambda x: x.sqrt().sum(), id="sqrt"),
        pytest.param(lambda x: x.abs().sum(), id="abs"),
        pytest.param(lambda x: x.relu().sum(), id="relu"),
        pytest.param(lambda x: x.clamp(0, 1).sum(), id="clamp"),
    ],
)
def test_gradient_at_zero(reduce: Any) -> None:
    """At the kink or the singular point, PyTorch picks a (sub)gradient: minigrad picks the same."""

    def fn(L: ModuleType) -> Any:
        x = L.zeros(2, 3, requires_grad=True)
        reduce(x).backward()
        return x.grad

    assert_same_outcome(fn)


@pytest.mark.parametrize(
    "reduce",
    [
        pytest.param(lambda x: x[:, :1].var(), id="var_one_element"),
        pytest.param(lambda x: x.std(0), id="std_one_row"),
        pytest.param(lambda x: x.var(1, correction=2), id="var_no_degrees_of_freedom"),
        pytest.param(lambda x: x.var(correction=3), id="var_correction_too_big"),
        pytest.param(lambda x: x.std(correction=2), id="std_no_degrees_of_freedom"),
    ],
)
def test_degenerate_statistics(reduce: Any) -> None:
    """Too few elements for the correction: PyTorch gives inf/nan values and gradients."""

    def fn(L: ModuleType) -> Any:
        x = L.tensor([[1.5, -0.5]], requires_grad=True)
        out = reduce(x)
        out.sum().backward()
        return out, x.grad

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same_outcome(fn)


def test_max_with_dim_returns_values_and_indices() -> None:
    def fn(L: ModuleType) -> Any:
        x = L.tensor([[1.0, 5.0, 2.0], [7.0, -1.0, 7.0]], requires_grad=True)
        out = x.max(dim=1)
        return out.values, out.indices, out[0], out[1], len(out)

    assert_same_outcome(fn)


def test_argmax() -> None:
    assert_same_outcome(
        lambda L: (
            L.tensor([[1.0, 5.0, 5.0], [7.0, -1.0, 7.0]]).argmax(),
            L.tensor([[1.0, 5.0, 5.0], [7.0, -1.0, 7.0]]).argmax(1),
        )
    )


ARG_EXTREMES = {
    "whole": lambda L, f, x: f(x),
    "dim": lambda L, f, x: f(x, 1),
    "keepdim": lambda L, f, x: f(x, dim=0, keepdim=True),
    "whole_keepdim": lambda L, f, x: f(x, keepdim=True),
    "numpy_names": lambda L, f, x: f(x, axis=-1, keepdims=True),
    "0d": lambda L, f, x: f(x[0, 0], 0),
    "0d_bad_dim": lambda L, f, x: f(x[0, 0], 1),
    "bad_dim": lambda L, f, x: f(x, 2),
    "empty": lambda L, f, x: f(x[:0]),
    "empty_dim": lambda L, f, x: f(x[:0], 0),
    "empty_other_dim": lambda L, f, x: f(x[:0], 1),
    "bool": lambda L, f, x: f(x > 0),
    "int": lambda L, f, x: f(x.long(), 1),
}


@pytest.mark.parametrize("fn", ["argmax", "argmin"])
@pytest.mark.parametrize("name", ARG_EXTREMES)
def test_argmax_argmin(name: str, fn: str) -> None:
    """Ties pick the first index, NaN counts as the extreme; PyTorch's errors otherwise."""

    def run(L: ModuleType) -> Any:
        x = L.tensor([[1.0, 5.0, 5.0, -2.0], [7.0, float("nan"), 7.0, -2.0]])
        return ARG_EXTREMES[name](L, getattr(L, fn), x), ARG_EXTREMES[name](
            L, lambda t, *a, **k: getattr(t, fn)(*a, **k), x
        )

    assert_same_outcome(run)


ARGUMENTS = {
    "mean_int_dtype": lambda L: L.tensor([1, 2]).mean(dtype=L.int64),
    "mean_bool_to_double": lambda L: L.tensor([True, False, True]).mean(dtype=L.float64),
    "mean_int_to_float": lambda L: L.tensor([1, 2]).mean(0, dtype=L.float32),
    "sum_both_keepdims": lambda L: L.ones(2).sum(0, keepdim=True, keepdims=True),
    "maximum_of_a_number": lambda L: L.maximum(L.ones(2), 2.0),
    "maximum_bool": lambda L: L.maximum(L.tensor([True, False]), L.tensor([False, False])),
    "softmax_int_empty": lambda L: L.softmax(L.zeros(0, 3, dtype=L.int64), 1),
    "log_softmax_bool_empty": lambda L: L.zeros(3, 0, dtype=L.bool).log_softmax(0),
    "softmax_int": lambda L: L.zeros(2, 3, dtype=L.int64).softmax(0),
    "softmax_int_last_dim": lambda L: L.zeros(2, 3, dtype=L.int64).softmax(-1),
    "softmax_int_0d": lambda L: L.zeros((), dtype=L.int64).softmax(0),
    "log_softmax_bool_0d": lambda L: L.log_softmax(L.tensor(True), 0),
    "softmax_empty_to_int": lambda L: L.zeros(0, 3).softmax(1, dtype=L.int64),
}


@pytest.mark.parametrize("name", ARGUMENTS)
def test_arguments_dtypes_and_errors(name: str) -> None:
    assert_same_outcome(ARGUMENTS[name])


def test_mean_dtype_sends_the_gradient_back_in_the_input_dtype() -> None:
    def fn(L: ModuleType) -> Any:
        x = L.tensor([[1.0, 2.0], [3.0, 5.0]], requires_grad=True)
        out = x.mean(1, dtype=L.float64)
        out.backward(L.tensor([1.0, -2.0], dtype=L.float64))
        return out, x.grad

    assert_same_outcome(fn)
