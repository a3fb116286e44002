"""Tensor factories (tensor, ones, zeros, *_like, full, arange, rand, randn, Tensor) and printing:
dtypes, shapes, values and repr() against PyTorch."""

from __future__ import annotations

import warnings
from types import ModuleType
from typing import Any

import numpy as np
import pytest

import minigrad

from ._support import assert_same_outcome

FACTORIES: dict[str, Any] = {
    "tensor_floats": lambda L: L.tensor([1.0, 2.5]),
    "tensor_ints": lambda L: L.tensor([[1, 2], [3, 4]]),
    "tensor_bools": lambda L: L.tensor([True, False]),
    "tensor_mixed_int_float": lambda L: L.tensor([1, 2.5]),
    "tensor_mixed_bool_int": lambda L: L.tensor([True, 2]),
    "tensor_scalar_int": lambda L: L.tensor(3),
    "tensor_scalar_float": lambda L: L.tensor(2.5),
    "tensor_scalar_bool": lambda L: L.tensor(True),
    "tensor_empty": lambda L: L.tensor([]),
    "tensor_nested_empty": lambda L: L.tensor([[]]),
    "tensor_numpy_float64": lambda L: L.tensor(np.array([1.0, 2.0])),
    "tensor_numpy_float32": lambda L: L.tensor(np.array([1.0, 2.0], dtype=np.float32)),
    "tensor_numpy_int32": lambda L: L.tensor(np.array([1, 2], dtype=np.int32)),
    "tensor_numpy_scalar": lambda L: L.tensor(np.float64(0.1)),
    "tensor_dtype": lambda L: L.tensor([1, 2], dtype=L.float64),
    "tensor_dtype_bool": lambda L: L.tensor([0.0, 0.5], dtype=L.bool),
    "tensor_requires_grad": lambda L: L.tensor([1.0], requires_grad=True),
    "tensor_precision": lambda L: L.tensor([0.1, 1 / 3], dtype=L.float64),
    "legacy_Tensor": lambda L: L.Tensor([1, 2]),
    "ones": lambda L: L.ones(2, 3),
    "ones_tuple": lambda L: L.ones((2, 3)),
    "ones_dtype": lambda L: L.ones(2, dtype=L.int64),
    "zeros": lambda L: L.zeros(3),
    "zeros_0dim": lambda L: L.zeros(()),
    "zeros_empty": lambda L: L.zeros(2, 0),
    "zeros_grad": lambda L: L.zeros(2, requires_grad=True),
    "ones_like": lambda L: L.ones_like(L.tensor([[1, 2]])),
    "zeros_like_dtype": lambda L: L.zeros_like(L.tensor([1.5]), dtype=L.float64),
    "ones_like_grad": lambda L: L.ones_like(L.tensor([1.5]), requires_grad=True),
    "full": lambda L: L.full((2, 2), 7.0),
    "full_int": lambda L: L.full((3,), 4),
    "full_bool": lambda L: L.full((2,), True),
    "full_dtype": lambda L: L.full((1, 2), 3, dtype=L.float64),
    "arange_int": lambda L: L.arange(5),
    "arange_start": lambda L: L.arange(2, 7),
    "arange_step": lambda L: L.arange(1, 10, 3),
    "arange_float": lambda L: L.arange(0.0, 1.0, 0.25),
    "arange_negative_step": lambda L: L.arange(5, 0, -2),
    "arange_dtype": lambda L: L.arange(4, dtype=L.float64),
    "arange_empty": lambda L: L.arange(3, 3),
    "rand_shape": lambda L: (L.rand(2, 3).shape, L.rand(2, 3).dtype),
    "randn_shape": lambda L: (L.randn((4,), dtype=L.float64).shape, L.randn(1).dtype),
    "rand_grad": lambda L: L.rand(2, requires_grad=True).requires_grad,
    "rand_range": lambda L: bool(((L.rand(1000) >= 0) & (L.rand(1000) < 1)).all()),
}


@pytest.mark.parametrize("name", FACTORIES)
def test_factory_matches_torch(name: str) -> None:
    assert_same_outcome(FACTORIES[name])


def test_manual_seed_makes_draws_repeatable() -> None:
    """minigrad's stream is its own (not torch's), but seeding repeats it."""
    minigrad.manual_seed(3)
    first = (minigrad.rand(4).tolist(), minigrad.randn(2, 2).tolist())
    minigrad.manual_seed(3)
    assert (minigrad.rand(4).tolist(), minigrad.randn(2, 2).tolist()) == first


def test_tensor_from_tensor_copies_and_warns() -> None:
    def fn(L: ModuleType) -> Any:
        src = L.tensor([1.0, 2.0], requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            copy = L.tensor(src)
        return copy, copy.requires_grad, [w.category.__name__ for w in caught]

    assert_same_outcome(fn)


REPRS = [
    "tensor([1., 2.5])",
    "tensor([1, 2])",
    "tensor([True, False])",
    "tensor(3.)",
    "tensor([[1e-5, 1.]])",
    "tensor([1e10, 1.])",
    "tensor([0.1, 0.25, 1000.])",
    "tensor([1., 2.], requires_grad=True)",
    "tensor([1., 2.], dtype=L.float64)",
    "tensor([], dtype=L.float64)",
    "tensor([])",
    "tensor([1, 2], dtype=L.float64) * 2",
    "tensor([float('nan'), float('inf'), 1.5])",
    "tensor([-1., 0.5])",
    "tensor(list(range(20)))",
    "tensor([[1.123456, 2.], [3., 4.]])",
    "tensor(2.5, requires_grad=True) * 2",
    "ones(2, 3, dtype=L.int64)",
    "tensor([1.5], dtype=L.float64, requires_grad=True)",
    "tensor([100000., 1.])",
    "tensor([1e-3, 1.])",
    "tensor([123456.7, 1.])",
    "arange(2000.)",
    "tensor([[True]])",
    "tensor([1, -200])",
    "zeros(2, 0)",
    "zeros(0, 3, dtype=L.int64)",
    "arange(3000).reshape(30, 100)",
    "arange(3000.).reshape(30, 100) / 7",
    "arange(40.) / 3",
    "zeros(3)",
    "tensor([0., 1e-5])",
    "tensor([float('nan')])",
    "tensor([-0.0, 2.0])",
    "arange(24.).reshape(2, 3, 4)",
    "arange(2000.).reshape(2, 1000) - 1000",
    "tensor([1e8, 1.])",
    "tensor([123456789.])",
    "tensor([0.5, 1e-4])",
]


@pytest.mark.parametrize("expr", REPRS)
def test_repr_matches_torch(expr: str) -> None:
    assert_same_outcome(lambda L: repr(eval(f"L.{expr}")))  # noqa: S307 - fixed test strings
