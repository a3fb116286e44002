"""Issue 11's targets for big graphs, measured in JupyterLab in headless Chromium: a small
transformer's backward graph (tests/widgets/big_graphs.py), in minigrad and in torch, at about
300, 2,000 and 10,000 nodes. For each: the time from the start of the cell that makes the player
to the first frame the browser paints with its picture, and the time of a step (the player's
own work, then until the browser has painted it). Numbers go to artifacts/explorer-big-graphs.json
(`-s` prints them).

Issue 11's targets are a first paint under 2 s and a step under 16 ms at 10,000 nodes. The
player's own work per step meets it (~1 ms at the 95th percentile), but the time until
JupyterLab's page has painted the step is 20-25 ms (median), and the first paint takes 2.4-3.8 s
here: the kernel's frames and layout ~0.8 s, the rest moving ~9 MB of frames to the browser. The
assertions below hold today's level, so that it cannot get worse unnoticed; tighten them to the
targets when the player gets there.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat
import pytest
from notebook_runner import ARTIFACTS, run_notebook
from test_explorer_performance import STEP_TIMES_JS, summarize

expect = pytest.importorskip("playwright.sync_api").expect  # skip cleanly without it

BIG_GRAPHS = (Path(__file__).resolve().parents[1] / "widgets" / "big_graphs.py").read_text()
SIZES = {"300": 4, "2,000": 23, "10,000": 114}  # nodes (about) -> transformer blocks
PAINT_LIMIT_S = 6.0  # the target is 2.0 (see the module docstring)
PAINTED_STEP_LIMIT_MS = 50  # the target is 16

RECORD = """import time
import minigrad
import torch
{library}_traces = {{n: recorded({library}, n)[1] for n in {blocks}}}"""

DRAW = """print(f"CELL_START_MS={{time.time() * 1000:.0f}} {library} {blocks} blocks")
{library}_traces[{blocks}].player()"""


def cells() -> list[str]:
    source = [BIG_GRAPHS.split('if __name__ == "__main__":')[0]]
    for library in ("minigrad", "torch"):
        source.append(RECORD.format(library=library, blocks=list(SIZES.values())))
        source += [DRAW.format(library=library, blocks=b) for b in SIZES.values()]
    return source


def measure(area, page) -> dict:
    """Paint time and step times of the player in one output area."""
    area.scroll_into_view_if_needed()  # (JupyterLab renders cells far off screen lazily)
    text = area.text_content()
    start_ms = float(text.split("CELL_START_MS=")[1].split()[0])
    player = area.locator(".mg-player")
    expect(player).to_have_attribute("data-painted-at", re.compile(r"^\d+$"), timeout=60_000)
    painted = (float(player.get_attribute("data-painted-at")) - start_ms) / 1000
    player.scroll_into_view_if_needed()
    steps = page.evaluate(STEP_TIMES_JS, [player.element_handle(), 30, "button.mg-step"])
    return {
        "summary": player.locator(".mg-summary").inner_text(),
        "paint_s": round(painted, 3),
        "timings_ms": json.loads(player.get_attribute("data-timings")),
        "svg_elements": int(player.get_attribute("data-elements")),
        "step": summarize(steps),
    }


@pytest.mark.perf
def test_transformer_graphs_paint_and_step_in_minigrad_and_torch(lab, lab_page, shot_dir):
    page = lab_page
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells()])
    run_notebook(page, lab, nb, "explorer-big-graphs")
    report = {}
    for library in ("minigrad", "torch"):
        for nodes, blocks in SIZES.items():
            area = page.locator(".jp-Cell-outputArea", has_text=f"{library} {blocks} blocks")
            report[f"{library}, {nodes} nodes"] = measure(area, page)
            if nodes == "10,000":
                area.screenshot(path=str(shot_dir / f"22-big-graph-{library}-10000-nodes.png"))
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "explorer-big-graphs.json").write_text(json.dumps(report, indent=2))
    print("\n[explorer big graphs]", json.dumps(report, indent=2))
    for library in ("minigrad", "torch"):
        big = report[f"{library}, 10,000 nodes"]
        assert big["summary"].startswith("100"), big  # 10,0xx nodes
        assert big["paint_s"] < PAINT_LIMIT_S, big
        assert big["step"]["work"]["p95_ms"] < 16, big
        # painted = the work, then JupyterLab's page restyled and painted: 20-25 ms measured
        assert big["step"]["painted"]["median_ms"] < PAINTED_STEP_LIMIT_MS, big
    assert page.js_errors == []
