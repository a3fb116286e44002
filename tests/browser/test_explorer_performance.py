"""The explorer's performance targets, measured in the browser (issue: graph explorer):

- a frame step under 50 ms on a 300-node graph (the step is pure client-side class changes);
- a 2,000-node graph drawn in under 3 s, from the start of the cell that makes the player to the
  first frame the browser paints with the picture (walk, frames, dot layout, transfer, render).

Numbers go to artifacts/explorer-performance.json and are printed (run with `-s` to see them), each
beside its target, met or missed: reported, never asserted (targets.py).
"""

from __future__ import annotations

import json
import re
import statistics

import nbformat
import pytest
from notebook_runner import ARTIFACTS, run_notebook
from targets import report as timing_report

expect = pytest.importorskip("playwright.sync_api").expect  # skip cleanly without it

CHAIN = """import time
import minigrad as mg
from widgets import record_backward


def chain(steps):
    # a residual tanh chain: 8 drawn nodes per step (3 ops, 2 saved tensors, a weight and its
    # AccumulateGrad, the weight's saved copy)
    x = mg.tensor([0.5, -0.25], requires_grad=True)
    h = x
    for _ in range(steps):
        w = mg.tensor([0.9, 1.1], requires_grad=True)
        h = (h * w).tanh() + h
    return h.sum()
"""

MEDIUM = """medium_loss = chain(37)
with record_backward(medium_loss) as medium_trace:
    medium_loss.backward()
medium = medium_trace.player()
medium"""

LARGE_RECORD = """from widgets.svg import layout_svg

large_loss = chain(250)
with record_backward(large_loss) as large_trace:
    large_loss.backward()


def timed_player(trace):
    layout_svg.cache_clear()  # lay the graph out afresh: no help from an earlier drawing
    print(f"CELL_START_MS={time.time() * 1000:.0f}")
    return trace.player()"""

# drawn twice, each from scratch: the better of two is what the target is checked on, so one
# scheduling hiccup on a busy CI machine does not decide the result (both are reported)
LARGE_DRAW = "timed_player(large_trace)"

# per click: the player's own work (data-step-ms: fold + class changes + panel), the browser's
# rendering of the frame that shows it (from the animation frame callback to the task after it:
# style, layout, paint), and the time until that frame is painted. The last includes waiting for
# the display's next frame: a click that changes nothing takes one frame (~16.7 ms) by this
# measure (FLOOR_JS), so "fits in a frame" is work + render, not painted.
STEP_TIMES_JS = """async ([root, n, selector]) => {
  const button = root.querySelector(selector);
  const painted = [], work = [], render = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    button.click();
    let t1 = 0;
    await new Promise((r) => requestAnimationFrame(() => {
      t1 = performance.now();
      setTimeout(r, 0);
    }));
    const t2 = performance.now();
    painted.push(t2 - t0);
    render.push(t2 - t1);
    work.push(parseFloat(root.dataset.stepMs));
  }
  return {painted, work, render};
}"""

# the same measure of a click on a button that only changes its own text: the floor
FLOOR_JS = """async ([root, n]) => {
  const button = document.createElement("button");
  root.appendChild(button);
  let k = 0;
  button.addEventListener("click", () => { button.textContent = String(++k); });
  const painted = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    button.click();
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    painted.push(performance.now() - t0);
  }
  button.remove();
  return {painted};
}"""


def summarize(times: dict[str, list[float]]) -> dict:
    """Median, 95th percentile and max of each series, in ms."""
    out = {"steps": len(times["painted"])}
    for name, series in times.items():
        ordered = sorted(series)
        out[name] = {
            "median_ms": round(statistics.median(series), 2),
            "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))], 2),
            "max_ms": round(ordered[-1], 2),
        }
    return out


def measure_draw(area) -> dict:
    """Times of one drawing of the large graph, read from its cell's output."""
    start_ms = float(area.inner_text().split("CELL_START_MS=")[1].split()[0])
    player = area.locator(".mg-player")
    expect(player.locator(".mg-summary")).to_have_text(re.compile(r"^2\d{3} nodes"))
    expect(player).to_have_attribute("data-painted-at", re.compile(r"^\d+$"))
    timings = json.loads(player.get_attribute("data-timings"))
    return {
        "end_to_end_s": round(
            (float(player.get_attribute("data-painted-at")) - start_ms) / 1000, 3
        ),
        "kernel_frames_ms": timings["frames_ms"],
        "kernel_layout_ms": timings["layout_ms"],
        "browser_insert_ms": float(player.get_attribute("data-draw-ms")),
        "svg_elements": int(player.get_attribute("data-elements")),
        "frames": int(player.locator(".mg-counter").inner_text().split("/")[1]),
    }


@pytest.mark.perf
def test_frame_step_and_large_draw_times(lab, lab_page, shot_dir):
    page = lab_page
    cells = (CHAIN, MEDIUM, LARGE_RECORD, LARGE_DRAW, LARGE_DRAW)
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    run_notebook(page, lab, nb, "explorer-performance")
    medium = page.locator(".jp-OutputArea-output .mg-player").first
    expect(medium.locator(".mg-summary")).to_contain_text("300 nodes")

    # --- 300 nodes: step forward, then step back (back refolds the state from frame 0) ------
    medium.scroll_into_view_if_needed()
    handle = medium.element_handle()
    forward = page.evaluate(STEP_TIMES_JS, [handle, 150, "button.mg-step"])
    back = page.evaluate(STEP_TIMES_JS, [handle, 30, "button.mg-prev"])
    expect(medium).to_have_attribute("data-frame", "120")
    medium.screenshot(path=str(shot_dir / "20-perf-300-nodes.png"))

    # --- 2,000 nodes, twice: cell start (kernel clock) -> first paint (browser clock) ---------
    areas = page.locator(".jp-Cell-outputArea", has_text="CELL_START_MS=")
    expect(areas).to_have_count(2)
    draws = [measure_draw(areas.nth(i)) for i in range(2)]
    large = areas.nth(1).locator(".mg-player")
    big_steps = page.evaluate(STEP_TIMES_JS, [large.element_handle(), 40, "button.mg-step"])
    large.screenshot(path=str(shot_dir / "21-perf-2000-nodes.png"))

    report = {
        "frame_step_300_nodes": summarize(forward),
        "frame_step_back_300_nodes": summarize(back),
        "frame_step_2000_nodes": summarize(big_steps),
        "draw_2000_nodes": draws,
    }
    targets = {"draw 2,000 nodes, end to end s": (min(d["end_to_end_s"] for d in draws), 3.0)}
    for key in ("frame_step_300_nodes", "frame_step_back_300_nodes"):
        targets[f"{key}: median painted ms"] = (report[key]["painted"]["median_ms"], 50.0)
        targets[f"{key}: p95 work ms"] = (report[key]["work"]["p95_ms"], 50.0)
    timing_report(ARTIFACTS / "explorer-performance.json", "explorer performance", report, targets)
    assert page.js_errors == []
