"""Every lesson in a real JupyterLab 4 + headless Chromium: runs clean, its players render.

One lab server and one browser serve all lessons (session fixtures from conftest.py); each
lesson gets a fresh page and a fresh kernel on an output-free copy. New lessons matching
notebooks/NN_*.ipynb join automatically. A lesson passes when Run All reaches the end with
tracebacks only from the cells tagged `raises-exception` (JupyterLab runs on past those, as
nbval does), no "Error displaying widget", no JavaScript error on the page, and as many live
explorer players (each with its SVG drawn) as the stored notebook has widget outputs.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import pytest
from notebook_runner import NB_DIR, run_notebook

expect = pytest.importorskip("playwright.sync_api").expect  # skip cleanly without it

LESSONS = sorted(NB_DIR.glob("[0-9][0-9]_*.ipynb"))
OUT = ".jp-OutputArea-output"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
TIMEOUT_MS = 120_000


@pytest.fixture(scope="session")
def lesson_root(lab) -> Path:
    """The lessons import `labkit` from their own folder: put it beside the copies, once."""
    shutil.copytree(
        NB_DIR / "labkit",
        lab.root / "labkit",
        dirs_exist_ok=True,
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    return lab.root


def widget_outputs(nb: nbformat.NotebookNode) -> int:
    """How many widget outputs the stored (nbconvert-executed) notebook holds."""
    return sum(
        1
        for cell in nb.cells
        if cell.cell_type == "code"
        for out in cell.get("outputs", [])
        if WIDGET_VIEW in out.get("data", {})
    )


def raising_cells(nb: nbformat.NotebookNode) -> int:
    return sum(1 for cell in nb.cells if "raises-exception" in cell.metadata.get("tags", []))


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_lesson_runs_in_jupyterlab(lab, lesson_root, lab_page, path):
    page = lab_page
    stored = nbformat.read(path, as_version=4)
    # the runner checks the sentinel, widget display errors and the traceback count
    run_notebook(
        page,
        lab,
        nbformat.from_dict(stored),
        path.stem,
        TIMEOUT_MS,
        tracebacks=raising_cells(stored),
    )
    players = page.locator(f"{OUT} .mg-player")
    expect(players).to_have_count(widget_outputs(stored))
    for i in range(widget_outputs(stored)):
        expect(players.nth(i).locator(".mg-graph svg")).to_have_count(1)
    assert page.js_errors == [], page.js_errors
