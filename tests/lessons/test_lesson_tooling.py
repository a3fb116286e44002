"""The lesson suite's shape and its tools: student copies, structure rules, static HTML export.

These guard promises the README makes to instructors: `make student` never leaks a solution and
keeps every name the check cells read; every lesson opens with what it teaches and ends with a
summary; every exercise has a check; `make html` shows graphs without JavaScript.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
NB_DIR = ROOT / "notebooks"
LESSONS = sorted(NB_DIR.glob("[0-9][0-9]_*.ipynb"))
BEGIN, END = "# BEGIN SOLUTION", "# END SOLUTION"


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


students = _load("make_student_copies")
export_html = _load("export_html")


def _tags(cell) -> list[str]:
    return cell.metadata.get("tags", [])


def _solution_lines(source: str) -> list[str]:
    lines, inside = [], False
    for line in source.splitlines():
        if line.strip() == BEGIN:
            inside = True
        elif line.strip() == END:
            inside = False
        elif inside and line.strip():
            lines.append(line.strip())
    return lines


def test_there_are_lessons():
    assert len(LESSONS) >= 7, [p.name for p in LESSONS]


# --- the stub writer, on its own -------------------------------------------------------------


def test_stub_keeps_assignment_targets_and_signatures():
    source = "\n".join(
        [
            "x = mg.tensor([1.0], requires_grad=True)",
            BEGIN,
            "y = (x * 3).sum()",
            "y.backward()",
            "answer = x.grad.clone()",
            "first, second = 1, 2",
            "def my_hook(grad, *, scale=2):",
            "    return grad * scale",
            END,
            "lesson03.check(answer)",
        ]
    )
    out = students.strip_solutions(source)
    assert "x = mg.tensor([1.0], requires_grad=True)" in out  # given code stays
    assert "lesson03.check(answer)" in out
    assert "y = ...  # your code here" in out
    assert "answer = ...  # your code here" in out
    assert "first = ...  # your code here" in out  # each name: `...` cannot unpack
    assert "second = ...  # your code here" in out
    assert "def my_hook(grad, *, scale=2):" in out
    for leaked in ("x * 3", "y.backward()", "x.grad.clone()", "grad * scale", BEGIN, END):
        assert leaked not in out
    compile(out, "<stub>", "exec")  # still valid Python


def test_stub_inside_a_block_is_one_indented_ellipsis():
    source = f"for i in range(3):\n    {BEGIN}\n    total = i * 2\n    {END}\n"
    out = students.strip_solutions(source)
    assert out.rstrip() == "for i in range(3):\n    ...  # your code here"
    compile(out, "<stub>", "exec")


def test_stub_of_a_function_body_hides_its_local_names():
    source = f"def f(t):\n    {BEGIN}\n    seen = set()\n    return sorted(seen)\n    {END}\n"
    out = students.strip_solutions(source)
    assert out.strip() == "def f(t):\n    ...  # your code here"
    compile(out, "<stub>", "exec")


def test_stub_without_assignments_is_an_ellipsis():
    out = students.strip_solutions(f"{BEGIN}\nprint('hi')\n{END}")
    assert out.strip() == "...  # your code here"


@pytest.mark.parametrize(
    "source", [f"{BEGIN}\nx = 1\n", f"x = 1\n{END}", f"{BEGIN}\n{BEGIN}\n{END}\n{END}"]
)
def test_unbalanced_markers_are_refused(source):
    with pytest.raises(students.MarkerError):
        students.strip_solutions(source)


# --- the real student copies -----------------------------------------------------------------


@pytest.fixture(scope="module")
def student_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("student")
    students.write_student_copies(out)
    return out


def test_chinese_student_copies_sit_in_zh_and_speak_chinese(student_dir):
    """`make student`'s second half: notebooks/zh -> student/zh, whose labkit shim loads
    student/labkit in Chinese."""
    written = students.write_student_copies(student_dir / "zh", NB_DIR / "zh")
    assert [p.name for p in written] == [p.name for p in LESSONS] + list(students.COMPANIONS)
    probe = "from labkit import language; print(language.current())"
    said = subprocess.run(
        [sys.executable, "-c", probe], cwd=student_dir / "zh", capture_output=True, text=True
    )
    assert said.stdout.split() == ["zh"], said.stderr
    assert "--src notebooks/zh --out student/zh" in (ROOT / "Makefile").read_text()


def test_student_copies_hide_every_solution_and_keep_its_names(student_dir):
    assert sorted(p.name for p in student_dir.glob("*.ipynb")) == sorted(
        [p.name for p in LESSONS] + list(students.COMPANIONS)  # the explorer demo, next steps
    )
    assert (student_dir / "labkit" / "feedback.py").exists()  # the checks still import
    for path in LESSONS:
        original = nbformat.read(path, as_version=4)
        copy = nbformat.read(student_dir / path.name, as_version=4)
        assert "widgets" not in copy.metadata
        assert len(copy.cells) == len(original.cells)
        for before, after in zip(original.cells, copy.cells, strict=True):
            if after.cell_type == "code":
                assert after.outputs == [] and after.execution_count is None, path.name
            if "solution" not in _tags(before):
                assert before.source == after.source
                continue
            assert BEGIN not in after.source and END not in after.source
            for line in _solution_lines(before.source):
                # a solution line may survive only if it is also given code elsewhere in the cell
                outside = before.source.replace("\n".join(_solution_lines(before.source)), "")
                assert line not in after.source or line in outside, (path.name, line)
            assert "# your code here" in after.source, path.name
            compile(after.source, path.name, "exec")


# --- structure of every lesson ---------------------------------------------------------------


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_lesson_structure(path):
    nb = nbformat.read(path, as_version=4)
    cells = nb.cells
    assert cells[0].cell_type == "markdown" and "What you will learn" in cells[0].source, (
        "the first cell must be a markdown 'What you will learn' cell"
    )
    last_md = [c for c in cells if c.cell_type == "markdown"][-1]
    assert "Summary" in last_md.source.splitlines()[0], "the last markdown cell must be a Summary"
    solutions = 0
    for i, cell in enumerate(cells):
        if "solution" not in _tags(cell):
            continue
        solutions += 1
        assert cell.cell_type == "code"
        assert BEGIN in cell.source and END in cell.source, f"cell {i} lacks solution markers"
        nxt = cells[i + 1] if i + 1 < len(cells) else None
        assert nxt is not None and nxt.cell_type == "code" and ".check" in nxt.source, (
            f"solution cell {i} must be followed by a cell that calls a labkit check"
        )
    code = [c for c in cells if c.cell_type == "code"]
    assert any(c.outputs for c in code), "no stored outputs: run `make notebooks`"
    assert "widgets" not in nb.metadata, "do not store widget state (make notebooks drops it)"
    assert solutions >= 1, "every lesson has at least one exercise"


# --- static HTML export ----------------------------------------------------------------------


def test_html_export_shows_graphs_without_javascript(tmp_path):
    lesson = next(p for p in LESSONS if p.name.startswith("02_"))
    index = export_html.export([lesson], tmp_path)
    page = (tmp_path / f"{lesson.stem}.html").read_text(encoding="utf-8")
    assert 'src="data:image/svg+xml;base64,' in page  # a picture that needs no JavaScript
    assert "application/vnd.jupyter.widget-view+json" not in page
    assert lesson.stem in index.read_text(encoding="utf-8")


def test_html_export_is_the_lessons_only_in_course_order_and_fetches_nothing(tmp_path):
    """Offline: no script at all (no require.js, MathJax or widget renderer from a CDN), no
    stylesheet or image from the network, math as MathML; the index is the course map."""
    from labkit.course import COURSE

    assert export_html.default_notebooks() == [NB_DIR / lesson.file for lesson in COURSE]
    math_lesson = next(p for p in LESSONS if "$" in p.read_text(encoding="utf-8"))
    index = export_html.export([LESSONS[0], math_lesson], tmp_path)
    for page in tmp_path.glob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert "<script" not in text, page.name
        assert not re.search(r'<(?:link|img|iframe)[^>]+(?:src|href)="(?:https?:)?//', text)
    assert "<math" in (tmp_path / f"{math_lesson.stem}.html").read_text(encoding="utf-8")
    first = COURSE[0]
    assert f"({first.minutes} min, {first.level}; after nothing)" in index.read_text("utf-8")


def test_html_export_of_the_chinese_lessons_has_a_chinese_index(tmp_path):
    from labkit.course import COURSE, LEVELS_ZH

    assert export_html.default_notebooks("zh") == [NB_DIR / "zh" / c.file for c in COURSE]
    lesson = NB_DIR / "zh" / COURSE[0].file
    index = export_html.export([lesson], tmp_path / "zh", "zh").read_text("utf-8")
    first = COURSE[0]
    assert '<html lang="zh-CN">' in index and "Autograd Lab 中文版" in index
    assert f"（{first.minutes} 分钟，{LEVELS_ZH[first.level]}；先修：无）" in index
    assert '<a href="../index.html" lang="en">English</a>' in index
    page = (tmp_path / "zh" / f"{lesson.stem}.html").read_text("utf-8")
    assert "本课内容" in page and "<script" not in page


def test_the_course_map_lists_every_lesson_and_the_readme_agrees():
    from labkit.course import COURSE

    assert [lesson.file for lesson in COURSE] == [p.name for p in LESSONS]
    numbers = [lesson.number for lesson in COURSE]
    for lesson in COURSE:
        assert all(numbers.index(n) < numbers.index(lesson.number) for n in lesson.after)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for lesson in COURSE:
        first = ", ".join(lesson.after) or "—"
        about = f"{lesson.minutes} min | {lesson.level} | {first}"
        row = f"| {lesson.number} | `{lesson.file}` | {about} |"
        assert row in readme, row


def test_the_chinese_readme_has_the_same_course_map():
    from labkit.course import COURSE, LEVELS_ZH

    readme = (ROOT / "README.zh.md").read_text(encoding="utf-8")
    for lesson in COURSE:
        first = ", ".join(lesson.after) or "—"
        about = f"{lesson.minutes} 分钟 | {LEVELS_ZH[lesson.level]} | {first}"
        row = f"| {lesson.number} | `{lesson.file}` | {lesson.title_zh} | {about} |"
        assert row in readme, row
    assert "make lab LANG=zh" in readme and "make lab LANG=zh" in (ROOT / "README.md").read_text()


def test_every_lesson_ends_with_next_pointing_at_the_following_one_on_the_map():
    from labkit.course import COURSE

    for lesson, following in zip(COURSE, COURSE[1:]):
        nb = nbformat.read(NB_DIR / lesson.file, as_version=4)
        last = [c.source for c in nb.cells if c.cell_type == "markdown"][-1]
        assert "Next:" in last and f"{following.number} ·" in last, lesson.file


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_one_alias_across_the_lessons(lesson):
    """minigrad is `mg` in every lesson's code; `torch` is always real PyTorch."""
    nb = nbformat.read(lesson, as_version=4)
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    assert not re.search(r"import minigrad as (?!mg\b)", code), lesson.name
    assert "import minigrad as mg" in code or "from labkit" not in code, lesson.name
