"""A learner's copy opened in JupyterLab stays unmodified, so the next course update reaches it.

`make lab` writes the copies (scripts/learner_copies.py) with the kernel metadata JupyterLab itself
writes on opening a notebook. Opened and left alone, a copy shows no unsaved change; saved anyway,
it is still "untouched" and the next sync updates it in place instead of putting a
`.updated.ipynb` beside it. The control: a copy carrying the course's old kernelspec ("Python 3")
is marked modified the moment its kernel starts, which is the defect this guards against.
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

import pytest
from notebook_runner import ROOT, artifact

expect = pytest.importorskip("playwright.sync_api").expect  # skip cleanly without it

sys.path.insert(0, str(ROOT / "scripts"))
import learner_copies  # noqa: E402

IDLE = re.compile(r"\) \| (Idle|空闲)$")
NAMES = ["01_start_here.ipynb", "explorer_demo.ipynb"]


@pytest.fixture(scope="module")
def course(lab) -> Path:
    """Two notebooks of the course and labkit: what the learner's folder is made from."""
    import shutil

    src = lab.root / "course_src"
    shutil.copytree(ROOT / "notebooks" / "labkit", src / "labkit")
    for name in NAMES:
        shutil.copy(ROOT / "notebooks" / name, src / name)
    return src


def _open(page, lab, relative: str) -> None:
    page.goto(lab.lab_url(relative))
    expect(page.locator(".jp-StatusBar-TextItem", has_text=IDLE)).to_be_visible(timeout=120_000)


def _saved(path: Path, before: float, timeout: float = 30) -> None:
    deadline = time.time() + timeout
    while path.stat().st_mtime == before:
        if time.time() > deadline:
            raise TimeoutError(f"{path.name} was not saved")
        time.sleep(0.2)


@pytest.mark.parametrize("name", NAMES)
def test_opening_a_learner_copy_leaves_it_unmodified(lab, lab_page, course, name):
    page, out = lab_page, lab.root / f"learner-{Path(name).stem}"
    learner_copies.sync(out, course)
    copy = out / name
    _open(page, lab, f"{out.name}/{name}")
    page.wait_for_timeout(1500)  # the kernel's metadata lands on connecting: give it time to
    expect(page.locator(".jp-mod-dirty")).to_have_count(0)
    page.screenshot(path=artifact(f"learner-copy-opened-{Path(name).stem}.png"))
    before = copy.stat().st_mtime
    page.locator(".jp-Notebook").first.click()
    page.keyboard.press("Control+s")
    _saved(copy, before)
    report = learner_copies.sync(out, course)
    assert name in report["kept"] and not report["beside"], report
    assert not (out / (copy.stem + learner_copies.UPDATED_SUFFIX)).exists()


def test_control_a_copy_with_the_old_kernelspec_is_marked_modified(lab, lab_page, course):
    """Without the kernel metadata JupyterLab writes, opening alone makes the copy "modified"."""
    import nbformat

    page, out = lab_page, lab.root / "learner-old-kernelspec"
    learner_copies.sync(out, course)
    copy = out / NAMES[0]
    nb = nbformat.read(copy, as_version=4)
    nb.metadata.kernelspec = dict(learner_copies.OLD_KERNELSPECS[0])
    nbformat.write(nb, copy)
    _open(page, lab, f"{out.name}/{NAMES[0]}")
    expect(page.locator(".jp-mod-dirty")).not_to_have_count(0, timeout=30_000)
