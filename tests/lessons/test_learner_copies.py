"""`make lab` opens the learner's copies: made on first use, kept in step, never written over.

The promise to a learner is that nothing they typed is ever lost to a course update; the promise
to an instructor is that new and changed lessons still reach the learner.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "scripts"
sys.path.insert(0, str(SCRIPTS))
import learner_copies  # noqa: E402

LESSONS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


@pytest.fixture
def course(tmp_path: Path) -> Path:
    """A copy of the course (two lessons and labkit) that a test may change."""
    src = tmp_path / "course"
    src.mkdir()
    for path in LESSONS[:2]:
        shutil.copy(path, src / path.name)
    shutil.copytree(ROOT / "notebooks" / "labkit", src / "labkit")
    return src


def _edit(path: Path, text: str) -> None:
    """Change a notebook as a learner would: a cell's source, saved."""
    nb = nbformat.read(path, as_version=4)
    nb.cells[0].source += text
    nbformat.write(nb, path)


def test_first_use_writes_every_lesson_stubbed_and_labkit(course, tmp_path):
    out = tmp_path / "learner"
    report = learner_copies.sync(out, course)
    assert report["added"] == sorted(p.name for p in course.glob("*.ipynb"))
    assert (out / "labkit" / "feedback.py").exists()
    for path in out.glob("*.ipynb"):
        code = "\n".join(c.source for c in nbformat.read(path, 4).cells if c.cell_type == "code")
        assert "# BEGIN SOLUTION" not in code and "# your code here" in code
    assert learner_copies.sync(out, course)["kept"] == report["added"]  # a second run: nothing


def test_a_learners_edits_are_never_overwritten(course, tmp_path):
    out = tmp_path / "learner"
    learner_copies.sync(out, course)
    lesson = sorted(out.glob("*.ipynb"))[0]
    _edit(lesson, "\n# my notes")
    _edit(course / lesson.name, "\n# the course changed")
    report = learner_copies.sync(out, course)
    assert "# my notes" in lesson.read_text()
    beside = lesson.with_name(lesson.stem + ".updated.ipynb")
    assert report["beside"] == [beside.name]
    assert "# the course changed" in beside.read_text()
    assert "# my notes" not in beside.read_text()
    # taking the new version (copying it over) is then simply the learner's copy
    shutil.copy(beside, lesson)
    assert learner_copies.sync(out, course)["kept"] == sorted(
        p.name for p in course.glob("*.ipynb")
    )


def test_an_untouched_copy_follows_the_course_and_new_lessons_arrive(course, tmp_path):
    out = tmp_path / "learner"
    learner_copies.sync(out, course)
    first = sorted(course.glob("*.ipynb"))[0]
    _edit(first, "\n# the course changed")
    shutil.copy(LESSONS[2], course / LESSONS[2].name)
    (course / "labkit" / "extra.py").write_text("X = 1\n")
    report = learner_copies.sync(out, course)
    assert report["updated"] == [first.name] and report["added"] == [LESSONS[2].name]
    assert "# the course changed" in (out / first.name).read_text()
    assert (out / "labkit" / "extra.py").exists()  # labkit is the course's: always refreshed
    manifest = json.loads((out / learner_copies.MANIFEST).read_text())
    assert set(manifest) == {p.name for p in course.glob("*.ipynb")}


def test_the_command_line_says_what_it_did(course, tmp_path):
    out = tmp_path / "learner"
    cmd = [
        sys.executable,
        str(SCRIPTS / "learner_copies.py"),
        "--out",
        str(out),
        "--src",
        str(course),
    ]
    first = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    again = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    assert first.startswith("added 2 lesson(s)") and "up to date" in again


def _make_says(*args: str) -> str:
    """What `make -n` would run (nothing is run; LANG as a learner's shell might have it)."""
    env = {k: v for k, v in os.environ.items() if k not in ("LANG", "LC_ALL", "MAKEFLAGS")}
    cmd = ["make", "-n", "--no-print-directory", *args]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=True, env=env).stdout


@pytest.mark.skipif(shutil.which("make") is None, reason="no make")
def test_make_lab_opens_the_learner_copies_in_english_or_chinese():
    english = _make_says("lab", "LANG=C.UTF-8")
    assert "learner_copies.py --out learner --lang en" in english
    assert english.rstrip().endswith("-m jupyter lab learner/")
    assert _make_says("lab-solutions").rstrip().endswith("-m jupyter lab notebooks/")
    for lang in ("zh", "zh_CN.UTF-8"):
        chinese = _make_says("lab", f"LANG={lang}")
        assert "learner_copies.py --out learner --lang zh" in chinese
        launch = chinese.rstrip().splitlines()[-1]
        assert (
            launch.endswith("-m jupyter lab learner/zh/") and "JUPYTERLAB_SETTINGS_DIR=" in launch
        )
        assert ("LANG=C.UTF-8" in launch) == (lang == "zh")  # a bare "zh" is no C locale
        assert '{"locale": "zh_CN"}' in chinese  # JupyterLab's menus in Chinese
    assert "jupyter lab notebooks/zh/" in _make_says("lab-solutions", "LANG=zh")
    assert "learner/" in (ROOT / ".gitignore").read_text()


def test_chinese_copies_speak_chinese_with_the_one_labkit(tmp_path):
    """learner/zh/ gets the Chinese lessons and the shim; learner/labkit is what the shim loads."""
    src = tmp_path / "course"
    shutil.copytree(ROOT / "notebooks" / "labkit", src / "labkit")
    shutil.copytree(ROOT / "notebooks" / "zh" / "labkit", src / "zh" / "labkit")
    shutil.copy(LESSONS[0], src / "zh" / LESSONS[0].name)
    out = tmp_path / "learner"
    cmd = [sys.executable, str(SCRIPTS / "learner_copies.py"), "--out", str(out)]
    cmd += ["--src", str(src), "--lang", "zh"]
    first = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    assert first.startswith("已把 1 课加入") and (out / "zh" / LESSONS[0].name).exists()
    again = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    assert "已是最新" in again
    probe = "from labkit import hint, language; print(language.current(), language.__file__)"
    said = subprocess.run(
        [sys.executable, "-c", probe], cwd=out / "zh", capture_output=True, text=True, check=True
    ).stdout.split()
    assert said == ["zh", str(out / "labkit" / "language.py")]
