"""Every lesson in a real JupyterLab 4 + headless Chromium: runs clean, its players render.

One lab server and one browser serve all lessons (session fixtures from conftest.py); each
lesson gets a fresh page and a fresh kernel on an output-free copy. New lessons matching
notebooks/NN_*.ipynb join automatically. A lesson passes when Run All reaches the end with
tracebacks only from the cells tagged `raises-exception` (JupyterLab runs on past those, as
nbval does), no "Error displaying widget", no JavaScript error on the page, and as many live
explorer players (each with its SVG drawn) as the stored notebook has widget outputs.
"""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path

import nbformat
import pytest
from notebook_runner import (
    NB_DIR,
    artifact,
    run_notebook,
    set_theme,
    wait_idle_kernel,
    write_fresh,
)

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


SHOWN_LESSON = NB_DIR / "02_computation_graphs.ipynb"  # static drawings and two players
PICTURES = ".jp-OutputArea-output img.mg-picture"


def shoot(page, element, name: str) -> None:
    """The page with `element` scrolled into view and drawn (JupyterLab renders lazily)."""
    element.scroll_into_view_if_needed()
    expect(element).to_be_visible()
    page.wait_for_timeout(500)
    page.screenshot(path=artifact(name))


def pictures_shown(page) -> int:
    """Every explorer picture on the page decoded and visible; returns how many there are."""
    pictures = page.locator(PICTURES)
    for i in range(pictures.count()):
        expect(pictures.nth(i)).to_be_visible()
        assert pictures.nth(i).evaluate("img => img.complete && img.naturalWidth > 100")
    return pictures.count()


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_lesson_opened_untrusted_run_saved_and_reopened(lab, lesson_root, lab_page, theme):
    """What a learner meets: the lesson as shipped (untrusted, outputs stored) shows its graphs
    as pictures; Run All makes the players live; after saving and reopening with the kernel gone
    the pictures are back. Screenshots of each stage in artifacts/lesson-*-{theme}.png."""
    page = lab_page
    stored = nbformat.read(SHOWN_LESSON, as_version=4)
    pictures = sum(
        len(re.findall(r'class="mg-picture"', out.get("data", {}).get("text/html", "")))
        for cell in stored.cells
        if cell.cell_type == "code"
        for out in cell.get("outputs", [])
    )
    players = widget_outputs(stored)
    set_theme(lab, "JupyterLab Dark" if theme == "dark" else None)
    try:
        name = write_fresh(lab, stored, f"lesson-{theme}")
        page.goto(lab.lab_url(name))
        expect(page.locator(PICTURES).first).to_be_visible(timeout=TIMEOUT_MS)
        expect(page.locator(".jp-OutputArea-output.jp-mod-trusted")).to_have_count(0)
        assert pictures_shown(page) == pictures
        expect(page.locator(".mg-player")).to_have_count(0)
        shoot(page, page.locator(PICTURES).nth(1), f"lesson-first-open-untrusted-{theme}.png")

        wait_idle_kernel(lab)
        page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
        page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$")).click()
        live = page.locator(".jp-OutputArea-output .mg-player")
        expect(live).to_have_count(players, timeout=TIMEOUT_MS)
        wait_idle_kernel(lab)
        shoot(page, live.first, f"lesson-run-{theme}.png")

        page.keyboard.press("Control+s")
        expect(page.locator(".jp-mod-dirty")).to_have_count(0)
        lab.delete_sessions()
        page.js_errors.clear()
        page.reload()
        expect(page.locator(PICTURES).first).to_be_visible(timeout=TIMEOUT_MS)
        wait_idle_kernel(lab)
        time.sleep(3)  # jupyterlab-manager gives up on a missing model after ~2 s
        expect(page.locator(".mg-player")).to_have_count(0)
        assert pictures_shown(page) == pictures
        note = page.locator(".mg-note", has_text="Run this cell to replay")
        expect(note).to_have_count(players)
        dead = page.locator(".jp-OutputArea-output", has_text="Error displaying widget")
        for i in range(dead.count()):  # (there in the page, never shown: the picture stands in)
            expect(dead.nth(i)).to_be_hidden()
        shoot(page, note.first, f"lesson-reopened-{theme}.png")
    finally:
        set_theme(lab, None)
    assert [e for e in page.js_errors if "not found" not in e] == []
