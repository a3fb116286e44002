"""One name per node everywhere; the legend outside the drawing; big graphs drawn smaller, never
refused, with the boxes the player needs."""

from __future__ import annotations

import html
import re

import pytest
from big_graphs import recorded, transformer
from explorer_graphs import lib, libraries, recorded_mlp
from test_explorer_drawing import svg_texts

import minigrad as mg
from widgets import draw_graph, record_backward
from widgets.dot import to_dot
from widgets.drawing import RUNNABLE
from widgets.view import natural_key, short_list


def lesson12_graph(torch):
    """Lesson 12's graph: two MulBackward0, two AddBackward0, two SumBackward0."""
    x = torch.tensor([0.5, -1.0], requires_grad=True)
    w = torch.tensor([2.0, 3.0], requires_grad=True)
    a = x * w
    return (a.exp() + a * a).sum() + a.sum(), x, w


def creation_ranks(root) -> dict:
    """Lesson 12's `labels_for`: nodes by sequence number, ranked."""
    seen, stack = [], [root]
    while stack:
        node = stack.pop()
        if node is not None and node not in seen:
            seen.append(node)
            stack.extend(n for n, _ in node.next_functions)
    return {n: r for r, n in enumerate(sorted(seen, key=lambda n: n._sequence_nr()))}


@pytest.mark.parametrize("name", libraries())
def test_one_name_per_node_in_the_picture_the_panel_and_the_steps(name):
    loss, x, w = lesson12_graph(lib(name))
    rank = creation_ranks(loss.grad_fn)
    with record_backward(loss, names={"x": x, "w": w, "loss": loss}) as bwd:
        loss.backward()
    player = bwd.player()
    backward = [n for n in bwd.builder.node_id if not hasattr(n, "variable")]
    for node in backward:
        title = bwd.title(node)
        shared = sum(n.name() == node.name() for n in backward) > 1
        assert title == (f"{node.name()} #{rank[node]}" if shared else node.name())
        assert player.titles[bwd.builder.node_id[node]] == title == player.title(node)
    titles = set(player.titles.values())
    assert {"AddBackward0 #6", "SumBackward0 #5", "MulBackward0 #0", "ExpBackward0"} <= titles
    nodes = [t for t in player.titles.values() if not t.startswith("saved ")]
    assert len(nodes) == len(set(nodes))  # one name per node
    drawn = svg_texts(player.svg)
    assert all(t in drawn for t in nodes)
    steps = " ".join(f["text"] for f in player.frames)
    assert "run AddBackward0 #6 on grad_output 1." in steps and "(n" not in steps
    assert bwd.title(x) == "x" and bwd.title(loss) == "loss" and bwd.title("n0") == "loss"
    assert draw_graph(loss, names={"x": x}).title(x) == "x"
    with pytest.raises(KeyError, match="not part of this graph"):
        bwd.title(lib(name).tensor([1.0]))


def test_nameless_leaves_and_their_accumulategrads_are_numbered():
    p = mg.tensor([1.0], requires_grad=True)
    q = mg.tensor([2.0], requires_grad=True)
    view = draw_graph((p * q).sum())
    names = sorted(t for t in view.graph.titles().values() if "leaf" in t)
    assert names == ["AccumulateGrad(leaf #1)", "AccumulateGrad(leaf #2)", "leaf #1", "leaf #2"]
    assert view.title(p) == "leaf #1" and view.title(q) == "leaf #2"


def test_the_legend_is_html_below_the_picture_not_part_of_it():
    loss, x, w = lesson12_graph(mg)
    view = draw_graph(loss, names={"x": x})
    assert "legend" not in view.source() and "legend" not in view.svg()
    page = view.html()
    assert "<style" not in page and "<svg" not in page  # JupyterLab drops both when untrusted
    legend = re.search(r'<div class="mg-static-legend"[^>]*>(.*)</div></div>$', page).group(1)
    assert page.index('class="mg-picture"') < page.index('class="mg-static-legend"')
    kinds = re.findall(r'class="mg-static-legend-item mg-n-(\w+)" style="([^"]*)">([^<]*)<', legend)
    assert [(k, html.unescape(n)) for k, _, n in kinds] == [
        ("tensor", "non-leaf tensor"),
        ("leaf", "leaf requiring grad"),
        ("backward", "backward node"),
        ("accumulate", "AccumulateGrad"),
        ("saved", "saved tensor"),
    ]  # the kinds drawn, in the legend's order
    borders = {style.split("border:", 1)[1] for _, style, _ in kinds}  # with its radius
    assert len(borders) == len(kinds)  # told apart without colour
    assert all("color:#000000" in style for _, style, _ in kinds)
    assert "mg-static-legend" not in draw_graph(loss, legend=False).html()
    fwd, _ = recorded_mlp(mg)
    boxed = fwd.draw(collapse=True).html()
    assert "collapsed module</span>" in boxed


def test_natural_order_and_short_lists():
    names = ["layers.10", "layers.2", "head", "layers.1", "", "embed", "layers.3"]
    assert sorted(names, key=natural_key)[:4] == ["", "embed", "head", "layers.1"]
    assert short_list(names) == "(model), embed, head, layers.1, layers.2 and 2 more"
    assert short_list(names[:6]) == "(model), embed, head, layers.1, layers.2, layers.10"


@pytest.mark.parametrize("name", libraries())
def test_a_2000_node_graph_collapses_the_deepest_module_level_that_fits(name):
    fwd, bwd = recorded(lib(name), 23)
    assert 1900 < len(bwd.graph.nodes) < 2100
    player = bwd.player()
    view = player.view
    assert view.auto and all(p.count(".") == 2 for p in view.collapsed)  # e.g. 0.attn.q
    assert view.drawing().size <= 1500 and view.drawing().more is None
    assert player.summary.endswith(
        "; collapsed automatically: 0.attn.k, 0.attn.out, 0.attn.q, 0.attn.v, 0.mlp.0 "
        f"and {len(view.collapsed) - 5} more"
    )
    ids = view.ids()
    assert set(player.boxes) == {ids[p] for p in view.collapsed}
    for box, members in player.boxes.items():
        assert members and all(bwd.graph.nodes[m].kind in RUNNABLE for m in members)
        assert all(player.alias[m] == box for m in members)
        assert player.titles[box].endswith("(Linear)") or player.titles[box].endswith("(ReLU)")
    drawn = to_dot(view.drawing())
    assert drawn.count("mg-box") == len(player.boxes)


def test_a_10000_node_graph_makes_a_player_collapsed_to_a_drawable_size():
    fwd, bwd = recorded(mg, 114)
    assert 9900 < len(bwd.graph.nodes) < 10_200
    player = bwd.player()  # (how long it takes is measured by the browser tests, not asserted)
    assert player.svg.startswith("<svg") and player.view.drawing().size <= 1500
    assert player.view.collapsed and all(p.count(".") == 1 for p in player.view.collapsed)
    assert len(player.frames) > 20_000


def test_without_module_information_the_part_nearest_the_roots_is_drawn():
    model, x = transformer(mg, 23)
    loss = model(x).pow(2).mean()
    view = draw_graph(loss, module=model)  # parameter names, but no module made any node
    drawing = view.drawing()
    assert not view.collapsed and drawing.size == 1500
    more = drawing.more
    first_cut = list(view.graph.nodes).index(more.members[0])
    assert [n.id for n in drawing.nodes] == list(view.graph.nodes)[:first_cut]
    assert view.summary().endswith(
        f"; drawn: the 1,499 elements nearest the roots, {more.size:,} more nodes in one box"
    )
    assert view.title("more") == f"+{more.size:,} more nodes"


def test_opening_a_box_too_big_to_open_whole_opens_one_level():
    fwd, bwd = recorded(mg, 2)
    whole = bwd.draw(collapse=["0", "1"], max_nodes=80)
    whole.toggle(whole.ids()["0"])  # block 0 fits: it opens whole
    assert whole.collapsed == {"1"} and whole.drawing().size == 80
    view = bwd.draw(collapse=["0", "1"], max_nodes=60)
    assert view.drawing().size == 7
    view.toggle(view.ids()["0"])
    assert view.collapsed == {"0.attn", "0.mlp", "0.norm2", "1"}  # 0.norm1 made no node (x is data)
    assert view.drawing().size == 12 and view.drawing().more is None
    view.toggle(view.ids()["0.attn"])
    assert "0.attn" not in view.collapsed and view.drawing().more is None
