"""The pass diff in a real JupyterLab 4 + headless Chromium, light and dark, English and Chinese:
the static diff in a fresh untrusted notebook (two pictures, the step table), the live diff
stepped by its buttons and slider (both pictures outline the current step's node, on the theme's
paper), and its saved page offline. Screenshots: artifacts/screenshots/diff-*.png."""

from __future__ import annotations

import nbformat
import pytest
from nbclient import NotebookClient
from notebook_runner import ROOT, run_notebook, set_theme, write_fresh

from widgets import set_language

expect = pytest.importorskip("playwright.sync_api").expect

OUT = ".jp-OutputArea-output"
THEME = {"light": None, "dark": "JupyterLab Dark"}
CASES = [("light", "en"), ("dark", "zh")]
LABELS = {"en": ("plain", "checkpoint"), "zh": ("普通", "检查点")}
NO_STEP = {"en": "(no such step)", "zh": "（没有这一步）"}
ONLY_B = {"en": "only in checkpoint", "zh": "只在 检查点 中"}
SETUP = """import minigrad as mg
from minigrad.utils.checkpoint import checkpoint
from widgets import diff_passes, record_backward, set_language

set_language({lang!r})
mg.manual_seed(0)
model = mg.nn.Sequential(mg.nn.Linear(3, 4), mg.nn.Tanh(), mg.nn.Linear(4, 2))
x = mg.randn(2, 3, requires_grad=True)


def recorded(how):
    for p in [x, *model.parameters()]:
        p.grad = None
    y = model(x) if how is None else checkpoint(model, x, use_reentrant=how)
    loss = y.pow(2).sum()
    with record_backward(loss, module=model, names={{"x": x}}) as bwd:
        loss.backward()
    return bwd


diff = diff_passes(recorded(None), recorded(True), labels={labels!r})
diff"""


def setup(lang: str) -> str:
    return SETUP.format(lang=lang, labels=LABELS[lang])


def notebook(lang: str, *cells: str) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell(c) for c in (setup(lang), *cells)]
    )
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    return nb


def local_diff(lang: str):
    """The same diff, made in this process: the rows the browser must show."""
    scope: dict = {}
    try:
        exec(setup(lang), scope)  # noqa: S102 - the test's own cell source
    finally:
        set_language("en")
    return scope["diff"]


def shoot(page, element, name: str, shot_dir) -> None:
    element.evaluate("e => e.scrollIntoView({block: 'start'})")
    page.wait_for_timeout(300)
    page.screenshot(path=str(shot_dir / name))


@pytest.mark.parametrize(("theme", "lang"), CASES)
def test_static_diff_in_a_fresh_untrusted_notebook(lab, lab_page, shot_dir, theme, lang):
    page = lab_page
    nb = notebook(lang)
    NotebookClient(nb, timeout=120, resources={"metadata": {"path": str(ROOT)}}).execute()
    set_theme(lab, THEME[theme])
    try:
        page.goto(lab.lab_url(write_fresh(lab, nb, f"diff-static-{theme}")))
        pictures = page.locator(f"{OUT} img.mg-picture")
        expect(pictures).to_have_count(2, timeout=60_000)
        for i in range(2):
            expect(pictures.nth(i)).to_be_visible()
            assert pictures.nth(i).evaluate("img => img.complete && img.naturalWidth > 100")
        expect(page.locator(f"{OUT}.jp-mod-trusted")).to_have_count(0)  # untrusted
        table = page.locator(f"{OUT} table.mg-diff-table")
        expect(table).to_have_count(1)
        expect(table.locator("tr", has_text=ONLY_B[lang]).first).to_be_visible()
        diff = local_diff(lang)
        summary = page.locator(f"{OUT} pre.mg-diff-summary")
        expect(summary).to_have_text(repr(diff))
        shoot(page, summary, f"diff-static-{theme}-{lang}.png", shot_dir)
    finally:
        set_theme(lab, None)
    assert page.js_errors == []


@pytest.mark.parametrize(("theme", "lang"), CASES)
def test_live_diff_steps_through_both_passes(lab, lab_page, shot_dir, theme, lang):
    page = lab_page
    diff = local_diff(lang)
    set_theme(lab, THEME[theme])
    try:
        run_notebook(page, lab, notebook(lang, "diff.player()"), f"diff-live-{theme}")
        live = page.locator(f"{OUT} .mg-diff")
        expect(live).to_have_count(1)
        expect(page.locator(".mg-diff-fallback")).to_have_count(1)
        expect(page.locator(".mg-diff-fallback")).to_be_hidden()  # the live view hides it
        expect(page.locator(f"{OUT} img.mg-picture:visible")).to_have_count(2)  # the cell above
        expect(live.locator(".mg-diff-graph svg")).to_have_count(2)
        steps = live.locator(".mg-diff-step")
        expect(steps.nth(0)).to_have_text(diff.a.steps[0].text)
        for _ in range(3):
            live.locator("button.mg-diff-btn").nth(3).click()
        expect(live).to_have_attribute("data-frame", "3")
        row = next(k for k, r in enumerate(diff.rows) if r["status"] == "only_b")
        live.locator("input.mg-diff-slider").fill(str(row))
        expect(live).to_have_attribute("data-frame", str(row))
        expect(live.locator(".mg-diff-status")).to_have_text(ONLY_B[lang])
        expect(steps.nth(1)).to_have_text(diff.b.steps[diff.rows[row]["b"]].text)
        expect(steps.nth(0)).to_have_class("mg-diff-step mg-diff-missing")
        expect(live.locator("g.mg-diff-current")).to_have_count(1)  # B's node; A has no step
        expect(live.locator("g.mg-diff-only").first).to_be_visible()
        paper = live.locator(".mg-diff-graph g.graph > polygon").first
        fill = paper.evaluate("p => getComputedStyle(p).fill")
        assert (fill == "rgb(255, 255, 255)") == (theme == "light"), fill
        shoot(page, live, f"diff-live-{theme}-{lang}.png", shot_dir)
    finally:
        set_theme(lab, None)
    assert page.js_errors == []


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_saved_diff_replays_offline(chromium, shot_dir, tmp_path, lang):
    diff = local_diff(lang)
    path = diff.save_html(tmp_path / f"diff-{lang}.html")
    page = chromium.new_page(viewport={"width": 1300, "height": 1000})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("request", lambda r: errors.append(r.url) if not r.url.startswith("file:") else None)
    try:
        page.goto(path.as_uri())
        root = page.locator(".mg-diff")
        expect(root).to_have_attribute("data-frame", "0")
        last = len(diff.rows) - 1
        root.locator("button.mg-diff-btn").nth(4).click()
        expect(root).to_have_attribute("data-frame", str(last))
        row = diff.rows[last]
        for k, (side, column) in enumerate(((diff.a, "a"), (diff.b, "b"))):
            text = "" if row[column] is None else side.steps[row[column]].text
            expect(root.locator(".mg-diff-step").nth(k)).to_have_text(text or NO_STEP[lang])
        page.screenshot(path=str(shot_dir / f"diff-saved-{lang}.png"))
    finally:
        page.close()
    assert errors == []
