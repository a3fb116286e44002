"""The HTML export (`make html`, scripts/export_html.py) seen in headless Chromium, offline.

The pages read as static pages: no "Run this cell to replay" under a player's picture (a note
says it is a still of the recorded pass), a note on top says the page is a still copy (the ▶ the
text mentions is in the notebook); the index looks like the lessons (the same stylesheet, the
same font) with inline code in titles drawn as code, never as raw backticks. English and
Chinese. Screenshots: artifacts/screenshots/export-*.png.
"""

from __future__ import annotations

import importlib.util

import pytest
from notebook_runner import NB_DIR, ROOT, SHOT_DIR

expect = pytest.importorskip("playwright.sync_api").expect  # skip cleanly without it

spec = importlib.util.spec_from_file_location("export_html", ROOT / "scripts" / "export_html.py")
export_html = importlib.util.module_from_spec(spec)
spec.loader.exec_module(export_html)

# a lesson with a player (09: hooks, whose text says "press ▶") and two with `code` in their
# titles (04 in English only, 06 in both languages)
LESSONS = ["04_backward_in_depth.ipynb", "06_retain_graph.ipynb", "09_hooks.ipynb"]
RUN_NOTE = {"en": "Run this cell", "zh": "运行这个单元格"}
STILL = {"en": "A still picture of the recorded pass", "zh": "记录下来的这次传播的静态图"}
STATIC = {"en": "A static copy of this lesson", "zh": "这是本课连同已保存输出的静态副本"}


def offline_page(chromium):
    ctx = chromium.new_context(viewport={"width": 1200, "height": 900})
    ctx.route("http*://**", lambda route: route.abort())  # nothing may come from the network
    page = ctx.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    return ctx, page


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_exported_lessons_read_as_static_pages_and_the_index_is_styled(chromium, tmp_path, lang):
    folder = NB_DIR / "zh" if lang == "zh" else NB_DIR
    index = export_html.export([folder / name for name in LESSONS], tmp_path, lang)
    ctx, page = offline_page(chromium)
    try:
        page.goto(index.as_uri())
        links = page.locator("a[href$='.html']:not([href*='index'])")
        expect(links).to_have_count(len(LESSONS))
        text = page.locator("body").inner_text()
        assert "`" not in text, text  # inline code is drawn as code
        expect(page.locator("a code", has_text="retain_graph")).to_have_count(1)
        index_font = page.evaluate("getComputedStyle(document.querySelector('p')).fontFamily")
        styled = page.evaluate("!!document.querySelector('.jp-RenderedHTMLCommon')")
        assert styled
        SHOT_DIR.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOT_DIR / f"export-index-{lang}.png"))

        page.goto((tmp_path / "09_hooks.html").as_uri())
        body = page.locator("body").inner_text()
        assert RUN_NOTE[lang] not in body
        expect(page.locator(".mg-note", has_text=RUN_NOTE[lang])).to_have_count(0)
        notes = page.locator(".mg-export-note")
        assert notes.count() >= 1
        expect(notes.first).to_contain_text(STILL[lang])
        static = page.locator(".jp-MarkdownCell", has_text=STATIC[lang])
        expect(static).to_have_count(1)
        first_markdown = page.locator(".jp-MarkdownCell").nth(1)
        expect(first_markdown).to_contain_text(STATIC[lang])  # right under the title
        pictures = page.locator("img.mg-picture")
        assert pictures.count() >= 1
        for i in range(pictures.count()):
            assert pictures.nth(i).evaluate("i => i.complete && i.naturalWidth > 100")
        lesson_font = page.evaluate("getComputedStyle(document.querySelector('p')).fontFamily")
        assert lesson_font == index_font
        page.screenshot(path=str(SHOT_DIR / f"export-lesson-top-{lang}.png"))
        notes.first.scroll_into_view_if_needed()
        page.screenshot(path=str(SHOT_DIR / f"export-player-still-{lang}.png"))
        assert page.errors == []
    finally:
        ctx.close()
