"""The memory timeline of a backward pass (widgets/memory.py): real byte counts, the same for
minigrad and torch running the same program, checked against what torch's own saved-tensor
hooks are handed; frees, retain_graph, checkpointing, views; its outputs and the player's panel."""

from __future__ import annotations

import base64
import json
import re

import big_graphs
import numpy as np
import pytest
from explorer_graphs import EVIL, lib, libraries

import minigrad
from minigrad.core import events
from widgets import record_backward, record_forward
from widgets.memory import MemoryTimeline
from widgets.memory_svg import COLOURS, PAPERS, RECOMPUTED_COLOUR, _shades
from widgets.texts import say

torch = pytest.importorskip("torch")

SIZES = ((4, 16), (16, 16), (16, 2))


def mlp_loss(name: str, checkpointed: bool = False):
    """A three-layer MLP's loss on fixed numbers (the first two layers checkpointed or not),
    and its parameters."""
    t = lib(name)
    rng = np.random.default_rng(0)
    params = []
    for n_in, n_out in SIZES:
        params.append(t.tensor(rng.standard_normal((n_out, n_in)).astype("float32") / 4))
        params.append(t.tensor(rng.standard_normal(n_out).astype("float32") / 4))
    for p in params:
        p.requires_grad_(True)
    x = t.tensor(rng.standard_normal((8, 4)).astype("float32"))
    w1, b1, w2, b2, w3, b3 = params

    def block(v):
        return ((v @ w1.t() + b1).tanh() @ w2.t() + b2).tanh()

    if checkpointed:
        check = (
            torch.utils.checkpoint.checkpoint
            if name == "torch"
            else minigrad.utils.checkpoint.checkpoint
        )
        h = check(block, x, use_reentrant=False)
    else:
        h = block(x)
    return (h @ w3.t() + b3).pow(2).mean(), params, x


def timeline(name: str, retain: bool = False, checkpointed: bool = False) -> MemoryTimeline:
    loss, _, _ = mlp_loss(name, checkpointed)
    with record_backward(loss) as bwd:
        loss.backward(retain_graph=retain)
    return bwd.memory()


def saved_series(m: MemoryTimeline) -> list[int]:
    """The saved bytes, step by step, with repeats run together (the two recordings have
    different numbers of steps: torch's ready and freed records come in another order)."""
    out: list[int] = []
    for step in m.steps:
        if not out or out[-1] != step["bytes"]["saved"]:
            out.append(step["bytes"]["saved"])
    return out


def torch_packed_bytes() -> int:
    """What torch itself saves for the plain MLP: every tensor its pack hook is handed, each
    storage once (the hook keeps the tensor, so no address is reused meanwhile)."""
    storages: dict[int, int] = {}
    kept = []

    def pack(t):
        kept.append(t)
        storages[t.untyped_storage().data_ptr()] = t.untyped_storage().nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        loss, _, _ = mlp_loss("torch")
    assert kept
    return sum(storages.values())


def test_saved_bytes_at_the_start_are_what_torch_packs():
    packed = torch_packed_bytes()
    for name in ("minigrad", "torch"):
        assert timeline(name).totals(0)["saved"] == packed, name


def test_minigrad_and_torch_hold_the_same_bytes_through_the_pass():
    m, t = timeline("minigrad"), timeline("torch")
    assert m.peak_bytes == t.peak_bytes
    assert saved_series(m) == saved_series(t)
    assert m.totals(len(m.steps) - 1) == t.totals(len(t.steps) - 1)
    # the end: nothing saved or waiting; every parameter's .grad, at its dtype's size
    _, params, _ = mlp_loss("minigrad")
    grads = sum(p.numel() * 4 for p in params)
    assert m.totals(len(m.steps) - 1) == {"saved": 0, "grads": grads, "buffers": 0, "total": grads}


@pytest.mark.parametrize("name", libraries())
def test_frees_are_drops_and_retain_graph_keeps_everything(name):
    freed = timeline(name)
    drops = [
        k
        for k in range(1, len(freed.steps))
        if freed.totals(k)["saved"] < freed.totals(k - 1)["saved"]
    ]
    assert drops and freed.totals(len(freed.steps) - 1)["saved"] == 0
    # each drop is where the engine frees: a freed record (minigrad), the node's node_run
    # (torch's engine frees right after the node ran; the recording notices it later)
    kinds = {freed.steps[k]["kind"] for k in drops}
    assert kinds == ({"freed"} if name == "minigrad" else {"node_run"})
    kept = timeline(name, retain=True)
    assert saved_series(kept) == [freed.totals(0)["saved"]]


def test_retain_graph_bytes_match_between_libraries():
    m, t = timeline("minigrad", retain=True), timeline("torch", retain=True)
    assert m.peak_bytes == t.peak_bytes and m.totals(0) == t.totals(0)


@pytest.mark.parametrize("name", libraries())
def test_checkpointing_saves_less(name):
    plain, checked = timeline(name), timeline(name, checkpointed=True)
    assert checked.totals(0)["saved"] < plain.totals(0)["saved"]


def test_checkpointing_shows_the_recomputation_bump_in_minigrad():
    m = timeline("minigrad", checkpointed=True)
    saved = [s["bytes"]["saved"] for s in m.steps]
    low = min(saved[: saved.index(max(saved))] or [0])
    assert max(saved) > low  # saved bytes rise again mid-pass: the block is recomputed
    recomputing = [s for s in m.steps if "recomputed in backward" in s["by_node"]]
    assert recomputing[0]["kind"] == "node_created"  # the block's forward, run again


def test_checkpoint_inputs_count_in_minigrad_only():
    """minigrad's checkpoint node saves the block's input; torch keeps it in the checkpoint's own
    Python frame, which is no saved tensor (memory.py's docstring says so)."""
    _, _, x = mlp_loss("minigrad")
    m = timeline("minigrad", checkpointed=True)
    t = timeline("torch", checkpointed=True)
    assert m.totals(0)["saved"] - t.totals(0)["saved"] == x.numel() * 4


@pytest.mark.parametrize("name", libraries())
def test_a_storage_saved_twice_counts_once(name):
    t = lib(name)
    a = t.tensor(np.arange(16, dtype="float64").reshape(4, 4), requires_grad=True)
    b = a * a  # 128 bytes (a, saved twice, is one more storage: 128)
    y = (b[0] * b[1]).sum()  # saves two views of b: one storage
    with record_backward(y) as bwd:
        y.backward()
    m = bwd.memory()
    assert m.totals(0)["saved"] == 256
    assert m.totals(len(m.steps) - 1)["grads"] == 128


@pytest.mark.parametrize("name", libraries())
def test_a_grad_from_before_counts_from_the_start(name):
    t = lib(name)
    w = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (w * w).sum().backward()
    y = (w * 3).sum()
    with record_backward(y) as bwd:
        y.backward()
    m = bwd.memory()
    assert m.totals(0)["grads"] == 12 and m.totals(0)["buffers"] == 0
    assert m.totals(len(m.steps) - 1)["grads"] == 12  # accumulated in place


def test_steps_name_nodes_and_add_up():
    loss, params, _ = mlp_loss("minigrad")
    with record_backward(loss) as bwd:
        loss.backward()
    m = bwd.memory()
    assert len(m.steps) == len(bwd.records) == len(bwd.frames())
    titles = set(bwd.graph.titles().values())
    for k, step in enumerate(m.steps):
        assert step["frame"] == k and step["kind"] == bwd.records[k]["kind"]
        assert sum(step["by_node"].values()) == step["total"] == sum(step["bytes"].values())
        assert set(step["by_node"]) <= titles
    assert m.steps[m.peak_step]["total"] == m.peak_bytes == max(s["total"] for s in m.steps)
    assert m.totals() == {**m.steps[m.peak_step]["bytes"], "total": m.peak_bytes}


def test_outputs_are_deterministic_and_show_without_javascript():
    reprs = {repr(timeline("minigrad")) for _ in range(2)}
    assert len(reprs) == 1
    (text,) = reprs
    assert text.splitlines()[0] == "memory timeline: 84 steps of the backward pass"
    # steps are counted from 1 for the learner, as the player's counter (frame 25 is step 26)
    m = timeline("minigrad")
    assert m.peak_step == 25 and m.steps[25]["frame"] == 25 and m.steps[25]["kind"] == "edge"
    assert "peak 2,824 B at step 26 (a gradient reaching TBackward0 #8)" in text
    bundle = timeline("minigrad")._repr_mimebundle_()
    assert bundle["text/plain"] == text
    html = bundle["text/html"]
    assert "<svg" not in html  # an image: shown untrusted and by nbconvert
    (data,) = re.findall(r'src="data:image/svg\+xml;base64,([^"]+)"', html)
    svg = base64.b64decode(data).decode("utf-8")
    assert svg.startswith("<svg ") and 'class="mg-mem-band' in svg and "mg-mem-peak" in svg
    assert "mg-mem-marker" not in svg  # the marker is the live player's
    loss, _, _ = mlp_loss("minigrad")
    with record_backward(loss) as bwd:
        loss.backward()
    zh = bwd.memory(lang="zh").summary()
    assert zh.startswith("内存时间线：反向传播共 84 步")
    assert "峰值 2,824 B，在第 26 步（梯度到达 TBackward0 #8）" in zh


def test_user_text_is_escaped_in_the_chart():
    w = minigrad.tensor([1.0, 2.0], requires_grad=True)
    y = (w * w).sum()
    with record_backward(y, names={EVIL: w}) as bwd:
        y.backward()
    svg = bwd.memory().svg()
    assert EVIL not in svg and "&lt;img src=x onerror=alert(1)&gt;" in svg


def test_save_html_is_one_offline_page(tmp_path):
    path = timeline("minigrad").save_html(tmp_path / "memory.html")
    page = path.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "default-src 'none'" in page
    assert "data:image/svg+xml;base64," in page and "<script" not in page


def test_only_backward_traces_have_a_memory_timeline():
    w = minigrad.tensor([1.0], requires_grad=True)
    with record_forward() as fwd:
        (w * 2).sum()
    with pytest.raises(TypeError, match="backward trace"):
        fwd.memory()
    assert fwd.player().memory_json == ""


def test_the_player_carries_the_chart_and_per_frame_totals(tmp_path):
    loss, _, _ = mlp_loss("torch")
    with record_backward(loss) as bwd:
        loss.backward()
    assert bwd.player().memory_json == ""  # asked for: a player has no chart by default
    player = bwd.player(lang="zh", memory=True)
    data = json.loads(player.memory_json)
    m = bwd.memory()
    assert [len(column) for column in data["totals"]] == [len(player.frames)] * 3
    assert [sum(col[k] for col in data["totals"]) for k in range(len(player.frames))] == [
        s["total"] for s in m.steps
    ]
    assert data["peak"] == m.peak_bytes and data["peak_step"] == m.peak_step
    svg = player.memory_svg
    assert 'class="mg-mem-marker"' in svg and "峰值" in svg
    ids = set(re.findall(r'data-node="(n\d+)"', svg))
    assert ids and ids <= set(bwd.graph.nodes)
    page = player.save_html(tmp_path / "replay.html").read_text(encoding="utf-8")
    assert "mg-mem-marker" in page and "memory_json" in page


def relative_luminance(colour: str) -> float:
    """WCAG's relative luminance of `#rrggbb`."""
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(one: str, other: str) -> float:
    low, high = sorted((relative_luminance(one), relative_luminance(other)))
    return (high + 0.05) / (low + 0.05)


def test_every_band_stands_out_from_light_and_dark_paper():
    """No band fades into the paper (it would read as a gap in the stack): every fill a chart
    uses keeps 3:1 contrast with white paper and with JupyterLab's dark paper."""
    fills = {RECOMPUTED_COLOUR, *(c for shades in COLOURS.values() for c in shades)}
    for m in (timeline("minigrad", checkpointed=True), timeline("torch"), timeline("torch", True)):
        fills |= set(re.findall(r'class="mg-mem-band[^"]*"[^>]* fill="(#[0-9a-f]{6})"', m.svg()))
    assert len(fills) >= 7
    for paper in PAPERS.values():
        for fill in fills:
            assert contrast(fill, paper) >= 3, (fill, paper)
    # a category's light and dark shades tell two bands apart (the third lies between them)
    for light, dark, _ in COLOURS.values():
        assert contrast(light, dark) >= 1.5, (light, dark)


def test_bands_stacked_on_each_other_never_share_a_fill():
    for m in (timeline("minigrad", checkpointed=True), timeline("torch", retain=True)):
        chart = m.chart()
        fills = _shades(chart.bands)
        for j in range(len(chart.columns)):
            stack = [fills[i] for i, band in enumerate(chart.bands) if band.values[j]]
            assert all(a != b for a, b in zip(stack, stack[1:], strict=False)), (j, stack)


BAND = re.compile(
    r'<path class="mg-mem-band mg-mem-(\w+)" data-node="([^"]*)" d="([^"]*)" fill="([^"]*)"'
)
TICK = re.compile(r'<text class="mg-mem-text" x="[^"]+" y="([^"]+)" dy="[^"]+" [^>]*>([\d,]+) B<')


def crossings(d: str, x: float) -> list[tuple[float, float]]:
    """The (top, bottom) y of each piece of a band's path the vertical line at `x` runs through.
    Each piece is one closed outline of H and V moves, so the line meets it on two H edges."""
    pieces = []
    for outline in re.findall(r"M[^Z]*Z", d):
        points, ys = [], []
        for move, value in re.findall(r"([MHV])([-\d.,]+)", outline):
            last = points[-1] if points else (0.0, 0.0)
            if move == "M":
                points.append(tuple(float(v) for v in value.split(",")))
            else:
                points.append((float(value), last[1]) if move == "H" else (last[0], float(value)))
        for (x1, y1), (x2, y2) in zip(points, points[1:] + points[:1], strict=True):
            if y1 == y2 and min(x1, x2) < x < max(x1, x2):
                ys.append(y1)
        ys.sort()
        pieces += list(zip(ys[::2], ys[1::2], strict=True))
    return pieces


def check_drawn_stack(m: MemoryTimeline) -> None:
    """What the chart draws, read back from its SVG: in every column the bands stand on the axis
    and on each other (no gap, no overlap), each band holding bytes is drawn as tall as its bytes,
    in a colour that is not the paper's, each category's bands as tall as its bytes, and all of
    them as tall as the step's total."""
    svg, chart = m.svg(), m.chart()
    ticks = [(float(y), int(n.replace(",", ""))) for y, n in TICK.findall(svg)]
    (axis, _), (top_y, top_bytes) = ticks[0], ticks[-1]
    per_byte = (axis - top_y) / top_bytes  # SVG units per byte
    x0, w, steps = (float(re.search(rf'data-{a}="([\d.]+)"', svg)[1]) for a in ("x0", "w", "steps"))
    bands = BAND.findall(svg)
    assert len(bands) == len(chart.bands)
    assert not {fill for *_, fill in bands} & set(PAPERS.values())
    tolerance = 0.11  # the SVG writes y to 0.1
    for j, k in enumerate(chart.columns):
        x = x0 + (min(j * chart.per, steps) + min((j + 1) * chart.per, steps)) / 2 / steps * w
        pieces = sorted(
            (
                (bottom, top, (category, key))
                for category, key, d, _ in bands
                for top, bottom in crossings(d, x)
            ),
            reverse=True,
        )
        level = axis
        for bottom, top, band in pieces:
            assert abs(bottom - level) <= tolerance, (k, band, "gap or overlap")
            level = top
        total = m.steps[k]["total"]
        assert abs((axis - level) / per_byte - total) <= tolerance / per_byte, (k, total)
        drawn = {band: (bottom - top) / per_byte for bottom, top, band in pieces}
        held = {(b.category, b.key): b.values[j] for b in chart.bands if b.values[j]}
        assert drawn.keys() == held.keys(), (k, drawn, held)
        for band, n in held.items():
            assert abs(drawn[band] - n) <= tolerance / per_byte, (k, band, drawn[band], n)
        for category, n in m.steps[k]["bytes"].items():  # each in its category's band
            mine = sum(h for (c, _), h in drawn.items() if c == category)
            assert abs(mine - n) <= len(drawn) * tolerance / per_byte, (k, category, mine, n)


def linear_checkpointed_mlp() -> MemoryTimeline:
    """The program the browser test shows (tests/browser/test_memory_timeline_browser.py):
    minigrad's Linear layers, the first two under a non-reentrant checkpoint."""
    minigrad.manual_seed(0)
    l1, l2, l3 = (minigrad.nn.Linear(n_in, n_out) for n_in, n_out in SIZES)
    x = minigrad.randn(8, 4)
    h = minigrad.utils.checkpoint.checkpoint(
        lambda v: l2(l1(v).tanh()).tanh(), x, use_reentrant=False
    )
    loss = l3(h).pow(2).mean()
    with record_backward(loss) as bwd:
        loss.backward()
    return bwd.memory()


def test_the_drawn_bands_add_up_to_every_steps_total():
    """Read back from the SVG, every step's bands are drawn whole. Step 21 of the browser's
    program holds 776 B: the checkpoint node's 128 saved bytes and the 512 waiting in its input
    buffer, TBackward0's 128 and a leaf's 8 waiting too (one node, two bands, both drawn)."""
    m = linear_checkpointed_mlp()
    assert m.steps[20]["bytes"] == {"saved": 128, "grads": 0, "buffers": 648}
    assert m.steps[20]["by_node"]["CheckpointWithoutReentrantBackward"] == 128 + 512
    check_drawn_stack(m)
    for name in libraries():
        check_drawn_stack(timeline(name, retain=True, checkpointed=True))
        check_drawn_stack(big_graphs.recorded(lib(name), 4)[1].memory())  # shared bands, columns


def test_chart_axis_counts_steps_from_one():
    m = timeline("minigrad")
    labels = re.findall(r'text-anchor="middle" fill="[^"]+">(\d+)</text>', m.svg())
    assert labels == ["1", str((len(m.steps) - 1) // 2 + 1), str(len(m.steps))]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_record_kind_is_worded_for_the_peak(lang):
    for kind in events.KINDS:
        assert "{" not in say(f"memory.at.{kind}", lang, node="MulBackward0"), kind
