"""The graph model: nodes, kinds, edges and walk-order ids of known graphs, minigrad and torch."""

from __future__ import annotations

import sys

import pytest
from explorer_graphs import abc, lib, libraries, recorded_mlp

import minigrad as mg
from widgets import draw_graph
from widgets.walk import GraphBuilder

# (id, kind, name, shape) in walk order for y = (a * b + a * 2).sum(), breadth first from y
ABC_NODES = [
    ("n0", "tensor", "y", ()),
    ("n1", "backward", "SumBackward0", ()),
    ("n2", "backward", "AddBackward0", (2,)),
    ("n3", "backward", "MulBackward0", (2,)),  # a * b
    ("n4", "backward", "MulBackward0", (2,)),  # a * 2
    ("n5", "saved", "other", (2,)),  # a * b saves b ...
    ("n6", "saved", "self", (2,)),  # ... and a
    ("n7", "accumulate", "AccumulateGrad", (2,)),
    ("n8", "leaf", "a", (2,)),
    ("n9", "accumulate", "AccumulateGrad", (2,)),
    ("n10", "leaf", "b", (2,)),
    ("n11", "saved", "other", ()),  # a * 2 saves the 2
    ("n12", "constant", "constant", None),  # the 2 (minigrad knows its shape: see below)
]
ABC_EDGES = [
    ("e0", "n0", "n1", "output"),
    ("e1", "n1", "n2", "grad"),
    ("e2", "n2", "n3", "grad"),
    ("e3", "n2", "n4", "grad"),
    ("e4", "n5", "n3", "saved"),
    ("e5", "n6", "n3", "saved"),
    ("e6", "n7", "n8", "accumulate"),
    ("e7", "n3", "n7", "grad"),
    ("e8", "n9", "n10", "accumulate"),
    ("e9", "n3", "n9", "grad"),
    ("e10", "n11", "n4", "saved"),
    ("e11", "n4", "n7", "grad"),
    ("e12", "n4", "n12", "constant"),
]


def nodes_of(graph) -> list[tuple]:
    return [(n.id, n.kind, n.name, n.shape) for n in graph.nodes.values()]


def edges_of(graph) -> list[tuple]:
    return [(e.id, e.source, e.target, e.kind) for e in graph.edges.values()]


@pytest.mark.parametrize("name", libraries())
def test_known_graph_nodes_kinds_edges_and_ids(name):
    torch = lib(name)
    a, b, y = abc(torch)
    graph = GraphBuilder(names={"a": a, "b": b, "y": y}).add_roots([y])
    expected = list(ABC_NODES)
    if name == "minigrad":  # minigrad keeps each input's shape, so it knows the constant's
        expected[-1] = ("n12", "constant", "constant", ())
    assert nodes_of(graph) == expected
    assert edges_of(graph) == ABC_EDGES
    assert graph.nodes["n8"].values == "[1., 2.]"
    assert graph.nodes["n0"].values == "17."
    assert graph.summary() == (
        "13 nodes, 13 edges: 1 non-leaf tensor, 2 leaves requiring grad, 1 constant leaf, "
        "4 backward nodes, 2 AccumulateGrad, 3 saved tensors"
    )


@pytest.mark.parametrize("name", libraries())
def test_saved_tensors_show_as_freed_after_backward_and_grads_as_values(name):
    torch = lib(name)
    a, b, y = abc(torch)
    y.backward()
    graph = GraphBuilder(names={"a": a, "b": b}).add_roots([y])
    saved = [n for n in graph.nodes.values() if n.kind == "saved"]
    assert saved and all(n.freed for n in saved)
    if name == "torch":  # minigrad forgets after freeing which slots held tensors (4 listed)
        assert len(saved) == 3
    leaves = {n.name: n.grad for n in graph.nodes.values() if n.kind == "leaf"}
    assert leaves == {"a": "[5., 6.]", "b": "[1., 2.]"}


def test_ids_are_stable_across_runs_and_independent_of_object_identity():
    sources = []
    for _ in range(3):
        a, b, y = abc(mg)
        view = draw_graph(y, names={"a": a, "b": b})
        sources.append(view.source())
    assert sources[0] == sources[1] == sources[2]
    assert "0x" not in sources[0]


def test_walk_is_iterative_on_a_deep_graph():
    x = mg.tensor([1.0], requires_grad=True)
    h = x
    for _ in range(3000):
        h = h * 1.0
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(200)
    try:
        graph = GraphBuilder(saved=False).add_roots([h.sum()])
    finally:
        sys.setrecursionlimit(limit)
    assert graph.counts()["backward"] == 3001
    assert list(graph.nodes)[-1] == f"n{len(graph.nodes) - 1}"


def test_several_roots_share_one_picture_and_named_intermediates_get_a_node():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    h = x.exp()
    p, q = (h * 2).sum(), (h + 1).sum()
    graph = GraphBuilder(names={"x": x, "h": h, "p": p, "q": q}).add_roots([p, q])
    tensors = [n.name for n in graph.nodes.values() if n.kind == "tensor"]
    assert tensors == ["p", "q", "h"]
    exp_nodes = [n for n in graph.nodes.values() if n.name == "ExpBackward0"]
    assert len(exp_nodes) == 1  # reached from both roots, drawn once
    h_id = next(n.id for n in graph.nodes.values() if n.name == "h")
    assert [(e.target, e.kind) for e in graph.edges.values() if e.source == h_id] == [
        (exp_nodes[0].id, "output")
    ]


def test_tensor_name_attribute_labels_a_leaf():
    w = mg.tensor([1.0], requires_grad=True)
    w.name = "weight"
    graph = GraphBuilder().add_roots([(w * 3).sum()])
    assert [n.name for n in graph.nodes.values() if n.kind == "leaf"] == ["weight"]


@pytest.mark.parametrize("name", libraries())
def test_module_parameters_name_leaves_and_forward_hooks_assign_modules(name):
    fwd, loss = recorded_mlp(lib(name))
    leaves = [(n.name, n.module) for n in fwd.graph.nodes.values() if n.kind == "leaf"]
    assert sorted(leaves) == [
        ("0.bias", "0"),
        ("0.weight", "0"),
        ("2.bias", "2"),
        ("2.weight", "2"),
    ]
    by_module = {}
    for n in fwd.graph.nodes.values():
        if n.kind == "backward":
            by_module.setdefault(n.module, []).append(n.name)
    assert by_module[None] == ["MeanBackward0", "PowBackward0"]  # after the model: outside it
    assert by_module["1"] == ["TanhBackward0"]
    assert sorted(by_module["0"]) == sorted(by_module["2"]) == ["AddmmBackward0", "TBackward0"]
    assert fwd.outputs() == [loss]
