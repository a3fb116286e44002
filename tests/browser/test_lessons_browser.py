"""Every lesson in a real JupyterLab 4 + headless Chromium: runs clean, its players render.

One lab server and one browser serve all lessons (session fixtures from conftest.py); each
lesson gets a fresh page and a fresh kernel on an output-free copy. New lessons matching
notebooks/NN_*.ipynb join automatically. A lesson passes when Run All reaches the end with no
traceback, no "Error displaying widget", no JavaScript error on the page, and as many live
explorer players (each with its SVG drawn) as the stored notebook has widget outputs.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from notebook_runner import NB_DIR, open_and_run_all

expect = pytest.importorskip("playwright.sync_api").expect  # skip cleanly without it

LESSONS = sorted(NB_DIR.glob("[0-9][0-9]_*.ipynb"))
OUT = ".jp-OutputArea-output"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def expected_widgets(path: Path) -> int:
    """How many widget outputs the stored (nbconvert-executed) notebook holds."""
    nb = nbformat.read(path, as_version=4)
    return sum(
        1
        for cell in nb.cells
        if cell.cell_type == "code"
        for out in cell.get("outputs", [])
        if WIDGET_VIEW in out.get("data", {})
    )


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_lesson_runs_in_jupyterlab(lab, lab_page, path):
    page = lab_page
    open_and_run_all(page, lab, path.name, timeout_ms=180_000)
    widgets = expected_widgets(path)
    players = page.locator(f"{OUT} .mg-player")
    expect(players).to_have_count(widgets)
    for i in range(widgets):
        # each player drew its graph (or, for a huge graph, shows its message instead)
        expect(players.nth(i).locator(".mg-graph svg")).to_have_count(1)
    assert page.js_errors == [], page.js_errors
