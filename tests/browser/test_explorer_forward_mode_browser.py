"""The forward-mode player beside the reverse one, in a real JupyterLab 4 + headless Chromium:
the explorer demo's section 9 (`forward_and_reverse`) run from a fresh kernel, stepped as a
learner would, in English on the light theme and in Chinese on the dark one. Each tangent
asserted is text Python wrote; a hover says a node's shape and dtype, an op's output tangent.
Screenshots: artifacts/screenshots/forward-mode-*.png."""

from __future__ import annotations

import pytest
from notebook_runner import open_and_run_all, set_theme

expect = pytest.importorskip("playwright.sync_api").expect

OUT = ".jp-OutputArea-output"
CASES = {  # lang: (demo, theme, the badge's word, a heading's words)
    "en": ("explorer_demo.ipynb", None, "tangent", "Forward mode: one pass"),
    "zh": ("zh/explorer_demo.ipynb", "JupyterLab Dark", "切向量", "前向模式：对偶输入跑一遍"),
}


@pytest.mark.parametrize("lang", sorted(CASES))
def test_tangents_appear_node_by_node_beside_the_backward_pass(lab, lab_page, shot_dir, lang):
    demo, theme, word, heading = CASES[lang]
    page = lab_page
    set_theme(lab, theme)
    try:
        open_and_run_all(page, lab, demo)
    finally:
        set_theme(lab, None)
    expect(page.locator(f"{OUT} .mg-modes-heading", has_text=heading)).to_have_count(1)

    dual = page.locator(f"{OUT} .mg-player[data-mode=forward]").last
    expect(dual.locator(".mg-counter")).to_have_text("1 / 4")
    badge = dual.locator("g.mg-edge-label text")
    expect(badge).to_have_text(f"{word} [1., 0., 0.]")  # make_dual: x carries v
    dual.locator("button.mg-step").click()
    expect(badge).to_have_text(f"{word} [0.8776, 0., 0.]")  # sin: cos(x) v
    shoot_path = shot_dir / f"forward-mode-{lang}-sin.png"
    dual.scroll_into_view_if_needed()
    dual.screenshot(path=str(shoot_path))
    for _ in range(2):
        dual.locator("button.mg-step").click()
    expect(dual).to_have_attribute("data-frame", "3")
    expect(badge).to_have_text(f"{word} 0.9182")  # the sum: J·v
    expect(dual.locator(".mg-sec-created .mg-line").first).to_contain_text(f"{word} 0.9182")
    # a hover says what a node is: the input its shape and dtype, an op its output's tangent
    leaf = dual.locator(".mg-graph g.node.mg-n-leaf").first
    leaf.hover()
    tip = leaf.locator("title").text_content()
    assert tip.startswith("x\n") and "[3]" in tip and "float32" in tip, tip
    sin = dual.locator(".mg-graph g.node", has_text="SinBackward0").first
    sin.hover()
    tip = sin.locator("title").text_content()
    assert f"{word}" in tip and "[0.8776, 0., 0.]" in tip, tip
    dual.screenshot(path=str(shot_dir / f"forward-mode-{lang}-end.png"))

    reverse = page.locator(f"{OUT} .mg-player[data-mode=backward]").last
    reverse.locator("select.mg-speed").select_option("8")
    reverse.locator("button.mg-play").click()
    expect(reverse).to_have_attribute("data-kind", "backward_end", timeout=20_000)
    expect(reverse.locator(".mg-sec-leaves .mg-line")).to_have_text(
        "x.grad: None → [0.9182, -1.3818, 0.077]"
    )
    reverse.scroll_into_view_if_needed()
    reverse.screenshot(path=str(shot_dir / f"forward-mode-{lang}-reverse.png"))
    assert page.js_errors == []
