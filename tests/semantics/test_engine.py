"""The engine itself: execution order against torch's, its records, deep graphs, memory."""

from __future__ import annotations

import gc
import sys
import warnings
import weakref

import numpy as np
import pytest

import minigrad as mg
from minigrad.autograd import record_steps

torch = pytest.importorskip("torch")


def _execution_order(lib, build):
    """Names of the nodes in the order the engine ran them (prehooks on every node)."""
    order: list[str] = []
    loss, leaves = build(lib)
    seen, stack = set(), [loss.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        node.register_prehook(lambda go, n=node: order.append(n.name()) or None)
        stack.extend(n for n, _ in node.next_functions)
    loss.backward()
    return order


def _diamond(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    a = x.exp()
    b = a * 2
    c = a.sin()
    d = b + c
    return (d * x).sum(), [x]


def _mlp(lib):
    x = lib.tensor([[0.5, -1.0, 2.0], [1.0, 0.0, -0.5]])
    w1 = lib.tensor([[0.1, 0.2], [0.3, -0.4], [0.5, 0.6]], requires_grad=True)
    b1 = lib.tensor([0.1, -0.1], requires_grad=True)
    w2 = lib.tensor([[1.0], [-1.0]], requires_grad=True)
    h = (x @ w1 + b1).tanh()
    return ((h @ w2) ** 2).mean(), [w1, b1, w2]


def _shared_leaf(lib):
    w = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
    u = (w * w).sum()
    v = w.relu().sum()
    z = (w.sigmoid() * u).sum()
    return u + v * 2 + z, [w]


@pytest.mark.parametrize("build", [_diamond, _mlp, _shared_leaf])
def test_execution_order_matches_torch(build):
    assert _execution_order(mg, build) == _execution_order(torch, build)


def test_records_tell_the_whole_story():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    with record_steps() as steps:
        y = x * x
        z = y.sum()
        z.backward()
    kinds = steps.kinds()
    assert kinds[:2] == ["node_created", "node_created"]
    start = steps.records[kinds.index("backward_start")]
    deps = {n.name(): c for n, c in start["dependencies"].items()}
    # MulBackward0 feeds AccumulateGrad twice (x is both of its inputs)
    assert deps == {"SumBackward0": 1, "MulBackward0": 1, "torch::autograd::AccumulateGrad": 2}
    runs = [r["node"].name() for r in steps if r["kind"] == "node_run"]
    assert runs == ["SumBackward0", "MulBackward0"]
    sums = [r for r in steps if r["kind"] == "buffer_sum"]
    assert len(sums) == 1 and sums[0]["after"].tolist() == [2.0, 4.0]  # x + x
    acc = next(r for r in steps if r["kind"] == "accumulate")
    assert acc["before"] is None and acc["after"].tolist() == [2.0, 4.0]
    freed = [r for r in steps if r["kind"] == "freed"]
    assert [r["node"].name() for r in freed] == ["MulBackward0"]
    assert freed[0]["saved"] == ["other", "self"]


def test_error_is_recorded_for_a_second_backward():
    x = mg.tensor([1.0], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    with record_steps() as steps, pytest.raises(RuntimeError, match="second time"):
        y.backward()
    err = [r for r in steps if r["kind"] == "error"]
    assert len(err) == 1 and err[0]["node"].name() == "MulBackward0"


def test_no_records_without_observers():
    from minigrad.autograd import observe

    assert observe.LISTENERS == []
    x = mg.tensor([1.0], requires_grad=True)
    (x * 2).sum().backward()
    assert observe.LISTENERS == []


def test_anomaly_mode_shows_the_forward_line():
    x = mg.tensor([0.0, 1.0], requires_grad=True)
    with mg.autograd.set_detect_anomaly(True):
        y = x.sqrt() * 0  # the line that made the NaN
        with (
            warnings.catch_warnings(record=True) as caught,
            pytest.raises(
                RuntimeError, match="'SqrtBackward0' returned nan values in its 0th output"
            ),
        ):
            warnings.simplefilter("always")
            y.sum().backward()
    text = "\n".join(str(w.message) for w in caught)
    assert "Error detected in SqrtBackward0" in text
    assert "y = x.sqrt() * 0" in text


def test_deep_chain_has_no_recursion_limit():
    n = 100_000
    x = mg.tensor([1.0], dtype=mg.float64, requires_grad=True)
    y = x
    for _ in range(n):
        y = y * 1.00001
    limit = sys.getrecursionlimit()
    assert n > limit * 10
    y.backward()
    assert np.isclose(x.grad.item(), 1.00001**n, rtol=1e-3)
    del y  # freeing a 100k-node chain must not overflow the C stack either


def test_backward_releases_everything_it_saved_without_gc():
    gc.disable()
    try:
        x = mg.randn(64, 64, requires_grad=True)
        h = x.exp()
        y = (h * h).tanh()
        refs = [weakref.ref(h), weakref.ref(y._data)]
        loss = y.sum()
        del h, y
        assert all(r() is not None for r in refs)  # held by the graph for backward
        loss.backward()
        assert all(r() is None for r in refs)
        node_ref = weakref.ref(loss.grad_fn)
        del loss
        assert node_ref() is None  # no reference cycles keep the graph alive
    finally:
        gc.enable()


def test_graph_without_backward_has_no_cycles():
    gc.disable()
    try:
        x = mg.randn(8, requires_grad=True)
        y = x.sigmoid() * x.exp()  # sigmoid and exp save their outputs
        refs = [weakref.ref(y.grad_fn), weakref.ref(y)]
        del y
        assert all(r() is None for r in refs)
    finally:
        gc.enable()


def test_a_first_gradient_is_taken_only_when_nothing_else_holds_it():
    """AccumulateGrad keeps a fresh, unshared gradient array as .grad instead of copying it
    (as PyTorch steals it); anything shared must still be copied."""
    w = mg.randn(3, 4, requires_grad=True)
    x = mg.randn(5, 3)
    (x @ w).sum().backward()
    first = w.grad._data
    (x @ w).sum().backward()  # the second gradient adds into the same array, in place
    assert w.grad._data is first
    np.testing.assert_allclose(first, 2 * x._data.sum(0)[:, None] * np.ones((3, 4)), rtol=1e-6)

    b, c = mg.randn(3, requires_grad=True), mg.randn(3, requires_grad=True)
    (b + c).sum().backward()  # one array sent to both leaves
    assert not np.shares_memory(b.grad._data, c.grad._data)
    b.grad += 1
    np.testing.assert_array_equal(c.grad._data, np.ones(3))

    b, c = mg.randn(3, requires_grad=True), mg.randn(3, requires_grad=True)
    ((b + c) * 2).sum().backward()  # a fresh array (g * 2) that AddBackward0 sends both ways
    assert not np.shares_memory(b.grad._data, c.grad._data)
    b.grad += 1
    np.testing.assert_array_equal(c.grad._data, np.full(3, 2.0))

    leaf = mg.randn(3, requires_grad=True)
    seed = mg.ones(3)
    leaf.backward(seed)  # the caller's gradient stays the caller's
    assert not np.shares_memory(leaf.grad._data, seed._data)

    a = mg.randn(3, requires_grad=True)
    h = a * 1.0
    kept = []
    h.register_hook(lambda g: kept.append(g))
    (h + 0).sum().backward()  # a hook saw the array on its way down
    a.grad.zero_()
    np.testing.assert_array_equal(kept[0]._data, np.ones(3))
