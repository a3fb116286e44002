"""The widgets on the kernel side: stable reprs, outputs that work without JavaScript, the one
message the front end sends, and the import rules (torch only on demand, minigrad never)."""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import sys
import textwrap

from explorer_graphs import abc, mlp

import minigrad as mg
from widgets import (
    BackwardPlayer,
    ForwardPlayer,
    GraphView,
    draw_graph,
    record_backward,
    record_forward,
)
from widgets import player as player_module

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def pictures(html: str) -> list[str]:
    """The SVG documents of the data-URI images in an HTML output."""
    found = re.findall(
        r'<img class="mg-picture" [^>]*src="data:image/svg\+xml;base64,([^"]+)"', html
    )
    return [base64.b64decode(data).decode("utf-8") for data in found]


def test_graph_view_outputs_are_deterministic_and_show_without_javascript():
    bundles = []
    for _ in range(2):
        a, b, y = abc(mg)
        bundles.append(draw_graph(y, names={"a": a, "b": b, "y": y})._repr_mimebundle_())
    assert bundles[0] == bundles[1]
    assert bundles[0]["text/plain"] == (
        "GraphView(13 nodes, 13 edges: 1 non-leaf tensor, 2 leaves requiring grad, 1 constant "
        "leaf, 4 backward nodes, 2 AccumulateGrad, 3 saved tensors)"
    )
    html = bundles[0]["text/html"]
    assert html.startswith(
        '<div class="mg-static" style="min-width:0;max-width:100%"><div class="mg-caption">13 nodes'
    )
    assert "<svg" not in html  # JupyterLab strips inline SVG from untrusted HTML; images stay
    (svg,) = pictures(html)
    assert svg.startswith("<svg ") and svg.endswith("</svg>\n") and 'id="n8"' in svg


def test_backward_player_sends_the_picture_and_frames_once_and_has_a_stable_repr():
    a, b, y = abc(mg)
    with record_backward(y, names={"a": a, "b": b}, catch=True) as trace:
        y.backward(retain_graph=True)
        y.backward()
    player = trace.player()
    assert isinstance(player, BackwardPlayer) and player.mode == "backward"
    assert player.frames == trace.frames()
    assert player.svg.startswith("<svg") and player.message == ""
    assert player.titles["n7"] == "AccumulateGrad(a)" and player.titles["n3"] == "MulBackward0 #0"
    assert repr(player) == (
        "BackwardPlayer(58 frames, 2 backward passes; graph 13 nodes, 13 edges: 1 non-leaf "
        "tensor, 2 leaves requiring grad, 1 constant leaf, 4 backward nodes, 2 AccumulateGrad, "
        "3 saved tensors)"
    )
    data, _ = player._repr_mimebundle_()
    assert data["text/plain"] == repr(player)
    assert WIDGET_VIEW in data and data["text/html"] == player.picture_html()
    assert set(player.timings) == {"frames_ms", "plan_ms", "layout_ms"}
    assert player.boxes == {} and player.legend is True


def test_a_player_displays_its_picture_then_the_widget(monkeypatch):
    """Without a live model (fresh, untrusted, reopened, exported) the first output shows."""
    a, b, y = abc(mg)
    with record_backward(y) as trace:
        y.backward()
    player = trace.player()
    shown = []
    monkeypatch.setattr(player_module, "display", lambda data, **kw: shown.append((data, kw)))
    player._ipython_display_()
    (picture, picture_kw), (widget, widget_kw) = shown
    assert picture_kw == {"raw": True} and set(picture) == {"text/plain", "text/html"}
    assert picture["text/plain"] == repr(player)
    html = picture["text/html"]
    assert re.fullmatch(r"[0-9a-f]{32}", player.key)  # nbval's sanitizer replaces it
    assert html.startswith(f'<div class="mg-static mg-fallback" data-mg-player="{player.key}">')
    assert "Run this cell to replay the animation" in html
    assert "<style>" in html and ":not(:has(*))" in html  # hides a dead widget output only
    assert pictures(html) == [player.svg]
    assert set(widget) == {WIDGET_VIEW} and widget[WIDGET_VIEW]["model_id"] == player.model_id
    assert widget_kw["raw"] is True


def test_save_html_writes_one_page_that_needs_nothing_else(tmp_path):
    a, b, y = abc(mg)
    with record_backward(y, names={"</script><b>": a}) as trace:
        y.backward()
    player = trace.player()
    page = player.save_html(tmp_path / "replay.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert "default-src 'none'" in page  # the browser itself refuses any fetch
    assert not re.search(r"<(link|iframe|img)\b|\bsrc=|@import|url\(", page)
    assert "export default" not in page and "function render(" in page
    state = json.loads(re.search(r'id="mg-state">(.*?)</script>', page, re.S).group(1))
    assert state == json.loads(json.dumps(player.replay_state()))
    assert {"frames", "svg", "titles", "alias", "mode", "key"} <= set(state)
    assert "</script><b>" not in page.split('id="mg-state">')[1].split("</script>")[0]


def test_forward_player_and_module_boxes_that_open_on_a_click_message():
    model = mlp(mg)
    with record_forward(model) as fwd:
        model(mg.tensor([[1.0, 2.0, 3.0]])).sum()
    player = fwd.player(collapse=True)
    assert isinstance(player, ForwardPlayer) and player.mode == "forward"
    assert player.summary.endswith("collapsed: 0, 1, 2")
    alias_before = dict(player.alias)
    assert alias_before and set(alias_before.values()) >= {"m1", "m2", "m3"}
    player._on_msg(player, {"toggle": "m1"}, [])  # what the front end sends on a click
    assert player.summary.endswith("collapsed: 1, 2")
    assert 'id="m1" class="cluster mg&#45;cluster"' in player.svg
    assert "m1" not in player.alias.values()
    player._on_msg(player, {"toggle": "m1"}, [])
    assert player.alias == alias_before
    player._on_msg(player, {"something": "else"}, [])  # ignored
    assert player.alias == alias_before


def test_a_player_over_the_size_limit_draws_the_part_nearest_the_roots():
    a, b, y = abc(mg)
    with record_backward(y) as trace:
        y.backward()
    player = trace.player(max_nodes=3)
    assert player.svg.startswith("<svg") and player.message == ""
    assert player.summary.endswith(
        "; drawn: the 2 elements nearest the roots, 11 more nodes in one box"
    )
    assert set(player.boxes) == {"more"} and "n1" not in player.boxes["more"]
    assert player.alias["n7"] == "more" and player.titles["more"] == "+11 more nodes"


def test_static_view_type():
    a, b, y = abc(mg)
    assert isinstance(draw_graph(y), GraphView)


def run_python(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return done.stdout.strip()


def test_widgets_use_torch_only_when_handed_torch_objects():
    out = run_python("""
        import sys
        import minigrad as mg
        from widgets import draw_graph, record_backward, record_forward
        a = mg.tensor([1.0], requires_grad=True)
        with record_forward() as fwd:
            y = (a * 2).sum()
        with record_backward(y, forward=fwd) as bwd:
            y.backward()
        bwd.player(); draw_graph(y).source()
        print("torch" in sys.modules, "graphviz" in sys.modules)
    """)
    assert out == "False False"  # nor the graphviz package, whose `dot` calls could fail


def test_every_drawing_works_without_a_system_dot_on_the_path():
    """A pip-only install: no `dot` anywhere on PATH (here: an empty PATH)."""
    env = {k: v for k, v in os.environ.items() if k != "PATH"}
    code = textwrap.dedent("""
        import shutil
        import minigrad as mg
        from widgets import draw_graph, record_backward
        assert shutil.which("dot") is None and shutil.which("graphviz-pure") is None
        a = mg.tensor([1.0, 2.0], requires_grad=True)
        y = (a * a).sum()
        assert draw_graph(y).svg().startswith("<svg ")
        assert "<img" in draw_graph(y)._repr_mimebundle_()["text/html"]
        with record_backward(y) as bwd:
            y.backward()
        player = bwd.player()
        print(player.message == "" and player.svg.startswith("<svg "))
    """)
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        env={**env, "PATH": ""},
        cwd=os.getcwd(),
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True"


def test_minigrad_never_imports_widgets_or_jupyter():
    out = run_python("""
        import sys
        import minigrad as mg
        import minigrad.nn
        (mg.tensor([1.0], requires_grad=True) * 2).sum().backward()
        jupyter = ("widgets", "ipywidgets", "anywidget", "graphviz")
        print(sorted(m for m in jupyter if m in sys.modules))
    """)
    assert out == "[]"
