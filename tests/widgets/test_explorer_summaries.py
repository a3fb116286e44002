"""Arrays in every text are summaries; the whole value travels beside them (`grad_full`); the
active edge carries a short label; leaves report their `.grad` as it changes."""

from __future__ import annotations

import json

import numpy as np
import pytest
from explorer_graphs import lib, libraries

import minigrad as mg
from widgets import frames as frames_module
from widgets import record_backward
from widgets.labels import EDGE_LABEL_WIDTH, edge_text, full_text, summarize, summarize_many

GRID = np.linspace(-1.2, 0.9, 64, dtype=np.float32).reshape(4, 16)


def test_small_arrays_print_whole_and_big_ones_as_one_line():
    assert summarize(np.array([1.0, 2.5])) == "[1., 2.5]"
    assert summarize(np.float32(3.0)) == "3."  # 0-d
    assert summarize(np.zeros((2, 4))) == "[[0., 0., 0., 0.], [0., 0., 0., 0.]]"  # 8: whole
    assert summarize(GRID) == (
        "[4, 16] float32 [-1.2, -1.1667, -1.1333, …] min -1.2 max 0.9 mean -0.15"
    )
    assert summarize(None) == "None"


@pytest.mark.parametrize(
    ("values", "text"),
    [
        (np.zeros(0), "[]"),
        (np.zeros((0, 3), dtype=np.float32), "[] of shape [0, 3]"),
        (np.arange(20).reshape(4, 5), "[4, 5] int64 [0, 1, 2, …] min 0 max 19 mean 9.5"),
        (np.arange(12) % 3 == 0, "[12] bool [True, False, False, …] 4 True, 8 False"),
        (np.full(9, -0.0), "[9] float64 [0., 0., 0., …] min 0 max 0 mean 0"),
        (
            np.array([np.nan, 1, 2, np.inf, -np.inf, 3, 4, np.nan, 6.0]),
            "[9] float64 [nan, 1., 2., …] 2 nan, 1 inf, 1 -inf; the 5 finite: min 1 max 6 mean 3.2",
        ),
        (np.full(10, np.nan, dtype=np.float32), "[10] float32 [nan, nan, nan, …] 10 nan"),
        (np.full((3, 3), np.inf), "[3, 3] float64 [inf, inf, inf, …] 9 inf"),
        (
            np.arange(9) * (1 + 1j),
            "[9] complex128 [0j, (1+1j), (2+2j), …] max |x| 11.31 mean (4+4j)",
        ),
    ],
)
def test_summaries_never_fail_and_count_what_is_special(values, text):
    assert summarize(values) == text


def test_the_full_text_is_every_value_row_by_row_capped_at_10000():
    assert full_text(np.array([1.0, 2.0])) is None  # the summary already shows it all
    assert full_text(np.arange(12.0).reshape(2, 2, 3)) == (
        "[2, 2, 3] float64\n[[[0, 1, 2],\n[3, 4, 5]],\n\n[[6, 7, 8],\n[9, 10, 11]]]"
    )
    text = full_text(GRID)
    values = [float(v) for v in text.split("\n", 1)[1].replace("[", "").replace("]", "").split(",")]
    np.testing.assert_allclose(values, GRID.ravel(), rtol=1e-5)
    huge = full_text(np.ones(10_001))
    assert huge.startswith("[10001] float64, the first 10,000 of 10,001 values in row-major order:")
    assert huge.split("\n")[1].count("1") == 10_000 and huge.endswith(", 1, …]")


def test_edge_labels_are_short():
    assert edge_text(np.array([1.0, 2.0])) == "[1., 2.]"
    assert edge_text(GRID) == "[4, 16] mean -0.15"
    assert edge_text(np.array([0.12345678] * 8)) == "[8] mean 0.1235"  # whole would be too long
    assert edge_text(np.array([np.nan, 1.0] * 5)) == "[10] 5 nan"
    assert edge_text(np.zeros((0, 2))) == "[0, 2] empty"
    assert edge_text(np.ones(9, dtype=bool)) == "[9] 9 True"
    for values in (GRID, np.full((300, 300, 3), np.inf), np.arange(1000)):
        assert len(edge_text(values)) <= EDGE_LABEL_WIDTH
    assert summarize_many([np.ones(2), None]) == "([1., 1.], None)"


def wide_backward(torch):
    """A 4x16 weight: every gradient on its way is a 4x16 or 1x16 array."""
    w = torch.tensor(GRID.tolist(), requires_grad=True)
    x = torch.tensor([np.linspace(0, 1, 16, dtype=np.float32).tolist()])
    with record_backward(loss := (w * x).sum() * 2, names={"w": w}) as trace:
        loss.backward()
    return w, trace


@pytest.mark.parametrize("name", libraries())
def test_no_frame_text_holds_a_whole_big_array(name):
    w, trace = wide_backward(lib(name))
    frames = trace.frames()
    for frame in frames:
        assert len(frame["text"]) < 250, frame["text"]
        if "grad_full" in frame:
            assert frame["grad_full"] != frame["grad"] and frame["grad_full"].count("\n") >= 4
        if "edge" in frame:
            assert len(frame["edge_label"]) <= EDGE_LABEL_WIDTH
        assert np.size(frame.get("values", [])) <= 8
    (acc,) = [f for f in frames if f["kind"] == "accumulate"]
    grad = w.grad.detach().numpy() if name == "torch" else w.grad.numpy()
    assert acc["leaf"] == {
        "id": trace.builder.tensor_id[w],
        "name": "w",
        "before": "None",
        "after": summarize(grad),
        "after_full": full_text(grad),
    }
    edge = trace.graph.edges[acc["edge"]]
    assert (edge.kind, edge.target) == ("accumulate", acc["leaf"]["id"])
    assert acc["edge_label"] == edge_text(grad)
    assert acc["text"] == f"w.grad: None + {summarize(grad)} → {summarize(grad)}"
    edges = [f for f in frames if f["kind"] == "edge"]
    assert edges and all("edge_label" in f for f in edges)


def test_a_leaf_written_twice_reports_before_and_after():
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    y = (a * 3).sum()
    with record_backward(y, names={"a": a}) as trace:
        y.backward(retain_graph=True)
        y.backward()
    leaves = [f["leaf"] for f in trace.frames() if f["kind"] == "accumulate"]
    assert leaves == [
        {"id": "n5", "name": "a", "before": "None", "after": "[3., 3.]"},
        {"id": "n5", "name": "a", "before": "[3., 3.]", "after": "[6., 6.]"},
    ]


def test_full_values_stop_at_the_recordings_budget(monkeypatch):
    monkeypatch.setattr(frames_module, "FULL_BUDGET", 1500)
    _, trace = wide_backward(mg)
    frames = trace.frames()
    carried = [f for f in frames if "grad_full" in f]
    assert carried and sum(len(f["grad_full"]) for f in carried) <= 1500
    assert any(
        "grad" in f and "grad_full" not in f and f["grad"].startswith("[4, 16]") for f in frames
    )
    json.dumps(frames)  # still plain JSON
