"""Issue 23's explorer fixes on the kernel side: what a hover on a node says, the legend's line
on the shape, pictures side by side that fit the column, module names in Chinese, and the HTML
export reading as a static page (its index styled, inline code in titles)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import nbformat
import pytest
from explorer_graphs import EVIL, abc, lib, libraries, recorded_mlp

import minigrad as mg
from widgets import SideBySide, draw_graph, record_backward, side_by_side
from widgets.dot import legend_html
from widgets.texts import say

ROOT = Path(__file__).resolve().parents[2]


def export_module():
    spec = importlib.util.spec_from_file_location("export_html", ROOT / "scripts/export_html.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# --- hover texts -------------------------------------------------------------------------------
@pytest.mark.parametrize("name", libraries())
def test_a_hover_says_kind_shape_dtype_values_and_what_a_node_saved(name):
    torch = lib(name)
    a, b, y = abc(torch)
    y.backward(retain_graph=True)
    view = draw_graph(y, names={"a": a, "b": b})
    tips = view.tips()
    titles = view.drawing().titles
    by_title = {titles[nid]: tip for nid, tip in tips.items()}
    assert by_title["a"].splitlines() == [
        "a",
        "leaf requiring grad",
        "shape [2], dtype float32",
        "value [1., 2.]",
        ".grad when drawn: [5., 6.]",  # b + 2,
    ]
    mul = next(tip for title, tip in by_title.items() if title.startswith("MulBackward0"))
    assert "backward node" in mul and "saved for backward: " in mul
    assert {"self", "other"} <= set(re.findall(r"\b(self|other)\b", mul))
    saved = next(tip for title, tip in by_title.items() if title.startswith("saved"))
    assert "saved by MulBackward0" in saved
    accumulate = by_title["AccumulateGrad(a)"]
    assert "adds the gradient into a.grad" in accumulate
    root = by_title["output"]
    assert "shape []: a scalar (no dimensions)" in root


def test_hover_texts_are_in_the_views_language_and_keep_names_as_text():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 2).sum()
    tips = draw_graph(y, names={EVIL: x}, lang="zh").tips()
    leaf = next(tip for tip in tips.values() if tip.startswith(EVIL))
    assert leaf.splitlines()[:3] == [EVIL, "需要梯度的叶子", "形状 [2]，数据类型 float32"]
    # plain text: the player writes it with textContent, so the name is never markup
    assert "&lt;" not in leaf


def test_freed_saved_tensors_say_so_in_the_hover_and_in_chinese_in_the_picture():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    view = draw_graph(y, names={"x": x}, lang="zh")
    assert any("已释放" in tip for tip in view.tips().values())
    assert '<font point-size="9">已释放</font>' in view.source()
    assert ">freed<" not in view.source()


def test_a_player_sends_its_hover_texts():
    a, b, y = abc(mg)
    with record_backward(y, names={"a": a, "b": b}) as trace:
        y.backward()
    player = trace.player()
    assert player.tips == player.view.tips()
    assert "leaf requiring grad" in next(t for t in player.tips.values() if t.startswith("a\n"))


# --- the shape line in the legend ------------------------------------------------------------
SHAPE_WORDS = [("en", "shape ([] is a scalar)"), ("zh", "张量的形状")]


@pytest.mark.parametrize(("lang", "words"), SHAPE_WORDS)
def test_the_legend_explains_the_shape_line(lang, words):
    a, b, y = abc(mg)
    view = draw_graph(y, names={"a": a}, lang=lang)
    legend = legend_html(view.drawing(), lang)
    assert "mg-shape-note" in legend and words in legend
    assert words in say("ui.legend.shape", lang)


# --- side by side -------------------------------------------------------------------------------
def test_side_by_side_wraps_and_keeps_each_picture_inside_the_column():
    views = {f"{name}: y": draw_graph(abc(lib(name))[2]) for name in ("minigrad", "torch")}
    row = side_by_side(views)
    assert isinstance(row, SideBySide)
    html = row._repr_mimebundle_()["text/html"]
    assert 'class="mg-side-by-side" style="display:flex;flex-wrap:wrap' in html
    assert html.count('class="mg-side-item"') == 2 and html.count("max-width:100%") >= 4
    assert "minigrad: y" in html and "torch: y" in html
    assert row._repr_mimebundle_()["text/plain"].startswith("minigrad: y: 13 nodes")
    with pytest.raises(TypeError, match="side_by_side shows draw_graph pictures"):
        side_by_side([mg.tensor(1.0)])
    captioned_by_summary = side_by_side([draw_graph(abc(mg)[2])]).html()
    assert "13 nodes" in captioned_by_summary


def test_a_picture_never_grows_wider_than_its_column():
    html = draw_graph(abc(mg)[2]).html()
    assert html.startswith('<div class="mg-static" style="min-width:0;max-width:100%">')


# --- Chinese module names -----------------------------------------------------------------------
def test_module_hooks_name_the_root_module_in_the_players_language():
    fwd, loss = recorded_mlp(mg)
    model = fwd.modules.module
    assert fwd.modules.module_name(model) == "Sequential (the model)"
    assert fwd.modules.module_name(model, "zh") == "Sequential（模型）"


# --- the HTML export ----------------------------------------------------------------------------
def test_the_export_replaces_the_run_note_and_says_it_is_a_static_copy():
    export_html = export_module()
    nb = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_markdown_cell("# 09 · Hooks"),
            nbformat.v4.new_code_cell("p", outputs=[]),
        ]
    )
    player_html = (
        '<div class="mg-static mg-fallback" data-mg-player="k"><div class="mg-caption">c</div>'
        f'<div class="mg-note">{say("player.replay_note", "zh")}</div>'
        '<img class="mg-picture"></div>'
    )
    nb.cells[1].outputs = [
        nbformat.v4.new_output("display_data", data={"text/html": player_html, "text/plain": "p"})
    ]
    static = export_html.static_notebook(nb, "zh")
    html = static.cells[2].outputs[0]["data"]["text/html"]
    assert "运行这个单元格" not in html and say("player.export_note", "zh") in html
    assert static.cells[1].cell_type == "markdown" and "静态副本" in static.cells[1].source
    assert static.cells[0].source == "# 09 · Hooks"  # the title stays first


def test_index_titles_keep_inline_code_and_escape_the_rest():
    export_html = export_module()
    assert export_html.markdown_text("06 · `retain_graph`, `create_graph` and *x*") == (
        "06 · `retain_graph`, `create_graph` and \\*x\\*"
    )
    assert export_html.markdown_text("a_b [c] <d>") == "a\\_b \\[c\\] \\<d\\>"
