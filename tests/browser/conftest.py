"""Fixtures for browser tests: a throw-away JupyterLab, headless Debian Chromium, a fresh page.

Follows ../shared/recipes/browser-harness.md. Skips cleanly when chromium or playwright is
missing; CI has both. Never runs `playwright install`: the Debian chromium is launched directly.
"""

from __future__ import annotations

import re
import sys
import uuid
from pathlib import Path

import nbformat
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from labserver import CHROMIUM, CHROMIUM_ARGS, LabServer  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
NB_DIR = ROOT / "notebooks"
ARTIFACTS = ROOT / "artifacts"
SHOT_DIR = ARTIFACTS / "screenshots"
SENTINEL = "ALL_CELLS_DONE"


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
    page.on("dialog", lambda d: (page.js_errors.append(f"dialog opened: {d.message}"),
                                 d.dismiss()))
    yield page
    ctx.close()
    lab.delete_sessions()  # stop this test's kernel


@pytest.fixture(scope="session")
def shot_dir() -> Path:
    SHOT_DIR.mkdir(parents=True, exist_ok=True)
    return SHOT_DIR


def run_notebook(page, lab, nb, stem: str, timeout_ms: int = 120_000) -> str:
    """Write `nb` WITHOUT outputs/widget state under a unique name (own kernel, no stale widget
    views), open it, wait for a live idle kernel, Run All Cells, wait for the sentinel."""
    from playwright.sync_api import expect

    for c in nb.cells:
        if c.cell_type == "code":
            c.outputs, c.execution_count = [], None
    nb.metadata.pop("widgets", None)
    # without a kernelspec JupyterLab asks which kernel to start (a dialog over the page)
    nb.metadata.setdefault("kernelspec", {"name": "python3", "display_name": "Python 3",
                                          "language": "python"})
    nb.cells.append(nbformat.v4.new_code_cell(f"print('{SENTINEL[:4]}' + '{SENTINEL[4:]}')"))
    name = f"{stem}-{uuid.uuid4().hex[:8]}.ipynb"
    nbformat.write(nb, lab.root / name)

    page.goto(lab.lab_url(name))
    # NOT .jp-Notebook-ExecutionIndicator[data-status=idle]: it reads idle while
    # "No Kernel | Initializing"
    expect(page.locator(".jp-StatusBar-TextItem", has_text=re.compile(r"\) \| Idle$"))) \
        .to_be_visible(timeout=timeout_ms)
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$")).click()
    expect(page.locator(".jp-OutputArea-output", has_text=SENTINEL)) \
        .to_be_visible(timeout=timeout_ms)
    expect(page.locator(".jp-OutputArea-output", has_text="Error displaying widget")) \
        .to_have_count(0)
    expect(page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']",
                        has_text="Traceback")).to_have_count(0)
    return name


def open_and_run_all(page, lab, notebook: str, timeout_ms: int = 120_000) -> str:
    """Run a copy of notebooks/<notebook> (see run_notebook)."""
    nb = nbformat.read(NB_DIR / notebook, as_version=4)
    return run_notebook(page, lab, nb, Path(notebook).stem, timeout_ms)
