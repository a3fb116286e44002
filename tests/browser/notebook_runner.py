"""Open a notebook in the test JupyterLab and run it, as the browser-harness recipe does.

Kept out of conftest.py so test modules import it by a name no other conftest can shadow.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[2]
NB_DIR = ROOT / "notebooks"
ARTIFACTS = ROOT / "artifacts"
SHOT_DIR = ARTIFACTS / "screenshots"
SENTINEL = "ALL_CELLS_DONE"


def run_notebook(page, lab, nb, stem: str, timeout_ms: int = 120_000, tracebacks: int = 0) -> str:
    """Write `nb` WITHOUT outputs/widget state under a unique name (own kernel, no stale widget
    views), open it, wait for a live idle kernel, Run All Cells, wait for the sentinel.

    `tracebacks`: how many cells are expected to raise (JupyterLab runs on past them)."""
    from playwright.sync_api import expect

    for c in nb.cells:
        if c.cell_type == "code":
            c.outputs, c.execution_count = [], None
    nb.metadata.pop("widgets", None)
    # without a kernelspec JupyterLab asks which kernel to start (a dialog over the page)
    nb.metadata.setdefault(
        "kernelspec", {"name": "python3", "display_name": "Python 3", "language": "python"}
    )
    nb.cells.append(nbformat.v4.new_code_cell(f"print('{SENTINEL[:4]}' + '{SENTINEL[4:]}')"))
    name = f"{stem}-{uuid.uuid4().hex[:8]}.ipynb"
    nbformat.write(nb, lab.root / name)

    page.goto(lab.lab_url(name))
    # NOT .jp-Notebook-ExecutionIndicator[data-status=idle]: it reads idle while
    # "No Kernel | Initializing"
    expect(
        page.locator(".jp-StatusBar-TextItem", has_text=re.compile(r"\) \| (Idle|空闲)$"))
    ).to_be_visible(timeout=timeout_ms)
    run_all(page)
    expect(page.locator(".jp-OutputArea-output", has_text=SENTINEL)).to_be_visible(
        timeout=timeout_ms
    )
    expect(page.locator(".jp-OutputArea-output", has_text="Error displaying widget")).to_have_count(
        0
    )
    expect(
        page.locator(
            ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']",
            has_text="Traceback",
        )
    ).to_have_count(tracebacks)
    return name


def open_and_run_all(page, lab, notebook: str, timeout_ms: int = 120_000) -> str:
    """Run a copy of notebooks/<notebook> (see run_notebook)."""
    nb = nbformat.read(NB_DIR / notebook, as_version=4)
    return run_notebook(page, lab, nb, Path(notebook).stem, timeout_ms)


def write_fresh(lab, nb: nbformat.NotebookNode, stem: str) -> str:
    """A copy under a new name: never opened, never signed by this server, so untrusted."""
    name = f"{stem}-{time.time_ns()}.ipynb"
    nbformat.write(nb, lab.root / name)
    return name


def _user_setting(lab, plugin: str, value: dict | None) -> None:
    """Write (or, for None, remove) one JupyterLab plugin's user settings; read at page load."""
    path = lab.home / "user-settings" / f"{plugin}.jupyterlab-settings"
    if value is None:
        path.unlink(missing_ok=True)
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(value))


def set_theme(lab, theme: str | None) -> None:
    """JupyterLab's theme (None: the default, light)."""
    _user_setting(lab, "@jupyterlab/apputils-extension/themes", theme and {"theme": theme})


def set_locale(lab, locale: str | None) -> None:
    """JupyterLab's display language (None: English), as `make lab LANG=zh` sets it."""
    _user_setting(lab, "@jupyterlab/translation-extension/plugin", locale and {"locale": locale})


@contextmanager
def opened_as_stored(
    page, lab, nb: nbformat.NotebookNode, stem: str, theme: str | None, locale: str | None = None
) -> Iterator[None]:
    """Run `nb` as `make notebooks` stores a lesson (no widget state), then open a fresh copy in
    `theme` and `locale`: untrusted, as a learner first sees it. Both settings are reset after."""
    from nbclient import NotebookClient

    NotebookClient(
        nb, timeout=120, store_widget_state=False, resources={"metadata": {"path": str(ROOT)}}
    ).execute()
    set_theme(lab, theme)
    set_locale(lab, locale)
    try:
        page.goto(lab.lab_url(write_fresh(lab, nb, stem)))
        yield
    finally:
        set_theme(lab, None)
        set_locale(lab, None)


# menu labels in English or in the zh_CN language pack's words
RUN_MENU = re.compile(r"^(Run|运行)$")
RUN_ALL = re.compile(r"^(Run All Cells|运行所有单元格)$")


def run_all(page) -> None:
    """Run > Run All Cells, from the menu bar, in either language."""
    page.locator(".lm-MenuBar-itemLabel", has_text=RUN_MENU).click()
    page.locator(".lm-Menu-itemLabel", has_text=RUN_ALL).click()


def artifact(name: str) -> str:
    ARTIFACTS.mkdir(exist_ok=True)
    return str(ARTIFACTS / name)


def wait_idle_kernel(lab, timeout: float = 120) -> None:
    """A kernel has started for the page and is idle (Lab and Notebook 7 alike)."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        sessions = lab._api("/api/sessions")
        if sessions and all(s["kernel"]["execution_state"] == "idle" for s in sessions):
            return
        time.sleep(0.3)
    raise TimeoutError("no idle kernel")
