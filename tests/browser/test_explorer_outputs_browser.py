"""The explorer's outputs where no live widget is: first open, reopen, exports, saved replays.

A notebook executed the way `make notebooks` does it (nbclient, no widget state) is opened fresh,
so untrusted, in JupyterLab 4 (light and dark theme) and Notebook 7: every graph must be a
picture, never the text JupyterLab leaves when it strips SVG out of untrusted HTML. Run, save,
reopen without the kernel: each player falls back to its picture and a one-line "run the cell"
note, with no "Error displaying widget". nbconvert's HTML shows the pictures. A live player takes
its keys (←/→, space, Home/End) and labels its controls. `player.save_html` replays from a file
with the network blocked. Screenshots go to artifacts/explorer-*.png.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbconvert import HTMLExporter
from notebook_runner import (
    artifact,
    run_all,
    run_notebook,
    set_theme,
    wait_idle_kernel,
    write_fresh,
)

import minigrad as mg
from widgets import record_backward

expect = pytest.importorskip("playwright.sync_api").expect  # skip cleanly without it

OUT = ".jp-OutputArea-output"
ROOT = Path(__file__).resolve().parents[2]
EVIL = "<img src=x onerror=alert(1)>"
CELLS = [
    f"""import minigrad as mg
from widgets import draw_graph, record_backward, record_forward

a = mg.tensor([1.0, 2.0], requires_grad=True)
b = mg.tensor([3.0, 4.0], requires_grad=True)
with record_forward(names={{"a": a, "b": b}}) as fwd:
    y = (a * b + a * 2).sum()
draw_graph(y, names={{"a": a, "b": b, {EVIL!r}: y}})""",
    "fwd.player()",
    """with record_backward(y, names={"a": a, "b": b}, forward=fwd) as bwd:
    y.backward()
bwd.player()""",
]
PLAYERS = 2
PICTURES = 1 + PLAYERS  # the static drawing and each player's fallback
DEAD_WIDGET = "Error displaying widget"
# the text JupyterLab leaves of an SVG it stripped (graph title `%3`, node ids, edge titles)
STRIPPED_SVG = re.compile(r"%\d\b|\bn0\b|n0->n1")
# what jupyterlab-manager logs (to the console only) for a widget output without its model
MODEL_NOT_FOUND = "widget model not found"
# Notebook 7's own start-up errors with this test server's isolated settings (no explorer code)
NOTEBOOK7_OWN = ("reading 'schema'", "Command 'filebrowser:open-path' not registered")


def notebook() -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELLS])
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    return nb


@pytest.fixture(scope="module")
def executed() -> nbformat.NotebookNode:
    """The notebook with stored outputs, executed as `make notebooks` does it."""
    nb = notebook()
    client = NotebookClient(
        nb, timeout=120, store_widget_state=False, resources={"metadata": {"path": str(ROOT)}}
    )
    client.execute()
    return nb


def check_pictures(page, count: int) -> None:
    """`count` SVG pictures shown and decoded, no stripped-SVG text, no widget error, no other
    image (a name like `<img onerror>` stays text inside a picture)."""
    pictures = page.locator("img.mg-picture")
    expect(pictures).to_have_count(count)
    for i in range(count):
        expect(pictures.nth(i)).to_be_visible()
        assert pictures.nth(i).evaluate("img => img.complete && img.naturalWidth > 100")
    expect(page.locator(f"{OUT} img:not(.mg-picture)")).to_have_count(0)
    text = page.locator(".jp-Notebook").inner_text()  # what is shown (no hidden element)
    assert not STRIPPED_SVG.search(text), text
    assert DEAD_WIDGET not in text


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_first_open_untrusted_shows_every_graph_as_a_picture(lab, lab_page, executed, theme):
    page = lab_page
    set_theme(lab, "JupyterLab Dark" if theme == "dark" else None)
    try:
        page.goto(lab.lab_url(write_fresh(lab, executed, f"first-open-{theme}")))
        expect(page.locator(f"{OUT} .mg-caption").first).to_be_visible(timeout=60_000)
        expect(page.locator("body")).to_have_attribute(
            "data-jp-theme-light", "false" if theme == "dark" else "true"
        )
        # untrusted: JupyterLab sanitized the HTML (no <style> left) and ran no widget
        expect(page.locator(f"{OUT}.jp-mod-trusted")).to_have_count(0)
        expect(page.locator(".mg-player")).to_have_count(0)
        check_pictures(page, PICTURES)
        expect(page.locator(".mg-note", has_text="Run this cell to replay")).to_have_count(PLAYERS)
        page.screenshot(path=artifact(f"explorer-first-open-untrusted-{theme}.png"))
    finally:
        set_theme(lab, None)
    assert page.js_errors == []


def test_live_player_keys_labels_then_saved_and_reopened(lab, lab_page, shot_dir):
    page = lab_page
    set_theme(lab, "JupyterLab Dark")
    try:
        name = run_notebook(page, lab, notebook(), "live-reopen")
        players = page.locator(f"{OUT} .mg-player")
        expect(players).to_have_count(PLAYERS)
        # the live players hide their fallback pictures; the static drawing stays
        expect(page.locator(".mg-fallback")).to_have_count(PLAYERS)
        for i in range(PLAYERS):
            expect(page.locator(".mg-fallback").nth(i)).to_be_hidden()
        expect(page.locator("img.mg-picture").first).to_be_visible()

        bwd = page.locator(f"{OUT} .mg-player[data-mode=backward]")
        frames = int(bwd.locator(".mg-counter").inner_text().split("/")[1])
        # every control is reachable and named
        for control in bwd.locator("button, input, select").all():
            assert control.get_attribute("aria-label"), control.evaluate("e => e.outerHTML")
        expect(bwd).to_have_attribute("tabindex", "0")
        expect(bwd.locator(".mg-step-text")).to_have_attribute("aria-live", "polite")

        bwd.locator(".mg-graph").click()  # focus lands on the player
        assert page.evaluate("document.activeElement.classList.contains('mg-player')")
        for key, frame in [("ArrowRight", 1), ("ArrowRight", 2), ("ArrowLeft", 1)]:
            page.keyboard.press(key)
            expect(bwd).to_have_attribute("data-frame", str(frame))
        page.keyboard.press("End")
        expect(bwd).to_have_attribute("data-frame", str(frames - 1))
        expect(bwd.locator("input.mg-slider")).to_have_attribute(
            "aria-valuetext", f"step {frames} of {frames}"
        )
        page.keyboard.press("Home")
        expect(bwd).to_have_attribute("data-frame", "0")
        page.keyboard.press("Space")
        expect(bwd).to_have_attribute("data-playing", "true")
        expect(bwd.locator("button.mg-play")).to_have_attribute("aria-label", "pause (space)")
        page.keyboard.press("Space")
        expect(bwd).to_have_attribute("data-playing", "false")
        # Tab reaches the buttons; space on a focused button is that button's click
        bwd.locator("button.mg-step").focus()
        frame = int(bwd.get_attribute("data-frame"))
        page.keyboard.press("Space")
        expect(bwd).to_have_attribute("data-frame", str(frame + 1))
        expect(bwd).to_have_attribute("data-playing", "false")
        page.keyboard.press("ArrowRight")  # arrows step from a focused button too
        expect(bwd).to_have_attribute("data-frame", str(frame + 2))
        bwd.scroll_into_view_if_needed()
        page.screenshot(path=artifact("explorer-live-dark.png"))
    finally:
        set_theme(lab, None)

    # save, shut the kernel, reopen: no widget model exists any more
    page.keyboard.press("Control+s")
    expect(page.locator(".jp-mod-dirty")).to_have_count(0)
    saved = json.loads((lab.root / name).read_text())
    assert "widgets" not in saved["metadata"]
    lab.delete_sessions()
    page.js_errors.clear()
    page.reload()
    expect(page.locator(".mg-note").first).to_be_visible(timeout=60_000)
    wait_idle_kernel(lab)
    time.sleep(3)  # jupyterlab-manager gives up on a missing model after ~2 s
    expect(page.locator(".mg-player")).to_have_count(0)
    check_pictures(page, PICTURES)
    expect(page.locator(".mg-note", has_text="Run this cell to replay")).to_have_count(PLAYERS)
    expect(page.locator(OUT, has_text=DEAD_WIDGET)).to_have_count(PLAYERS)  # there, not shown
    for i in range(PLAYERS):
        expect(page.locator(OUT, has_text=DEAD_WIDGET).nth(i)).to_be_hidden()
    page.screenshot(path=artifact("explorer-reopened.png"))
    assert [e for e in page.js_errors if MODEL_NOT_FOUND not in e] == []


def test_nbconvert_html_shows_every_picture(chromium, executed, tmp_path):
    body, _ = HTMLExporter(template_name="lab").from_notebook_node(executed)
    page_file = tmp_path / "explorer.html"
    page_file.write_text(body, encoding="utf-8")
    ctx = chromium.new_context(viewport={"width": 1200, "height": 900})
    try:
        page = ctx.new_page()
        page.goto(page_file.as_uri())
        pictures = page.locator("img.mg-picture")
        expect(pictures).to_have_count(PICTURES)
        for i in range(PICTURES):
            expect(pictures.nth(i)).to_be_visible()
            assert pictures.nth(i).evaluate("img => img.complete && img.naturalWidth > 100")
        assert DEAD_WIDGET not in page.locator("body").inner_text()
        page.screenshot(path=artifact("explorer-nbconvert.png"), full_page=True)
    finally:
        ctx.close()


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_notebook7_first_open_and_live(lab, chromium, executed, theme):
    pytest.importorskip("notebook", minversion="7")
    set_theme(lab, "JupyterLab Dark" if theme == "dark" else None)
    ctx = chromium.new_context(viewport={"width": 1400, "height": 1000})
    page = ctx.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        name = write_fresh(lab, executed, "notebook7")
        page.goto(f"{lab.url}/notebooks/{name}?token={lab.token}")
        expect(page.locator(f"{OUT} .mg-caption").first).to_be_visible(timeout=60_000)
        expect(page.locator(".mg-player")).to_have_count(0)
        check_pictures(page, PICTURES)
        if theme == "dark":  # Notebook 7 reads JupyterLab's theme setting
            expect(page.locator("body[data-jp-theme-light='false']")).to_have_count(1)
        page.screenshot(path=artifact(f"explorer-notebook7-untrusted-{theme}.png"))

        wait_idle_kernel(lab)
        run_all(page)
        players = page.locator(f"{OUT} .mg-player")
        expect(players).to_have_count(PLAYERS, timeout=120_000)
        for i in range(PLAYERS):
            expect(players.nth(i).locator(".mg-graph svg")).to_have_count(1)
            expect(page.locator(".mg-fallback").nth(i)).to_be_hidden()
        bwd = page.locator(f"{OUT} .mg-player[data-mode=backward]")
        bwd.locator(".mg-graph").click()
        page.keyboard.press("ArrowRight")
        expect(bwd).to_have_attribute("data-frame", "1")
        bwd.scroll_into_view_if_needed()
        page.screenshot(path=artifact(f"explorer-notebook7-live-{theme}.png"))
        assert [e for e in errors if not any(own in e for own in NOTEBOOK7_OWN)] == []
    finally:
        ctx.close()
        lab.delete_sessions()
        set_theme(lab, None)


def test_saved_replay_plays_from_a_file_with_the_network_blocked(chromium, tmp_path):
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    b = mg.tensor([3.0, 4.0], requires_grad=True)
    y = (a * b + a * 2).sum()
    with record_backward(y, names={"a": a, "b": b, EVIL: y}) as trace:
        y.backward()
    player = trace.player()
    path = player.save_html(tmp_path / "replay.html")
    frames = len(player.frames)

    ctx = chromium.new_context(viewport={"width": 1200, "height": 800}, offline=True)
    requests = []

    def refuse(route):  # anything but the file itself is refused, and recorded
        if route.request.url != path.as_uri():
            requests.append(route.request.url)
            route.abort()
        else:
            route.continue_()

    ctx.route("**/*", refuse)
    page = ctx.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("dialog", lambda d: (errors.append(f"dialog: {d.message}"), d.dismiss()))
    try:
        page.goto(path.as_uri())
        root = page.locator(".mg-player[data-mode=backward]")
        expect(root.locator(".mg-graph svg g.node").first).to_be_visible()
        expect(root.locator(".mg-counter")).to_have_text(f"1 / {frames}")
        expect(root.locator(".mg-step-text")).to_contain_text("backward #1")
        root.locator("button.mg-step").click()
        expect(root).to_have_attribute("data-frame", "1")
        expect(root.locator("g.edge.mg-active")).to_have_count(1)
        root.locator(".mg-graph").click()
        page.keyboard.press("ArrowRight")
        expect(root).to_have_attribute("data-frame", "2")
        page.keyboard.press("End")
        expect(root).to_have_attribute("data-kind", "backward_end")
        expect(root.locator(".mg-sec-leaves .mg-line").first).to_contain_text("a.grad: None →")
        root.locator("select.mg-speed").select_option("8")
        root.locator("button.mg-play").click()  # from the end, play restarts at the first step
        expect(root).to_have_attribute("data-playing", "true")
        expect(root).to_have_attribute("data-playing", "false", timeout=20_000)
        expect(root).to_have_attribute("data-frame", str(frames - 1))
        expect(root.locator("svg text", has_text=EVIL)).to_have_count(1)  # text, not an element
        page.screenshot(path=artifact("explorer-saved-replay.png"), full_page=True)
    finally:
        ctx.close()
    assert requests == [] and errors == []
