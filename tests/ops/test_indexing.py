"""Indexing (__getitem__): ints, slices with steps, None, Ellipsis, negative indices, lists, int
tensors, bool masks and mixtures; values, views vs copies, graphs and gradients vs PyTorch."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
import pytest

from ._support import FLOATS, Op, assert_same_outcome, check_op, op

S = (4, 5, 6)

KEYS: dict[str, Any] = {
    "int": lambda L: 1,
    "negative_int": lambda L: -1,
    "int_int": lambda L: (2, -3),
    "int_int_int": lambda L: (0, 1, 2),
    "slice": lambda L: slice(1, 3),
    "full_slice": lambda L: slice(None),
    "slice_step": lambda L: slice(None, None, 2),
    "slice_negative_bounds": lambda L: (slice(-3, -1), slice(None, -2)),
    "slice_step_offset": lambda L: (slice(1, None, 3), slice(None), slice(0, 5, 2)),
    "slice_empty": lambda L: slice(3, 1),
    "slice_past_end": lambda L: slice(2, 100),
    "slice_then_int": lambda L: (slice(1, None, 2), -1),
    "none": lambda L: None,
    "none_middle": lambda L: (slice(None), None, 1),
    "ellipsis": lambda L: Ellipsis,
    "ellipsis_int": lambda L: (Ellipsis, 0),
    "int_ellipsis": lambda L: (1, Ellipsis),
    "ellipsis_none": lambda L: (Ellipsis, None),
    "ellipsis_middle": lambda L: (0, Ellipsis, slice(1, 3)),
    "list": lambda L: [0, 2],
    "list_repeated": lambda L: [1, 1, 3, 1],
    "list_negative": lambda L: [-1, 0],
    "int_tensor": lambda L: L.tensor([3, 0, 3]),
    "int_tensor_2d": lambda L: L.tensor([[0, 1], [2, 2]]),
    "int_tensor_0dim": lambda L: L.tensor(2),
    "two_lists": lambda L: ([0, 1, 3], [4, 0, 4]),
    "list_slice": lambda L: (slice(None), [0, 2]),
    "int_list": lambda L: (1, [0, 2, 2]),
    "split_advanced": lambda L: ([0, 1], slice(None), [5, 4]),
    "advanced_broadcast": lambda L: (L.tensor([[0], [2]]), L.tensor([1, 3, 4])),
    "slice_list_slice": lambda L: (slice(1, 3), [4, 0], slice(None, None, 2)),
    "ellipsis_list": lambda L: (Ellipsis, [1, 0]),
    "none_list": lambda L: (None, [1, 2]),
    "bool_mask_rows": lambda L: L.tensor([True, False, True, True]),
    "bool_list": lambda L: [True, False, False, True],
    "bool_mask_2d": lambda L: L.tensor([[True, False, True, False, True]] * 4),
    "bool_mask_full": lambda L: L.tensor((np.arange(120).reshape(S) % 7 == 0).tolist()),
    "bool_then_slice": lambda L: (L.tensor([False, True, True, False]), slice(0, 2)),
    "slice_then_bool": lambda L: (slice(None), L.tensor([True, False, True, True, False])),
    "bool_scalar_true": lambda L: True,
    "bool_scalar_false": lambda L: False,
    "range": lambda L: range(1, 3),
    "range_step": lambda L: range(0, 4, 2),
    "range_empty": lambda L: range(0),
    "tuple_with_range": lambda L: (range(2), 1),
    # a short list holding sequences or slices is read as a tuple (with a deprecation warning)
    "list_of_lists": lambda L: [[0, 1], [1, 2]],
    "list_with_slice": lambda L: [0, slice(None), [1, 2]],
}

CASES = [op(name, lambda L, a, k=key: a[k(L)], S) for name, key in KEYS.items()] + [
    op("chained", lambda L, a: a[1:][:, ::2][0, [1, 0]], S),
    op("index_twice_same_source", lambda L, a: a[0] * a[[0, 0]], (3, 4)),
    op("select_method", lambda L, a: a.select(1, -2), S),
    op("select_function", lambda L, a: L.select(a, 0, 3), S),
    op("scalar_item_slice", lambda L, a: a[2:3], (5,)),
    op("index_0dim_none", lambda L, a: a[None], ()),
    op("index_0dim_ellipsis", lambda L, a: a[...], ()),
    op("index_0dim_bool", lambda L, a: a[True], ()),
]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("case", CASES)
def test_indexing_matches_torch(case: Op, dtype: str, request: pytest.FixtureRequest) -> None:
    check_op(case, dtype, request.node.name)


@pytest.mark.parametrize(
    "name",
    [
        "int",
        "slice_step",
        "none",
        "ellipsis",
        "list",
        "int_tensor",
        "bool_mask_rows",
        "two_lists",
        "int_int",
        "full_slice",
    ],
)
def test_views_and_copies(name: str) -> None:
    """Basic indexing gives views that see later writes; advanced indexing gives copies."""

    def fn(L: ModuleType) -> Any:
        x = L.arange(120.0).reshape(*S)
        y = x[KEYS[name](L)]
        x.mul_(-1)
        return y, y._version

    assert_same_outcome(fn)


@pytest.mark.parametrize("source", ["int", "bool"])
def test_indexing_integer_and_bool_tensors(source: str) -> None:
    def fn(L: ModuleType) -> Any:
        x = L.arange(12).reshape(3, 4) if source == "int" else L.arange(12).reshape(3, 4) > 5
        return x[1], x[:, ::3], x[[0, 2]], x[x.long() > 2], x[..., None][0, 1]

    assert_same_outcome(fn)
