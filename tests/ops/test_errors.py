"""Bad inputs: minigrad raises the exception type PyTorch raises, and its message contains the
first sentence of PyTorch's (shapes named the same way, e.g. "(2x3 and 4x5)")."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

import minigrad.ops.nn as mg_nn

from ._support import assert_same_outcome


def x(L: ModuleType) -> Any:
    return L.ones(2, 3)


def F(L: ModuleType) -> Any:  # noqa: N802 - stands for torch.nn.functional
    return L.nn.functional if L.__name__ == "torch" else mg_nn


ERRORS = {
    # matrix products name both shapes
    "mm": lambda L: x(L).mm(L.ones(4, 5)),
    "matmul_2d": lambda L: x(L) @ L.ones(4, 5),
    "matmul_batched": lambda L: L.ones(2, 2, 3) @ L.ones(2, 4, 5),
    "matmul_folded": lambda L: L.ones(5, 2, 3) @ L.ones(4, 5),
    "matmul_batch_broadcast": lambda L: L.ones(3, 2, 3) @ L.ones(4, 3, 5),
    "matmul_matrix_vector": lambda L: x(L) @ L.ones(4),
    "matmul_vector_matrix": lambda L: L.ones(4) @ x(L),
    "matmul_vectors": lambda L: L.ones(3) @ L.ones(4),
    "matmul_0dim": lambda L: L.tensor(1.0) @ x(L),
    "mm_3d": lambda L: L.ones(2, 2, 2).mm(x(L)),
    "mv_matrix": lambda L: x(L).mv(x(L)),
    "dot_2d": lambda L: x(L).dot(x(L)),
    "mm_dtypes": lambda L: x(L).mm(L.ones(3, 2, dtype=L.float64)),
    "dot_dtypes": lambda L: L.ones(3).dot(L.ones(3, dtype=L.float64)),
    # broadcasting
    "broadcast_add": lambda L: x(L) + L.ones(4, 5),
    "broadcast_mul": lambda L: L.ones(2, 3, 4) * L.ones(2, 4),
    "broadcast_where": lambda L: L.where(x(L) > 0, x(L), L.ones(4, 5)),
    "broadcast_masked_fill": lambda L: x(L).masked_fill(L.ones(4) > 0, 1.0),
    # views and shapes
    "view_noncontiguous": lambda L: x(L).t().view(-1),
    "view_bad_size": lambda L: x(L).view(4),
    "view_two_inferred": lambda L: x(L).view(-1, -1),
    "reshape_bad_size": lambda L: x(L).reshape(5, -1),
    "expand_mismatch": lambda L: x(L).expand(4, 3),
    "expand_too_few": lambda L: x(L).expand(3),
    "transpose_dim": lambda L: x(L).transpose(0, 2),
    "permute_duplicate": lambda L: x(L).permute(1, 1),
    "permute_count": lambda L: x(L).permute(0),
    "squeeze_dim": lambda L: x(L).squeeze(3),
    "unsqueeze_dim": lambda L: x(L).unsqueeze(4),
    "flatten_order": lambda L: x(L).flatten(1, 0),
    "t_3d": lambda L: L.ones(2, 2, 2).t(),
    "cat_sizes": lambda L: L.cat([x(L), L.ones(4, 5)]),
    "cat_ndim": lambda L: L.cat([x(L), L.ones(3)]),
    "cat_dim": lambda L: L.cat([x(L), x(L)], 2),
    "cat_0dim": lambda L: L.cat([L.tensor(1.0)]),
    "cat_empty": lambda L: L.cat([]),
    "stack_sizes": lambda L: L.stack([x(L), x(L).t()]),
    "stack_dim": lambda L: L.stack([x(L), x(L)], 3),
    "stack_empty": lambda L: L.stack([]),
    # indexing
    "index_out_of_range": lambda L: x(L)[5],
    "index_negative_out_of_range": lambda L: x(L)[-3],
    "index_second_dim": lambda L: x(L)[:, 3],
    "index_list": lambda L: x(L)[[0, 2]],
    "index_two_lists": lambda L: x(L)[[0], [9]],
    "index_slice_list": lambda L: x(L)[:, [0, 5]],
    "index_too_many": lambda L: x(L)[0, 0, 0],
    "index_0dim": lambda L: L.tensor(1.0)[0],
    "index_mask_shape": lambda L: x(L)[L.tensor([True, False, True])],
    "index_float": lambda L: x(L)[1.5],
    "index_float_tensor": lambda L: x(L)[L.tensor([1.0])],
    "index_negative_step": lambda L: x(L)[::-1],
    "select_out_of_range": lambda L: x(L).select(1, 3),
    # reductions
    "sum_dim": lambda L: x(L).sum(2),
    "sum_repeated_dim": lambda L: x(L).sum((0, 0)),
    "mean_int": lambda L: L.tensor([1, 2]).mean(),
    "max_empty": lambda L: L.ones(0).max(),
    "max_dim": lambda L: x(L).max(2),
    "max_empty_dim": lambda L: L.ones(0, 3).max(0),
    "softmax_dim": lambda L: x(L).softmax(2),
    "var_int": lambda L: L.tensor([1, 2]).var(),
    "norm_int": lambda L: L.tensor([1, 2]).norm(),
    # elementwise
    "clamp_no_bounds": lambda L: x(L).clamp(),
    "masked_fill_long_mask": lambda L: x(L).masked_fill(L.ones(2, 3).long(), 1.0),
    "masked_fill_1d_value": lambda L: x(L).masked_fill(x(L) > 0, L.ones(1)),
    "pow_int_negative": lambda L: L.tensor([2]) ** -1,
    "sub_bools": lambda L: L.tensor([True]) - L.tensor([True]),
    "sub_bool_int": lambda L: L.tensor([True]) - 1,
    "neg_bool": lambda L: -L.tensor([True]),
    # creation
    "requires_grad_int": lambda L: L.ones(2, dtype=L.int64, requires_grad=True),
    "item_many": lambda L: x(L).item(),
    "zeros_negative": lambda L: L.zeros(-1),
    "arange_zero_step": lambda L: L.arange(0, 5, 0),
    "tensor_ragged": lambda L: L.tensor([[1, 2], [3]]),
    # nn ops (minigrad.ops.nn)
    "conv2d_channels": lambda L: F(L).conv2d(L.ones(1, 2, 4, 4), L.ones(3, 3, 3, 3)),
    "conv2d_rank": lambda L: F(L).conv2d(L.ones(4, 4), L.ones(3, 3, 3, 3)),
    "max_pool2d_padding": lambda L: F(L).max_pool2d(L.ones(1, 1, 4, 4), 2, padding=2),
    "cross_entropy_target": lambda L: F(L).cross_entropy(x(L), L.tensor([0, 3])),
    "cross_entropy_batch": lambda L: F(L).cross_entropy(x(L), L.tensor([0])),
    "nll_loss_float_target": lambda L: F(L).nll_loss(x(L), L.tensor([0.0, 1.0])),
}


@pytest.mark.parametrize("name", ERRORS)
def test_error_matches_torch(name: str) -> None:
    assert_same_outcome(ERRORS[name])
