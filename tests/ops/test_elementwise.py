"""Elementwise ops: arithmetic (with broadcasting and Python scalars), unary math, clamp, where,
masked_fill; forward, grad_fn names, gradients and double backward against PyTorch."""

from __future__ import annotations

import pytest

from ._support import FLOATS, Op, check_op, op

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
