"""The memory timeline in a real JupyterLab 4 + headless Chromium, light and dark, English and
Chinese: the live player's memory panel (its marker follows the steps, the band of the frame's
node is outlined, a node pointed at brings out its bands, steps are counted from 1 as the
player's counter does, the chart takes the theme's paper), the static chart in a fresh untrusted
notebook, and both save_html pages offline. Screenshots: artifacts/screenshots/memory-*.png.
"""

from __future__ import annotations

import re

import nbformat
import pytest
from notebook_runner import (
    SHOT_DIR,
    opened_as_stored,
    run_notebook,
    set_locale,
    set_theme,
)

expect = pytest.importorskip("playwright.sync_api").expect  # skip cleanly without it

OUT = ".jp-OutputArea-output"
PROGRAM = """import minigrad as mg
from minigrad.utils.checkpoint import checkpoint
from widgets import record_backward, set_language


def checkpointed_mlp():
    mg.manual_seed(0)
    l1, l2, l3 = mg.nn.Linear(4, 16), mg.nn.Linear(16, 16), mg.nn.Linear(16, 2)
    x = mg.randn(8, 4)
    h = checkpoint(lambda v: l2(l1(v).tanh()).tanh(), x, use_reentrant=False)
    loss = l3(h).pow(2).mean()
    with record_backward(loss) as bwd:
        loss.backward()
    return bwd
"""
CELLS = [
    PROGRAM + "\nset_language({lang!r})",
    "bwd = checkpointed_mlp()\nbwd.player(memory=True)",
    "bwd.memory()",
]
LANG = {"en": None, "zh": "zh_CN"}
THEME = {"light": None, "dark": "JupyterLab Dark"}
READOUT = {
    "en": re.compile(r"^step 1: saved [\d,]+ B"),
    "zh": re.compile(r"^第 1 步：保存 [\d,]+ B"),
}
TITLE = {"en": "Memory held", "zh": "占用的内存"}
WHITE = "rgb(255, 255, 255)"


def checkpointed_mlp():
    """The notebook's program, run here too: its frames tell which step has a band's node."""
    scope: dict = {}
    exec(PROGRAM, scope)  # noqa: S102 - the test's own program text, shared with the notebook
    return scope["checkpointed_mlp"]()


def notebook(lang: str) -> nbformat.NotebookNode:
    cells = [CELLS[0].format(lang=lang), *CELLS[1:]]
    return nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])


def shoot(page, element, name: str) -> None:
    element.evaluate("e => e.scrollIntoView({block: 'center'})")
    SHOT_DIR.mkdir(parents=True, exist_ok=True)
    element.screenshot(path=str(SHOT_DIR / name))


def banded_frame() -> tuple[int, str]:
    """A frame whose node has a band of its own in the chart, and another node that has one."""
    bwd = checkpointed_mlp()
    player = bwd.player(memory=True)
    ids = re.findall(r'data-node="(n\d+)"', player.memory_svg)
    k = next(k for k, f in enumerate(player.frames) if k and f.get("node") in ids)
    return k, next(i for i in ids if i != player.frames[k]["node"])


def marker_x(root) -> float:
    return float(root.locator(".mg-memory-chart").get_attribute("data-marker-x"))


# at the marker's x: the bytes the bands drawn there stand for (the browser's own fill test,
# every 0.05 SVG units from the top tick down to the axis: a point in any band's fill counts
# once, so a band hidden under another counts for nothing) and the bands drawn there that do
# not show (the paper's fill, faded, hidden)
DRAWN_AT_MARKER = """svg => {
  const x = Number(svg.parentElement.dataset.markerX);
  const ticks = [...svg.querySelectorAll("text.mg-mem-text[dy]")].map(
    (t) => [Number(t.getAttribute("y")), Number(t.textContent.replace(/[^0-9]/g, ""))]);
  const [axis] = ticks[0], [top, topBytes] = ticks[ticks.length - 1];
  const paper = getComputedStyle(svg.querySelector(".mg-mem-paper")).fill;
  const bands = [...svg.querySelectorAll(".mg-mem-band")];
  const drawn = new Set();
  let filled = 0;
  for (let y = top; y <= axis; y += 0.05) {
    const here = bands.filter((band) => band.isPointInFill(new DOMPoint(x, y)));
    if (here.length) filled++;
    for (const band of here) drawn.add(band);
  }
  const hidden = [...drawn].filter((band) => {
    const style = getComputedStyle(band);
    return style.fill === paper || style.opacity !== "1" || style.visibility !== "visible";
  }).map((band) => band.getAttribute("class") + " " + band.dataset.node);
  return [filled * 0.05 / (axis - top) * topBytes, (axis - top) / topBytes, hidden];
}"""


def check_drawn_total(root) -> None:
    """The bands under the marker show, and are as tall as the readout's total."""
    memory = root.locator(".mg-memory")
    readout = memory.locator(".mg-memory-readout").inner_text()
    total = int(re.search(r"= ([\d,]+) B$", readout)[1].replace(",", ""))
    drawn, per_byte, hidden = memory.locator("svg").evaluate(DRAWN_AT_MARKER)
    assert hidden == []
    assert abs(drawn - total) <= 0.15 / per_byte, (drawn, total)  # 3 samples


def check_panel(root, lang: str, theme: str | None):
    """Shown under the drawing, worded in `lang`, marker moving with the steps, steps counted
    as the player counts them, bands lit (the frame's node's; a node pointed at: its own).
    Returns the node pointed at (the pointer is still on it)."""
    memory = root.locator(".mg-memory")
    expect(memory).to_be_visible()
    expect(memory.locator(".mg-title")).to_have_text(TITLE[lang])
    expect(memory.locator(".mg-memory-readout")).to_have_text(READOUT[lang])
    assert memory.locator(".mg-mem-band").count() >= 3
    first = marker_x(root)
    root.locator("button.mg-step").click()
    expect(root).to_have_attribute("data-frame", "1")
    assert marker_x(root) > first
    k, other = banded_frame()
    root.locator("input.mg-slider").fill(str(k))
    expect(root).to_have_attribute("data-frame", str(k))
    expect(memory.locator(".mg-mem-hot").first).to_be_attached()
    check_drawn_total(root)
    root.locator("input.mg-slider").fill("20")  # step 21: the checkpoint node's two bands
    expect(memory.locator(".mg-memory-readout")).to_contain_text("= 776 B")
    check_drawn_total(root)
    root.locator("input.mg-slider").fill(str(k))
    expect(root).to_have_attribute("data-frame", str(k))
    # the readout numbers steps as the player's counter does: from 1
    expect(root.locator(".mg-counter")).to_have_text(re.compile(rf"^{k + 1} / "))
    expect(memory.locator(".mg-memory-readout")).to_contain_text(
        f"第 {k + 1} 步" if lang == "zh" else f"step {k + 1}:"
    )
    # pointing at a node of the drawing brings out its bands, the others fade
    chart = memory.locator(".mg-memory-chart")
    root.locator(f'.mg-graph g.node[id="{other}"]').hover()
    expect(chart).to_have_class(re.compile(r"\bmg-mem-pointing\b"))
    pointed = memory.locator(".mg-mem-pointed")
    assert pointed.count() >= 1
    assert set(pointed.evaluate_all("els => els.map(e => e.dataset.node)")) == {other}
    drawing = root.locator(".mg-graph").bounding_box()
    assert memory.bounding_box()["y"] >= drawing["y"] + drawing["height"] - 1  # under it
    if theme is not None:
        paper = memory.locator(".mg-mem-paper").evaluate("e => getComputedStyle(e).fill")
        words = memory.locator(".mg-mem-text").first.evaluate("e => getComputedStyle(e).fill")
        assert (paper == WHITE) == (theme == "light") and paper != words
    return other


@pytest.mark.parametrize(("theme", "lang"), [("light", "en"), ("dark", "zh")])
def test_the_players_memory_panel_follows_the_steps(lab, lab_page, theme, lang):
    page = lab_page
    set_theme(lab, THEME[theme])
    set_locale(lab, LANG[lang])
    try:
        run_notebook(page, lab, notebook(lang), f"memory-{theme}-{lang}")
        root = page.locator(f"{OUT} .mg-player")
        expect(root).to_have_count(1, timeout=60_000)
        other = check_panel(root, lang, theme)
        memory, pointing = root.locator(".mg-memory"), re.compile(r"\bmg-mem-pointing\b")
        page.mouse.move(0, 0)  # the pointer leaves the drawing: no band stands out
        expect(memory.locator(".mg-memory-chart")).not_to_have_class(pointing)
        shoot(page, memory, f"memory-live-{theme}-{lang}.png")
        # pointed at again without scrolling (the panel stays in the screenshot)
        root.locator(f'.mg-graph g.node[id="{other}"]').dispatch_event("pointerover")
        expect(memory.locator(".mg-memory-chart")).to_have_class(pointing)
        memory.screenshot(path=str(SHOT_DIR / f"memory-pointed-{theme}-{lang}.png"))
        chart = page.locator(f"{OUT} .mg-memory img.mg-picture")  # bwd.memory()'s output
        expect(chart).to_be_visible()
    finally:
        set_theme(lab, None)
        set_locale(lab, None)
    assert page.js_errors == [], page.js_errors


BOXED = """import minigrad as mg
from widgets import record_backward

mg.manual_seed(0)
model = mg.nn.Sequential(mg.nn.Linear(4, 8), mg.nn.Tanh(), mg.nn.Linear(8, 2))
loss = model(mg.randn(3, 4)).pow(2).mean()
with record_backward(loss, module=model) as bwd:
    loss.backward()
bwd.player(collapse=True, memory=True)"""


def test_pointing_at_a_module_box_brings_out_the_bands_of_its_nodes(lab, lab_page):
    page = lab_page
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(BOXED)])
    run_notebook(page, lab, nb, "memory-boxed")
    root = page.locator(f"{OUT} .mg-player")
    expect(root).to_have_count(1, timeout=60_000)
    scope: dict = {}
    exec(BOXED, scope)  # noqa: S102 - the test's own program, run here too: the box's nodes
    members = set(scope["bwd"].player(collapse=True, memory=True).boxes["m1"])  # the first Linear's
    root.locator('.mg-graph g.mg-box[id="m1"]').hover()
    expect(root.locator(".mg-memory-chart")).to_have_class(re.compile(r"\bmg-mem-pointing\b"))
    pointed = root.locator(".mg-mem-pointed").evaluate_all("els => els.map(e => e.dataset.node)")
    assert members and set(pointed) == members, (pointed, members)
    assert page.js_errors == [], page.js_errors


@pytest.mark.parametrize(("theme", "lang"), [("dark", "en"), ("light", "zh")])
def test_the_static_chart_shows_in_a_fresh_untrusted_notebook(lab, lab_page, theme, lang):
    page = lab_page
    stem = f"memory-untrusted-{theme}-{lang}"
    with opened_as_stored(page, lab, notebook(lang), stem, THEME[theme], LANG[lang]):
        chart = page.locator(f"{OUT} .mg-memory img.mg-picture")
        expect(chart).to_be_visible(timeout=60_000)
        expect(page.locator(f"{OUT}.jp-mod-trusted")).to_have_count(0)
        expect(page.locator(".mg-player")).to_have_count(0)
        assert chart.evaluate("e => e.complete && e.naturalWidth") > 600
        caption = page.locator(f"{OUT} .mg-memory .mg-caption").first
        expect(caption).to_contain_text("内存时间线" if lang == "zh" else "memory timeline")
        shoot(page, page.locator(f"{OUT} .mg-memory"), f"memory-untrusted-{theme}-{lang}.png")
    assert page.js_errors == [], page.js_errors


def test_both_saved_pages_render_offline(chromium, tmp_path):
    bwd = checkpointed_mlp()
    pages = {
        "memory-page.png": bwd.memory().save_html(tmp_path / "memory.html"),
        "memory-replay.png": bwd.player(memory=True).save_html(tmp_path / "replay.html"),
    }
    SHOT_DIR.mkdir(parents=True, exist_ok=True)
    ctx = chromium.new_context(viewport={"width": 1200, "height": 900}, offline=True)
    requests, errors = [], []

    def refuse(route):
        if route.request.url.startswith("file://"):
            route.continue_()
        else:
            requests.append(route.request.url)
            route.abort()

    ctx.route("**/*", refuse)
    page = ctx.new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    try:
        for shot, path in pages.items():
            page.goto(path.as_uri())
            if shot == "memory-page.png":
                chart = page.locator(".mg-memory img.mg-picture")
                expect(chart).to_be_visible()
                assert chart.evaluate("e => e.complete && e.naturalWidth") > 600
            else:
                check_panel(page.locator(".mg-player"), "en", None)
                page.mouse.move(0, 0)  # the pointer leaves the drawing before the screenshot
            page.screenshot(path=str(SHOT_DIR / shot), full_page=True)
    finally:
        ctx.close()
    assert requests == [] and errors == []
