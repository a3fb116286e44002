"""diff_passes: two recorded backward passes compared, in minigrad and torch. Generated pairs of
small random MLPs (with and without checkpointing, with and without a hook, one graph run twice),
the node-matching rule when ranks shift, gradients compared exactly and with np.allclose, the
static view, the live view's data and its saved page, escaping, Chinese."""

from __future__ import annotations

import importlib
import json
import re
from collections import Counter
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from explorer_graphs import EVIL, lib, libraries

from widgets import PassDiff, diff_passes, record_backward
from widgets.diff_view import marked_svg

SEEDS = (0, 1, 2)
KEYS = {
    "nodes_only_a",
    "nodes_only_b",
    "made_in_backward_a",
    "made_in_backward_b",
    "steps_only_a",
    "steps_only_b",
    "steps_moved",
    "grads_differ",
}


def random_mlp(torch: ModuleType, seed: int) -> tuple[Any, Any]:
    """Linear -> Tanh -> Linear of random sizes and values (numpy's generator: the same numbers
    in both libraries), and an input that requires grad."""
    rng = np.random.default_rng(seed)
    n_in, n_hidden, n_out = (int(k) for k in rng.integers(2, 5, size=3))
    model = torch.nn.Sequential(
        torch.nn.Linear(n_in, n_hidden), torch.nn.Tanh(), torch.nn.Linear(n_hidden, n_out)
    )
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.tensor(rng.standard_normal(tuple(p.shape)).astype(np.float32)))
    x = torch.tensor(rng.standard_normal((2, n_in)).astype(np.float32), requires_grad=True)
    return model, x


def run(torch: ModuleType, model: Any, x: Any, how: str = "plain", hook: Any = None) -> Any:
    """One recorded backward of (model(x) ** 2).sum(), `.grad`s cleared first.

    how: plain, reentrant or nonreentrant (checkpointing the whole model). hook: a tensor hook
    put on the first layer's output (the model is then run layer by layer).
    """
    for p in [x, *model.parameters()]:
        p.grad = None
    names = {"x": x}
    if how == "plain":
        h = model[0](x)
        if hook is not None:
            h.register_hook(hook)
        names["h"] = h
        y = model[2](model[1](h))
    else:
        checkpoint = importlib.import_module(f"{torch.__name__}.utils.checkpoint").checkpoint
        y = checkpoint(model, x, use_reentrant=how == "reentrant")
    loss = y.pow(2).sum()
    with record_backward(loss, module=model, names=names) as bwd:
        loss.backward()
    return bwd


def consistent(diff: PassDiff) -> None:
    """Every step of each pass is in exactly one row (the first pass's in order); the data
    says what the rows say."""
    seen_a = [r["a"] for r in diff.rows if r["a"] is not None]
    assert seen_a == list(range(len(diff.a.steps)))
    seen_b = sorted(r["b"] for r in diff.rows if r["b"] is not None)
    assert seen_b == list(range(len(diff.b.steps)))
    d = diff.differences
    assert set(d) == KEYS
    for key, status in (("steps_only_a", "only_a"), ("steps_only_b", "only_b")):
        assert len(d[key]) == sum(r["status"] == status for r in diff.rows)
    assert len(d["steps_moved"]) == sum(r["status"] == "moved" for r in diff.rows)
    for r in diff.rows:  # a moved step is one both passes ran: the same kind, the same node pair
        if r["status"] == "moved":
            assert diff.a.steps[r["a"]].key == diff.b.steps[r["b"]].key
    for g in d["grads_differ"]:
        assert g["exact"] is False and isinstance(g["allclose"], bool)


def only_backward_names(diff: PassDiff, side: str) -> Counter:
    """Names of the backward nodes only one pass draws."""
    graph = (diff.a if side == "a" else diff.b).graph
    paired = set(diff.pairs) if side == "a" else set(diff.pairs.values())
    return Counter(
        n.name for nid, n in graph.nodes.items() if n.kind == "backward" and nid not in paired
    )


def base_name(title: str) -> str:
    return re.sub(r" \((made in backward|not drawn) #\d+\)$", "", title)


# --- identical passes ------------------------------------------------------------------------
@pytest.mark.parametrize("name", libraries())
@pytest.mark.parametrize("seed", SEEDS)
def test_the_same_pass_twice_has_no_differences(name: str, seed: int) -> None:
    torch = lib(name)
    model, x = random_mlp(torch, seed)
    diff = diff_passes(run(torch, model, x), run(torch, model, x))
    consistent(diff)
    assert diff.same()
    assert all(r["status"] == "same" for r in diff.rows)
    assert not diff.pairs.keys() - set(diff.a.graph.nodes)
    assert len(diff.pairs) == len(diff.a.graph.nodes) == len(diff.b.graph.nodes)
    text = repr(diff)
    assert "no differences: the same nodes, the same steps, bit-identical gradients" in text
    assert "0 differ beyond np.allclose, 0 are allclose but not bit-identical" in text
    again = diff_passes(run(torch, model, x), run(torch, model, x))
    assert repr(again) == text  # deterministic: nbval compares it


# --- checkpointing -----------------------------------------------------------------------------
@pytest.mark.parametrize("how", ["reentrant", "nonreentrant"])
@pytest.mark.parametrize("seed", SEEDS)
def test_minigrad_checkpoint_shows_its_recomputed_forward(how: str, seed: int) -> None:
    """minigrad reports the recomputation: node_created records during backward, for nodes that
    are not in the drawn graph; they recreate exactly the backward nodes checkpointing dropped."""
    torch = lib("minigrad")
    model, x = random_mlp(torch, seed)
    diff = diff_passes(run(torch, model, x), run(torch, model, x, how), labels=("plain", how))
    consistent(diff)
    d = diff.differences
    node = (
        "CheckpointFunctionBackward" if how == "reentrant" else "CheckpointWithoutReentrantBackward"
    )
    assert node in d["nodes_only_b"]
    assert only_backward_names(diff, "b") == Counter([node])
    made = d["made_in_backward_b"]
    assert Counter(base_name(t) for t in made) == only_backward_names(diff, "a")
    assert all(t in d["nodes_only_b"] for t in made)
    created = [s for s in d["steps_only_b"] if s["kind"] == "node_created"]
    assert [s["node"] for s in created] == made
    assert all(s["text"].startswith("during backward #1: ") for s in created)
    assert d["made_in_backward_a"] == [] and diff.notes == []
    assert not [g for g in d["grads_differ"] if not g["allclose"]]  # the same values
    assert f"plain: {len(diff.a.steps)} steps" in repr(diff)
    assert f"{how} made {len(made)} nodes while running backward" in repr(diff)
    # x's gradient: the same AccumulateGrad in both, aligned, bit-identical
    x_rows = [
        r
        for r in diff.rows
        if r["a"] is not None
        and diff.a.steps[r["a"]].kind == "accumulate"
        and diff.a.steps[r["a"]].node == "AccumulateGrad(x)"
    ]
    assert len(x_rows) == 1 and x_rows[0]["grads"] == "same"
    # every parameter's .grad is written in both passes, by the same AccumulateGrad: B's runs it
    # inside the checkpoint's backward (reentrant: its graph does not draw it); paired, not new
    for param in ("0.weight", "0.bias", "2.weight", "2.bias"):
        node = f"AccumulateGrad({param})"
        assert node not in d["nodes_only_a"]
        rows = [  # its own steps (an edge into it comes from a node B may not have)
            r
            for r in diff.rows
            if r["a"] is not None
            and diff.a.steps[r["a"]].node == node
            and diff.a.steps[r["a"]].kind != "edge"
        ]
        assert rows and all(r["b"] is not None and r["grads"] == "same" for r in rows)
        accumulate = [r for r in rows if diff.a.steps[r["a"]].kind == "accumulate"]
        assert len(accumulate) == 1
        if how == "reentrant":
            assert diff.b.steps[accumulate[0]["b"]].node == f"{node} (not drawn here)"


@pytest.mark.parametrize("seed", SEEDS)
def test_torch_reentrant_checkpoint_is_one_node_its_inside_unseen(seed: int) -> None:
    """Checked by running torch 2.13: the reentrant checkpoint's graph holds one
    CheckpointFunctionBackward; its recomputation and inner pass happen inside that node, which
    no record can see (the note says so)."""
    torch = lib("torch")
    model, x = random_mlp(torch, seed)
    diff = diff_passes(run(torch, model, x), run(torch, model, x, "reentrant"))
    consistent(diff)
    d = diff.differences
    assert d["nodes_only_b"] == ["CheckpointFunctionBackward"]
    assert d["made_in_backward_b"] == []
    assert not [s for s in d["steps_only_b"] if s["kind"] == "node_created"]
    assert diff.notes and "nothing done inside a node is recorded" in diff.notes[0]
    assert diff.notes[0] in repr(diff)
    assert not [g for g in d["grads_differ"] if not g["allclose"]]


@pytest.mark.parametrize("seed", SEEDS)
def test_torch_nonreentrant_checkpoint_keeps_the_graph(seed: int) -> None:
    """torch's non-reentrant checkpoint keeps the block's own nodes in the graph (it recomputes
    when their saved tensors are unpacked): the records of both passes match step for step."""
    torch = lib("torch")
    model, x = random_mlp(torch, seed)
    plain, ckpt = run(torch, model, x), run(torch, model, x, "nonreentrant")

    def names(trace: Any) -> Counter:
        return Counter(n.name for n in trace.graph.nodes.values() if n.kind != "tensor")

    assert names(ckpt) == names(plain)
    diff = diff_passes(plain, ckpt)
    consistent(diff)
    assert diff.differences["nodes_only_a"] == ["h"]  # named in the plain pass only
    assert not diff.differences["nodes_only_b"]
    assert not diff.differences["steps_only_a"] and not diff.differences["steps_only_b"]
    assert diff.notes  # the note tells why the recomputation is not there


# --- hooks and a second pass -------------------------------------------------------------------
@pytest.mark.parametrize("name", libraries())
@pytest.mark.parametrize("seed", SEEDS)
def test_a_hook_is_one_more_step_and_changes_what_follows(name: str, seed: int) -> None:
    torch = lib(name)
    model, x = random_mlp(torch, seed)
    diff = diff_passes(run(torch, model, x), run(torch, model, x, hook=lambda g: g * 3))
    consistent(diff)
    d = diff.differences
    assert not d["nodes_only_a"] and not d["nodes_only_b"] and not d["steps_only_a"]
    assert [s["kind"] for s in d["steps_only_b"]] == ["hook"]
    assert "tensor hook" in d["steps_only_b"][0]["text"]
    changed = {g["node"] for g in d["grads_differ"] if g["kind"] == "accumulate"}
    # the hook triples what reaches h: the first layer and x change, the last layer does not
    assert changed == {"AccumulateGrad(x)", "AccumulateGrad(0.weight)", "AccumulateGrad(0.bias)"}
    assert not [g for g in d["grads_differ"] if g["allclose"]]


@pytest.mark.parametrize("name", libraries())
def test_a_second_pass_over_a_retained_graph(name: str) -> None:
    """The same graph twice (retain_graph=True): every node pairs with itself (rule 1); the
    second pass adds into the .grad the first wrote."""
    torch = lib(name)
    model, x = random_mlp(torch, 0)
    loss = model(x).pow(2).sum()
    with record_backward(loss, module=model) as first:
        loss.backward(retain_graph=True)
    with record_backward(loss, module=model) as second:
        loss.backward()
    diff = diff_passes(first, second, labels=("first", "second"))
    consistent(diff)
    assert len(diff.pairs) == len(first.graph.nodes)
    assert not diff.differences["nodes_only_a"] and not diff.differences["nodes_only_b"]
    grads = diff.differences["grads_differ"]
    assert {g["kind"] for g in grads} == {"accumulate"}
    assert len(grads) == sum(n.kind == "accumulate" for n in first.graph.nodes.values())


# --- matching rules and tolerances ---------------------------------------------------------------
@pytest.mark.parametrize("name", libraries())
def test_nodes_match_by_path_when_ranks_shift(name: str) -> None:
    """An extra MulBackward0 made first takes rank #0: the shared node is still paired, by its
    path from the root, and only the new one is listed."""
    torch = lib(name)
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor([3.0, -1.0], requires_grad=True)
    names = {"x": x, "w": w}
    loss = (x * w).sum()
    with record_backward(loss, names=names) as a:
        loss.backward()
    loss = ((x * 2) * w).sum()
    with record_backward(loss, names=names) as b:
        loss.backward()
    diff = diff_passes(a, b)
    consistent(diff)
    titles_b = b.graph.titles()
    assert sorted(t for t in titles_b.values() if t.startswith("MulBackward0")) == [
        "MulBackward0 #0",
        "MulBackward0 #1",
    ]
    only_b = diff.differences["nodes_only_b"]
    assert [t for t in only_b if t.startswith("MulBackward0")] == ["MulBackward0 #0"]
    assert diff.differences["nodes_only_a"] == []
    paired = {a.graph.titles()[i]: titles_b[j] for i, j in diff.pairs.items()}
    assert paired["MulBackward0"] == "MulBackward0 #1"
    assert paired["AccumulateGrad(x)"] == "AccumulateGrad(x)"


@pytest.mark.parametrize("name", libraries())
def test_gradients_compared_exactly_and_with_allclose(name: str) -> None:
    torch = lib(name)
    model, x = random_mlp(torch, 1)
    a = run(torch, model, x)
    with torch.no_grad():
        x.mul_(1 + 1e-7)  # a last-bit change: np.allclose accepts it, array_equal does not
    b = run(torch, model, x)
    diff = diff_passes(a, b)
    consistent(diff)
    grads = diff.differences["grads_differ"]
    assert grads and all(g["allclose"] for g in grads)
    assert {r["status"] for r in diff.rows} <= {"same", "close"}
    assert f"0 differ beyond np.allclose, {len(grads)} are allclose" in repr(diff)


# --- views ----------------------------------------------------------------------------------
@pytest.mark.parametrize("name", libraries())
def test_static_view_frames_the_differing_nodes(name: str) -> None:
    torch = lib(name)
    model, x = random_mlp(torch, 2)
    diff = diff_passes(run(torch, model, x), run(torch, model, x, "reentrant"))
    html = diff._repr_mimebundle_()["text/html"]
    assert html.count('src="data:image/svg+xml;base64,') == 2
    assert "<svg" not in html  # images only: an untrusted notebook strips inline SVG
    marks_b = diff.node_marks(diff.b)
    ckpt = next(i for i, t in diff.b.titles.items() if t == "CheckpointFunctionBackward")
    assert marks_b[ckpt] == "only"
    framed = marked_svg(diff.b.view.svg(), {ckpt: "only"})
    assert f"#{ckpt} > polygon" in framed and framed.index("<style>") < framed.index("<g ")
    assert "only in B" in html and "orange frame: only in this pass" in html
    assert "identical steps" in html or all(r["status"] != "same" for r in diff.rows)


def test_marks_take_only_element_ids() -> None:
    with pytest.raises(ValueError, match="not an element id"):
        marked_svg("<svg></svg>", {"n1 } body { color: red": "only"})


def test_player_data_and_saved_page(tmp_path) -> None:
    torch = lib("minigrad")
    model, x = random_mlp(torch, 0)
    diff = diff_passes(run(torch, model, x), run(torch, model, x, "reentrant"), labels=("a", "b"))
    player = diff.player()
    rows = json.loads(player.rows_json)
    assert len(rows) == len(diff.rows)
    assert [r["status"] for r in rows] == [r["status"] for r in diff.rows]
    for which, svg in (("a", player.svg_a), ("b", player.svg_b)):
        for element in getattr(player, f"marks_{which}"):
            assert f'id="{element}"' in svg
        for r in rows:
            if r[which] and r[which]["el"]:
                assert f'id="{r[which]["el"]}"' in svg
    assert repr(player) == repr(diff)
    fallback = player.picture_html()
    assert f'data-mg-diff="{player.key}"' in fallback and "mg-diff-fallback" in fallback
    page = diff.save_html(tmp_path / "diff.html").read_text(encoding="utf-8")
    assert "default-src 'none'" in page and "<script src" not in page
    assert "export default" not in page and "function render" in page


@pytest.mark.parametrize("name", libraries())
def test_names_are_escaped(name: str, tmp_path) -> None:
    torch = lib(name)
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    loss = (x * x).sum()
    with record_backward(loss, names={EVIL: x}) as a:
        loss.backward()
    loss = (x * 3).sum()
    with record_backward(loss, names={EVIL: x}) as b:
        loss.backward()
    diff = diff_passes(a, b, labels=(EVIL, "b & c"))
    html = diff.html()
    assert EVIL not in html and "&lt;img src=x onerror=alert(1)&gt;" in html
    assert "b &amp; c" in html
    page = diff.save_html(tmp_path / "evil.html").read_text(encoding="utf-8")
    assert EVIL not in page


# --- Chinese ----------------------------------------------------------------------------------
def test_chinese_words() -> None:
    torch = lib("minigrad")
    model, x = random_mlp(torch, 0)
    same = diff_passes(run(torch, model, x), run(torch, model, x), lang="zh")
    assert "没有差别：节点相同，步骤相同，梯度逐位相同" in repr(same)
    diff = diff_passes(run(torch, model, x), run(torch, model, x, "reentrant"), ("甲", "乙"), "zh")
    text = repr(diff)
    assert "只在 乙 中的节点" in text and "乙 在反向传播中新建了" in text
    assert any("（反向中新建 #1）" in t for t in diff.differences["made_in_backward_b"])
    assert "橙色粗框：只在这一遍中" in diff.html()
    texts = diff.player().texts
    assert texts["status.only"] == "只在 {label} 中" and texts["play"] == "▶ 播放"


@pytest.mark.parametrize("name", libraries())
def test_a_failed_second_pass_against_a_retained_one(name: str) -> None:
    """A second backward through freed saved tensors raises where a retained graph runs on: the
    error is a step only the failed pass has, and that pass never ends."""
    torch = lib(name)
    model, x = random_mlp(torch, 0)
    passes = []
    for retain in (False, True):
        loss = model(x).pow(2).sum()
        loss.backward(retain_graph=retain)
        with record_backward(loss, module=model, catch=True) as second:
            loss.backward()
        passes.append(second)
    assert passes[0].error is not None and passes[1].error is None
    diff = diff_passes(*passes, labels=("freed", "retained"))
    consistent(diff)
    assert "error" in [s["kind"] for s in diff.differences["steps_only_a"]]
    assert "backward_end" in [s["kind"] for s in diff.differences["steps_only_b"]]
    assert diff.differences["nodes_only_a"] == diff.differences["nodes_only_b"] == []


def test_minigrad_against_torch() -> None:
    """The same MLP in both libraries: the same nodes by name and path, the same steps; the
    gradients agree within np.allclose (float32 in different kernels)."""
    mg, torch = lib("minigrad"), lib("torch")
    passes = [run(library, *random_mlp(library, 1)) for library in (mg, torch)]
    diff = diff_passes(*passes, labels=("minigrad", "PyTorch"))
    consistent(diff)
    d = diff.differences
    assert not d["nodes_only_a"] and not d["nodes_only_b"]
    assert all(g["allclose"] for g in d["grads_differ"])
    assert diff.notes  # torch's side is watched from outside
