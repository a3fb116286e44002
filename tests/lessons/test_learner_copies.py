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
    assert first.startswith("added 2 notebook(s)") and "up to date" in again


def _make_says(*args: str) -> str:
    """What `make -n` would run (nothing is run; LANG as a learner's shell might have it)."""
    env = {k: v for k, v in os.environ.items() if k not in ("LANG", "LC_ALL", "MAKEFLAGS")}
    cmd = ["make", "-n", "--no-print-directory", *args]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=True, env=env).stdout


@pytest.mark.skipif(shutil.which("make") is None, reason="no make")
def test_make_lab_opens_the_learner_copies_in_english_or_chinese():
    english = _make_says("lab", "LANG=C.UTF-8", "LAB_UID=1000")
    assert "learner_copies.py --out learner --lang en" in english
    assert english.rstrip().endswith("-m jupyter lab learner/")
    assert (
        _make_says("lab-solutions", "LAB_UID=1000").rstrip().endswith("-m jupyter lab notebooks/")
    )
    for lang in ("zh", "zh_CN.UTF-8"):
        chinese = _make_says("lab", f"LANG={lang}", "LAB_UID=1000")
        assert "learner_copies.py --out learner --lang zh" in chinese
        launch = chinese.rstrip().splitlines()[-1]
        assert (
            launch.endswith("-m jupyter lab learner/zh/") and "JUPYTERLAB_SETTINGS_DIR=" in launch
        )
        assert ("LANG=C.UTF-8" in launch) == (lang == "zh")  # a bare "zh" is no C locale
        assert '{"locale": "zh_CN"}' in chinese  # JupyterLab's menus in Chinese
    assert "jupyter lab notebooks/zh/" in _make_says("lab-solutions", "LANG=zh", "LAB_UID=1000")
    assert "learner/" in (ROOT / ".gitignore").read_text()


@pytest.mark.skipif(shutil.which("make") is None, reason="no make")
def test_make_lab_allows_root_only_as_root():
    """JupyterLab refuses root (a Docker container) unless told: told then, and only then."""
    for target in ("lab", "lab-solutions"):
        as_root = _make_says(target, "LAB_UID=0").rstrip().splitlines()[-1]
        as_user = _make_says(target, "LAB_UID=1000").rstrip().splitlines()[-1]
        assert as_root.endswith("/ --allow-root") and "-m jupyter lab " in as_root, as_root
        assert "--allow-root" not in as_user, as_user
    here = _make_says("lab").rstrip().splitlines()[-1]  # the real user id decides by default
    assert ("--allow-root" in here) == (os.geteuid() == 0)


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
    assert first.startswith("已把 1 个笔记本加入") and (out / "zh" / LESSONS[0].name).exists()
    again = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    assert "已是最新" in again
    probe = "from labkit import hint, language; print(language.current(), language.__file__)"
    said = subprocess.run(
        [sys.executable, "-c", probe], cwd=out / "zh", capture_output=True, text=True, check=True
    ).stdout.split()
    assert said == ["zh", str(out / "labkit" / "language.py")]


# --- the explorer demo, the kernel metadata, the renumbering ----------------------------------


def _course_with(tmp_path: Path, names: list[str], zh: bool = False) -> Path:
    """A course of the named notebooks (and labkit; with zh, the Chinese ones and the shim)."""
    src = tmp_path / "course"
    shutil.copytree(ROOT / "notebooks" / "labkit", src / "labkit")
    for name in names:
        shutil.copy(ROOT / "notebooks" / name, src / name)
        if zh:
            (src / "zh").mkdir(exist_ok=True)
            shutil.copy(ROOT / "notebooks" / "zh" / name, src / "zh" / name)
    if zh:
        shutil.copytree(ROOT / "notebooks" / "zh" / "labkit", src / "zh" / "labkit")
    return src


def test_the_explorer_demo_is_in_the_learners_folder_in_both_languages(tmp_path):
    """Lessons 16 and 17 send the learner to explorer_demo.ipynb: it is beside them."""
    src = _course_with(
        tmp_path, [LESSONS[0].name, "explorer_demo.ipynb", "next_steps.ipynb"], zh=True
    )
    out = tmp_path / "learner"
    for lang in ("en", "zh"):
        learner_copies.main(["--out", str(out), "--src", str(src), "--lang", lang])
    for folder in (out, out / "zh"):
        for name in ("explorer_demo.ipynb", "next_steps.ipynb"):
            nb = nbformat.read(folder / name, as_version=4)
            assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code")
    chinese = nbformat.read(out / "zh" / "explorer_demo.ipynb", as_version=4).cells[0].source
    assert chinese.startswith("# 计算")
    report = learner_copies.sync(out, src)
    assert "explorer_demo.ipynb" in report["kept"] and not report["beside"]


def _jupyterlab_kernel_metadata() -> tuple[dict, dict]:
    """What JupyterLab writes on opening a notebook: the kernelspec as `jupyter kernelspec` lists
    it, and the language_info the kernel reports."""
    listed = subprocess.run(
        [sys.executable, "-m", "jupyter", "kernelspec", "list", "--json"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    spec = json.loads(listed)["kernelspecs"]["python3"]["spec"]
    from ipykernel.ipkernel import IPythonKernel

    kernelspec = {"display_name": spec["display_name"], "language": spec["language"]}
    return {**kernelspec, "name": "python3"}, dict(IPythonKernel.language_info)


def test_copies_carry_the_kernel_metadata_jupyterlab_writes(course, tmp_path):
    """Otherwise opening a copy marks it modified and autosave makes it "worked on"."""
    kernelspec, language_info = _jupyterlab_kernel_metadata()
    assert kernelspec["display_name"] == "Python 3 (ipykernel)"
    out = tmp_path / "learner"
    learner_copies.sync(out, course)
    for path in out.glob("*.ipynb"):
        metadata = json.loads(path.read_text(encoding="utf-8"))["metadata"]
        assert metadata["kernelspec"] == kernelspec, path.name
        assert metadata["language_info"] == language_info, path.name


def _opened(path: Path, saved_outputs: bool = False) -> None:
    """What JupyterLab may write for a notebook a learner only opened: its kernel's metadata, new
    cell ids, execution timings (with `saved_outputs`, a cell was run: that is the learner's)."""
    nb = nbformat.read(path, as_version=4)
    nb.metadata.kernelspec = {"display_name": "Python 3.11 (other)", "language": "python",
                              "name": "python3"}  # fmt: skip
    nb.metadata.language_info["version"] = "3.11.99"
    for k, cell in enumerate(nb.cells):
        cell.id = f"opened-{k}"
        if cell.cell_type == "code":
            cell.metadata["execution"] = {"iopub.status.idle": "2026-11-28T20:00:00.000Z"}
    if saved_outputs:
        cell = next(c for c in nb.cells if c.cell_type == "code")
        cell.outputs = [nbformat.v4.new_output("stream", text="my run\n")]
    nbformat.write(nb, path)


def test_a_copy_only_opened_still_updates_in_place(course, tmp_path):
    out = tmp_path / "learner"
    learner_copies.sync(out, course)
    first, second = sorted(out.glob("*.ipynb"))
    _opened(first)
    _opened(second, saved_outputs=True)
    for name in (first.name, second.name):
        _edit(course / name, "\n# the course changed")
    report = learner_copies.sync(out, course)
    assert report["updated"] == [first.name] and "# the course changed" in first.read_text()
    assert report["beside"] == [second.stem + ".updated.ipynb"]  # its outputs are the learner's
    assert "my run" in second.read_text()
    assert learner_copies.sync(out, course)["kept"] == [first.name]


def test_an_opened_copy_with_the_course_unchanged_gets_the_metadata_back(course, tmp_path):
    out = tmp_path / "learner"
    learner_copies.sync(out, course)
    lesson = sorted(out.glob("*.ipynb"))[0]
    written = lesson.read_text(encoding="utf-8")
    _opened(lesson)
    assert learner_copies.sync(out, course)["kept"][0] == lesson.name
    assert lesson.read_text(encoding="utf-8") == written  # nothing of the learner's was there


def _old_copy(path: Path, target: Path, change: str = "") -> str:
    """A copy as the scripts wrote it before this change: the course's old kernelspec, recorded
    by its exact hash; returns that hash."""
    nb = learner_copies.student_notebook(nbformat.read(path, as_version=4))
    nb.metadata.kernelspec = dict(learner_copies.OLD_KERNELSPECS[0])
    nb.cells[0].source += change
    text = nbformat.writes(nb)
    target.write_text(text, encoding="utf-8")
    return learner_copies._digest(text)


def test_a_folder_from_before_opened_in_jupyterlab_still_updates_in_place(course, tmp_path):
    out = tmp_path / "learner"
    out.mkdir()
    names = sorted(p.name for p in course.glob("*.ipynb"))
    manifest = {name: _old_copy(course / name, out / name, "\n# old") for name in names}
    (out / learner_copies.MANIFEST).write_text(json.dumps(manifest))
    nb = nbformat.read(out / names[0], as_version=4)  # JupyterLab opened it, autosave wrote it
    nb.metadata.kernelspec = _jupyterlab_kernel_metadata()[0]
    nbformat.write(nb, out / names[0])
    report = learner_copies.sync(out, course)
    assert report["updated"] == names and not report["beside"]
    assert "# old" not in (out / names[0]).read_text()


OLD_NAMES = {
    "14_capstone.ipynb": "17_capstone.ipynb",
    "15_broadcasting_and_gradients.ipynb": "14_broadcasting_and_gradients.ipynb",
    "16_memory.ipynb": "15_memory.ipynb",
    "17_forward_mode_and_functional.ipynb": "16_forward_mode_and_functional.ipynb",
}


def test_a_folder_from_before_the_renumbering_follows_it_and_loses_nothing(tmp_path):
    src = _course_with(tmp_path, sorted(OLD_NAMES.values()))
    out = tmp_path / "learner"
    out.mkdir()
    nb_dir = ROOT / "notebooks"
    manifest = {
        # untouched, an older version of the lesson: follows the course in place
        "15_broadcasting_and_gradients.ipynb": _old_copy(
            nb_dir / "14_broadcasting_and_gradients.ipynb",
            out / "15_broadcasting_and_gradients.ipynb",
            "\n# older",
        ),
        # worked on: kept, the new version beside it
        "16_memory.ipynb": _old_copy(
            nb_dir / "15_memory.ipynb", out / "16_memory.ipynb", "\n# older"
        ),
        # untouched and current
        "17_forward_mode_and_functional.ipynb": _old_copy(
            nb_dir / "16_forward_mode_and_functional.ipynb",
            out / "17_forward_mode_and_functional.ipynb",
        ),
        # the old capstone, worked on: new content took its place, the learner's work stays
        "14_capstone.ipynb": _old_copy(nb_dir / "17_capstone.ipynb", out / "14_capstone.ipynb"),
    }
    (out / learner_copies.MANIFEST).write_text(json.dumps(manifest))
    _edit(out / "16_memory.ipynb", "\n# my notes on memory")
    _edit(out / "14_capstone.ipynb", "\n# my capstone work")
    (out / "progress.json").write_text('{"passed": {"first gradient": true}}')

    report = learner_copies.sync(out, src)
    said = learner_copies.describe(report, out)
    assert not any((out / old).exists() for old in OLD_NAMES)
    assert sorted(p.name for p in out.glob("*.ipynb")) == sorted(
        [*OLD_NAMES.values(), "15_memory.updated.ipynb", "old_14_capstone.ipynb"]
    )
    assert report["updated"] == ["14_broadcasting_and_gradients.ipynb"]
    assert "# older" not in (out / "14_broadcasting_and_gradients.ipynb").read_text()
    assert "# my notes on memory" in (out / "15_memory.ipynb").read_text()
    assert "# my notes" not in (out / "15_memory.updated.ipynb").read_text()
    assert "16_forward_mode_and_functional.ipynb" in report["kept"]
    assert "# my capstone work" in (out / "old_14_capstone.ipynb").read_text()
    assert report["added"] == ["17_capstone.ipynb"]
    assert "# my capstone work" not in (out / "17_capstone.ipynb").read_text()
    assert "16_memory.ipynb is now 15_memory.ipynb" in said
    assert "14_capstone.ipynb is no longer part of the course" in said
    assert "old_14_capstone.ipynb" in said
    assert (out / "progress.json").read_text() == '{"passed": {"first gradient": true}}'
    manifest = json.loads((out / learner_copies.MANIFEST).read_text())
    assert set(manifest) == set(OLD_NAMES.values())
    again = learner_copies.sync(out, src)
    assert sorted(again["kept"]) == sorted(set(OLD_NAMES.values()) - {"15_memory.ipynb"})
    assert again["beside"] == ["15_memory.updated.ipynb"] and not again["renamed"]


def test_the_renumbering_never_writes_over_a_file_that_is_there(tmp_path):
    """A folder that got the new names before it knew the old ones: an old copy never worked on
    goes (it is the course's), one worked on stays where it is; an untouched old capstone goes."""
    src = _course_with(tmp_path, ["15_memory.ipynb", "16_forward_mode_and_functional.ipynb"])
    out = tmp_path / "learner"
    learner_copies.sync(out, src)
    nb_dir = ROOT / "notebooks"
    manifest = json.loads((out / learner_copies.MANIFEST).read_text())
    manifest["16_memory.ipynb"] = _old_copy(nb_dir / "15_memory.ipynb", out / "16_memory.ipynb")
    manifest["17_forward_mode_and_functional.ipynb"] = _old_copy(
        nb_dir / "16_forward_mode_and_functional.ipynb",
        out / "17_forward_mode_and_functional.ipynb",
    )
    manifest["14_capstone.ipynb"] = _old_copy(
        nb_dir / "17_capstone.ipynb", out / "14_capstone.ipynb"
    )
    (out / learner_copies.MANIFEST).write_text(json.dumps(manifest))
    _edit(out / "17_forward_mode_and_functional.ipynb", "\n# my notes")
    report = learner_copies.sync(out, src)
    assert not (out / "16_memory.ipynb").exists() and not (out / "14_capstone.ipynb").exists()
    assert "# my notes" in (out / "17_forward_mode_and_functional.ipynb").read_text()
    assert report["left"] == [
        "17_forward_mode_and_functional.ipynb -> 16_forward_mode_and_functional.ipynb"
    ]
    assert not report["retired"] and not report["renamed"]
    assert (
        "你在 17_forward_mode_and_functional.ipynb 里做的内容原样保留"
        in learner_copies.describe(report, out, "zh")
    )
