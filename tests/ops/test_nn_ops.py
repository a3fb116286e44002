"""Neural-network ops of minigrad.ops.nn (conv2d, conv_transpose2d, max_pool2d, the losses)
against torch.nn.functional: values, grad_fn names, gradients and double backward."""

from __future__ import annotations

import warnings
from types import ModuleType
from typing import Any

import numpy as np
import pytest

import minigrad.ops.nn as mg_nn

from ._support import FLOATS, Op, assert_same_outcome, check_op, op


def F(L: ModuleType) -> Any:  # noqa: N802 - stands for torch.nn.functional
    return L.nn.functional if L.__name__ == "torch" else mg_nn


def targets(L: ModuleType, *values: int) -> Any:
    return L.tensor(list(values))


CONV = [
    op("conv2d", lambda L, x, w: F(L).conv2d(x, w), (2, 3, 6, 5), (4, 3, 3, 3)),
    op("conv2d_bias", lambda L, x, w, b: F(L).conv2d(x, w, b), (2, 3, 5, 5), (4, 3, 3, 3), (4,)),
    op("conv2d_stride", lambda L, x, w: F(L).conv2d(x, w, stride=2), (1, 2, 7, 7), (3, 2, 3, 3)),
    op(
        "conv2d_padding",
        lambda L, x, w, b: F(L).conv2d(x, w, b, padding=1),
        (2, 2, 4, 5),
        (3, 2, 3, 3),
        (3,),
    ),
    op(
        "conv2d_stride_padding",
        lambda L, x, w: F(L).conv2d(x, w, stride=2, padding=2),
        (1, 1, 6, 6),
        (2, 1, 2, 2),
    ),
    op(
        "conv2d_tuple_args",
        lambda L, x, w: F(L).conv2d(x, w, stride=(1, 1), padding=(1, 1)),
        (1, 2, 4, 4),
        (2, 2, 3, 3),
    ),
    op("conv2d_1x1", lambda L, x, w: F(L).conv2d(x, w), (2, 3, 4, 4), (5, 3, 1, 1)),
    op("conv2d_unbatched", lambda L, x, w: F(L).conv2d(x, w), (2, 5, 5), (3, 2, 3, 3)),
    op("conv2d_then_tanh", lambda L, x, w: F(L).conv2d(x, w).tanh(), (1, 2, 5, 5), (2, 2, 3, 3)),
    op(
        "conv2d_groups",
        lambda L, x, w, b: F(L).conv2d(x, w, b, padding=1, groups=2),
        (2, 4, 5, 5),
        (6, 2, 3, 3),
        (6,),
    ),
    op(
        "conv2d_depthwise",
        lambda L, x, w: F(L).conv2d(x, w, stride=2, padding=1, groups=3),
        (2, 3, 6, 6),
        (3, 1, 3, 3),
    ),
    op(
        "conv2d_dilation",
        lambda L, x, w: F(L).conv2d(x, w, padding=(2, 1), dilation=(2, 1)),
        (1, 2, 7, 6),
        (3, 2, 3, 3),
    ),
    op(
        "conv2d_rectangular",
        lambda L, x, w: F(L).conv2d(x, w, stride=(1, 2), padding=(0, 1)),
        (2, 3, 6, 7),
        (4, 3, 2, 3),
    ),
    op(
        "conv2d_same", lambda L, x, w: F(L).conv2d(x, w, padding="same"), (1, 2, 5, 6), (3, 2, 3, 3)
    ),
    op(
        "conv2d_same_even",  # an even kernel: one more row and column of zeros at the end
        lambda L, x, w: F(L).conv2d(x, w, padding="same"),
        (1, 2, 5, 6),
        (3, 2, 2, 4),
    ),
    op(
        "conv2d_valid",
        lambda L, x, w: F(L).conv2d(x, w, padding="valid"),
        (1, 2, 5, 5),
        (2, 2, 3, 3),
    ),
    op(
        "conv2d_unbatched_groups",
        lambda L, x, w: F(L).conv2d(x, w, groups=2, dilation=2),
        (4, 6, 6),
        (2, 2, 2, 2),
    ),
]

CONV_TRANSPOSE = [
    op(
        "conv_transpose2d",
        lambda L, x, w, b: F(L).conv_transpose2d(x, w, b),
        (2, 3, 4, 4),
        (3, 2, 3, 3),
        (2,),
    ),
    op(
        "conv_transpose2d_stride_padding",
        lambda L, x, w: F(L).conv_transpose2d(x, w, stride=2, padding=1, output_padding=1),
        (2, 3, 4, 5),
        (3, 4, 3, 3),
    ),
    op(
        "conv_transpose2d_groups_dilation",
        lambda L, x, w, b: F(L).conv_transpose2d(x, w, b, (2, 1), (1, 0), (1, 0), 2, (1, 2)),
        (1, 4, 3, 4),
        (4, 3, 2, 3),
        (6,),
    ),
    op(
        "conv_transpose2d_output_padding_by_dilation",  # stride 1: the extra row has no input
        lambda L, x, w: F(L).conv_transpose2d(x, w, output_padding=1, dilation=2),
        (1, 2, 3, 3),
        (2, 2, 2, 2),
    ),
    op(
        "conv_transpose2d_unbatched",
        lambda L, x, w: F(L).conv_transpose2d(x, w, stride=2),
        (2, 3, 3),
        (2, 1, 2, 2),
    ),
]

POOL = [
    op("max_pool2d", lambda L, x: F(L).max_pool2d(x, 2), (2, 3, 6, 6)),
    op("max_pool2d_stride", lambda L, x: F(L).max_pool2d(x, 3, stride=1), (1, 2, 5, 5)),
    op("max_pool2d_padding", lambda L, x: F(L).max_pool2d(x, 3, stride=2, padding=1), (1, 2, 5, 6)),
    op("max_pool2d_odd", lambda L, x: F(L).max_pool2d(x, 2), (1, 1, 5, 7)),
    op("max_pool2d_unbatched", lambda L, x: F(L).max_pool2d(x, 2), (3, 4, 4)),
    op("max_pool2d_overlap", lambda L, x: F(L).max_pool2d(x, (2, 2), stride=(1, 1)), (1, 2, 4, 4)),
    op("max_pool2d_ceil", lambda L, x: F(L).max_pool2d(x, 2, ceil_mode=True), (1, 2, 5, 5)),
    op(
        "max_pool2d_ceil_padding",
        lambda L, x: F(L).max_pool2d(x, 3, 2, 1, ceil_mode=True),
        (2, 1, 6, 7),
    ),
    op("max_pool2d_dilation", lambda L, x: F(L).max_pool2d(x, 2, 1, 1, 2), (1, 2, 6, 6)),
    op(
        "max_pool2d_rectangular",
        lambda L, x: F(L).max_pool2d(x, (2, 3), (1, 2), (1, 0), (2, 1)),
        (1, 2, 6, 7),
    ),
]

LOSSES = [
    op("mse_loss", lambda L, x, y: F(L).mse_loss(x, y), (3, 4), (3, 4)),
    op("mse_loss_sum", lambda L, x, y: F(L).mse_loss(x, y, reduction="sum"), (5,), (5,)),
    op("mse_loss_none", lambda L, x, y: F(L).mse_loss(x, y, reduction="none"), (2, 3), (2, 3)),
    op("mse_loss_0dim", lambda L, x, y: F(L).mse_loss(x, y), (), ()),
    op("cross_entropy", lambda L, x: F(L).cross_entropy(x, targets(L, 0, 2, 1)), (3, 4)),
    op(
        "cross_entropy_sum",
        lambda L, x: F(L).cross_entropy(x, targets(L, 3, 3), reduction="sum"),
        (2, 4),
    ),
    op(
        "cross_entropy_none",
        lambda L, x: F(L).cross_entropy(x, targets(L, 1, 0, 2), reduction="none"),
        (3, 3),
    ),
    op("cross_entropy_ignore", lambda L, x: F(L).cross_entropy(x, targets(L, 1, -100, 0)), (3, 4)),
    op(
        "cross_entropy_ignore_index",
        lambda L, x: F(L).cross_entropy(x, targets(L, 1, 2, 0), ignore_index=2),
        (3, 4),
    ),
    op("cross_entropy_unbatched", lambda L, x: F(L).cross_entropy(x, L.tensor(2)), (5,)),
    op(
        "cross_entropy_probabilities",
        lambda L, x, p: F(L).cross_entropy(x, p.softmax(1)),
        (3, 4),
        (3, 4),
    ),
    op(
        "cross_entropy_probabilities_sum",
        lambda L, x, p: F(L).cross_entropy(x, p.softmax(1), reduction="sum"),
        (3, 4),
        (3, 4),
    ),
    op(
        "cross_entropy_probabilities_none",
        lambda L, x, p: F(L).cross_entropy(x, p.softmax(1), reduction="none"),
        (3, 4),
        (3, 4),
    ),
    op("nll_loss", lambda L, x: F(L).nll_loss(x.log_softmax(1), targets(L, 0, 2, 1)), (3, 4)),
    op("nll_loss_raw", lambda L, x: F(L).nll_loss(x, targets(L, 2, 0)), (2, 3)),
    op("nll_loss_sum", lambda L, x: F(L).nll_loss(x, targets(L, 2, 0, 2), reduction="sum"), (3, 3)),
    op("nll_loss_none", lambda L, x: F(L).nll_loss(x, targets(L, 1, 1), reduction="none"), (2, 3)),
    op("nll_loss_ignore", lambda L, x: F(L).nll_loss(x, targets(L, 1, -100)), (2, 3)),
    op("nll_loss_unbatched", lambda L, x: F(L).nll_loss(x, L.tensor(0)), (4,)),
]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("case", CONV + CONV_TRANSPOSE + POOL + LOSSES)
def test_nn_op_matches_torch(case: Op, dtype: str, request: pytest.FixtureRequest) -> None:
    check_op(case, dtype, request.node.name)


def test_max_pool2d_ties_and_indices() -> None:
    """Equal values in a window: the gradient goes to the first maximum, like PyTorch."""

    def fn(L: ModuleType) -> Any:
        x = L.tensor(
            [
                [
                    [
                        [1.0, 1.0, 0.0, 2.0],
                        [1.0, 0.5, 2.0, 2.0],
                        [3.0, 3.0, 1.0, 1.0],
                        [3.0, 3.0, 1.0, 1.0],
                    ]
                ]
            ],
            requires_grad=True,
        )
        out, idx = F(L).max_pool2d(x, 2, return_indices=True)
        out.sum().backward()
        return out, idx, x.grad

    assert_same_outcome(fn)


def test_cross_entropy_all_ignored_is_nan() -> None:
    def fn(L: ModuleType) -> Any:
        x = L.tensor([[0.5, 1.0], [2.0, -1.0]], requires_grad=True)
        loss = F(L).cross_entropy(x, targets(L, -100, -100))
        loss.backward()
        return loss, x.grad

    assert_same_outcome(fn)


def test_mse_loss_broadcast_warns_like_torch() -> None:
    def fn(L: ModuleType) -> Any:
        x = L.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            loss = F(L).mse_loss(x, L.tensor([1.0, 0.0, 2.0]))
        loss.backward()
        return loss, x.grad, [str(w.category.__name__) for w in caught]

    assert_same_outcome(fn)
