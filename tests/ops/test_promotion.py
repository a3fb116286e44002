"""Result dtypes and values of ops on mixed operands (PyTorch's type promotion), and integer /
bool forward results where PyTorch allows them (or the same error where it does not)."""

from __future__ import annotations

import operator
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest

from ._support import assert_same_outcome


def ints(L: ModuleType) -> Any:
    return L.tensor([[1, -2, 3], [4, 0, -6]])


def bools(L: ModuleType) -> Any:
    return L.tensor([[True, False, True], [False, False, True]])


def f32(L: ModuleType) -> Any:
    return L.tensor([[0.5, -1.5, 2.0], [3.0, -0.25, 1.0]])


def f64(L: ModuleType) -> Any:
    return L.tensor([1.5, -2.0, 0.25], dtype=L.float64)


def scalar64(L: ModuleType) -> Any:
    return L.tensor(2.0, dtype=L.float64)


def scalar_int(L: ModuleType) -> Any:
    return L.tensor(3)


OPERATORS = {
    "add": operator.add,
    "sub": operator.sub,
    "mul": operator.mul,
    "truediv": operator.truediv,
    "pow": operator.pow,
}

OPERANDS: dict[str, Callable[[ModuleType], Any]] = {
    "int": ints,
    "bool": bools,
    "f32": f32,
    "f64": f64,
    "f64_0dim": scalar64,
    "int_0dim": scalar_int,
    "py_int": lambda L: 2,
    "py_float": lambda L: 2.5,
    "py_bool": lambda L: True,
}
PAIRS = [
    ("int", "py_float"),
    ("py_float", "int"),
    ("int", "py_int"),
    ("py_int", "int"),
    ("f32", "f64_0dim"),
    ("f64_0dim", "f32"),
    ("f32", "f64"),
    ("int", "f64_0dim"),
    ("int_0dim", "f32"),
    ("int", "int"),
    ("int", "int_0dim"),
    ("bool", "py_int"),
    ("bool", "int"),
    ("bool", "f32"),
    ("bool", "bool"),
    ("int", "py_bool"),
    ("f32", "py_int"),
    ("py_int", "f32"),
    ("f32", "py_float"),
    ("int", "bool"),
]


@pytest.mark.parametrize("op_name", OPERATORS)
@pytest.mark.parametrize(("left", "right"), PAIRS, ids=[f"{a}-{b}" for a, b in PAIRS])
def test_binary_operator_result(op_name: str, left: str, right: str) -> None:
    def fn(L: ModuleType) -> Any:
        a, b = OPERANDS[left](L), OPERANDS[right](L)
        if op_name == "pow" and left in ("int", "int_0dim") and right in ("int", "int_0dim"):
            b = abs(b)  # integers to negative integer powers are an error, tested below
        return OPERATORS[op_name](a, b)

    assert_same_outcome(fn)


UNARY_ON_INTS = {
    "neg": lambda x: -x,
    "abs": lambda x: x.abs(),
    "relu": lambda x: x.relu(),
    "exp": lambda x: x.exp(),
    "log": lambda x: x.abs().log(),
    "sin": lambda x: x.sin(),
    "cos": lambda x: x.cos(),
    "tanh": lambda x: x.tanh(),
    "sigmoid": lambda x: x.sigmoid(),
    "sqrt": lambda x: x.abs().sqrt(),
    "clamp": lambda x: x.clamp(-1, 2),
    "clamp_float_bounds": lambda x: x.clamp(min=0.5),
    "sum": lambda x: x.sum(),
    "sum_dim": lambda x: x.sum(1),
    "max": lambda x: x.max(),
    "min_dim": lambda x: x.min(0),
    "mean": lambda x: x.mean(),
    "float": lambda x: x.float(),
    "double": lambda x: x.double(),
    "long": lambda x: x.long(),
    "to_f64": lambda x: x.to(x.double().dtype),
    "reshape": lambda x: x.reshape(-1),
    "t": lambda x: x.t(),
    "getitem": lambda x: x[:, 1],
    "pow_scalar": lambda x: x**2,
    "rpow": lambda x: 2**x,
    "div_int": lambda x: x / 2,
    "masked_fill": lambda x: x.masked_fill(x > 0, 7),
    "square_matmul": lambda x: x @ x.t(),
    "softmax": lambda x: x.softmax(0),
    "norm": lambda x: x.norm(),
    "var": lambda x: x.var(),
    "neg_power": lambda x: x**-1,
}


@pytest.mark.parametrize("source", ["int", "bool"])
@pytest.mark.parametrize("name", UNARY_ON_INTS)
def test_integer_and_bool_forward(name: str, source: str) -> None:
    assert_same_outcome(lambda L: UNARY_ON_INTS[name](OPERANDS[source](L)))


CONVERSIONS = {
    "float_to_double": lambda L: f32(L).double(),
    "double_to_float": lambda L: f64(L).float(),
    "float_to_long": lambda L: f32(L).long(),
    "to_dtype": lambda L: f32(L).to(L.float64),
    "to_dtype_keyword": lambda L: f32(L).to(dtype=L.int64),
    "to_same_dtype": lambda L: f32(L).to(L.float32),
    "long_to_float": lambda L: ints(L).float(),
    "bool_to_long": lambda L: bools(L).long(),
    "where_mixed": lambda L: L.where(bools(L), ints(L), f32(L)),
    "where_scalar": lambda L: L.where(bools(L), ints(L), 0.5),
    "cat_mixed": lambda L: L.cat([ints(L), f32(L)]),
    "stack_mixed": lambda L: L.stack([f32(L), ints(L).double()]),
    "matmul_mixed": lambda L: f32(L) @ f64(L),
    "mm_int_float": lambda L: ints(L).mm(f32(L).t()),
    "sum_dtype": lambda L: f32(L).sum(dtype=L.float64),
}


@pytest.mark.parametrize("name", CONVERSIONS)
def test_conversions_and_mixed_ops(name: str) -> None:
    assert_same_outcome(CONVERSIONS[name])


@pytest.mark.parametrize("target", ["float64", "float32", "int64"])
def test_conversion_grad_fn_and_gradient(target: str) -> None:
    def fn(L: ModuleType) -> Any:
        x = L.tensor([[0.5, -1.5], [2.0, 3.0]], requires_grad=True)
        y = x.to(getattr(L, target))
        if not y.requires_grad:
            return y, x.grad
        (y * y).sum().backward()
        return y, x.grad

    assert_same_outcome(fn)
