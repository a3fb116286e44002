"""The graph explorer in a real JupyterLab 4 + headless Chromium: drawn, stepped, played.

Each test runs notebooks/explorer_demo.ipynb from a fresh kernel and drives its outputs the way a
learner would. Text asserted after a click is text only Python wrote (frames are formatted in the
kernel), so a passing test proves the whole path: engine records -> frames -> widget -> browser.
Screenshots of each state go to artifacts/screenshots/ (look at them after a change).
"""

from __future__ import annotations

import re

import pytest
from notebook_runner import open_and_run_all

expect = pytest.importorskip("playwright.sync_api").expect  # skip cleanly without it

DEMO = "explorer_demo.ipynb"
OUT = ".jp-OutputArea-output"


def player(page, mode: str, summary: str | None = None, frames: int | None = None):
    """The player of `mode` whose summary line contains `summary` and that has `frames` frames
    (both written by Python)."""
    found = page.locator(f"{OUT} .mg-player[data-mode={mode}]")
    if summary is not None:
        found = found.filter(has=page.locator(".mg-summary", has_text=summary))
    if frames is not None:
        found = found.filter(has=page.locator(".mg-counter", has_text=f"/ {frames}"))
    return found.first


def shoot(page, locator, path) -> None:
    locator.scroll_into_view_if_needed()
    locator.screenshot(path=str(path))


def step_until(root, kind: str, limit: int = 200) -> None:
    """Click "step" until the frame shown is of `kind` (fails after `limit` steps)."""
    for _ in range(limit):
        if root.get_attribute("data-kind") == kind:
            return
        frame = int(root.get_attribute("data-frame"))
        root.locator("button.mg-step").click()
        expect(root).to_have_attribute("data-frame", str(frame + 1))
    raise AssertionError(f"no {kind!r} frame within {limit} steps")


# the SVG document an `img.mg-picture` shows (decoded from its data URI), parsed by the browser
PICTURE_SVG = """img => new DOMParser().parseFromString(
    new TextDecoder().decode(Uint8Array.from(atob(img.src.split(",")[1]), c => c.charCodeAt(0))),
    "image/svg+xml")"""
NODE_COUNT = f"img => ({PICTURE_SVG})(img).querySelectorAll('g.node').length"
TEXTS = f"img => [...({PICTURE_SVG})(img).querySelectorAll('text')].map(t => t.textContent)"


def test_static_view_forward_player_and_escaping(lab, lab_page, shot_dir):
    page = lab_page
    open_and_run_all(page, lab, DEMO)
    static = page.locator(f"{OUT} .mg-static:not(.mg-fallback)").first
    picture = static.locator("img.mg-picture")
    expect(picture).to_be_visible()
    assert picture.evaluate("img => img.complete && img.naturalWidth > 100")
    assert picture.evaluate(NODE_COUNT) == 13  # the legend is HTML below the picture now
    expect(static.locator(".mg-static-legend")).to_be_visible()
    expect(static.locator(".mg-caption")).to_contain_text("13 nodes, 13 edges")
    texts = picture.evaluate(TEXTS)
    assert {"MulBackward0 #0", "MulBackward0 #1"} <= set(texts), texts  # one id per node
    shoot(page, static, shot_dir / "01-static-view.png")

    # a tensor named like markup is drawn as text inside the picture; no other <img> appears
    sneaky = page.locator(f"{OUT} .mg-static", has_text="7 nodes, 6 edges")
    assert "<img src=x onerror=alert(1)>" in sneaky.locator("img.mg-picture").evaluate(TEXTS)
    stray = page.locator(f"{OUT} img:not(.mg-picture):not(.mg-minimap-image)")
    expect(stray).to_have_count(0)  # (a player draws its minimap from its own picture)
    shoot(page, sneaky, shot_dir / "02-escaped-name.png")

    fwd = player(page, "forward")
    expect(fwd.locator(".mg-graph svg")).to_have_count(1)
    expect(fwd).to_have_attribute("data-frame", "0")
    expect(fwd.locator(".mg-step-text")).to_have_text(
        "forward: MulBackward0 #0 created, output [2] from a [2], b [2] = [3., 8.]"
    )
    hidden_before = fwd.locator("g.mg-hidden").count()
    assert hidden_before > 0
    shoot(page, fwd, shot_dir / "03-forward-first-op.png")
    fwd.locator("button.mg-step").click()
    expect(fwd).to_have_attribute("data-frame", "1")
    expect(fwd.locator(".mg-step-text")).to_contain_text("from a [2], constant [] = [2., 4.]")
    assert fwd.locator("g.mg-hidden").count() < hidden_before
    fwd.locator("button.mg-play").click()
    expect(fwd).to_have_attribute("data-frame", "3", timeout=10_000)
    expect(fwd).to_have_attribute("data-playing", "false")
    expect(fwd.locator("g.mg-hidden")).to_have_count(0)
    shoot(page, fwd, shot_dir / "04-forward-done.png")
    assert page.js_errors == []


def test_backward_player_steps_plays_and_shows_the_error(lab, lab_page, shot_dir):
    page = lab_page
    open_and_run_all(page, lab, DEMO)
    bwd = player(page, "backward", "13 nodes, 13 edges", frames=73)
    expect(bwd.locator(".mg-graph svg")).to_have_count(1)
    expect(bwd).to_have_attribute("data-frame", "0")
    expect(bwd.locator(".mg-counter")).to_have_text("1 / 73")
    expect(bwd.locator(".mg-step-text")).to_have_text(
        "backward #1 from SumBackward0, retain_graph=True: 6 nodes wait for gradients"
    )
    expect(bwd.locator(".mg-sec-deps .mg-line")).to_have_count(6)
    shoot(page, bwd, shot_dir / "05-backward-start.png")

    # step: the seed gradient travels along the output edge into SumBackward0
    bwd.locator("button.mg-step").click()
    expect(bwd).to_have_attribute("data-frame", "1")
    expect(bwd.locator("g.edge.mg-active")).to_have_count(1)
    assert bwd.locator("g.edge.mg-active").get_attribute("id") == "e0"
    expect(bwd.locator(".mg-step-text")).to_have_text("the seed → SumBackward0: gradient 1.")
    expect(bwd.locator(".mg-sec-grad .mg-line")).to_have_text("1.")
    bwd.locator("button.mg-step").click()
    expect(bwd.locator("g.node.mg-current")).to_have_attribute("id", "n1")
    expect(bwd.locator(".mg-sec-queue .mg-line")).to_have_text("SumBackward0")
    shoot(page, bwd, shot_dir / "06-backward-ready.png")

    # the first accumulation into a.grad: both paths' gradients were summed first
    step_until(bwd, "accumulate")
    expect(bwd.locator(".mg-sec-leaves .mg-line")).to_have_text("a.grad: None → [5., 6.]")
    expect(bwd.locator("g.node.mg-updated")).to_have_attribute("id", "n8")
    shoot(page, bwd, shot_dir / "07-backward-accumulate.png")
    frame = int(bwd.get_attribute("data-frame"))
    bwd.locator("button.mg-prev").click()
    expect(bwd).to_have_attribute("data-frame", str(frame - 1))
    expect(bwd.locator("g.node.mg-updated")).to_have_count(0)
    expect(bwd.locator(".mg-sec-leaves .mg-empty")).to_have_text("no .grad written yet")

    # play to the end at 8x: pass 2 accumulates, frees saved tensors; pass 3 fails
    bwd.locator("select.mg-speed").select_option("8")
    bwd.locator("button.mg-play").click()
    expect(bwd).to_have_attribute("data-playing", "true")
    expect(bwd).to_have_attribute("data-frame", "72", timeout=20_000)
    expect(bwd).to_have_attribute("data-playing", "false")
    expect(bwd).to_have_attribute("data-kind", "error")
    expect(bwd.locator(".mg-sec-error .mg-line")).to_contain_text(
        "RuntimeError in MulBackward0 #1: Trying to backward through the graph a second time"
    )
    expect(bwd.locator("g.node.mg-error")).to_have_attribute("id", "n4")
    expect(bwd.locator("g.node.mg-freed-now")).to_have_count(3)
    expect(bwd.locator(".mg-sec-leaves .mg-line").first).to_have_text(
        "a.grad: [5., 6.] → [10., 12.]"
    )
    shoot(page, bwd, shot_dir / "08-backward-error.png")

    # the slider jumps anywhere, backwards too (state refolded, no kernel involved)
    bwd.locator("input.mg-slider").fill("0")
    expect(bwd).to_have_attribute("data-frame", "0")
    expect(bwd.locator("g.node.mg-freed-now")).to_have_count(0)
    assert page.js_errors == []


def test_hooks_modules_higher_order_and_torch(lab, lab_page, shot_dir):
    page = lab_page
    open_and_run_all(page, lab, DEMO)

    hooked = player(page, "backward", "10 nodes, 9 edges")
    step_until(hooked, "hook")
    expect(hooked.locator(".mg-sec-hooks .mg-line")).to_have_text(
        "tensor hook double on h: saw [6., -6.], returned [12., -12.]"
    )
    shoot(page, hooked, shot_dir / "09-hook-fired.png")

    mlp = player(page, "backward", "collapsed: 0, 1, 2")
    expect(mlp.locator("g.mg-box")).to_have_count(3)
    step_until(mlp, "node_start")
    step_until(mlp, "node_run")
    shoot(page, mlp, shot_dir / "10-modules-collapsed.png")
    mlp.locator("g.mg-box#m1").click()  # open the first Linear: a new layout from the kernel
    opened = player(page, "backward", "collapsed: 1, 2")
    expect(opened.locator("g.mg-box")).to_have_count(2)
    expect(opened.locator("g.mg-cluster#m1")).to_have_count(1)
    expect(opened.locator("g.mg-cluster#m1 text")).to_have_text("0 (Linear)")
    weight = opened.locator("g.node text").filter(has_text=re.compile(r"^0\.weight$"))
    expect(weight).to_have_count(1)
    shoot(page, opened, shot_dir / "11-module-expanded.png")
    opened.locator("g.mg-cluster#m1 text").click()  # close it again
    expect(player(page, "backward", "collapsed: 0, 1, 2").locator("g.mg-box")).to_have_count(3)

    higher = (  # x.grad drawn as a node: made by the backward pass itself (create_graph)
        page.locator(f"{OUT} .mg-player[data-mode=backward]")
        .filter(has=page.locator("g.node text", has_text="x.grad"))
        .first
    )
    higher.locator("select.mg-speed").select_option("8")
    grad_node = higher.locator("g.node", has=page.locator("text", has_text="x.grad"))
    expect(grad_node).to_have_class(re.compile(r"\bmg-hidden\b"))  # not created yet
    higher.locator("button.mg-play").click()
    expect(higher).to_have_attribute("data-kind", "backward_end", timeout=20_000)
    expect(grad_node).not_to_have_class(re.compile(r"\bmg-hidden\b"))
    expect(higher.locator(".mg-sec-leaves .mg-line")).to_have_text("x.grad: None → [12.]")
    shoot(page, higher, shot_dir / "12-create-graph.png")

    torch_player = player(page, "backward", "13 nodes, 13 edges", frames=30)
    torch_player.locator("select.mg-speed").select_option("8")
    torch_player.locator("button.mg-play").click()
    expect(torch_player).to_have_attribute("data-kind", "backward_end", timeout=20_000)
    expect(torch_player.locator(".mg-sec-leaves .mg-line")).to_have_text(
        ["a.grad: None → [5., 6.]", "b.grad: None → [1., 2.]"]
    )
    expect(torch_player.locator("g.node.mg-freed-now")).to_have_count(3)
    shoot(page, torch_player, shot_dir / "13-torch-backward.png")
    assert page.js_errors == []
