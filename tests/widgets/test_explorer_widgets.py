"""The widgets on the kernel side: stable reprs, outputs that work without JavaScript, the one
message the front end sends, and the import rules (torch only on demand, minigrad never)."""

from __future__ import annotations

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
    assert html.startswith('<div class="mg-static"><div class="mg-caption">13 nodes')
    assert "<svg" in html and html.endswith("</svg>\n</div>")


def test_backward_player_sends_the_picture_and_frames_once_and_has_a_stable_repr():
    a, b, y = abc(mg)
    with record_backward(y, names={"a": a, "b": b}, catch=True) as trace:
        y.backward(retain_graph=True)
        y.backward()
    player = trace.player()
    assert isinstance(player, BackwardPlayer) and player.mode == "backward"
    assert player.frames == trace.frames()
    assert player.svg.startswith("<svg") and player.message == ""
    assert player.titles["n7"] == "AccumulateGrad(a)" and player.titles["n3"] == "MulBackward0 (n3)"
    assert repr(player) == (
        "BackwardPlayer(58 frames, 2 backward passes; graph 13 nodes, 13 edges: 1 non-leaf "
        "tensor, 2 leaves requiring grad, 1 constant leaf, 4 backward nodes, 2 AccumulateGrad, "
        "3 saved tensors)"
    )
    data, _ = player._repr_mimebundle_()
    assert data["text/plain"] == repr(player)
    assert "application/vnd.jupyter.widget-view+json" in data
    assert data["text/html"].startswith(
        '<div class="mg-static"><div class="mg-caption">BackwardPlayer(58 frames'
    )
    assert set(player.timings) == {"frames_ms", "layout_ms"}


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


def test_a_player_over_the_size_limit_shows_the_message():
    a, b, y = abc(mg)
    with record_backward(y) as trace:
        y.backward()
    player = trace.player(max_nodes=3)
    assert player.svg == "" and "more than the limit of 3" in player.message
    assert "more than the limit of 3" in player._repr_mimebundle_()[0]["text/html"]


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
        print("torch" in sys.modules)
    """)
    assert out == "False"


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
