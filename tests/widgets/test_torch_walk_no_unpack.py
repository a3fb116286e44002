"""Drawing or recording a torch graph never unpacks a saved tensor: unpacking runs the user's
saved-tensor unpack hook, and under `checkpoint(use_reentrant=False)` recomputes the block. The
explorer reads `_raw_saved_*` instead; a slot under hooks is drawn with its shape unknown."""

from __future__ import annotations

import pytest

from widgets import draw_graph, record_backward

torch = pytest.importorskip("torch")
checkpoint = pytest.importorskip("torch.utils.checkpoint").checkpoint


class Counted:
    """A checkpointed block that counts how often it runs (forward, recomputation, any other)."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, h):
        self.calls += 1
        return (h.sin() * h).exp()


def checkpointed(explore: bool) -> tuple[int, list]:
    """Block runs of one forward + backward through a checkpoint, and the leaves' gradients;
    `explore`: with draw_graph before, and the backward recorded."""
    torch.manual_seed(0)
    x = torch.randn(3, 4, requires_grad=True)
    w = torch.randn(4, 4, requires_grad=True)
    block = Counted()
    loss = checkpoint(block, x @ w, use_reentrant=False).sum()
    if explore:
        draw_graph(loss, names={"x": x, "w": w}).svg()
        with record_backward(loss) as bwd:
            loss.backward()
        bwd.frames()
    else:
        loss.backward()
    return block.calls, [x.grad, w.grad]


def test_checkpoint_block_runs_no_more_with_the_explorer():
    plain_calls, plain_grads = checkpointed(explore=False)
    calls, grads = checkpointed(explore=True)
    assert plain_calls == 2  # the forward, and the recomputation backward asks for
    assert calls == plain_calls
    assert all(torch.equal(a, b) for a, b in zip(grads, plain_grads, strict=True))


def hooked_pass(explore: bool, retain: bool) -> tuple[list[str], object, object]:
    """A graph saved under saved_tensors_hooks: (what the hooks saw, a's gradient, the trace)."""
    seen: list[str] = []

    def pack(t):
        seen.append("pack")
        return t.detach().clone().flatten()  # a packed form with another shape

    def unpack(p):
        seen.append("unpack")
        return p.reshape(2, 3)

    torch.manual_seed(1)
    a = torch.randn(2, 3, requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        loss = (a.sin() * a).sum()
    trace = None
    if explore:
        draw_graph(loss, names={"a": a}).svg()
        with record_backward(loss) as trace:
            loss.backward(retain_graph=retain)
        trace.frames()
        draw_graph(loss, names={"a": a}).svg()  # after the pass too
    else:
        loss.backward(retain_graph=retain)
    return seen, a.grad, trace


@pytest.mark.parametrize("retain", [False, True])
def test_a_users_unpack_hook_runs_only_for_backward(retain):
    plain_seen, plain_grad, _ = hooked_pass(explore=False, retain=retain)
    seen, grad, _ = hooked_pass(explore=True, retain=retain)
    assert plain_seen.count("unpack") == 3  # sin's input, mul's two inputs
    assert seen == plain_seen
    assert torch.equal(grad, plain_grad)


def saved_nodes(view) -> list:
    return [n for n in view.graph.nodes.values() if n.kind == "saved"]


def test_a_hooked_slot_is_drawn_with_its_shape_unknown_and_said_so():
    a = torch.randn(2, 3, requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t.flatten(), lambda p: p):
        loss = a.exp().sum()
    view = draw_graph(loss)
    (slot,) = saved_nodes(view)
    assert (slot.name, slot.shape, slot.hooked, slot.freed) == ("result", None, True, False)
    assert "? (saved through hooks)" in view.source()
    assert "shape unknown (saved through hooks)" in view.tips()[slot.id]
    assert "形状未知（经由钩子保存）" in draw_graph(loss, lang="zh").tips()[slot.id]


def test_freed_hooked_slots_are_reported_freed_without_unpacking():
    seen, _, trace = hooked_pass(explore=True, retain=False)
    freed = [f for f in trace.frames() if f["kind"] == "freed"]
    assert len(freed) == 2 and all(f["freed"] for f in freed)
    a = torch.randn(2, 3, requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda p: p):
        loss = (a * a).sum()
    loss.backward()
    assert [(n.freed, n.hooked) for n in saved_nodes(draw_graph(loss))] == [(True, False)] * 2


def test_slots_without_hooks_keep_their_shapes():
    a = torch.randn(2, 3, requires_grad=True)
    h = a.clone()
    loss = torch.nn.functional.layer_norm(h * h, (3,)).sum()  # weight, bias: None (left out)
    h.add_(1)  # a saved input changed in place: still saved, not freed
    got = {(n.name, n.shape, n.freed, n.hooked) for n in saved_nodes(draw_graph(loss))}
    assert got == {
        ("self", (2, 3), False, False),
        ("other", (2, 3), False, False),
        ("input", (2, 3), False, False),
        ("result1", (2, 1), False, False),
        ("result2", (2, 1), False, False),
    }


def test_a_saved_list_is_not_unpacked_and_is_said_freed_once_freed():
    unpacked = []
    a = torch.randn(4, 3, requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda p: unpacked.append(p) or p):
        loss = a[torch.tensor([0, 2])].sum()  # IndexBackward0 saves a list: `indices`
    draw_graph(loss).svg()
    assert unpacked == []
    with record_backward(loss) as trace:
        loss.backward()
    assert len(unpacked) == 1  # backward's own use
    freed = [f["text"] for f in trace.frames() if f["kind"] == "freed"]
    assert freed == ["IndexBackward0 frees its saved tensors (indices): retain_graph was not set"]
