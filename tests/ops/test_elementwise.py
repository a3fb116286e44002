"""Elementwise ops: arithmetic (with broadcasting and Python scalars), unary math, clamp, where,
masked_fill; forward, grad_fn names, gradients and double backward against PyTorch."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from ._support import FLOATS, Op, assert_same_outcome, check_op, graph_of, op

POSITIVE = (0.3, 2.0)
BROADCAST = [
    ((3, 4), (3, 4)),
    ((2, 3, 4), (4,)),
    ((3, 1), (1, 4)),
    ((), (2, 3)),
    ((2, 1, 3), (4, 1)),
    ((5,), ()),
]

BINARY = [
    ("add", lambda L, a, b: a + b, None),
    ("sub", lambda L, a, b: a - b, None),
    ("mul", lambda L, a, b: a * b, None),
    ("div", lambda L, a, b: a / b, [(-2.0, 2.0), POSITIVE]),
    ("pow", lambda L, a, b: a**b, [POSITIVE, (-2.0, 2.0)]),
    ("add_alpha", lambda L, a, b: L.add(a, b, alpha=2.5), None),
    ("sub_alpha", lambda L, a, b: a.sub(b, alpha=-3), None),
    ("mul_method", lambda L, a, b: a.mul(b), None),
    ("div_function", lambda L, a, b: L.div(a, b), [(-2.0, 2.0), POSITIVE]),
    ("pow_function", lambda L, a, b: L.pow(a, b), [POSITIVE, (-2.0, 2.0)]),
    ("where", lambda L, a, b: L.where(a > 0, a, b), None),
    ("where_method", lambda L, a, b: a.where(b < 0.5, b), None),
]

BINARY_CASES = [
    op(f"{name}-{sa}-{sb}", fn, sa, sb, **({"domain": dom} if dom else {}))
    for name, fn, dom in BINARY
    for sa, sb in BROADCAST
]

SCALAR_CASES = [
    op("add_int", lambda L, a: a + 2, (3, 4)),
    op("radd_float", lambda L, a: 2.5 + a, (3, 4)),
    op("sub_float", lambda L, a: a - 1.5, (3, 4)),
    op("rsub_int", lambda L, a: 2 - a, (3, 4)),
    op("rsub_float", lambda L, a: 0.5 - a, (2, 3)),
    op("mul_float", lambda L, a: a * 3.0, (3, 4)),
    op("rmul_int", lambda L, a: 3 * a, (4,)),
    op("div_float", lambda L, a: a / 4.0, (3, 4)),
    op("rdiv_float", lambda L, a: 2.0 / a, (3, 4), domain=POSITIVE),
    op("rdiv_int", lambda L, a: 3 / a, (5,), domain=POSITIVE),
    op("pow_int", lambda L, a: a**2, (3, 4)),
    op("pow_three", lambda L, a: a.pow(3), (3, 4)),
    op("pow_half", lambda L, a: a**0.5, (3, 4), domain=POSITIVE),
    op("pow_negative", lambda L, a: a**-1.5, (3, 4), domain=POSITIVE),
    op("pow_zero", lambda L, a: a**0, (3, 4)),
    op("pow_one", lambda L, a: a**1, (3,)),
    op("rpow_int", lambda L, a: 2**a, (3, 4)),
    op("rpow_float", lambda L, a: 0.5**a, (3, 4)),
    op("scalars_not_exact_in_float32", lambda L, a: (a * 0.1 + 0.3) / 0.7 - 1 / 3, (3, 4)),
    op("clamp_bounds_not_exact_in_float32", lambda L, a: a.clamp(-0.1, 0.3), (3, 4)),
    op("neg", lambda L, a: -a, (3, 4)),
    op("neg_method", lambda L, a: a.neg(), (2, 3)),
    op("add_0dim_tensor", lambda L, a, b: a + b, (3, 4), ()),
    op("where_scalar_other", lambda L, a: L.where(a > 0, a, 0.0), (3, 4)),
    op("where_scalar_self", lambda L, a: L.where(a > 0, 1.5, a), (3, 4)),
    op("where_broadcast_cond", lambda L, a, b: L.where(b > 0, a, b), (2, 3, 4), (3, 1)),
]

UNARY = [
    ("exp", lambda L, a: a.exp(), (-2.0, 2.0)),
    ("exp_function", lambda L, a: L.exp(a), (-2.0, 2.0)),
    ("log", lambda L, a: a.log(), POSITIVE),
    ("log_function", lambda L, a: L.log(a), POSITIVE),
    ("sin", lambda L, a: a.sin(), (-3.0, 3.0)),
    ("cos", lambda L, a: a.cos(), (-3.0, 3.0)),
    ("tanh", lambda L, a: a.tanh(), (-3.0, 3.0)),
    ("sigmoid", lambda L, a: a.sigmoid(), (-4.0, 4.0)),
    ("sigmoid_function", lambda L, a: L.sigmoid(a), (-4.0, 4.0)),
    ("relu", lambda L, a: a.relu(), (-2.0, 2.0)),
    ("relu_function", lambda L, a: L.relu(a), (-2.0, 2.0)),
    ("abs", lambda L, a: a.abs(), (-2.0, 2.0)),
    ("abs_builtin", lambda L, a: abs(a), (-2.0, 2.0)),
    ("sqrt", lambda L, a: a.sqrt(), POSITIVE),
    ("clamp_min", lambda L, a: a.clamp(min=-0.5), (-2.0, 2.0)),
    ("clamp_max", lambda L, a: a.clamp(max=0.7), (-2.0, 2.0)),
    ("clamp_both", lambda L, a: a.clamp(-0.5, 0.7), (-2.0, 2.0)),
    ("clamp_function", lambda L, a: L.clamp(a, min=0.1, max=1.0), (-2.0, 2.0)),
    ("clip", lambda L, a: a.clip(-1, 1), (-2.0, 2.0)),
    ("masked_fill", lambda L, a: a.masked_fill(a > 0.5, -1.0), (-2.0, 2.0)),
    ("masked_fill_int_value", lambda L, a: a.masked_fill(a < 0, 2), (-2.0, 2.0)),
]
UNARY_SHAPES = [(), (5,), (2, 3, 4), (0, 3)]
UNARY_CASES = [
    op(f"{name}-{shape}", fn, shape, domain=dom)
    for name, fn, dom in UNARY
    for shape in UNARY_SHAPES
]

MASK_CASES = [
    op("masked_fill_broadcast_mask", lambda L, a, b: a.masked_fill(b[0] > 0, 0.5), (3, 4), (1, 4)),
    op("masked_fill_row_mask", lambda L, a, b: a.masked_fill(b > 0, 0.0), (3, 4), (3, 1)),
    op("masked_fill_function", lambda L, a, b: L.masked_fill(a, b > 0, 3.0), (2, 3), (2, 3)),
    op(
        "masked_fill_0dim_value", lambda L, a, b: a.masked_fill(a > 0, L.tensor(-2.0)), (3, 4), (1,)
    ),
]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("case", BINARY_CASES + SCALAR_CASES + UNARY_CASES + MASK_CASES)
def test_elementwise_matches_torch(case: Op, dtype: str, request: pytest.FixtureRequest) -> None:
    check_op(case, dtype, request.node.name)


def test_masked_fill_with_tensor_value_sends_gradient_to_value(
    request: pytest.FixtureRequest,
) -> None:
    case = op("masked_fill_tensor_value", lambda L, a, v: a.masked_fill(a > 0, v), (3, 4), ())
    check_op(case.values[0], "float64", request.node.name)


TENSOR_BOUNDS = [
    op("clamp_tensor_min", lambda L, a, lo: a.clamp(min=lo), (3, 4), (4,)),
    op("clamp_tensor_max", lambda L, a, hi: L.clamp(a, max=hi), (3, 4), (3, 1)),
    op("clamp_tensor_both", lambda L, a, lo, hi: a.clamp(lo, hi), (3, 4), (4,), (3, 1)),
    op("clip_tensor_both", lambda L, a, lo, hi: L.clip(a, lo, hi), (2, 3), (2, 3), (3,)),
    op("clamp_0d_input_broadcasts", lambda L, a, lo: a.clamp(min=lo), (), (3,)),
    op("div_floor", lambda L, a, b: L.div(a, b, rounding_mode="floor"), (3, 4), (4,)),
    op("div_trunc", lambda L, a, b: a.div(b, rounding_mode="trunc"), (3, 4), (3, 4)),
    op("div_floor_scalar", lambda L, a: a.div(0.3, rounding_mode="floor"), (3, 4)),
    op("rsub_tensor", lambda L, a, b: a.__rsub__(b), (3, 4), (4,)),
    op("rtruediv_tensor", lambda L, a, b: a.__rtruediv__(b), (3, 4), (4,), domain=POSITIVE),
    op("div_number_first", lambda L, a: L.div(2.0, a), (3, 4), domain=POSITIVE),
    op("add_alpha_float", lambda L, a, b: a.add(b, alpha=0.5), (3, 4), (3, 4)),
    op("pow_minus_half", lambda L, a: a**-0.5, (3, 4), domain=POSITIVE),
    op("pow_three_halves", lambda L, a: a**1.5, (3, 4), domain=POSITIVE),
]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("case", TENSOR_BOUNDS)
def test_bounds_rounding_and_reflected_ops(case: Op, dtype: str, request: pytest.FixtureRequest):
    check_op(case, dtype, request.node.name)


def _grads(L: ModuleType, fn: Any, values: list, seed: list | None = None) -> tuple:
    """fn's result on leaves holding `values`, and each leaf's .grad after backward(seed)."""
    xs = [L.tensor(v, requires_grad=True) for v in values]
    out = fn(L, *xs)
    out.backward(L.ones_like(out) if seed is None else L.tensor(seed))
    return out, [x.grad for x in xs]


SPECIAL = [float("nan"), float("inf"), float("-inf"), 0.0, -0.0, -1.5, 2.0]
INF_SEED = [1.0, float("nan"), float("inf"), -2.0, 1.0, 0.5, -1.0]

AT_SPECIAL_VALUES = {
    # PyTorch computes x ** 0.5 and x ** -0.5 as sqrt and 1 / sqrt, also inside pow's gradient
    "pow_half": lambda L, x: x**0.5,
    "pow_minus_half": lambda L, x: x**-0.5,
    "pow_two": lambda L, x: x**2,
    "pow_three": lambda L, x: x**3,
    "pow_minus_one": lambda L, x: x**-1,
    "pow_minus_two": lambda L, x: x.pow(-2),
    "rtruediv": lambda L, x: 2.0 / x,
    "reciprocal_times_tensor": lambda L, x: x.__rtruediv__(L.ones(7)),
    "div_floor": lambda L, x: L.div(x, 0.7, rounding_mode="floor"),
    "div_trunc_by_special": lambda L, x: L.div(L.ones(7), x, rounding_mode="trunc"),
    "clamp_nan_bound": lambda L, x: L.clamp(L.zeros(7), min=x),
    "clamp_tensor_bounds": lambda L, x: x.clamp(L.zeros(7) - 1, L.ones(7)),
}


@pytest.mark.parametrize("seed", [None, INF_SEED], ids=["ones", "inf_nan"])
@pytest.mark.parametrize("name", AT_SPECIAL_VALUES)
def test_values_and_gradients_at_special_values(name: str, seed: list | None) -> None:
    assert_same_outcome(lambda L: _grads(L, AT_SPECIAL_VALUES[name], [SPECIAL], seed))


def test_clamp_bounds_get_gradients_where_they_are_taken() -> None:
    """Equal and crossed bounds (min > max), NaN in x and in a bound, as in PyTorch."""
    x = [-2.0, -1.0, 0.0, 1.0, 2.0, float("nan"), 0.5, 1.0]
    lo = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, float("nan")]
    hi = [1.0, -1.0, 0.5, 0.5, 3.0, 1.0, 0.0, 2.0]
    seed = [float(i) for i in range(1, 9)]
    assert_same_outcome(lambda L: _grads(L, lambda L, a, b, c: a.clamp(b, c), [x, lo, hi], seed))
    assert_same_outcome(lambda L: _grads(L, lambda L, a, b: a.clamp(min=b), [x, lo], seed))
    assert_same_outcome(lambda L: _grads(L, lambda L, a, c: a.clamp(max=c), [x, hi], seed))


ARGUMENTS = {
    "clamp_bool_tensor_min": lambda L: L.tensor([True, False]).clamp(min=L.tensor([True, True])),
    "clamp_bool_tensor_bounds": lambda L: L.clamp(
        L.tensor([True, False]), L.tensor([True, True]), L.tensor([False, True])
    ),
    "clamp_bool_number_min": lambda L: L.tensor([True, False]).clamp(min=True),
    "clamp_bool_number_max": lambda L: L.tensor([True, False]).clamp(max=True),
    "clamp_bool_numbers": lambda L: L.tensor([True, False]).clamp(True, True),
    "clamp_int_by_float_tensor": lambda L: L.tensor([1, 2, 3]).clamp(L.tensor([1.5, 1.5, 1.5])),
    "clamp_no_bounds": lambda L: L.ones(3).clamp(),
    "clamp_bounds_do_not_broadcast": lambda L: L.ones(3, 4).clamp(L.ones(5)),
    "clamp_nan_number_bound": lambda L: L.tensor([1.0, 2.0]).clamp(float("nan"), 2.0),
    "clamp_int_in_place_by_float": lambda L: L.ones(3, dtype=L.int64).clamp_(0.5),
    "clamp_bool_in_place_by_int": lambda L: L.ones(3, dtype=L.bool).clamp_(min=-1),
    "clamp_bool_in_place_by_tensor": lambda L: L.ones(3, dtype=L.bool).clamp_(L.ones(3)),
    "clamp_in_place_tensor_bound": lambda L: L.ones(3, 4).clamp_(max=L.zeros(4)),
    "add_alpha_bool": lambda L: L.add(L.tensor([True, False]), L.tensor([True, True]), alpha=2),
    "add_alpha_zero_bool": lambda L: L.tensor([True, False]).add(L.tensor([True, True]), alpha=0),
    "add_float_alpha_int": lambda L: L.add(L.tensor([1, 2]), L.tensor([1, 2]), alpha=2.5),
    "add_bool_alpha_int": lambda L: L.add(L.tensor([1, 2]), L.tensor([1, 2]), alpha=True),
    "sub_float_alpha_int_in_place": lambda L: L.tensor([1, 2]).sub_(L.tensor([1, 2]), alpha=1.5),
    "add_int_alpha_int": lambda L: L.tensor([1, 2]).add(L.tensor([True, False]), alpha=3),
    "div_rounding_bool": lambda L: L.div(L.tensor([True]), L.tensor([True]), rounding_mode="floor"),
    "div_rounding_bool_by_int": lambda L: L.tensor([True, False]).div(2, rounding_mode="trunc"),
    "div_rounding_int_by_zero": lambda L: L.tensor([1, 2]).div(
        L.tensor([0, 1]), rounding_mode="floor"
    ),
    "div_trunc_negative_ints": lambda L: L.tensor([-7, 7, -6, 5]).div(
        L.tensor([2, -2, 3, 5]), rounding_mode="trunc"
    ),
    "div_floor_negative_ints": lambda L: L.tensor([-7, 7, -6]).div(
        L.tensor([2, -2, 3]), rounding_mode="floor"
    ),
    "div_rounding_float_by_zero": lambda L: L.tensor([1.0, -1.0, 0.0]).div(
        0.0, rounding_mode="floor"
    ),
    "div_bad_rounding_mode": lambda L: L.ones(2).div(2, rounding_mode="round"),
    "div_number_by_tensor_with_mode": lambda L: L.div(
        3, L.tensor([2.0, 4.0]), rounding_mode="floor"
    ),
    "pow_bool_true": lambda L: L.tensor([True, False]) ** True,
    "pow_bool_false": lambda L: L.tensor([True, False]).pow(False),
    "pow_bool_int": lambda L: L.tensor([True, False]) ** 2,
    "pow_bool_tensor": lambda L: L.tensor([True, False]) ** L.tensor([True, True]),
    "pow_true_base": lambda L: L.pow(True, L.tensor([True, False])),
    "pow_bool_negative": lambda L: L.tensor([True, False]) ** -1,
    "rtruediv_int_by_double_0d": lambda L: L.tensor([1, 2]).__rtruediv__(
        L.tensor(2.0, dtype=L.float64)
    ),
    "rtruediv_shapes": lambda L: L.ones(2, 3).__rtruediv__(L.ones(4, 5)),
    "rsub_shapes": lambda L: L.ones(2, 3).__rsub__(L.ones(4, 5)),
    "where_condition_only": lambda L: L.where(L.tensor([[1.0, 0.0], [0.0, 2.0]]) > 0),
    "where_0d_condition_only": lambda L: L.where(L.tensor(True)),
    "masked_fill_int_inf": lambda L: L.zeros(2, dtype=L.int64).masked_fill(
        L.tensor([True, False]), float("-inf")
    ),
    "masked_fill_int_nan": lambda L: L.zeros(2, dtype=L.int32).masked_fill(
        L.tensor([True, False]), float("nan")
    ),
    "masked_fill_float_overflow": lambda L: L.zeros(2).masked_fill(L.tensor([True, False]), 1e300),
    "masked_fill_bool_float": lambda L: L.zeros(2, dtype=L.bool).masked_fill(
        L.tensor([True, False]), 2.5
    ),
    "masked_fill_int_truncates": lambda L: L.zeros(2, dtype=L.int64).masked_fill(
        L.tensor([True, False]), 2.7
    ),
    # exactly 0 far below zero in float32 (exp overflows), not a subnormal
    "sigmoid_far_below_zero": lambda L: L.tensor([-100.0, -89.0, -88.0, 100.0]).sigmoid() == 0,
}


@pytest.mark.parametrize("name", ARGUMENTS)
def test_arguments_dtypes_and_errors(name: str) -> None:
    assert_same_outcome(ARGUMENTS[name])


def test_clamp_refuses_a_number_and_a_tensor_bound() -> None:
    assert_same_outcome(
        lambda L: L.ones(3).clamp(min=L.zeros(3), max=0.5),
        key="clamp() received an invalid combination of arguments",
    )


NAMES = {
    "rsub_number": lambda L, x: 2 - x,
    "rsub_tensor": lambda L, x: x.__rsub__(L.ones(3)),
    "rtruediv_number": lambda L, x: 2 / x,
    "rtruediv_tensor": lambda L, x: x.__rtruediv__(L.ones(3)),
    "div_number_first": lambda L, x: L.div(2.0, x),
    "div_floor": lambda L, x: x.div(2, rounding_mode="floor"),
    "clamp_tensor_min": lambda L, x: x.clamp(min=L.zeros(3)),
    "clamp_number_min": lambda L, x: x.clamp(min=0),
}


@pytest.mark.parametrize("name", NAMES)
def test_recorded_graph(name: str) -> None:
    def fn(L: ModuleType) -> Any:
        out = NAMES[name](L, L.tensor([0.5, 1.0, 2.0], requires_grad=True))
        return graph_of(out), out

    assert_same_outcome(fn)


def test_div_rounding_mode_checks_saved_versions() -> None:
    """The quotient's gradient is 0, but PyTorch still unpacks (and version-checks) its
    saved operands."""

    def fn(L: ModuleType) -> Any:
        a, b = L.ones(3, requires_grad=True), L.full((3,), 2.0, requires_grad=True)
        x = a * 1
        out = L.div(x, b, rounding_mode="floor")
        x.add_(1)
        out.sum().backward()
        return a.grad

    assert_same_outcome(fn)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_ops_run_without_errstate_never_warn(dtype: str) -> None:
    """The unary ops computed outside np.errstate (elementwise.QUIET) stay silent on every
    special value, as PyTorch is."""
    import warnings

    import numpy as np

    import minigrad
    from minigrad.ops.elementwise import QUIET

    info = np.finfo(dtype)
    values = [np.inf, -np.inf, np.nan, 0.0, -0.0, info.max, -info.max, info.tiny / 4, 1.0]
    x = minigrad.tensor(np.array(values, dtype=dtype), requires_grad=True)
    ops = {np.tanh: minigrad.tanh, np.arctan: minigrad.atan, np.arcsinh: minigrad.asinh}
    assert set(ops) == QUIET
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for op in ops.values():
            op(x).backward(minigrad.ones_like(x))
