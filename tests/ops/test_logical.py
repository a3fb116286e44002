"""Bitwise operators (and their reflected forms), `~`, the isinf family, comparisons with
non-tensors, all/any over dims and allclose: dtypes, values and errors as in PyTorch."""

from __future__ import annotations

import operator
from types import ModuleType
from typing import Any

import pytest

from ._support import assert_same_outcome

BITWISE = {
    "and": operator.and_,
    "or": operator.or_,
    "xor": operator.xor,
    "rand": lambda a, b: b.__rand__(a),
    "ror": lambda a, b: b.__ror__(a),
    "rxor": lambda a, b: b.__rxor__(a),
    "int_first": lambda a, b: 6 & b,
    "bool_first": lambda a, b: True | b,
}

BIT_OPERANDS = {
    "int64": lambda L: (L.tensor([[5, -2, 0]]), L.tensor([[3], [-1]])),
    "int64_bool": lambda L: (L.tensor([5, 2, 0]), L.tensor([True, False, True])),
    "bool_bool": lambda L: (L.tensor([True, False]), L.tensor([True, True])),
    "int_scalar": lambda L: (L.tensor([5, 2, 0]), 6),
    "float": lambda L: (L.tensor([1.0, 2.0]), L.tensor([1.0, 0.0])),
    "double_int": lambda L: (L.tensor([1.0], dtype=L.float64), L.tensor([1])),
    "int_float_scalar": lambda L: (L.tensor([1, 2]), 2.5),
    "shapes": lambda L: (L.ones(2, 3, dtype=L.bool), L.ones(4, 5, dtype=L.bool)),
}


@pytest.mark.parametrize("operands", BIT_OPERANDS)
@pytest.mark.parametrize("op_name", BITWISE)
def test_bitwise_dtypes_and_errors(op_name: str, operands: str) -> None:
    def fn(L: ModuleType) -> Any:
        a, b = BIT_OPERANDS[operands](L)
        if not isinstance(b, L.Tensor):  # a scalar: the tensor goes second
            a, b = b, a
        return BITWISE[op_name](a, b)

    assert_same_outcome(fn)


@pytest.mark.parametrize("dtype", ["bool", "int64", "float32", "float64"])
def test_invert(dtype: str) -> None:
    assert_same_outcome(lambda L: ~L.tensor([[1, 0], [-3, 2]]).to(getattr(L, dtype)))


TESTS = ("isnan", "isinf", "isfinite", "isposinf", "isneginf")
VALUES = {
    "float": lambda L: L.tensor([1.0, float("inf"), float("-inf"), float("nan"), 0.0]),
    "int": lambda L: L.tensor([1, -2]),
    "bool": lambda L: L.tensor([True, False]),
    "0d": lambda L: L.tensor(float("-inf")),
}


@pytest.mark.parametrize("values", VALUES)
@pytest.mark.parametrize("name", TESTS)
def test_elementwise_tests(name: str, values: str) -> None:
    assert_same_outcome(lambda L: getattr(L, name)(VALUES[values](L)))
    assert_same_outcome(lambda L: getattr(VALUES[values](L), name)())


@pytest.mark.parametrize("other", [None, "text", [1.0, 2.0]], ids=["none", "str", "list"])
@pytest.mark.parametrize("op_name", ["eq", "ne", "lt"])
def test_comparison_with_non_tensors_is_pythons(op_name: str, other: Any) -> None:
    assert_same_outcome(lambda L: getattr(operator, op_name)(L.tensor([1.0, 2.0]), other))


def test_comparison_promotes_before_comparing() -> None:
    assert_same_outcome(lambda L: L.tensor([2, 3]) > 2.5)
    assert_same_outcome(lambda L: L.tensor([True, False]) == 1)


REDUCE = {
    "all": lambda L, x: x.all(),
    "any_dim": lambda L, x: x.any(1),
    "all_dims": lambda L, x: L.all(x, (0, 1)),
    "any_no_dims": lambda L, x: L.any(x, ()),
    "all_keepdim": lambda L, x: x.all(-1, keepdim=True),
    "any_numpy_names": lambda L, x: x.any(axis=0, keepdims=True),
    "all_bad_dim": lambda L, x: x.all(2),
    "any_bad_dims": lambda L, x: L.any(x, (0, 5)),
    "all_0d": lambda L, x: L.all(x[0, 0], 0),
    "any_empty": lambda L, x: L.any(x[:0], 0),
}


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
@pytest.mark.parametrize("name", REDUCE)
def test_all_any(name: str, dtype: str) -> None:
    def fn(L: ModuleType) -> Any:
        x = L.tensor([[1.0, 0.0, 2.0], [3.0, 1.0, float("nan")]]).to(getattr(L, dtype))
        return REDUCE[name](L, x)

    assert_same_outcome(fn)


ALLCLOSE = {
    "close": lambda L: L.allclose(L.tensor([1.0, 2.0]), L.tensor([1.0, 2.0 + 1e-6])),
    "far": lambda L: L.tensor([1.0, 2.0]).allclose(L.tensor([1.0, 2.1])),
    "tolerances": lambda L: L.allclose(L.tensor([1.0]), L.tensor([1.5]), rtol=0.1, atol=0.4),
    "nan": lambda L: L.allclose(L.tensor([float("nan")]), L.tensor([float("nan")])),
    "equal_nan": lambda L: L.allclose(
        L.tensor([float("nan")]), L.tensor([float("nan")]), equal_nan=True
    ),
    "inf": lambda L: L.allclose(L.tensor([float("inf")]), L.tensor([float("inf")])),
    "broadcast": lambda L: L.allclose(L.ones(2, 3), L.ones(3)),
    "int": lambda L: L.allclose(L.tensor([1]), L.tensor([2]), atol=1.5),
    "bool": lambda L: L.allclose(L.tensor([True]), L.tensor([True])),
    "dtypes_differ": lambda L: L.allclose(L.ones(3), L.ones(3, dtype=L.float64)),
    "shapes_differ": lambda L: L.allclose(L.ones(3), L.ones(2)),
    "negative_rtol": lambda L: L.allclose(L.ones(1), L.ones(1), rtol=-1),
    "not_a_tensor": lambda L: L.allclose(L.ones(3), 1.0),
}


@pytest.mark.parametrize("name", ALLCLOSE)
def test_allclose(name: str) -> None:
    assert_same_outcome(ALLCLOSE[name])
