"""Shape ops: reshape, view, transpose, permute, unsqueeze, squeeze, expand, expand_as, t, .T,
flatten, cat, stack, clone; values, gradients, graphs (views vs copies) against PyTorch."""

from __future__ import annotations

import warnings
from types import ModuleType
from typing import Any

import pytest

from ._support import FLOATS, Op, assert_same_outcome, check_op, graph_of, op

S = (2, 3, 4)

CASES = [
    op("reshape_flat", lambda L, a: a.reshape(-1), S),
    op("reshape_infer", lambda L, a: a.reshape(4, -1), S),
    op("reshape_tuple", lambda L, a: a.reshape((3, 2, 2, 2)), (4, 6)),
    op("reshape_function", lambda L, a: L.reshape(a, (6, 4)), S),
    op("reshape_0dim", lambda L, a: a.reshape(1, 1), ()),
    op("reshape_to_0dim", lambda L, a: a.reshape(()), (1,)),
    op("reshape_transposed_copy", lambda L, a: a.t().reshape(-1), (3, 4)),
    op("reshape_transposed_alias", lambda L, a: a.t().reshape(4, 3, 1), (3, 4)),
    op("reshape_same_shape_strided", lambda L, a: a.t().reshape(4, 3), (3, 4)),
    op("reshape_sliced", lambda L, a: a[::2].reshape(2, 2, 2), (3, 4)),
    op("view", lambda L, a: a.view(6, 4), S),
    op("view_infer", lambda L, a: a.view(-1, 2), S),
    op("view_of_transposed", lambda L, a: a.t().view(4, 3, 1), (3, 4)),
    op("view_as", lambda L, a, b: a.view_as(b), (2, 6), (3, 4)),
    op("reshape_as", lambda L, a, b: a.reshape_as(b) * b, (2, 6), (3, 4)),
    op("transpose", lambda L, a: a.transpose(0, 2), S),
    op("transpose_negative", lambda L, a: a.transpose(-1, -2), S),
    op("transpose_same", lambda L, a: a.transpose(1, 1), S),
    op("transpose_function", lambda L, a: L.transpose(a, 0, 1), (3, 4)),
    op("permute", lambda L, a: a.permute(2, 0, 1), S),
    op("permute_tuple", lambda L, a: a.permute((1, 2, 0)), S),
    op("permute_negative", lambda L, a: a.permute(-1, 0, -2), S),
    op("permute_function", lambda L, a: L.permute(a, (1, 0)), (3, 4)),
    op("unsqueeze_front", lambda L, a: a.unsqueeze(0), S),
    op("unsqueeze_back", lambda L, a: a.unsqueeze(-1), S),
    op("unsqueeze_middle", lambda L, a: a.unsqueeze(2), S),
    op("unsqueeze_0dim", lambda L, a: a.unsqueeze(0), ()),
    op("unsqueeze_function", lambda L, a: L.unsqueeze(a, -2), (3, 4)),
    op("squeeze_all", lambda L, a: a.squeeze(), (1, 3, 1, 4)),
    op("squeeze_dim", lambda L, a: a.squeeze(2), (1, 3, 1, 4)),
    op("squeeze_negative", lambda L, a: a.squeeze(-4), (1, 3, 1, 4)),
    op("squeeze_not_one", lambda L, a: a.squeeze(1), (1, 3, 1, 4)),
    op("squeeze_tuple", lambda L, a: a.squeeze((0, 2)), (1, 3, 1, 4)),
    op("squeeze_0dim", lambda L, a: a.squeeze(), ()),
    op("squeeze_function", lambda L, a: L.squeeze(a, 0), (1, 4)),
    op("expand", lambda L, a: a.expand(3, 4), (1, 4)),
    op("expand_keep", lambda L, a: a.expand(-1, 4), (3, 1)),
    op("expand_new_dims", lambda L, a: a.expand(2, 3, 4), (3, 1)),
    op("expand_same", lambda L, a: a.expand(3, 4), (3, 4)),
    op("expand_tuple", lambda L, a: a.expand((2, 5)), ()),
    op("expand_as", lambda L, a, b: a.expand_as(b) * b, (1, 4), (3, 4)),
    op("t_2d", lambda L, a: a.t(), (3, 4)),
    op("t_1d", lambda L, a: a.t(), (4,)),
    op("t_0dim", lambda L, a: a.t(), ()),
    op("t_function", lambda L, a: L.t(a), (3, 4)),
    op("T_2d", lambda L, a: a.T, (3, 4)),
    op("T_1d", lambda L, a: a.T * 2, (4,)),
    op("mT", lambda L, a: a.mT, S),
    op("flatten", lambda L, a: a.flatten(), S),
    op("flatten_start", lambda L, a: a.flatten(1), S),
    op("flatten_range", lambda L, a: a.flatten(0, 1), S),
    op("flatten_negative", lambda L, a: a.flatten(-2, -1), S),
    op("flatten_noop", lambda L, a: a.flatten(1, 1) * 2, S),
    op("flatten_0dim", lambda L, a: a.flatten(), ()),
    op("flatten_transposed", lambda L, a: a.transpose(0, 1).flatten(), S),
    op("flatten_function", lambda L, a: L.flatten(a, 1), S),
    op("clone", lambda L, a: a.clone(), S),
    op("clone_function", lambda L, a: L.clone(a), (3,)),
    op("contiguous", lambda L, a: a.t().contiguous(), (3, 4)),
    op("contiguous_noop", lambda L, a: a.contiguous() * 2, (3, 4)),
    op("cat", lambda L, a, b: L.cat([a, b]), (2, 3), (4, 3)),
    op("cat_dim1", lambda L, a, b, c: L.cat((a, b, c), dim=1), (2, 3), (2, 1), (2, 2)),
    op("cat_negative", lambda L, a, b: L.cat([a, b], -1), S, (2, 3, 2)),
    op("cat_single", lambda L, a: L.cat([a]), (2, 3)),
    op("cat_same_tensor", lambda L, a: L.cat([a, a * 2, a], 0), (2, 3)),
    op("concat", lambda L, a, b: L.concat([a, b], 1), (2, 3), (2, 3)),
    op("stack", lambda L, a, b: L.stack([a, b]), (2, 3), (2, 3)),
    op("stack_dim1", lambda L, a, b, c: L.stack((a, b, c), 1), (2, 3), (2, 3), (2, 3)),
    op("stack_last", lambda L, a, b: L.stack([a, b], dim=-1), (2, 3), (2, 3)),
    op("stack_0dim", lambda L, a, b: L.stack([a, b]), (), ()),
    op("sum_to_size", lambda L, a: a.sum_to_size(1, 4), (3, 4)),
]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("case", CASES)
def test_shape_op_matches_torch(case: Op, dtype: str, request: pytest.FixtureRequest) -> None:
    with warnings.catch_warnings():  # torch deprecates .T on tensors that are not 2-d
        warnings.simplefilter("ignore", UserWarning)
        check_op(case, dtype, request.node.name)


VIEWS = {
    "view": lambda x: x.view(6, 2),
    "reshape": lambda x: x.reshape(2, 6),
    "transpose": lambda x: x.transpose(0, 1),
    "permute": lambda x: x.permute(1, 0),
    "unsqueeze": lambda x: x.unsqueeze(1),
    "squeeze": lambda x: x.unsqueeze(0).squeeze(0),
    "expand": lambda x: x[:1].expand(5, 4),
    "t": lambda x: x.t(),
    "T": lambda x: x.T,
    "flatten": lambda x: x.flatten(),
    "select": lambda x: x.select(1, 2),
    "contiguous": lambda x: x.contiguous(),
}


@pytest.mark.parametrize("name", VIEWS)
def test_views_share_storage_and_version(name: str) -> None:
    """A view sees later writes to its base, and shares its version counter."""

    def fn(L: ModuleType) -> Any:
        x = L.arange(12.0).reshape(3, 4)
        y = VIEWS[name](x)
        before = y._version
        x.add_(100)
        return y, y._version - before, x._version

    assert_same_outcome(fn)


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda L: L.arange(12.0).reshape(3, 4).t().reshape(-1), id="reshape_copy"),
        pytest.param(lambda L: L.arange(12.0).reshape(3, 4).clone(), id="clone"),
        pytest.param(lambda L: L.cat([L.ones(2), L.zeros(2)]), id="cat"),
    ],
)
def test_copies_do_not_share_storage(make: Any) -> None:
    def fn(L: ModuleType) -> Any:
        y = make(L)
        return y, y._version

    assert_same_outcome(fn)


def test_cat_and_stack_graphs_with_constants() -> None:
    """Inputs that do not require grad leave a None edge in the graph."""

    def fn(L: ModuleType) -> Any:
        a = L.ones(2, 3, requires_grad=True)
        b = L.zeros(2, 3)
        c, s = L.cat([b, a, b], 1), L.stack([a, b])
        (c.sum() + (s * 2).sum()).backward()
        return graph_of(c), graph_of(s), a.grad

    assert_same_outcome(fn)
