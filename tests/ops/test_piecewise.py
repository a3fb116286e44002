"""Piecewise-constant ops (round, floor, ceil, trunc, sign) and argsort: integer inputs are
already whole, bool has no kernel, round(decimals=...) is its own overload, and argsort puts NaN
last ascending and first descending with ties in their original order, as in PyTorch."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from ._support import assert_same_outcome

ROUNDING = ("round", "floor", "ceil", "trunc", "sign")
INPUTS = {
    "float": lambda L: L.tensor([1.5, -2.5, 0.49, float("nan"), -0.0]),
    "int": lambda L: L.tensor([1, -2, 3]),
    "bool": lambda L: L.tensor([True, False]),
}


@pytest.mark.parametrize("inputs", INPUTS)
@pytest.mark.parametrize("name", ROUNDING)
def test_rounding_by_dtype(name: str, inputs: str) -> None:
    assert_same_outcome(lambda L: getattr(L, name)(INPUTS[inputs](L)))
    assert_same_outcome(lambda L: getattr(INPUTS[inputs](L).clone(), f"{name}_")())


DECIMALS = {
    "positive": lambda L, x: L.round(x, decimals=1),
    "negative": lambda L, x: x.round(decimals=-1),
    "zero_given": lambda L, x: x.round(decimals=0),
    "none_given": lambda L, x: x.round(),
    "int_decimals": lambda L, x: L.round(x.long(), decimals=1),
    "int_decimals_zero": lambda L, x: L.round(x.long(), decimals=0),
    "bool_decimals": lambda L, x: L.round(x > 0, decimals=2),
}


@pytest.mark.parametrize("name", DECIMALS)
def test_round_decimals(name: str) -> None:
    def fn(L: ModuleType) -> Any:
        x = L.tensor([1.25, 2.5, -0.35, 125.0], requires_grad=True)
        out = DECIMALS[name](L, x)
        if out.requires_grad:
            out.backward(L.tensor([1.0, float("nan"), float("inf"), 2.0]))
        return out, x.grad

    assert_same_outcome(fn)


ARGSORT = {
    "ascending": lambda L, x: x.argsort(),
    "descending": lambda L, x: L.argsort(x, descending=True),
    "dim0_descending": lambda L, x: x.reshape(2, 4).argsort(0, descending=True),
    "stable": lambda L, x: L.argsort(x, stable=True),
    "bool_descending": lambda L, x: (x > 1).argsort(descending=True),
    "int_descending": lambda L, x: L.tensor([3, 1, 2, 1, 3]).argsort(descending=True),
    "0d": lambda L, x: x[0].argsort(),
    "0d_bad_dim": lambda L, x: x[0].argsort(1),
    "empty": lambda L, x: x[:0].argsort(descending=True),
}


@pytest.mark.parametrize("name", ARGSORT)
def test_argsort(name: str) -> None:
    def fn(L: ModuleType) -> Any:
        x = L.tensor([1.0, float("nan"), 3.0, 1.0, float("-inf"), float("nan"), 3.0, 0.0])
        return ARGSORT[name](L, x)

    assert_same_outcome(fn)
