"""Every lesson, English and Chinese, in a real JupyterLab 4 + headless Chromium: runs clean,
its players render.

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
    run_all,
    run_notebook,
    set_locale,
    set_theme,
    wait_idle_kernel,
    write_fresh,
)

expect = pytest.importorskip("playwright.sync_api").expect  # skip cleanly without it

LESSONS = sorted(NB_DIR.glob("[0-9][0-9]_*.ipynb")) + sorted(NB_DIR.glob("zh/[0-9][0-9]_*.ipynb"))
OUT = ".jp-OutputArea-output"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
TIMEOUT_MS = 120_000


@pytest.fixture(scope="session")
def lesson_root(lab) -> Path:
    """The lessons import `labkit` from their own folder: put it beside the copies, once (the
    Chinese lessons' one, in zh/, loads the course's labkit in Chinese)."""
    for folder in ("labkit", "zh/labkit"):
        shutil.copytree(
            NB_DIR / folder,
            lab.root / folder,
            dirs_exist_ok=True,
            ignore=shutil.ignore_patterns("__pycache__"),
        )
    return lab.root


def stem(path: Path) -> str:
    """The copy's name in the lab: a Chinese lesson goes to zh/, beside its labkit."""
    return path.stem if path.parent == NB_DIR else f"{path.parent.name}/{path.stem}"


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


@pytest.mark.parametrize("path", LESSONS, ids=stem)
def test_lesson_runs_in_jupyterlab(lab, lesson_root, lab_page, path):
    page = lab_page
    stored = nbformat.read(path, as_version=4)
    # the runner checks the sentinel, widget display errors and the traceback count
    run_notebook(
        page,
        lab,
        nbformat.from_dict(stored),
        stem(path),
        TIMEOUT_MS,
        tracebacks=raising_cells(stored),
    )
    players = page.locator(f"{OUT} .mg-player")
    expect(players).to_have_count(widget_outputs(stored))
    for i in range(widget_outputs(stored)):
        expect(players.nth(i).locator(".mg-graph svg")).to_have_count(1)
    if path.parent.name == "zh":  # a look at each Chinese lesson as run: artifacts/zh-run-NN.png
        shown = page.locator(f"{OUT} .mg-player, {OUT} img.mg-picture, {OUT}")
        shoot(page, shown.first, f"zh-run-{path.stem}.png")
    assert page.js_errors == [], page.js_errors


SHOWN_LESSON = "02_computation_graphs.ipynb"  # static drawings and two players
# what each language calls it: its folder, JupyterLab's locale, the player picture's note
LANGUAGE = {
    "en": ("", None, "Run this cell to replay"),
    "zh": ("zh/", "zh_CN", "运行这个单元格即可重放动画"),
}
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


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_lesson_opened_untrusted_run_saved_and_reopened(lab, lesson_root, lab_page, theme, lang):
    """What a learner meets: the lesson as shipped (untrusted, outputs stored) shows its graphs
    as pictures; Run All makes the players live; after saving and reopening with the kernel gone
    the pictures are back. Screenshots of each stage in artifacts/lesson-*-{theme}.png, and of
    the Chinese lesson (JupyterLab's menus in Chinese too) in artifacts/zh-lesson-*-{theme}.png."""
    open_run_and_reopen(lab, lab_page, SHOWN_LESSON, "lesson", theme, lang)


@pytest.mark.parametrize(("theme", "lang"), [("dark", "en"), ("light", "zh")])
def test_next_steps_opened_untrusted_run_saved_and_reopened(
    lab, lesson_root, lab_page, theme, lang
):
    """The same for the course's last notebook (makemore and a tiny GPT on both libraries, their
    players collapsed by module): artifacts/next-steps-*.png and zh-next-steps-*.png."""
    open_run_and_reopen(lab, lab_page, "next_steps.ipynb", "next-steps", theme, lang)


def open_run_and_reopen(lab, page, notebook: str, label: str, theme: str, lang: str) -> None:
    """Open `notebook` as shipped, untrusted; Run All; save; reopen with the kernel gone."""
    folder, locale, replay_note = LANGUAGE[lang]
    prefix = "zh-" if lang == "zh" else ""
    stored = nbformat.read(NB_DIR / folder / notebook, as_version=4)
    pictures = sum(
        len(re.findall(r'class="mg-picture"', out.get("data", {}).get("text/html", "")))
        for cell in stored.cells
        if cell.cell_type == "code"
        for out in cell.get("outputs", [])
    )
    players = widget_outputs(stored)
    set_theme(lab, "JupyterLab Dark" if theme == "dark" else None)
    set_locale(lab, locale)
    try:
        name = write_fresh(lab, stored, f"{folder}{label}-{theme}")
        page.goto(lab.lab_url(name))
        expect(page.locator(PICTURES).first).to_be_visible(timeout=TIMEOUT_MS)
        expect(page.locator(".jp-OutputArea-output.jp-mod-trusted")).to_have_count(0)
        expect(page.locator(PICTURES)).to_have_count(pictures, timeout=TIMEOUT_MS)  # (lazily drawn)
        assert pictures_shown(page) == pictures
        expect(page.locator(".mg-player")).to_have_count(0)
        shoot(
            page, page.locator(PICTURES).nth(1), f"{prefix}{label}-first-open-untrusted-{theme}.png"
        )

        wait_idle_kernel(lab)
        run_all(page)
        live = page.locator(".jp-OutputArea-output .mg-player")
        expect(live).to_have_count(players, timeout=TIMEOUT_MS)
        wait_idle_kernel(lab)
        shoot(page, live.first, f"{prefix}{label}-run-{theme}.png")

        page.keyboard.press("Control+s")
        expect(page.locator(".jp-mod-dirty")).to_have_count(0)
        lab.delete_sessions()
        page.js_errors.clear()
        page.reload()
        expect(page.locator(PICTURES).first).to_be_visible(timeout=TIMEOUT_MS)
        wait_idle_kernel(lab)
        time.sleep(3)  # jupyterlab-manager gives up on a missing model after ~2 s
        expect(page.locator(".mg-player")).to_have_count(0)
        expect(page.locator(PICTURES)).to_have_count(pictures, timeout=TIMEOUT_MS)  # (lazily drawn)
        assert pictures_shown(page) == pictures
        note = page.locator(".mg-note", has_text=replay_note)
        expect(note).to_have_count(players)
        dead = page.locator(".jp-OutputArea-output", has_text="Error displaying widget")
        for i in range(dead.count()):  # (there in the page, never shown: the picture stands in)
            expect(dead.nth(i)).to_be_hidden()
        shoot(page, note.first, f"{prefix}{label}-reopened-{theme}.png")
    finally:
        set_theme(lab, None)
        set_locale(lab, None)
    assert [e for e in page.js_errors if "not found" not in e] == []


CJK = re.compile(r"[\u4e00-\u9fff]")
ENGLISH = re.compile(r"\b[A-Za-z][a-z]+(?:[ -][a-z]+){2,}\b")
CHINESE_PLAYER = """\
import labkit  # in zh/: the course's labkit in Chinese, and the explorer with it
import minigrad as mg
from widgets import record_backward

x = mg.tensor([1.0, -2.0], requires_grad=True)
h = x * 3
h.register_hook(lambda g: g * 2)
loss = (h * h).sum()
with record_backward(loss, names={"x": x, "h": h}) as bwd:
    loss.backward()
bwd.player()
"""


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_chinese_backward_player(lab, lesson_root, lab_page, theme):
    """A backward player in a Chinese lesson's folder, stepped to its hook: toolbar, legend,
    panel and step text in Chinese (API names aside), no label overflowing its box, JupyterLab's
    menus in Chinese; screenshot artifacts/zh-player-{theme}.png."""
    page = lab_page
    set_theme(lab, "JupyterLab Dark" if theme == "dark" else None)
    set_locale(lab, "zh_CN")
    try:
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(CHINESE_PLAYER)])
        run_notebook(page, lab, nb, f"zh/player-{theme}", TIMEOUT_MS)
        player = page.locator(f"{OUT} .mg-player[data-mode=backward]")
        expect(player.locator(".mg-graph svg")).to_have_count(1)
        for _ in range(40):
            if player.get_attribute("data-kind") == "hook":
                break
            frame = int(player.get_attribute("data-frame"))
            player.locator("button.mg-step").click()
            expect(player).to_have_attribute("data-frame", str(frame + 1))
        assert player.get_attribute("data-kind") == "hook"
        for part in (".mg-toolbar", ".mg-legend", ".mg-panel", ".mg-step-text", ".mg-summary"):
            words = player.locator(part).inner_text()
            assert CJK.search(words), (part, words)
            assert not ENGLISH.findall(words), (part, words)
        badges = player.evaluate(
            "p => [...p.querySelectorAll('.mg-badge text')].map(t => t.textContent)"
        )
        assert any("张量钩子" in b for b in badges), badges
        overflowing = player.evaluate(
            """p => [...p.querySelectorAll('button, .mg-legend-item, .mg-title')]
                 .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.textContent)"""
        )
        assert overflowing == [], overflowing
        # every node's label inside its shape, off its border (Graphviz measures CJK text with
        # Latin metrics)
        spilling = player.evaluate(
            """p => [...p.querySelectorAll('.mg-graph g.node')].filter(g => {
                 const shape = g.querySelector('polygon, path');
                 if (!shape) return false;
                 const box = shape.getBBox();
                 return [...g.querySelectorAll('text')].some(t => {
                   const b = t.getBBox();
                   return b.x < box.x + 2 || b.x + b.width > box.x + box.width - 2;
                 });
               }).map(g => g.textContent.trim())"""
        )
        assert spilling == [], spilling
        shoot(page, player, f"zh-player-{theme}.png")
    finally:
        set_theme(lab, None)
        set_locale(lab, None)
    assert page.js_errors == [], page.js_errors
