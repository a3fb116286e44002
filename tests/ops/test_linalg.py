"""Matrix products: matmul in every rank combination (batched, broadcast), mm, mv, dot. PyTorch
builds matmul from dot/mv/mm/bmm plus views, so grad_fn names and the whole graph must match."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
import pytest

from ._support import FLOATS, Op, assert_same_outcome, check_op, graph_of, op

RANKS = [
    ((3,), (3,)),
    ((2, 3), (3,)),
    ((3,), (3, 4)),
    ((2, 3), (3, 4)),
    ((5, 2, 3), (3,)),
    ((3,), (5, 3, 4)),
    ((5, 2, 3), (3, 4)),
    ((2, 3), (5, 3, 4)),
    ((5, 2, 3), (5, 3, 4)),
    ((5, 1, 2, 3), (4, 3, 2)),
    ((1, 2, 3), (5, 3, 4)),
    ((5, 2, 3), (1, 3, 4)),
    ((2, 1, 2, 3), (3, 2)),
    ((3,), (2, 2, 3, 1)),
    ((0, 2, 3), (3, 4)),
]

CASES = [op(f"matmul-{sa}-{sb}", lambda L, a, b: a @ b, sa, sb) for sa, sb in RANKS] + [
    op("matmul_method", lambda L, a, b: a.matmul(b), (2, 3), (3, 4)),
    op("matmul_function", lambda L, a, b: L.matmul(a, b), (4, 2, 3), (3,)),
    op("mm", lambda L, a, b: a.mm(b), (2, 3), (3, 4)),
    op("mm_function", lambda L, a, b: L.mm(a, b), (1, 3), (3, 1)),
    op("mv", lambda L, a, b: a.mv(b), (2, 3), (3,)),
    op("mv_function", lambda L, a, b: L.mv(a, b), (4, 3), (3,)),
    op("dot", lambda L, a, b: a.dot(b), (5,), (5,)),
    op("dot_function", lambda L, a, b: L.dot(a, b), (3,), (3,)),
    op("matmul_transposed", lambda L, a, b: a.t() @ b.t(), (3, 2), (4, 3)),
    op("matmul_noncontiguous_batch", lambda L, a, b: a.transpose(0, 1) @ b, (2, 5, 3), (3, 4)),
    op("matmul_chain", lambda L, a, b, c: (a @ b).tanh() @ c, (2, 3), (3, 4), (4,)),
    op("rmatmul_numpy", lambda L, a: a @ a.t(), (3, 4)),
]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("case", CASES)
def test_matmul_matches_torch(case: Op, dtype: str, request: pytest.FixtureRequest) -> None:
    check_op(case, dtype, request.node.name)


@pytest.mark.parametrize("needs", [(True, False), (False, True)], ids=["left", "right"])
@pytest.mark.parametrize(("sa", "sb"), RANKS, ids=[f"{a}-{b}" for a, b in RANKS])
def test_matmul_graph_when_one_side_requires_grad(sa: tuple, sb: tuple, needs: tuple) -> None:
    """PyTorch folds or broadcasts depending on which operand requires grad: same graph here."""
    rng = np.random.default_rng(len(sa) * 10 + len(sb))
    left, right = rng.uniform(-1, 1, sa), rng.uniform(-1, 1, sb)

    def fn(L: ModuleType) -> Any:
        a = L.tensor(left, requires_grad=needs[0])
        b = L.tensor(right, requires_grad=needs[1])
        out = a @ b
        out.sum().backward()
        return graph_of(out), out, (a if needs[0] else b).grad

    assert_same_outcome(fn)


def test_matmul_of_noncontiguous_batch_without_grad_on_matrix() -> None:
    """A non-contiguous 3-d left side cannot be folded into a matrix: PyTorch uses bmm."""

    def fn(L: ModuleType) -> Any:
        a = L.arange(30.0).reshape(2, 5, 3).requires_grad_()
        b = L.arange(12.0).reshape(3, 4) / 10
        out = a.transpose(0, 1) @ b
        out.sum().backward()
        return graph_of(out), out, a.grad

    assert_same_outcome(fn)


ADDMM = [
    op("addmm", lambda L, b, x, y: L.addmm(b, x, y), (3, 5), (3, 4), (4, 5)),
    op("addmm_row_bias", lambda L, b, x, y: b.addmm(x, y), (5,), (3, 4), (4, 5)),
    op("addmm_0d_bias", lambda L, b, x, y: L.addmm(b, x, y, beta=2), (), (3, 4), (4, 5)),
    op(
        "addmm_beta_alpha",
        lambda L, b, x, y: L.addmm(b, x, y, beta=0.5, alpha=2.0),
        (1, 5),
        (3, 4),
        (4, 5),
    ),
    op("addmm_beta0", lambda L, b, x, y: L.addmm(b, x, y, beta=0), (3, 5), (3, 4), (4, 5)),
    op("addmm_alpha0", lambda L, b, x, y: L.addmm(b, x, y, alpha=0), (3, 5), (3, 4), (4, 5)),
    op("addmm_empty_inner", lambda L, b, x, y: L.addmm(b, x, y, beta=-1.5), (3, 5), (3, 0), (0, 5)),
]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("case", ADDMM)
def test_addmm_matches_torch(case: Op, dtype: str, request: pytest.FixtureRequest) -> None:
    check_op(case, dtype, request.node.name)


def test_addmm_zero_beta_ignores_the_bias_but_not_its_gradient() -> None:
    """beta=0: NaN in the bias stays out of the result, yet its gradient is grad * 0."""

    def fn(L: ModuleType) -> Any:
        b = L.tensor([[float("nan"), 1.0]], requires_grad=True)
        x, y = L.ones(2, 3, requires_grad=True), L.ones(3, 2, requires_grad=True)
        out = L.addmm(b, x, y, beta=0)
        out.backward(L.tensor([[float("nan"), 1.0], [float("inf"), 2.0]]))
        return out, b.grad, x.grad, y.grad

    assert_same_outcome(fn)


PRODUCTS = {
    "mm_bool_empty_rows": lambda L: L.zeros(0, 3, dtype=L.bool) @ L.zeros(3, 4, dtype=L.bool),
    "mm_bool_empty_inner": lambda L: L.zeros(3, 0, dtype=L.bool).mm(L.zeros(0, 4, dtype=L.bool)),
    "mm_bool": lambda L: L.ones(2, 2, dtype=L.bool).mm(L.ones(2, 2, dtype=L.bool)),
    "mv_bool_empty_inner": lambda L: L.zeros(3, 0, dtype=L.bool).mv(L.zeros(0, dtype=L.bool)),
    "mv_bool": lambda L: L.ones(3, 2, dtype=L.bool).mv(L.ones(2, dtype=L.bool)),
    "dot_bool_empty": lambda L: L.zeros(0, dtype=L.bool).dot(L.zeros(0, dtype=L.bool)),
    "bmm_bool_empty": lambda L: L.zeros(2, 3, 0, dtype=L.bool).bmm(L.zeros(2, 0, 5, dtype=L.bool)),
    "bmm_bool": lambda L: L.ones(2, 3, 1, dtype=L.bool).bmm(L.ones(2, 1, 5, dtype=L.bool)),
    "matmul_bool_folded": lambda L: L.zeros(2, 3, 0, dtype=L.bool) @ L.zeros(0, 4, dtype=L.bool),
    "bmm_dtypes_empty_batch": lambda L: L.zeros(0, 3, 4).bmm(L.zeros(0, 4, 5, dtype=L.float64)),
    "bmm_dtypes_empty_inner": lambda L: L.zeros(2, 3, 0, dtype=L.float64).bmm(L.zeros(2, 0, 5)),
    "bmm_dtypes": lambda L: L.zeros(2, 3, 1).bmm(L.zeros(2, 1, 5, dtype=L.float64)),
    "mm_dtypes_empty": lambda L: L.zeros(3, 0).mm(L.zeros(0, 5, dtype=L.float64)),
    "addmm_mat1_not_a_matrix": lambda L: L.addmm(L.ones(2, 2), L.ones(3), L.ones(3, 2)),
    "addmm_bias_dtype_first": lambda L: L.addmm(
        L.ones(3, 3, dtype=L.float64), L.ones(2, 3), L.ones(2, 3)
    ),
    "addmm_mat_dtypes": lambda L: L.addmm(
        L.ones(2, 2), L.ones(2, 3, dtype=L.float64), L.ones(3, 2)
    ),
    "addmm_shapes": lambda L: L.addmm(L.ones(2, 2), L.ones(2, 3), L.ones(2, 3)),
    "addmm_bias_shape": lambda L: L.addmm(L.ones(3, 2), L.ones(2, 3), L.ones(3, 2)),
    "addmm_bias_rank": lambda L: L.addmm(L.ones(1, 2, 2), L.ones(2, 3), L.ones(3, 2)),
    "addmm_int_truncates": lambda L: L.addmm(
        L.ones(2, dtype=L.int64),
        L.ones(2, 3, dtype=L.int64),
        L.ones(3, 2, dtype=L.int64),
        beta=1.5,
        alpha=2.7,
    ),
    "addmm_bool": lambda L: L.addmm(
        L.ones(2, 2, dtype=L.bool), L.ones(2, 3, dtype=L.bool), L.ones(3, 2, dtype=L.bool)
    ),
    "addmm_positional_scalars": lambda L: L.addmm(L.ones(2), L.ones(2, 3), L.ones(3, 2), 0.5, 2.0),
}


@pytest.mark.parametrize("name", PRODUCTS)
def test_products_dtypes_and_errors(name: str) -> None:
    # beta and alpha are keyword-only: both raise a TypeError naming addmm (Python words it)
    assert_same_outcome(PRODUCTS[name], "addmm()" if name == "addmm_positional_scalars" else None)


def test_bmm_of_empty_operands_with_mixed_dtypes_differentiates() -> None:
    def fn(L: ModuleType) -> Any:
        a = L.zeros(2, 3, 0, requires_grad=True)
        b = L.zeros(2, 0, 5, dtype=L.float64, requires_grad=True)
        out = a.bmm(b)
        out.backward(L.ones(2, 3, 5, dtype=L.float64))
        return out, a.grad, b.grad

    assert_same_outcome(fn)


@pytest.mark.parametrize("beta", [1, True, 0, 0.5, 2], ids=["int", "true", "zero", "half", "two"])
@pytest.mark.parametrize("dtype", ["bool", "int64", "float32"])
def test_addmm_with_nothing_to_multiply_scales_the_bias_in_place(dtype: str, beta: Any) -> None:
    """An empty inner dim leaves bias * beta, which PyTorch computes in the result's dtype."""

    def fn(L: ModuleType) -> Any:
        d = getattr(L, dtype)
        return L.addmm(
            L.ones(2, 2, dtype=d), L.ones(2, 0, dtype=d), L.ones(0, 2, dtype=d), beta=beta
        )

    assert_same_outcome(fn)
