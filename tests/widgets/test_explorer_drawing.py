"""Drawing: DOT and SVG carry model ids, labels are escaped, modules collapse, limits hold."""

from __future__ import annotations

import html
import re

import pytest
from explorer_graphs import EVIL, abc, lib, libraries, recorded_mlp

import minigrad as mg
from widgets import (
    LayoutError,
    draw_graph,
    record_backward,
    record_forward,
)
from widgets import svg as svg_module
from widgets.labels import format_values, html_label, label_text, quoted


def test_every_node_and_edge_is_an_svg_element_with_its_model_id_and_kind_class():
    a, b, y = abc(mg)
    view = draw_graph(y, names={"a": a, "b": b})
    svg = view.svg()
    ids = re.findall(r'<g id="([^"]+)" class="(node|edge)[^"]*"', svg)
    assert sorted(i for i, _ in ids) == sorted([*view.graph.nodes, *view.graph.edges])
    assert '<g id="n8" class="node mg&#45;n&#45;leaf">' in svg
    assert svg.startswith("<svg ")  # no XML prolog or engine comment: it is inlined in HTML
    assert "legend" not in svg and "AccumulateGrad" in svg  # the legend is HTML, below


@pytest.mark.parametrize("name", libraries())
def test_a_tensor_named_like_markup_is_text(name):
    torch = lib(name)
    x = torch.tensor([1.0], requires_grad=True)
    view = draw_graph((x * 2).sum(), names={EVIL: x, "back\\slash \\N \"q\" 'a' &amp;": x * 1})
    source, svg, html = view.source(), view.svg(), view.html()
    assert "<img" not in source and "&lt;img src=x onerror=alert(1)&gt;" in source
    assert "<img" not in svg and "&lt;img src=x onerror=alert(1)&gt;</text>" in svg
    assert html.count("<img") == 1 and html.count('<img class="mg-picture" alt="graph: ') == 1
    assert "onerror" not in html  # the only <img> is the picture; the name is inside its SVG


@pytest.mark.parametrize("name", libraries())
def test_a_module_named_like_markup_is_text(name):
    torch = lib(name)
    model = torch.nn.Sequential()
    model.add_module(EVIL, torch.nn.Linear(2, 1))
    x = torch.tensor([[1.0, 2.0]])
    with record_forward(model) as fwd:
        y = model(x).sum()
    for collapse in (True, None):  # as a box, and as a cluster frame
        view = fwd.draw(collapse=collapse)
        svg = view.svg()
        source = view.source()  # raw only inside a quoted tooltip, which dot escapes in SVG
        assert source.count("<img") == source.count('tooltip="<img')
        assert "<img" not in svg
        assert "&lt;img src=x onerror=alert(1)&gt;" in svg
    assert y.grad_fn is not None


# Graphviz's own escapes (\N node name, \G graph name, \L \l line breaks, \E edge, \T tail,
# \H head), markup and entities: every one must reach the picture as typed
TRICKY = ["\\N", "\\G", "\\L", "\\l \\E \\T \\H", "a\\", "\\\\", "<b>", "&amp;", "&", "\"q\" 'a'"]


def svg_texts(svg: str) -> list[str]:
    """The text of every `<text>` element of an SVG, entities decoded (what a browser shows)."""
    return [html.unescape(t) for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg)]


def svg_tooltips(svg: str) -> list[str]:
    return [html.unescape(t) for t in re.findall(r'xlink:title="([^"]*)"', svg)]


@pytest.mark.parametrize("name", TRICKY)
def test_names_with_graphviz_escapes_appear_verbatim(name):
    x = mg.tensor([1.0], requires_grad=True)
    y = x * 2
    texts = svg_texts(draw_graph(y.sum(), names={name: x, f"{name}!": y}).svg())
    assert name in texts and f"{name}!" in texts


@pytest.mark.parametrize("name", TRICKY)
def test_module_names_with_graphviz_escapes_appear_verbatim_in_frames_and_tooltips(name):
    model = mg.nn.Sequential()
    model.add_module(name, mg.nn.Linear(2, 1))
    with record_forward(model) as fwd:
        model(mg.tensor([[1.0, 2.0]])).sum()
    boxed = fwd.draw(collapse=True).svg()
    assert f"{name} (Linear)" in svg_texts(boxed)
    assert f"{name}: a collapsed module (a player opens it)" in svg_tooltips(boxed)
    framed = fwd.draw().svg()
    assert f"{name} (Linear)" in svg_texts(framed)
    assert f"{name}: a player closes it on a click on the frame" in svg_tooltips(framed)


def test_escaping_helpers():
    assert (
        html_label("<b>", ["a & b"])
        == '<<b>&lt;b&gt;</b><br/><font point-size="9">a &amp; b</font>>'
    )
    assert label_text("<x> \\N") == "&lt;x&gt; \\\\N"
    assert quoted('"<x>" \\N') == '"&quot;&lt;x&gt;&quot; \\\\\\\\N"'
    assert format_values(mg.tensor([[1.0, -0.0], [2.5, 1e-9]]).numpy()) == "[[1., 0.], [2.5, 0.]]"
    assert format_values(mg.zeros(9).numpy()) is None  # too many values to print in a label


@pytest.mark.parametrize("name", libraries())
def test_collapse_turns_modules_into_boxes_and_alias_maps_their_ids(name):
    fwd, loss = recorded_mlp(lib(name))
    view = fwd.draw(collapse=True)
    drawing = view.drawing()
    assert [(b.id, b.path, b.cls) for b in drawing.boxes] == [
        ("m1", "0", "Linear"),
        ("m2", "1", "Tanh"),
        ("m3", "2", "Linear"),
    ]
    outside = ["output", "MeanBackward0", "PowBackward0", "self"]  # the loss, after the model
    assert [n.name for n in drawing.nodes] == outside + (
        ["x"] if name == "minigrad" else []
    )  # torch's graph does not keep the input x
    for model_id, element in drawing.alias.items():
        assert element.startswith(("m", "x"))
        assert model_id in view.graph.nodes or model_id in view.graph.edges
    assert view.summary().endswith("; collapsed: 0, 1, 2")
    svg = view.svg()
    assert svg.count('class="node mg&#45;n&#45;module mg&#45;box"') == 3
    view.toggle("m1")  # open the first Linear: it becomes a cluster around its nodes
    assert view.collapsed == {"1", "2"}
    assert 'id="m1" class="cluster mg&#45;cluster"' in view.svg()
    assert loss.grad_fn is not None


def test_collapse_needs_module_boundaries():
    a, b, y = abc(mg)
    with pytest.raises(ValueError, match="record_forward"):
        draw_graph(y, collapse=True)


def test_a_graph_past_the_size_limit_is_cut_not_refused():
    a, b, y = abc(mg)
    view = draw_graph(y, max_nodes=5)
    drawing = view.drawing()
    assert drawing.size == 5 and [n.id for n in drawing.nodes] == ["n0", "n1", "n2", "n3"]
    assert drawing.more is not None and drawing.more.members == [f"n{i}" for i in range(4, 13)]
    assert view.summary().endswith(
        "; drawn: the 4 elements nearest the roots, 9 more nodes in one box"
    )
    svg = view.svg()
    assert 'class="node mg&#45;n&#45;more mg&#45;box"' in svg and "+9 more nodes" in svg
    bundle = view._repr_mimebundle_()
    assert bundle["text/plain"].startswith("GraphView(13 nodes")


def test_a_missing_layout_program_is_a_message_with_the_pip_command(monkeypatch):
    """Only a broken install gets here (graphviz-pure comes with the widgets' dependencies)."""
    monkeypatch.setattr(svg_module, "ENGINE", "no-such-layout-program")
    svg_module.engine_path.cache_clear()
    svg_module.layout_svg.cache_clear()
    a, b, y = abc(mg)
    view = draw_graph(y, names={"fresh": a})  # a DOT text not laid out before
    try:
        with pytest.raises(LayoutError, match="pip install graphviz-pure"):
            view.svg()
        html_out = view._repr_mimebundle_()["text/html"]  # the notebook shows it, no traceback
        assert "pip install graphviz-pure" in html_out and "<img" not in html_out
        with record_backward(y) as bwd:
            y.backward()
        player = bwd.player()
        assert "pip install graphviz-pure" in player.message and player.svg == ""
    finally:
        svg_module.engine_path.cache_clear()
        svg_module.layout_svg.cache_clear()


def test_the_same_graph_is_laid_out_once():
    svg_module.layout_svg.cache_clear()
    a, b, y = abc(mg)
    draw_graph(y).svg()
    a, b, y = abc(mg)
    draw_graph(y).svg()
    assert svg_module.layout_svg.cache_info().hits == 1
