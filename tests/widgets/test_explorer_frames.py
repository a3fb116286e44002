"""Frames are the engine's records, one for one, naming model ids; torch passes are observed
into the same records; the panel texts are computed here, in Python."""

from __future__ import annotations

import numpy as np
import pytest
from explorer_graphs import abc, lib, libraries

import minigrad as mg
from minigrad.autograd import record_steps
from widgets import record_backward, record_forward
from widgets.frames import make_frames
from widgets.walk import GraphBuilder


def test_frames_equal_the_engines_records():
    a, b, y = abc(mg)
    builder = GraphBuilder(names={"a": a, "b": b})
    builder.add_roots([y])
    with record_steps() as steps:
        y.backward()
    records = steps.records
    frames = make_frames(records, builder)
    ids = builder.node_id
    assert [f["kind"] for f in frames] == [r["kind"] for r in records]
    for rec, frame in zip(records, frames, strict=True):
        node = rec.get("node", rec.get("target"))
        if node is not None:
            assert frame["node"] == ids[node]
        if rec["kind"] == "backward_start":
            assert frame["deps"] == {ids[n]: c for n, c in rec["dependencies"].items()}
        if rec["kind"] in ("ready", "node_start"):
            assert frame["queue"] == [ids[n] for n in rec["queue"]]
        if rec["kind"] == "edge":
            edge = builder.graph.edges[frame["edge"]]
            source = ids[rec["source"]] if rec["source"] is not None else None
            assert (edge.target, edge.slot) == (ids[rec["target"]], rec["slot"])
            assert edge.source == source or (source is None and edge.kind == "output")
            np.testing.assert_array_equal(frame["values"], rec["grad"])
        if rec["kind"] == "accumulate":
            assert frame["leaf"]["id"] == builder.tensor_id[rec["variable"]]
            np.testing.assert_array_equal(frame["values"], rec["after"])
        if rec["kind"] == "freed":
            assert frame["freed"] == [
                builder.saved_id[(rec["node"], n)]
                for n in rec["saved"]
                if (rec["node"], n) in builder.saved_id
            ]
    texts = [f["text"] for f in frames if f["kind"] in ("edge", "buffer_sum", "accumulate")]
    assert "the seed → SumBackward0: gradient 1." in texts
    assert "AccumulateGrad(a) sums its inputs: [2., 2.] + [3., 4.] = [5., 6.]" in texts
    assert "a.grad: None + [5., 6.] → [5., 6.]" in texts


@pytest.mark.parametrize("name", libraries())
def test_recorded_backward_runs_nodes_in_the_engines_order_and_fills_grads(name):
    torch = lib(name)
    a, b, y = abc(torch)
    with record_backward(y, names={"a": a, "b": b}) as trace:
        y.backward()
    frames = trace.frames()
    assert frames[0]["kind"] == "backward_start" and frames[-1]["kind"] == "backward_end"
    started = [f["node"] for f in frames if f["kind"] == "node_start"]
    # newest node first, AccumulateGrads as soon as ready: the same order in both engines
    assert started == ["n1", "n2", "n4", "n3", "n7", "n9"]
    leaves = [(f["leaf"]["name"], f["leaf"]["after"]) for f in frames if f["kind"] == "accumulate"]
    assert leaves == [("a", "[5., 6.]"), ("b", "[1., 2.]")]
    assert [f["text"] for f in frames if f["kind"] == "buffer_sum"] == [
        "AccumulateGrad(a) sums its inputs: [2., 2.] + [3., 4.] = [5., 6.]"
    ]
    freed = sorted(i for f in frames if f["kind"] == "freed" for i in f["freed"])
    assert freed == ["n11", "n5", "n6"]
    assert frames[0]["deps"] == {"n1": 1, "n2": 1, "n3": 1, "n4": 1, "n7": 2, "n9": 1}


@pytest.mark.parametrize("name", libraries())
def test_second_backward_without_retain_graph_ends_on_an_error_frame(name):
    torch = lib(name)
    a, b, y = abc(torch)
    with record_backward(y, names={"a": a}, catch=True) as trace:
        y.backward(retain_graph=True)
        y.backward()
        y.backward()
    assert isinstance(trace.error, RuntimeError)
    frames = trace.frames()
    assert [f["pass"] for f in frames if f["kind"] == "backward_start"] == [1, 2, 3]
    last = frames[-1]
    assert last["kind"] == "error" and last["node"] == "n4"
    assert "Trying to backward through the graph a second time" in last["error"]
    accumulated = [
        f["leaf"]["after"] for f in frames if f["kind"] == "accumulate" and f["leaf"]["name"] == "a"
    ]
    assert accumulated == ["[5., 6.]", "[10., 12.]"]
    assert a.grad.tolist() == [10.0, 12.0]


def test_without_catch_the_error_propagates_and_is_still_recorded():
    a, b, y = abc(mg)
    y.backward()
    with pytest.raises(RuntimeError, match="second time"), record_backward(y) as trace:
        y.backward()
    assert trace.records[-1]["kind"] == "error"


def test_hooks_show_what_they_saw_and_returned():
    x = mg.tensor([1.0, -1.0], requires_grad=True)
    h = x * 3

    def double(grad):
        return grad * 2

    def look(grad_outputs):
        return None

    h.register_hook(double)
    z = (h**2).sum()
    z.grad_fn.register_prehook(look)
    with record_backward(z, names={"x": x, "h": h}) as trace:
        z.backward()
    hooks = [f["hook"] for f in trace.frames() if f["kind"] == "hook"]
    assert [h["text"] for h in hooks] == [
        "pre-hook look on SumBackward0: saw grad_outputs 1., returned None (gradient unchanged)",
        "tensor hook double on h: saw [6., -6.], returned [12., -12.]",
    ]
    h_id = trace.builder.tensor_id[h]
    assert [(k["kind"], k["owner"], k["target"]) for k in hooks] == [
        ("pre", "SumBackward0", trace.builder.node_id[z.grad_fn]),
        ("tensor", "h", h_id),
    ]
    assert x.grad.tolist() == [36.0, -36.0]


def test_forward_frames_grow_the_graph_op_by_op():
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    b = mg.tensor([3.0, 4.0], requires_grad=True)
    with record_forward(names={"a": a, "b": b}) as fwd:
        y = (a * b + a * 2).sum()
    frames = fwd.frames()
    assert [f["node"] for f in frames] == ["n3", "n4", "n2", "n1"]  # creation order
    assert (
        frames[0]["text"]
        == "forward: MulBackward0 #0 created, output [2] from a [2], b [2] = [3., 8.]"
    )
    assert frames[1]["text"].endswith("from a [2], constant [] = [2., 4.]")
    assert all(len(set(f["show"])) == len(f["show"]) for f in frames)
    assert frames[1]["show"][:5] == ["n4", "e11", "n7", "e6", "n8"]  # the op and the a it uses
    shown = {i for f in frames for i in f["show"]}
    assert shown == set(fwd.graph.nodes) | set(fwd.graph.edges)
    assert fwd.outputs() == [y]


@pytest.mark.parametrize("name", libraries())
def test_forward_records_have_the_same_shape_in_both_libraries(name):
    torch = lib(name)
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0], requires_grad=True)
    with record_forward(names={"a": a, "b": b}) as fwd:
        (a * b + a * 2).sum()
    assert [(r["kind"], r["name"], tuple(r["shape"])) for r in fwd.records] == [
        ("node_created", "MulBackward0", (2,)),
        ("node_created", "MulBackward0", (2,)),
        ("node_created", "AddBackward0", (2,)),
        ("node_created", "SumBackward0", ()),
    ]
    assert fwd.graph.summary().startswith("13 nodes, 13 edges")


def test_create_graph_backward_draws_the_higher_order_graph_as_it_is_created():
    x = mg.tensor([2.0], requires_grad=True)
    cube = (x**3).sum()
    with record_backward(cube, names={"x": x, "cube": cube}) as trace:
        cube.backward(create_graph=True)
    names = [n.name for n in trace.graph.nodes.values() if n.kind == "tensor"]
    assert names == ["cube", "x.grad"]
    frames = trace.frames()
    created = [f for f in frames if f["kind"] == "node_created"]
    assert created and all(f["text"].startswith("backward with create_graph: ") for f in created)
    grad_node = next(n.id for n in trace.graph.nodes.values() if n.name == "x.grad")
    assert any(grad_node in f["show"] for f in created)


def test_torch_hooks_record_every_kind_and_are_removed_after_the_block():
    torch = pytest.importorskip("torch")
    a, b, y = abc(torch)
    with record_backward(y) as trace:
        y.backward(retain_graph=True)
    kinds = {r["kind"] for r in trace.records}
    assert kinds == {
        "backward_start",
        "edge",
        "ready",
        "node_start",
        "node_run",
        "buffer_sum",
        "accumulate",
        "backward_end",
    }  # retain_graph: nothing freed
    recorded = len(trace.records)
    y.backward()  # outside the block: no hook left to record it
    assert len(trace.records) == recorded
    assert a.grad.tolist() == [10.0, 12.0]
