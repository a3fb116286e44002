"""Issue 23's browser defects of the explorer, in a real JupyterLab 4 + headless Chromium.

A notebook with a static drawing, a hooked player, a tall player (a 60-step chain: one narrow
column of nodes) and minigrad's and PyTorch's second-derivative graphs beside each other is run
in light and dark, English and Chinese, then:

- a lesson reopened with its kernel alive, four times: each player's stored picture is hidden
  every time its live widget is there (it was hidden once, before the widget was attached, and
  showed twice in 2 of 4 tries); Run All again keeps one view per player;
- the minimap sits outside the drawing (it covers no node) at a usable size on the tall graph;
- the drawing takes the theme's colours (no white card in the dark theme);
- a hover on a node says its kind, shape and dtype (and its .grad so far), escaped;
- the hook's flash label leaves the ⚑ mark uncovered;
- the legend explains the shape line (`[]`, `[2]`);
- pictures side by side stay inside the column (they wrap when too wide);
- the Chinese player speaks Chinese (API names aside).

Screenshots: artifacts/screenshots/polish-*.png.
"""

from __future__ import annotations

import re
import time

import nbformat
import pytest
from notebook_runner import (
    NB_DIR,
    SHOT_DIR,
    opened_as_stored,
    run_all,
    run_notebook,
    set_locale,
    set_theme,
)
from test_lessons_browser import lesson_root  # noqa: F401 (the lessons' labkit beside them)

expect = pytest.importorskip("playwright.sync_api").expect  # skip cleanly without it

OUT = ".jp-OutputArea-output"
EVIL = "<b>x&y</b>"
SETUP = """import minigrad as mg
import torch
from widgets import draw_graph, record_backward, set_language, side_by_side

set_language({lang!r})"""
DRAWING = f"""a = mg.tensor([1.0, 2.0], requires_grad=True)
b = mg.tensor(3.0, requires_grad=True)
y = (a * b).sum()
draw_graph(y, names={{"a": a, {EVIL!r}: b}})"""
HOOKED = """x = mg.tensor([1.0, -1.0], requires_grad=True)
h = x * 3
h.register_hook(lambda grad: grad * 2)
z = (h**2).sum()
with record_backward(z, names={"x": x, "h": h}) as hooked_trace:
    z.backward()
hooked_trace.player()"""
TALL = """t = mg.tensor([0.5, -0.25], requires_grad=True)
out = t
for _ in range(60):  # one long column of nodes: a tall, narrow drawing
    out = (out * 0.9).tanh()
tall_loss = out.sum()
with record_backward(tall_loss, names={"t": t}) as tall_trace:
    tall_loss.backward()
tall_trace.player()"""
BESIDE = """def graph_of_g(lib):  # lesson 16's second-derivative graph, on each library
    x = lib.tensor([0.5, 1.0, 2.0], requires_grad=True)
    y = (x.sin() * x).exp() * x.cos()
    u = lib.zeros_like(y, requires_grad=True)
    (g,) = lib.autograd.grad(y, x, grad_outputs=u, create_graph=True)
    return draw_graph(g, names={"x": x, "u": u, "g": g})


side_by_side({"minigrad": graph_of_g(mg), "PyTorch": graph_of_g(torch)})"""
CELLS = [SETUP, DRAWING, HOOKED, TALL, BESIDE]
PLAYERS = 2
HOOKED_I, TALL_I = range(PLAYERS)
LANG = {"en": None, "zh": "zh_CN"}
THEME = {"light": None, "dark": "JupyterLab Dark"}
SHAPE_NOTE = {"en": "the tensor's shape", "zh": "张量的形状"}
KIND_LEAF = {"en": "leaf requiring grad", "zh": "需要梯度的叶子"}
CJK = re.compile(r"[\u4e00-\u9fff]")
ENGLISH = re.compile(r"\b[A-Za-z][a-z]+(?:[ -][a-z]+){2,}\b")


def notebook(lang: str) -> nbformat.NotebookNode:
    cells = [SETUP.format(lang=lang), *CELLS[1:]]
    return nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])


def shoot(page, element, name: str) -> None:
    """The page (what a learner sees) with `element`'s top in view."""
    element.evaluate("e => e.scrollIntoView({block: 'start'})")
    page.wait_for_timeout(400)
    SHOT_DIR.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOT_DIR / name))


def player(page, index: int):
    found = page.locator(f"{OUT} .mg-player").nth(index)
    found.scroll_into_view_if_needed()
    return found


def goto_frame(root, k: int) -> None:
    root.locator("input.mg-slider").fill(str(k))
    expect(root).to_have_attribute("data-frame", str(k))


def fallbacks_hidden(page) -> None:
    """Each live player's own picture output is hidden, and nothing else: the static drawing
    and the side-by-side pictures stay."""
    expect(page.locator(f"{OUT} .mg-player")).to_have_count(PLAYERS, timeout=60_000)
    for i in range(PLAYERS):
        expect(player(page, i).locator(".mg-graph svg")).to_have_count(1)
    pictures = page.locator(".mg-fallback")
    expect(pictures).to_have_count(PLAYERS)
    for i in range(PLAYERS):
        expect(pictures.nth(i)).to_be_hidden()
    shown = page.locator(f"{OUT} img.mg-picture:visible")
    expect(shown).to_have_count(3)  # the drawing and the two side by side


def rect(locator) -> dict:
    return locator.evaluate(
        "e => { const r = e.getBoundingClientRect();"
        " return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; }"
    )


def overlap(a: dict, b: dict) -> bool:
    return (
        a["left"] < b["right"]
        and b["left"] < a["right"]
        and a["top"] < b["bottom"]
        and b["top"] < a["bottom"]
    )


REOPENED_LESSON = "12_inside_the_engine.ipynb"  # its player sits deep in a long notebook


@pytest.mark.usefixtures("lesson_root")
@pytest.mark.parametrize(("theme", "lang"), [("light", "en"), ("dark", "zh")])
def test_a_lesson_reopened_with_the_kernel_alive_shows_each_player_once(lab, lab_page, theme, lang):
    """Run a lesson, save, then reload the page four times while the kernel lives, scrolling to
    each player (a long notebook renders its cells as they come into view): every time, the live
    player is there and its picture hidden. With the explorer as it was (the picture hidden once,
    at render, looked up in the page), this lesson showed both in 2 of 4 reloads."""
    page = lab_page
    folder = "zh/" if lang == "zh" else ""
    stored = nbformat.read(NB_DIR / folder / REOPENED_LESSON, as_version=4)
    raising = sum("raises-exception" in c.metadata.get("tags", []) for c in stored.cells)
    set_theme(lab, THEME[theme])
    set_locale(lab, LANG[lang])
    try:
        run_notebook(page, lab, stored, f"{folder}reopen-{theme}", tracebacks=raising)
        players = page.locator(f"{OUT} .mg-player")
        count = players.count()
        assert count >= 1
        page.keyboard.press("Control+s")
        expect(page.locator(".jp-mod-dirty")).to_have_count(0)
        for attempt in range(4):
            page.reload()
            expect(players.first).to_be_attached(timeout=60_000)
            for i in range(count):
                players.nth(i).scroll_into_view_if_needed(timeout=60_000)
                expect(players.nth(i).locator(".mg-graph svg")).to_have_count(1)
            page.wait_for_timeout(1500)  # late re-renders of the output areas
            expect(players).to_have_count(count)
            expect(page.locator(".mg-fallback")).to_have_count(count)
            expect(page.locator(".mg-fallback:visible")).to_have_count(0)
            if attempt == 3:
                shoot(page, players.first, f"polish-lesson-reopened-{theme}-{lang}.png")
    finally:
        set_theme(lab, None)
        set_locale(lab, None)
    assert page.js_errors == [], page.js_errors


@pytest.mark.parametrize(
    ("theme", "lang"), [("light", "en"), ("dark", "en"), ("light", "zh"), ("dark", "zh")]
)
def test_player_minimap_theme_hover_hook_legend_and_side_by_side(lab, lab_page, theme, lang):
    page = lab_page
    set_theme(lab, THEME[theme])
    set_locale(lab, LANG[lang])
    tag = f"{theme}-{lang}"
    try:
        run_notebook(page, lab, notebook(lang), f"polish-{tag}")
        expect(page.locator("body")).to_have_attribute(
            "data-jp-theme-light", "false" if theme == "dark" else "true"
        )
        fallbacks_hidden(page)
        check_minimap(page, tag)
        check_theme(page, theme)
        check_hover(page, lang)
        check_hook_flash(page, tag)
        check_legend_and_language(page, lang)
        check_side_by_side(page, tag)
    finally:
        set_theme(lab, None)
        set_locale(lab, None)
    assert page.js_errors == [], page.js_errors


def check_minimap(page, tag: str) -> None:
    """On the tall graph: shown, outside the drawing's scroll area (no node under it), at least
    50 px each way (it was a 5 px sliver), and a click on it still moves the view."""
    tall = player(page, TALL_I)
    expect(tall).to_have_attribute("data-minimap", "shown")
    minimap = tall.locator(".mg-minimap-image")
    expect(minimap).to_be_visible()
    box = minimap.bounding_box()
    assert box["width"] >= 50 and box["height"] >= 50, box
    assert not overlap(rect(tall.locator(".mg-minimap")), rect(tall.locator(".mg-graph")))
    # its picture: stretched to its box, on the theme's paper
    mini = tall.evaluate(
        """async r => ({
          svg: await (await fetch(r.querySelector('.mg-minimap-image').src)).text(),
          paper: getComputedStyle(r).getPropertyValue('--jp-layout-color0').trim(),
        })"""
    )
    assert 'preserveAspectRatio="none"' in mini["svg"]
    assert mini["paper"] and f"fill: {mini['paper']};" in mini["svg"], mini["paper"]
    top = tall.evaluate("r => r.querySelector('.mg-graph').scrollTop")
    minimap.click(position={"x": box["width"] / 2, "y": box["height"] - 3})
    assert tall.evaluate("r => r.querySelector('.mg-graph').scrollTop") > top
    shoot(page, tall, f"polish-tall-minimap-{tag}.png")


def check_theme(page, theme: str) -> None:
    """The paper is the notebook's background; black edges take the theme's text colour."""
    hooked = player(page, HOOKED_I)
    look = hooked.evaluate(
        """r => {
          const css = (e, p) => getComputedStyle(e)[p];
          const edge = r.querySelector('.mg-graph g.edge > path[stroke="black"]');
          return {
            page: css(document.querySelector('.jp-Notebook'), 'backgroundColor'),
            stage: css(r.querySelector('.mg-graph'), 'backgroundColor'),
            paper: css(r.querySelector('.mg-graph g.graph > polygon'), 'fill'),
            edge: css(edge, 'stroke'),
            text: css(r, 'color'),
            faded: css(r.querySelector('.mg-legend g.mg-key-freed-now'), 'opacity'),
          };
        }"""
    )
    white = "rgb(255, 255, 255)"
    if theme == "dark":
        assert look["stage"] != white and look["paper"] != white, look
        assert look["edge"] == look["text"] != "rgb(0, 0, 0)", look
        assert look["faded"] == "0.6", look  # a freed node's words stay readable on dark paper
    else:
        assert look["faded"] == "0.35", look
    assert look["paper"] == look["stage"], look


def check_hover(page, lang: str) -> None:
    """A leaf's hover text: name, kind, shape, dtype; after the last step its .grad too. A
    name with markup stays text (the static drawing's `<b>` name is not bold anywhere)."""
    hooked = player(page, HOOKED_I)
    leaf = hooked.locator(".mg-graph g.node.mg-n-leaf").first
    tip = leaf.locator("title").text_content()
    assert tip.splitlines()[0] == "x", tip
    assert KIND_LEAF[lang] in tip and "[2]" in tip and "float32" in tip, tip
    hooked.locator("button.mg-last").click()
    leaf.hover()
    tip = leaf.locator("title").text_content()
    assert ".grad" in tip and "[36., -36.]" in tip, tip
    assert page.locator(f"{OUT} b", has_text="x&y").count() == 0


def check_hook_flash(page, tag: str) -> None:
    """At the frame the hook fires, its label and the ⚑ mark on the same node do not overlap."""
    hooked = player(page, HOOKED_I)
    frames = int(hooked.locator(".mg-counter").inner_text().split("/")[1])
    for k in range(frames):
        goto_frame(hooked, k)
        if hooked.get_attribute("data-kind") == "hook":
            break
    flash = hooked.locator(".mg-hook-flash")
    expect(flash).to_be_visible()
    target = flash.get_attribute("data-for")
    mark = hooked.locator(f'.mg-hook-mark[data-for="{target}"] rect')
    expect(mark).to_have_count(1)
    assert not overlap(rect(flash.locator("rect")), rect(mark)), "the flash covers the ⚑ mark"
    hooked.locator(".mg-graph").evaluate("g => g.scrollTo(0, 0)")
    shoot(page, hooked, f"polish-hook-{tag}.png")


def check_legend_and_language(page, lang: str) -> None:
    hooked = player(page, HOOKED_I)
    note = hooked.locator(".mg-legend .mg-shape-note")
    expect(note).to_contain_text(SHAPE_NOTE[lang])
    static = page.locator(f"{OUT} .mg-static-legend .mg-shape-note").first
    expect(static).to_contain_text(SHAPE_NOTE[lang])
    if lang == "zh":
        for part in (".mg-toolbar", ".mg-legend", ".mg-panel", ".mg-step-text", ".mg-summary"):
            words = hooked.locator(part).inner_text()
            assert CJK.search(words), (part, words)
            assert not ENGLISH.findall(words), (part, words)
        titles = hooked.evaluate(
            "r => [...r.querySelectorAll('[title], [aria-label]')]"
            ".map(e => e.title || e.getAttribute('aria-label'))"
        )
        english = [t for t in titles if ENGLISH.search(t)]
        assert english == [], english
        hovers = hooked.evaluate(
            "r => [...r.querySelectorAll('.mg-graph svg title')].map(t => t.textContent)"
        )
        english = [t for t in hovers if ENGLISH.search(t) or re.fullmatch(r"%\d+", t)]
        assert english == [], english


def check_side_by_side(page, tag: str) -> None:
    """Both pictures inside the notebook's column: stacked when the row is too wide."""
    row = page.locator(f"{OUT} .mg-side-by-side")
    row.scroll_into_view_if_needed()
    column = rect(page.locator(f"{OUT}:has(.mg-side-by-side)"))
    items = row.locator(".mg-side-item")
    expect(items).to_have_count(2)
    boxes = [rect(items.nth(i)) for i in range(2)]
    for box in boxes:
        assert column["left"] - 1 <= box["left"] and box["right"] <= column["right"] + 1, (
            box,
            column,
        )
    widths = [items.nth(i).locator("img").evaluate("i => i.naturalWidth") for i in range(2)]
    if sum(widths) > column["right"] - column["left"]:
        assert boxes[1]["top"] >= boxes[0]["bottom"] - 1, boxes  # wrapped, one under the other
    shoot(page, row, f"polish-side-by-side-{tag}.png")


def test_run_all_again_keeps_one_view_per_player(lab, lab_page):
    """Run All a second time (outputs replaced while the old views go): still one live view and
    a hidden picture per player, and no picture left hidden without its player."""
    page = lab_page
    run_notebook(page, lab, notebook("en"), "polish-rerun")
    run_all(page)
    time.sleep(2)
    expect(page.locator(f"{OUT}", has_text="ALL_CELLS_DONE")).to_have_count(1, timeout=60_000)
    fallbacks_hidden(page)
    assert page.js_errors == [], page.js_errors


@pytest.mark.parametrize(("theme", "lang"), [("light", "en"), ("dark", "zh")])
def test_first_open_untrusted_pictures_legend_and_side_by_side(lab, lab_page, theme, lang):
    """The notebook as `make notebooks` stores it, opened fresh (untrusted: no widget runs, the
    HTML is sanitized): every picture shows, the legend explains the shape line in the page's
    language, the side-by-side pictures stay inside the column."""
    page = lab_page
    stem = f"polish-first-open-{theme}-{lang}"
    with opened_as_stored(page, lab, notebook(lang), stem, THEME[theme], LANG[lang]):
        pictures = page.locator(f"{OUT} img.mg-picture")
        expect(pictures.first).to_be_visible(timeout=60_000)
        expect(page.locator(f"{OUT}.jp-mod-trusted")).to_have_count(0)
        expect(page.locator(".mg-player")).to_have_count(0)
        expect(pictures).to_have_count(1 + PLAYERS + 2)
        for i in range(pictures.count()):
            pictures.nth(i).scroll_into_view_if_needed()
            expect(pictures.nth(i)).to_be_visible()
        note = page.locator(f"{OUT} .mg-static-legend .mg-shape-note").first
        expect(note).to_contain_text(SHAPE_NOTE[lang])
        check_side_by_side(page, f"first-open-{theme}-{lang}")
        first = page.locator(f"{OUT} .mg-static").first
        shoot(page, first, f"polish-first-open-{theme}-{lang}.png")
    assert page.js_errors == [], page.js_errors


SIDE_BY_SIDE_LESSON = "16_forward_mode_and_functional.ipynb"  # minigrad's graph beside PyTorch's


@pytest.mark.usefixtures("lesson_root")
def test_the_lessons_pictures_side_by_side_stay_in_the_column(lab, lab_page):
    """Lesson 16 shows minigrad's and PyTorch's graphs of g = Jᵀu in one row (its own flex row,
    which does not wrap): run, every picture's box ends inside the notebook's column (the
    PyTorch one sat at 1879 px in a 968 px column, off-screen right); a wide one scrolls."""
    page = lab_page
    stored = nbformat.read(NB_DIR / SIDE_BY_SIDE_LESSON, as_version=4)
    raising = sum("raises-exception" in c.metadata.get("tags", []) for c in stored.cells)
    run_notebook(page, lab, stored, "side-by-side-lesson", tracebacks=raising)
    statics = page.locator(f"{OUT} .mg-static:not(.mg-fallback)")  # (a player's is hidden)
    count = statics.count()
    assert count >= 2
    for i in range(count):
        statics.nth(i).scroll_into_view_if_needed()
        column = rect(
            statics.nth(i).locator("xpath=ancestor::*[contains(@class, 'jp-OutputArea-output')][1]")
        )
        box = rect(statics.nth(i))
        assert box["right"] <= column["right"] + 1, (i, box, column)
    row = page.locator(f"{OUT} .mg-caption", has_text="PyTorch: g =").first
    shoot(page, row, "polish-lesson16-side-by-side.png")
    assert page.js_errors == [], page.js_errors
