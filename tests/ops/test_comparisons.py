"""Comparisons and logical operators: bool results that never require grad, with broadcasting,
Python scalars and mixed dtypes, as in PyTorch."""

from __future__ import annotations

import operator
from types import ModuleType
from typing import Any

import pytest

from ._support import assert_same_outcome

COMPARE = {
    "gt": operator.gt,
    "lt": operator.lt,
    "ge": operator.ge,
    "le": operator.le,
    "eq": operator.eq,
    "ne": operator.ne,
}

OPERANDS = {
    "grad_vs_grad": lambda L: (
        L.tensor([[0.5, -1.0, 2.0]], requires_grad=True),
        L.tensor([[0.5], [1.0]], requires_grad=True),
    ),
    "float_vs_int_scalar": lambda L: (L.tensor([0.0, 1.0, 2.5], requires_grad=True), 1),
    "float_vs_float_scalar": lambda L: (L.tensor([0.0, 1.0, 2.5]) * 2, 2.0),
    "int_vs_float": lambda L: (L.tensor([1, 2, 3]), L.tensor([1.5, 2.0, 2.5])),
    "int_vs_int": lambda L: (L.tensor([[1, 2], [3, 4]]), L.tensor([2, 2])),
    "bool_vs_bool": lambda L: (L.tensor([True, False]), L.tensor([True, True])),
    "0dim_vs_vector": lambda L: (L.tensor(1.0, requires_grad=True), L.tensor([0.0, 1.0, 2.0])),
    "float64_vs_float32": lambda L: (L.tensor([1.0, 2.0], dtype=L.float64), L.tensor([2.0, 1.0])),
    "nan": lambda L: (L.tensor([float("nan"), 1.0]), L.tensor([float("nan"), 1.0])),
}


@pytest.mark.parametrize("operands", OPERANDS)
@pytest.mark.parametrize("op_name", COMPARE)
def test_comparison_is_bool_without_grad(op_name: str, operands: str) -> None:
    def fn(L: ModuleType) -> Any:
        a, b = OPERANDS[operands](L)
        return COMPARE[op_name](a, b)

    assert_same_outcome(fn)


LOGICAL = {
    "and": lambda a, b: a & b,
    "or": lambda a, b: a | b,
    "xor": lambda a, b: a ^ b,
    "invert": lambda a, b: ~a,
    "mask_of_comparisons": lambda a, b: (a > 0) & (b < 1),
}


@pytest.mark.parametrize("name", LOGICAL)
def test_logical_operators(name: str) -> None:
    def fn(L: ModuleType) -> Any:
        a = L.tensor([[True, False, True]])
        b = L.tensor([[True], [False]])
        if name == "mask_of_comparisons":
            a, b = L.tensor([0.5, -1.0], requires_grad=True), L.tensor([0.0, 2.0])
        return LOGICAL[name](a, b)

    assert_same_outcome(fn)


def test_comparison_results_are_leaves_that_stop_gradients() -> None:
    def fn(L: ModuleType) -> Any:
        x = L.tensor([0.5, -1.0, 2.0], requires_grad=True)
        mask = x > 0
        (x * mask).sum().backward()
        return mask.is_leaf, mask.requires_grad, mask.grad_fn is None, x.grad

    assert_same_outcome(fn)
