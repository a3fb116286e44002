"""isclose, nonzero, unique and bincount (no gradients) against PyTorch: values, dtypes, shapes,
NaN and -0.0 handling, tuple outputs and errors; plus the argument errors of amax/amin, prod,
index_select and masked_select, whose values and gradients the sweep checks
(tests/sweep/selections.py)."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest
from ops._support import assert_same_outcome

NAN, INF = float("nan"), float("inf")


def _pair(L: ModuleType, dtype: str = "float32") -> tuple:
    a = L.tensor([1.0, NAN, INF, 2.0, -INF, 0.0, 1e-9], dtype=getattr(L, dtype))
    b = L.tensor([1.0 + 1e-9, NAN, INF, 2.1, INF, -0.0, 0.0], dtype=getattr(L, dtype))
    return a, b


ISCLOSE = {
    "default": lambda L: L.isclose(*_pair(L)),
    "equal_nan": lambda L: L.isclose(*_pair(L), equal_nan=True),
    "rtol": lambda L: L.isclose(*_pair(L), rtol=0.1),
    "exact": lambda L: L.isclose(*_pair(L), rtol=0, atol=0),
    "inf_atol": lambda L: L.isclose(*_pair(L), rtol=0, atol=INF),
    "float64": lambda L: L.isclose(*_pair(L, "float64"), 1e-3, 1e-3, True),
    "method": lambda L: _pair(L)[0].isclose(_pair(L)[1], 1e-5, 1e-8, True),
    "broadcast": lambda L: L.isclose(L.ones(2, 3), L.ones(3) + 1e-6),
    "0d": lambda L: L.isclose(L.tensor(1.0), L.tensor([1.0, 2.0])),
    "empty": lambda L: L.isclose(L.ones(0, 3), L.ones(3)),
    "int": lambda L: L.isclose(L.tensor([1, 2, 16777217]), L.tensor([1, 3, 16777216]), atol=0.5),
    "int_rtol": lambda L: L.isclose(L.tensor([1, 2]), L.tensor([1, 3]), rtol=0.5),
    "bool": lambda L: L.isclose(L.tensor([True, False]), L.tensor([False, False]), atol=1),
    "bool_exact": lambda L: L.isclose(L.tensor([True, False]), L.tensor([False, False])),
    "other_number": lambda L: L.isclose(L.ones(2), 1.0),
    "method_number": lambda L: L.ones(2).isclose(1.0),
    "dtypes_differ": lambda L: L.isclose(L.ones(2), L.ones(2, dtype=L.float64)),
    "int_float": lambda L: L.isclose(L.tensor([1, 2]), L.tensor([1.0, 2.0])),
    "rtol_negative": lambda L: L.isclose(L.ones(2), L.ones(2), rtol=-1),
    "atol_negative": lambda L: L.isclose(L.ones(2), L.ones(2), atol=-1),
    "rtol_nan": lambda L: L.isclose(L.ones(2), L.ones(2), rtol=NAN),
    "shapes": lambda L: L.isclose(L.ones(2, 3), L.ones(4)),
    "requires_grad": lambda L: L.isclose(L.ones(2, requires_grad=True), L.ones(2)),
}


def _holes(L: ModuleType) -> Any:
    return L.tensor([[0.0, 1.0, -0.0], [2.0, 0.0, NAN], [INF, 0.0, 3.0]])


NONZERO = {
    "2d": lambda L: L.nonzero(_holes(L)),
    "2d_tuple": lambda L: L.nonzero(_holes(L), as_tuple=True),
    "method": lambda L: _holes(L).nonzero(),
    "method_tuple": lambda L: _holes(L).nonzero(as_tuple=True),
    "0d": lambda L: L.nonzero(L.tensor(3.0)),
    "0d_zero": lambda L: L.nonzero(L.tensor(0.0)),
    "0d_tuple": lambda L: L.nonzero(L.tensor(3.0), as_tuple=True),
    "0d_zero_tuple": lambda L: L.nonzero(L.tensor(0.0), as_tuple=True),
    "empty": lambda L: L.nonzero(L.zeros(0, 3)),
    "empty_tuple": lambda L: L.nonzero(L.zeros(0, 3), as_tuple=True),
    "bool": lambda L: L.nonzero(L.tensor([True, False, True])),
    "int_3d": lambda L: L.nonzero(L.tensor([[[0, 2], [3, 0]], [[0, 0], [-1, 5]]])),
    "requires_grad": lambda L: L.nonzero(L.tensor([1.0, 0.0], requires_grad=True)),
    "transposed": lambda L: L.nonzero(_holes(L).t()),
    "as_tuple_positional": lambda L: L.nonzero(L.ones(2), True),
}


def _repeats(L: ModuleType) -> Any:
    return L.tensor([[3.0, 1.0, NAN], [1.0, NAN, -0.0], [0.0, 2.0, 3.0]])


def _rows(L: ModuleType) -> Any:
    return L.tensor([[2, 1, 2], [1, 3, 1], [2, 1, 2], [0, 5, 0]])


UNIQUE = {
    "float": lambda L: L.unique(_repeats(L)),
    "inverse": lambda L: L.unique(_repeats(L), return_inverse=True),
    "counts": lambda L: L.unique(_repeats(L), return_counts=True),
    "both": lambda L: L.unique(_repeats(L), return_inverse=True, return_counts=True),
    "unsorted": lambda L: L.unique(L.tensor([5, 3, 5, 1, 7, 0, 3]), sorted=False),
    "positional": lambda L: L.unique(_repeats(L), False, True, True),
    "method": lambda L: _repeats(L).unique(return_counts=True),
    "zeros_signs": lambda L: L.unique(L.tensor([-0.0, 0.0, 0.0]), return_inverse=True),
    "zeros_signs_2": lambda L: L.unique(L.tensor([0.0, -0.0]), return_inverse=True),
    "bool": lambda L: L.unique(L.tensor([True, False, True]), return_counts=True),
    "0d": lambda L: L.unique(L.tensor(3.0), return_inverse=True, return_counts=True),
    "empty": lambda L: L.unique(L.zeros(0, 3), return_inverse=True, return_counts=True),
    "dim0": lambda L: L.unique(_rows(L), dim=0, return_inverse=True, return_counts=True),
    "dim1": lambda L: L.unique(_rows(L), dim=1, return_inverse=True, return_counts=True),
    "dim-1": lambda L: L.unique(_rows(L), dim=-1),
    "dim_nan_rows": lambda L: L.unique(
        L.tensor([[1.0, NAN], [1.0, NAN], [0.0, 2.0]]), dim=0, return_inverse=True
    ),
    "dim_bool": lambda L: L.unique(L.tensor([True, False, True]), dim=0),
    "dim_empty_selected": lambda L: L.unique(L.zeros(0, 3), dim=0, return_counts=True),
    "dim_empty_other": lambda L: L.unique(L.zeros(0, 3), dim=1),
    "dim_out_of_range": lambda L: L.unique(L.ones(2, 3), dim=2),
    "dim_0d": lambda L: L.unique(L.tensor(3.0), dim=0),
    "requires_grad": lambda L: L.unique(L.tensor([3.0, 1.0, 3.0], requires_grad=True)),
    "requires_grad_dim": lambda L: L.unique(L.ones(2, 1, requires_grad=True), dim=0),
    "backward": lambda L: L.unique(L.tensor([3.0, 1.0], requires_grad=True)).sum().backward(),
    "backward_dim": lambda L: L.unique(L.ones(2, 1, requires_grad=True), dim=0).sum().backward(),
    "list": lambda L: L.unique([1, 2]),
    "float_dim": lambda L: L.ones(2, 3).unique(dim=1.5),
}

BINCOUNT = {
    "counts": lambda L: L.bincount(L.tensor([0, 1, 1, 3, 1])),
    "minlength_more": lambda L: L.bincount(L.tensor([0, 1, 1, 3]), minlength=6),
    "minlength_less": lambda L: L.bincount(L.tensor([0, 1, 1, 3]), minlength=2),
    "weights_f32": lambda L: L.bincount(L.tensor([0, 1, 1, 3]), L.tensor([0.5, 1.0, 2.0, 3.0])),
    "weights_f64": lambda L: L.bincount(
        L.tensor([0, 1, 1, 3]), L.tensor([0.5, 1.0, 2.0, 3.0], dtype=L.float64), minlength=6
    ),
    "weights_int": lambda L: L.bincount(L.tensor([0, 1, 1, 3]), L.tensor([1, 2, 3, 4])),
    "weights_bool": lambda L: L.bincount(L.tensor([0, 1]), L.tensor([True, True])),
    "weights_nan": lambda L: L.bincount(L.tensor([0, 1, 1]), L.tensor([NAN, 1.0, INF])),
    "int32": lambda L: L.bincount(L.tensor([0, 1, 1, 3], dtype=L.int32)),
    "uint8": lambda L: L.bincount(L.tensor([0, 1, 1, 3], dtype=L.uint8)),
    "empty": lambda L: L.bincount(L.tensor([], dtype=L.int64)),
    "empty_minlength": lambda L: L.bincount(L.tensor([], dtype=L.int64), minlength=3),
    "empty_weights": lambda L: L.bincount(L.tensor([], dtype=L.int64), L.tensor([]), 3),
    "method": lambda L: L.tensor([0, 1, 1]).bincount(minlength=4),
    "requires_grad": lambda L: L.bincount(
        L.tensor([0, 1]), L.tensor([1.0, 2.0], requires_grad=True)
    ),
    "backward": lambda L: (
        L.bincount(L.tensor([0, 1]), L.ones(2, requires_grad=True)).sum().backward()
    ),
    "bool_input": lambda L: L.bincount(L.tensor([True, False])),
    "float_input": lambda L: L.bincount(L.tensor([0.0, 1.0])),
    "negative": lambda L: L.bincount(L.tensor([0, -1])),
    "2d": lambda L: L.bincount(L.tensor([[0, 1]])),
    "0d": lambda L: L.bincount(L.tensor(1)),
    "minlength_negative": lambda L: L.bincount(L.tensor([0, 1]), minlength=-1),
    "minlength_before_negative": lambda L: L.bincount(L.tensor([-1]), minlength=-1),
    "weights_length": lambda L: L.bincount(L.tensor([0, 1]), L.tensor([1.0])),
    "weights_2d": lambda L: L.bincount(L.tensor([0, 1]), L.tensor([[1.0, 2.0]])),
    "weights_list": lambda L: L.bincount(L.tensor([1]), [1.0]),
    "input_list": lambda L: L.bincount([1]),
    "method_weights_list": lambda L: L.tensor([1]).bincount([1.0]),
}

# the differentiable ops' argument errors and corners (their values and gradients: the sweep)
ERRORS = {
    "amax_empty_all": lambda L: L.amax(L.zeros(0, 3)),
    "amin_empty_dims": lambda L: L.amin(L.zeros(0, 3), ()),
    "amax_empty_dim": lambda L: L.amax(L.zeros(0, 3), -2),
    "amax_empty_dims_order": lambda L: L.amax(L.zeros(2, 0, 3), (2, 1)),
    "amax_empty_kept": lambda L: L.amax(L.zeros(2, 0, 3), (0, 2)),
    "amax_float_dim": lambda L: L.amax(L.ones(3), 1.5),
    "amax_bool_dim": lambda L: L.amax(L.ones(3), True),
    "amax_list_dim": lambda L: L.amax(L.ones(2, 3), [1]),
    "amax_none_dim": lambda L: L.amax(L.ones(2, 3), None),
    "amax_axis": lambda L: L.amax(L.ones(2, 3), axis=1),
    "amax_repeated_dim": lambda L: L.amax(L.ones(2, 3), (1, 1)),
    "amax_bool": lambda L: L.amax(L.tensor([True, False])),
    "amin_int": lambda L: L.amin(L.tensor([[4, 1], [2, 7]]), 0, True),
    "prod_tuple_dim": lambda L: L.prod(L.ones(2, 3), (0, 1)),
    "prod_none_dim": lambda L: L.prod(L.ones(2, 3), None),
    "prod_none_dim_kw": lambda L: L.prod(L.ones(2, 3), dim=None),
    "prod_keepdim_alone": lambda L: L.prod(L.ones(2, 3), keepdim=True),
    "prod_method_keepdim_alone": lambda L: L.ones(2, 3).prod(keepdim=True),
    "prod_method_none": lambda L: L.ones(2, 3).prod(dim=None),
    "prod_none_with_keepdim": lambda L: L.prod(L.ones(2, 3), keepdim=True, dim=None),
    "prod_too_many": lambda L: L.prod(L.ones(2, 3), 0, False, L.float64),
    "prod_unknown_kw": lambda L: L.prod(L.ones(2, 3), 0, foo=1),
    "prod_dim_twice": lambda L: L.prod(L.ones(2, 3), 0, dim=1),
    "prod_not_tensor": lambda L: L.prod(1.0),
    "prod_dim_none_keepdim": lambda L: L.prod(L.ones(2, 3), None, True),
    "prod_method_dim_none_keepdim": lambda L: L.ones(2, 3).prod(None, True),
    "prod_keepdim_int": lambda L: L.prod(L.ones(2, 3), 0, 1),
    "prod_method_keepdim_int": lambda L: L.ones(2, 3).prod(0, 1),
    "prod_keepdim_int_kw": lambda L: L.prod(L.ones(2, 3), 0, keepdim=1),
    "prod_method_axis_keepdims": lambda L: L.ones(2, 3).prod(axis=1, keepdims=True),
    "amax_axis_keepdims": lambda L: L.amax(L.ones(2, 3), dim=(0,), keepdims=True),
    "prod_int": lambda L: L.prod(L.tensor([[1, 2, 3], [4, 5, 6]], dtype=L.int32), 1),
    "prod_bool": lambda L: L.prod(L.tensor([True, False])),
    "prod_int_to_float": lambda L: L.prod(L.tensor([1, 2, 3]), dtype=L.float32),
    "prod_float_to_int": lambda L: L.prod(L.tensor([1.5, 2.0]), dtype=L.int64),
    "prod_grad_to_int": lambda L: L.prod(L.ones(2, requires_grad=True), 0, dtype=L.int64),
    "prod_empty": lambda L: L.prod(L.zeros(0, 3), 0),
    "index_select_matrix_index": lambda L: L.index_select(L.ones(3, 4), 0, L.tensor([[1]])),
    "index_select_float_index": lambda L: L.index_select(L.ones(3, 4), 0, L.tensor([1.0])),
    "index_select_out_of_range": lambda L: L.index_select(L.ones(3, 4), 0, L.tensor([3])),
    "index_select_negative": lambda L: L.index_select(L.ones(3, 4), 0, L.tensor([-1])),
    "index_select_scalar_many": lambda L: L.index_select(L.tensor(5.0), 0, L.tensor([0, 0])),
    "index_select_list": lambda L: L.index_select(L.ones(3), 0, [0]),
    "index_select_float_dim": lambda L: L.index_select(L.ones(3), 0.5, L.tensor([0])),
    "index_select_method_float_dim": lambda L: L.ones(3).index_select(0.5, L.tensor([0])),
    "index_select_method_list": lambda L: L.ones(3).index_select(0, [0]),
    "index_select_int32": lambda L: L.index_select(
        L.arange(12).reshape(3, 4), 1, L.tensor([3, 0, 3], dtype=L.int32)
    ),
    "masked_select_int_mask": lambda L: L.masked_select(L.ones(2), L.tensor([1, 0])),
    "masked_select_shapes": lambda L: L.masked_select(L.ones(3, 4), L.tensor([True, False])),
    "masked_select_bool_mask": lambda L: L.masked_select(L.ones(2), True),
    "masked_select_method_number": lambda L: L.ones(2).masked_select(True),
    "masked_select_bigger_mask": lambda L: L.masked_select(
        L.arange(4), L.tensor([[True, False, True, True], [False, True, False, True]])
    ),
}


@pytest.mark.parametrize("case", ISCLOSE)
def test_isclose(case: str) -> None:
    assert_same_outcome(ISCLOSE[case])


@pytest.mark.parametrize("case", NONZERO)
def test_nonzero(case: str) -> None:
    assert_same_outcome(NONZERO[case])


@pytest.mark.parametrize("case", UNIQUE)
def test_unique(case: str) -> None:
    assert_same_outcome(UNIQUE[case])


@pytest.mark.parametrize("case", BINCOUNT)
def test_bincount(case: str) -> None:
    assert_same_outcome(BINCOUNT[case])


@pytest.mark.parametrize("case", ERRORS)
def test_arguments_and_corners(case: str) -> None:
    assert_same_outcome(ERRORS[case])


def test_nonzero_tuple_is_a_plain_tuple() -> None:
    import minigrad

    assert type(minigrad.nonzero(minigrad.ones(2), as_tuple=True)) is tuple
    assert type(minigrad.unique(minigrad.ones(2), return_counts=True)) is tuple
