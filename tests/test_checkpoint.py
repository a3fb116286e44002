"""utils.checkpoint: the block runs twice (forward, then recompute in backward), gradients equal
the plain run's, and the graph keeps only the checkpoint node and its inputs.

Snippets run on torch and minigrad (tests/parity.py); minigrad-only tests look at the graph.
"""

from __future__ import annotations

import functools
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from parity import Recorder, assert_same
from test_nn import fill_fixed, fixed

pytest.importorskip("torch")


def block_and_calls(torch: ModuleType) -> tuple[Any, list[int]]:
    """A small MLP block that counts how often it runs."""
    layers = fill_fixed(
        torch, torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
    )
    calls: list[int] = []

    def block(x: Any) -> Any:
        calls.append(1)
        return layers(x).sigmoid()

    block.layers = layers  # type: ignore[attr-defined]
    return block, calls


def snip_recompute(torch: ModuleType, out: Recorder, use_reentrant: bool) -> None:
    checkpoint = torch.utils.checkpoint.checkpoint
    block, calls = block_and_calls(torch)
    x = fixed(torch, 2, 3, scale=2.0).requires_grad_()
    y = checkpoint(block, x, use_reentrant=use_reentrant)
    out("calls after forward", len(calls))
    out("output", (y, y.requires_grad))
    (y * fixed(torch, 2, 2)).sum().backward()
    out("calls after backward", len(calls))
    out("grads", (x.grad, [p.grad for p in block.layers.parameters()]))
    x2 = x.detach().clone().requires_grad_()
    block.layers.zero_grad()
    (block(x2) * fixed(torch, 2, 2)).sum().backward()
    out("plain grads", (x2.grad, [p.grad for p in block.layers.parameters()]))


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_block_runs_twice_and_gradients_match(use_reentrant: bool) -> None:
    assert_same(functools.partial(snip_recompute, use_reentrant=use_reentrant))


def snip_use_reentrant_omitted(torch: ModuleType, out: Recorder) -> None:
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with out.warns("warning"):
        y = torch.utils.checkpoint.checkpoint(lambda t: t.sin() * 2, x)
    out("reentrant variant", y.grad_fn.name())
    y.sum().backward()
    out("x.grad", x.grad)
    with out.raises("keyword arguments with the reentrant variant"):
        torch.utils.checkpoint.checkpoint(lambda t, k: t * k, x, use_reentrant=True, k=2)
    out(
        "keyword arguments without it",
        torch.utils.checkpoint.checkpoint(lambda t, k: t * k, x, use_reentrant=False, k=2),
    )


def test_use_reentrant_omitted_warns_and_means_true() -> None:
    assert_same(snip_use_reentrant_omitted)


def snip_inputs_without_grad(torch: ModuleType, out: Recorder, use_reentrant: bool) -> None:
    block, calls = block_and_calls(torch)
    x = fixed(torch, 2, 3)
    with out.warns("warnings"):
        y = torch.utils.checkpoint.checkpoint(block, x, use_reentrant=use_reentrant)
    out("output requires grad", y.requires_grad)
    if y.requires_grad:
        y.sum().backward()
    out("parameter grads", [p.grad for p in block.layers.parameters()])
    out("calls", len(calls))


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_parameters_inside_need_the_non_reentrant_variant(use_reentrant: bool) -> None:
    assert_same(functools.partial(snip_inputs_without_grad, use_reentrant=use_reentrant))


def snip_graph_shape(torch: ModuleType, out: Recorder) -> None:
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = torch.utils.checkpoint.checkpoint(lambda t: (t.sin() * 2).tanh(), x, use_reentrant=True)
    node = y.grad_fn
    out("node", node.name())
    out("its only edge", [(type(n).__name__, nr) for n, nr in node.next_functions])
    out("edge leads to x", node.next_functions[0][0].variable is x)


def test_reentrant_graph_is_a_single_node() -> None:
    assert_same(snip_graph_shape)


def snip_modified_input(torch: ModuleType, out: Recorder) -> None:
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    h = x * 1
    y = torch.utils.checkpoint.checkpoint(lambda t: t.exp(), h, use_reentrant=True)
    h.add_(1)
    with out.raises("backward after the input changed"):
        y.sum().backward()


def test_input_modified_in_place_is_detected() -> None:
    assert_same(snip_modified_input)


def snip_no_grad_and_autograd_grad(torch: ModuleType, out: Recorder) -> None:
    checkpoint = torch.utils.checkpoint.checkpoint
    x = torch.tensor([0.5, -1.0], requires_grad=True)
    with torch.no_grad():
        y = checkpoint(lambda t: t * t, x, use_reentrant=False)
    out("under no_grad", (y, y.requires_grad))
    y = checkpoint(lambda t: (t * t, t.exp()), x, use_reentrant=False)
    out("tuple output", y)
    out("autograd.grad", torch.autograd.grad(y[0].sum() + y[1].sum(), x))


def test_no_grad_tuple_outputs_and_autograd_grad() -> None:
    assert_same(snip_no_grad_and_autograd_grad)


def snip_sequential(torch: ModuleType, out: Recorder, use_reentrant: bool) -> None:
    model = fill_fixed(
        torch,
        torch.nn.Sequential(
            torch.nn.Linear(3, 4),
            torch.nn.ReLU(),
            torch.nn.Linear(4, 4),
            torch.nn.Tanh(),
            torch.nn.Linear(4, 1),
        ),
    )
    x = fixed(torch, 2, 3).requires_grad_()
    y = torch.utils.checkpoint.checkpoint_sequential(model, 2, x, use_reentrant=use_reentrant)
    out("output", y)
    y.sum().backward()
    out("grads", (x.grad, [p.grad for p in model.parameters()]))


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_checkpoint_sequential(use_reentrant: bool) -> None:
    assert_same(functools.partial(snip_sequential, use_reentrant=use_reentrant))


# ---------------------------------------------------------------- minigrad only


def graph_nodes(y: Any) -> list[str]:
    """Names of every node reachable from y.grad_fn."""
    seen, stack, names = set(), [y.grad_fn], []
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        names.append(node.name())
        stack.extend(n for n, _ in node.next_functions)
    return names


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_graph_holds_no_intermediate_activations(use_reentrant: bool) -> None:
    import minigrad

    block, _ = block_and_calls(minigrad)
    x = minigrad.ones(2, 3, requires_grad=True)
    y = minigrad.utils.checkpoint.checkpoint(block, x, use_reentrant=use_reentrant)
    names = graph_nodes(y)
    assert names[0] in ("CheckpointFunctionBackward", "CheckpointWithoutReentrantBackward")
    # x, and for use_reentrant=False the parameters ('torch::autograd::AccumulateGrad')
    assert all(name.endswith("AccumulateGrad") for name in names[1:])
    assert [t is x for t in y.grad_fn.saved_tensors] == [True]  # the input, nothing else


def test_non_reentrant_edges_reach_outer_graph() -> None:
    """Tensors from before the block (here `scale`, a non-leaf) get their gradient through the
    checkpoint node, and nothing is counted twice."""
    import minigrad

    w = minigrad.tensor([2.0, 3.0], requires_grad=True)
    scale = w * 2
    x = minigrad.tensor([1.0, -1.0], requires_grad=True)
    y = minigrad.utils.checkpoint.checkpoint(
        lambda t: (t * scale).sum() * scale[0], x, use_reentrant=False
    )
    y.backward()
    # y = (x . 2w) * 2w0: dy/dx = 4 w w0; dy/dw = 4 x w0 + e0 * 2 (x . 2w)
    assert x.grad.tolist() == [16.0, 24.0]
    assert w.grad.tolist() == [8.0 + 2 * -2.0, -8.0]


def test_rng_state_is_replayed_for_the_recompute() -> None:
    """Dropout inside the block draws the same mask twice, so gradients match the plain run."""
    import minigrad

    F = minigrad.nn.functional

    def block(t: Any) -> Any:
        return F.dropout(t, 0.5) * 3

    x = minigrad.ones(50, requires_grad=True)
    minigrad.manual_seed(1)
    y = minigrad.utils.checkpoint.checkpoint(block, x, use_reentrant=True)
    y.sum().backward()
    assert np.array_equal(x.grad._data, y._data)  # d(mask * 3x / 0.5) / dx equals y at x = 1
    x.grad = None
    minigrad.manual_seed(1)
    z = minigrad.utils.checkpoint.checkpoint(block, x, use_reentrant=True, preserve_rng_state=False)
    z.sum().backward()
    assert not np.array_equal(x.grad._data, z._data)  # a fresh mask in the recompute
