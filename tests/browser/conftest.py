"""Fixtures for browser tests: a throw-away JupyterLab, headless Debian Chromium, a fresh page.

Follows ../shared/recipes/browser-harness.md. Skips cleanly when chromium or playwright is
missing; CI has both. Never runs `playwright install`: the Debian chromium is launched directly.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from labserver import CHROMIUM, CHROMIUM_ARGS, LabServer  # noqa: E402
from notebook_runner import SHOT_DIR  # noqa: E402


def pytest_collection_modifyitems(items):
    for it in items:
        if "tests/browser" in str(it.fspath):
            it.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def lab(tmp_path_factory):
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} missing: apt-get install -y chromium")
    pytest.importorskip("playwright")
    srv = LabServer(tmp_path_factory.mktemp("lab_root"), tmp_path_factory.mktemp("lab_home"))
    srv.start()
    print(f"\n[lab] API up in {srv.startup_s:.2f}s on {srv.url}")
    yield srv
    srv.stop()


@pytest.fixture(scope="session")
def chromium(lab):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def lab_page(chromium, lab):
    ctx = chromium.new_context(viewport={"width": 1400, "height": 1000})
    page = ctx.new_page()
    page.set_default_timeout(30_000)
    page.js_errors = []
    page.on("pageerror", lambda e: page.js_errors.append(str(e)))
    page.on("console", lambda m: page.js_errors.append(m.text) if m.type == "error" else None)
    page.on("dialog", lambda d: (page.js_errors.append(f"dialog opened: {d.message}"), d.dismiss()))
    yield page
    ctx.close()
    lab.delete_sessions()  # stop this test's kernel


@pytest.fixture(scope="session")
def shot_dir() -> Path:
    SHOT_DIR.mkdir(parents=True, exist_ok=True)
    return SHOT_DIR
