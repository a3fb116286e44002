"""The explorer on a learner's own engine (widgets/own_engine.py) in JupyterLab + headless Chromium.

A notebook holds a small micrograd-style engine (`Val`, from tests/widgets/own_engines.py, which
the widget tests draw too), draws its graph with `draw_own` and replays its backward with
`record_own_backward`; in light and dark, English and Chinese: the static picture and the player
render, a leaf named `<b>&x` stays text, stepping moves the seed along the root's edge and writes a
leaf's `.grad`, the last step ends the pass, the page raises no JavaScript error; the player's
`save_html` page replays the same steps offline.
Screenshots: artifacts/screenshots/own-engine-*.png (the saved page: own-engine-saved-*.png).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import nbformat
import pytest
from notebook_runner import SHOT_DIR, run_notebook, set_locale, set_theme
from test_explorer_browser import step_until
from test_explorer_polish_browser import shoot

expect = pytest.importorskip("playwright.sync_api").expect  # skip cleanly without it

OUT = ".jp-OutputArea-output"
EVIL = "<b>&x"
ENGINE = (Path(__file__).resolve().parents[1] / "widgets" / "own_engines.py").read_text()
SETUP = """from widgets import draw_own, record_own_backward, set_language

set_language({lang!r})"""
GRAPH = f"""a = Val(0.5, label="a")
w = Val(-1.5, label={EVIL!r})
h = a * w
loss = (h + a).tanh() * w
draw_own(loss, names={{"h": h}})"""
REPLAY = """with record_own_backward(loss, names={"h": h}) as bwd:
    loss.backward()
print(bwd.order())
bwd.player()"""
SAVE = "print(bwd.player().save_html({path!r}).name)"
LANG = {"en": None, "zh": "zh_CN"}
THEME = {"light": None, "dark": "JupyterLab Dark"}
SEED = {"en": "the seed → mul._backward", "zh": "初始梯度 → mul._backward"}
END = {"en": "backward #1 finished", "zh": "第 1 次反向传播结束"}
CJK = re.compile(r"[\u4e00-\u9fff]")


def notebook(lang: str, saved: str) -> nbformat.NotebookNode:
    cells = [ENGINE, SETUP.format(lang=lang), GRAPH, REPLAY, SAVE.format(path=saved)]
    return nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])


def check_steps(root, lang: str, shot: Callable[[str], None]) -> None:
    """First frame, the seed, a leaf's .grad written, the end: what a learner clicks through;
    `shot(step)` takes a screenshot at the accumulate step and at the end."""
    expect(root.locator(".mg-graph svg")).to_have_count(1)
    expect(root).to_have_attribute("data-frame", "0")
    root.locator("button.mg-step").click()
    expect(root).to_have_attribute("data-frame", "1")
    expect(root.locator(".mg-step-text")).to_contain_text(SEED[lang])
    expect(root.locator("g.edge.mg-active")).to_have_count(1)
    step_until(root, "accumulate")
    expect(root.locator("g.node.mg-updated.mg-n-leaf")).to_have_count(1)
    expect(root.locator(".mg-sec-leaves .mg-line")).to_have_count(1)
    shot("accumulate")
    root.locator("button.mg-last").click()
    expect(root.locator(".mg-step-text")).to_have_text(END[lang])
    if lang == "zh":
        assert CJK.search(root.locator(".mg-panel").inner_text())
    shot("end")


# each theme and each language once (the pairs cost a fresh notebook each)
@pytest.mark.parametrize(("theme", "lang"), [("light", "en"), ("dark", "zh")])
def test_own_engine_draws_replays_and_saves(lab, lab_page, chromium, tmp_path, theme, lang):
    page = lab_page
    saved = tmp_path / f"own-{theme}-{lang}.html"
    set_theme(lab, THEME[theme])
    set_locale(lab, LANG[lang])
    tag = f"{theme}-{lang}"
    try:
        run_notebook(page, lab, notebook(lang, str(saved)), f"own-engine-{tag}")
        expect(page.locator("body")).to_have_attribute(
            "data-jp-theme-light", "false" if theme == "dark" else "true"
        )
        expect(page.locator(OUT, has_text="'tanh._backward'")).to_have_count(1)  # order()
        static = page.locator(f"{OUT} .mg-static:not(.mg-fallback)")
        expect(static).to_have_count(1)
        expect(static.locator("img.mg-picture")).to_be_visible()
        shoot(page, static, f"own-engine-drawing-{tag}.png")

        root = page.locator(f"{OUT} .mg-player")
        expect(root).to_have_count(1, timeout=60_000)
        root.scroll_into_view_if_needed()
        expect(page.locator(".mg-fallback")).to_be_hidden()
        names = root.evaluate(
            "r => [...r.querySelectorAll('.mg-graph g.node > title')].map(t => t.textContent)"
        )
        assert any(n.startswith(EVIL) for n in names), names  # a name, as text
        assert page.locator(f"{OUT} b", has_text="&x").count() == 0
        shoot(page, root, f"own-engine-start-{tag}.png")
        check_steps(root, lang, lambda step: shoot(page, root, f"own-engine-{step}-{tag}.png"))
    finally:
        set_theme(lab, None)
        set_locale(lab, None)
    assert page.js_errors == [], page.js_errors
    check_saved_page(chromium, saved, lang, tag)


def check_saved_page(chromium, saved, lang: str, tag: str) -> None:
    """The `save_html` file, with every request from the page refused."""
    ctx = chromium.new_context(viewport={"width": 1200, "height": 900})
    ctx.route("http*://**", lambda route: route.abort())
    page = ctx.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(saved.as_uri())
        root = page.locator(".mg-player")
        expect(root).to_have_count(1)
        check_steps(
            root,
            lang,
            lambda step: page.screenshot(path=str(SHOT_DIR / f"own-engine-saved-{step}-{tag}.png")),
        )
    finally:
        ctx.close()
    assert errors == [], errors
