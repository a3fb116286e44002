"""Issue 11's targets for big graphs, measured in JupyterLab in headless Chromium: a small
transformer's backward graph (tests/widgets/big_graphs.py), in minigrad and in torch, at about
300, 2,000 and 10,000 nodes. Numbers go to artifacts/explorer-big-graphs.json (`-s` prints them).

Each player is measured alone, in a notebook of its own on a fresh page, as a learner meets it:
- **first paint**: from the start of the cell that makes the player (kernel clock) to the first
  frame the browser paints with its picture (browser clock, same machine);
- **a step**: the player's own work (fold the frame, change classes, fill the panel) plus the
  browser's rendering of the frame that shows it (style, layout, paint). Together they must fit
  in one frame at 60 Hz: 16 ms. The click-to-painted time is reported too, beside the same
  measure of a click that changes nothing: that one already takes a whole frame (~16.7 ms),
  waiting for the display.

Targets: a first paint under 2 s and a step under 16 ms at 10,000 nodes (measured here on 2 cores:
1.57-1.73 s and 5-7 ms). They are reported beside the numbers, met or missed, not asserted: a
busy machine must not fail the suite (targets.py).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat
import pytest
from notebook_runner import ARTIFACTS, run_notebook
from targets import report as timing_report
from test_explorer_performance import FLOOR_JS, STEP_TIMES_JS, summarize

expect = pytest.importorskip("playwright.sync_api").expect  # skip cleanly without it

BIG_GRAPHS = (Path(__file__).resolve().parents[1] / "widgets" / "big_graphs.py").read_text()
SIZES = {"300": 4, "2,000": 23, "10,000": 114}  # nodes (about) -> transformer blocks
PAINT_TARGET_S = 2.0
STEP_TARGET_MS = 16.0

RECORD = """import time
import {library}
trace = recorded({library}, {blocks})[1]"""

DRAW = """print(f"CELL_START_MS={time.time() * 1000:.0f}")
trace.player()"""


def notebook(library: str, blocks: int) -> nbformat.NotebookNode:
    source = [
        BIG_GRAPHS.split('if __name__ == "__main__":')[0],
        RECORD.format(library=library, blocks=blocks),
        DRAW,
    ]
    return nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in source])


def measure(page) -> dict:
    """Paint time and step times of the one player on the page."""
    area = page.locator(".jp-Cell-outputArea", has_text="CELL_START_MS=")
    start_ms = float(area.text_content().split("CELL_START_MS=")[1].split()[0])
    player = area.locator(".mg-player")
    expect(player).to_have_attribute("data-painted-at", re.compile(r"^\d+$"), timeout=60_000)
    painted = (float(player.get_attribute("data-painted-at")) - start_ms) / 1000
    player.scroll_into_view_if_needed()
    handle = player.element_handle()
    steps = page.evaluate(STEP_TIMES_JS, [handle, 30, "button.mg-step"])
    steps["frame"] = [w + r for w, r in zip(steps["work"], steps["render"], strict=True)]
    return {
        "summary": player.locator(".mg-summary").inner_text(),
        "paint_s": round(painted, 3),
        "timings_ms": json.loads(player.get_attribute("data-timings")),
        "svg_elements": int(player.get_attribute("data-elements")),
        "step": summarize(steps),
        "click_that_changes_nothing": summarize(page.evaluate(FLOOR_JS, [handle, 30])),
    }


@pytest.mark.perf
def test_transformer_graphs_paint_and_step_in_minigrad_and_torch(lab, lab_page, shot_dir):
    errors = []
    report = {}
    for library in ("minigrad", "torch"):
        for nodes, blocks in SIZES.items():
            page = lab_page.context.new_page()  # a fresh page for each player
            page.set_default_timeout(30_000)
            page.on("pageerror", lambda e: errors.append(str(e)))
            run_notebook(page, lab, notebook(library, blocks), f"big-{library}-{blocks}")
            report[f"{library}, {nodes} nodes"] = measure(page)
            if nodes == "10,000":
                player = page.locator(".mg-player")
                player.screenshot(path=str(shot_dir / f"22-big-graph-{library}-10000-nodes.png"))
            page.close(run_before_unload=False)
            lab.delete_sessions()  # one kernel at a time: each holds its graph
    targets = {}
    for library in ("minigrad", "torch"):
        big = report[f"{library}, 10,000 nodes"]
        assert big["summary"].startswith("100"), big  # 10,0xx nodes
        targets[f"{library}: first paint, s"] = (big["paint_s"], PAINT_TARGET_S)
        targets[f"{library}: step, median frame ms"] = (
            big["step"]["frame"]["median_ms"],
            STEP_TARGET_MS,
        )
        targets[f"{library}: step, p95 work ms"] = (big["step"]["work"]["p95_ms"], STEP_TARGET_MS)
    timing_report(ARTIFACTS / "explorer-big-graphs.json", "explorer big graphs", report, targets)
    assert errors == []
