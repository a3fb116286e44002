"""Step texts say when and where a node made during backward was made, and which pass a nested
(inner) backward pass is: a checkpoint recomputing its block in a pass without create_graph, a
reentrant checkpoint running a pass of its own inside its node."""

from __future__ import annotations

import pytest

import minigrad as mg
from minigrad.utils.checkpoint import checkpoint
from widgets import record_backward


def checkpointed(reentrant: bool) -> record_backward:
    mg.manual_seed(0)
    x = mg.randn(3, requires_grad=True)
    w = mg.randn(3, requires_grad=True)
    loss = checkpoint(lambda h: (h.sin() * h).exp(), x * w, use_reentrant=reentrant).sum()
    with record_backward(loss, names={"x": x, "w": w}) as trace:
        loss.backward()
    return trace


def texts(frames: list[dict], *kinds: str) -> list[str]:
    return [f["text"] for f in frames if f["kind"] in kinds]


@pytest.mark.parametrize(
    ("reentrant", "node"),
    [(True, "CheckpointFunctionBackward"), (False, "CheckpointWithoutReentrantBackward")],
)
def test_a_recomputed_block_is_made_inside_its_node_not_by_create_graph(reentrant, node):
    trace = checkpointed(reentrant)
    made = texts(trace.frames(), "node_created")
    assert [t.split(": ")[1].split(" created")[0] for t in made] == [
        "SinBackward0",
        "MulBackward0",
        "ExpBackward0",
    ]
    assert all(t.startswith(f"during backward #1, inside {node} (not the forward): ") for t in made)
    zh = texts(trace.frames("zh"), "node_created")
    assert all(t.startswith(f"第 1 次反向传播中，在 {node} 内部（不是前向）：") for t in zh)


def test_a_reentrant_checkpoints_inner_pass_is_named_and_the_outer_one_ends_last():
    frames = checkpointed(reentrant=True).frames()
    assert texts(frames, "backward_start", "backward_end") == [
        "backward #1 from SumBackward0, retain_graph=False: 5 nodes wait for gradients",
        "backward #2 from ExpBackward0, retain_graph=False, an inner backward pass inside "
        "CheckpointFunctionBackward: 4 nodes wait for gradients (4 of them not drawn)",
        "inner backward #2 finished: backward #1 goes on",
        "backward #1 finished",
    ]
    inner_end = next(i for i, f in enumerate(frames) if f["kind"] == "backward_end")
    assert {f["pass"] for f in frames[inner_end + 1 :]} == {1}
    # the outer pass's counts go on: its MulBackward0 waits for the checkpoint's gradient
    after = [f for f in frames[inner_end + 1 :] if f["kind"] == "edge" and f.get("deps")]
    assert after and all(list(f["deps"].values()) == [0] for f in after)
    zh = texts(checkpointed(reentrant=True).frames("zh"), "backward_start", "backward_end")
    assert zh[1:] == [
        "第 2 次反向传播，从 ExpBackward0 开始，retain_graph=False，CheckpointFunctionBackward "
        "内部的一次内层反向传播：4 个节点在等待梯度（其中 4 个图中未画出）",
        "内层的第 2 次反向传播结束：第 1 次反向传播继续",
        "第 1 次反向传播结束",
    ]


def test_create_graph_nodes_keep_their_words_and_code_between_passes_is_forward():
    x = mg.tensor([2.0], requires_grad=True)
    cube = (x**3).sum()
    with record_backward(cube, names={"x": x}) as trace:
        (g,) = mg.autograd.grad(cube, x, create_graph=True)
        g.sum().backward()
    made = texts(trace.frames(), "node_created")
    assert made[0].startswith("backward with create_graph: PowBackward0")
    assert made[-1].startswith("forward: SumBackward0")
    ends = texts(trace.frames(), "backward_end")
    assert ends == ["backward #1 finished", "backward #2 finished"]
