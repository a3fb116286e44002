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
