"""`solution()` can show every exercise's solution: found in the lessons as they are now, in both
languages, never the stub a learner's copy has, and reachable from the instructors' notebooks
(read from the lessons), a learner's copies and a student set (read from labkit/solutions.json).

The mapping exercise -> solution cells is found, not written down (labkit/solutions.py): these
tests run against the notebooks as they are, so a lesson that moves its cells stays covered.
"""

from __future__ import annotations

import ast
import importlib
import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from labkit import hints, solutions

ROOT = Path(__file__).resolve().parents[2]
NB_DIR = ROOT / "notebooks"
sys.path.insert(0, str(ROOT / "scripts"))
from make_student_copies import BEGIN, END, strip_solutions, write_student_copies  # noqa: E402

LANG_DIRS = {"en": NB_DIR, "zh": NB_DIR / "zh"}


def _register_every_exercise() -> dict[str, str]:
    for info in pkgutil.iter_modules([str(NB_DIR / "labkit")]):
        if info.name.startswith("lesson"):
            importlib.import_module(f"labkit.{info.name}")
    return dict(hints.LESSON_OF)


EXERCISES = _register_every_exercise()


def _stubbed(path: Path, tmp_path: Path) -> Path:
    """The lesson as a learner's copy has it, its stubs still between markers so that the same
    extraction finds them: what `solution()` shows must differ from this."""
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if "solution" in cell.metadata.get("tags", []):
            cell.source = f"{BEGIN}\n{strip_solutions(cell.source)}\n{END}"
    target = tmp_path / path.name
    nbformat.write(nb, target)
    return target


def _shape(code: str) -> str:
    """The code's syntax tree with every string blanked: the same in both languages."""
    tree = ast.parse(code)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            node.value = ""
        if isinstance(node, ast.JoinedStr):
            node.values = []
    return ast.dump(tree)


def _code_lines(code: str) -> list[str]:
    """Lines that do something: not blank, not a comment, not a stub's `...`."""
    lines = [line.split("#", 1)[0].strip() for line in code.splitlines()]
    return [line for line in lines if line and not line.endswith("= ...") and line != "..."]


@pytest.mark.parametrize("lang", sorted(LANG_DIRS))
def test_every_exercise_has_a_solution_that_is_not_the_learners_stub(lang, tmp_path):
    assert len(EXERCISES) >= 20, EXERCISES
    problems = []
    for lesson in sorted(set(EXERCISES.values())):
        (path,) = LANG_DIRS[lang].glob(f"{lesson}_*.ipynb")
        found = solutions.extract(path)
        stubs = solutions.extract(_stubbed(path, tmp_path))
        for exercise in (e for e, n in EXERCISES.items() if n == lesson):
            code = found.get(exercise)
            if not code or not _code_lines(code):
                problems.append(f"{path.name}: no solution found for {exercise!r}")
            elif code == stubs.get(exercise) or _code_lines(code) == _code_lines(
                stubs.get(exercise, "")
            ):
                problems.append(f"{path.name}: {exercise!r}'s solution is its stub")
            elif BEGIN in code or END in code:
                problems.append(f"{path.name}: {exercise!r}'s solution shows its markers")
    assert not problems, "\n".join(problems)


def test_the_chinese_solutions_are_the_chinese_lessons_cells():
    """Same code in both languages (the twins' code cells agree), each in its lesson's words."""
    en, zh = solutions.extract_course(NB_DIR), solutions.extract_course(NB_DIR / "zh")
    assert set(en) == set(zh) and len(en) >= 20  # (that it is every exercise: the test above)
    for exercise in en:
        assert _shape(en[exercise]) == _shape(zh[exercise]), exercise
    chinese = [e for e in zh if any("\u4e00" <= ch <= "\u9fff" for ch in zh[e])]
    english = [e for e in chinese if any("\u4e00" <= ch <= "\u9fff" for ch in en[e])]
    assert chinese and not english  # Chinese comments in the Chinese solutions only


def test_a_check_names_its_exercise_without_counting_as_an_attempt(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".course.json").write_text("{}")  # a learner's folder: attempts are recorded
    monkeypatch.setattr(solutions, "_exercise_of_check", {})
    monkeypatch.setattr(hints, "_last", ["someone else's"])
    assert solutions.exercise_of("lesson01", "check_first_gradient") == "first gradient"
    assert hints._last == ["someone else's"]  # `hint()` still means the learner's last check
    assert not (tmp_path / "progress.json").exists()


def test_the_instructors_notebooks_give_solutions_without_a_data_file(capsys, monkeypatch):
    """In notebooks/ (and a fresh clone) the solutions come from the lessons beside labkit."""
    assert not (NB_DIR / "labkit" / solutions.DATA).exists()
    monkeypatch.setattr(hints, "_asked", {"first gradient"})
    from labkit import language

    found = solutions.lookup("first gradient", "en")
    assert "backward()" in found and BEGIN not in found
    language.use("zh")
    try:
        hints.solution("first gradient")
        out = capsys.readouterr().out
        assert out.startswith("「第一个梯度」（第 01 课）的参考答案") or "参考答案" in out
        assert ".backward()" in out
    finally:
        language.use("en")


def test_student_copies_store_both_languages_solutions_and_show_them(tmp_path):
    """`make student` (and `make lab`): labkit/solutions.json in the copy; `solution()` twice in
    student/zh/ shows the Chinese lesson's solution, with nothing of notebooks/ on the path."""
    out = tmp_path / "student"
    write_student_copies(out, NB_DIR)
    write_student_copies(out / "zh", NB_DIR / "zh")
    data = json.loads((out / "labkit" / solutions.DATA).read_text(encoding="utf-8"))
    assert set(data) == {"en", "zh"}
    assert data["en"] == solutions.extract_course(NB_DIR)
    assert data["zh"] == solutions.extract_course(NB_DIR / "zh")
    assert not (out / "zh" / "labkit" / solutions.DATA).exists()  # the shim loads the real one
    probe = (
        "from labkit import hints, lesson01, solution\n"
        "lesson01.check_first_gradient(...)\n"
        "solution()\n"
        "print('=====')\n"
        "solution()\n"
    )
    for folder, asked, shown in (
        (out, "run `solution()` again", "The instructors' solution for first gradient"),
        (out / "zh", "再运行一次 `solution()`", "的参考答案"),
    ):
        said = subprocess.run(
            [sys.executable, "-c", probe], cwd=folder, capture_output=True, text=True, check=True
        ).stdout
        first, second = said.split("=====")
        assert asked in first and "backward()" not in first, first
        assert shown in second and ".backward()" in second, second
