"""The instructors' solutions, for `solution()`: found in the lessons themselves, never typed twice.

An exercise's solution is the code of the cells tagged `solution` that come before the first
cell calling one of its checks (`lessonNN.check_…(…)`), with the `# BEGIN/END SOLUTION` marker
lines removed. Which exercise a check belongs to is asked of the check itself: called with `...`
it opens its verdict (naming the exercise) and reports "still `...`"; nothing is hard-wired, so
lessons can move their cells freely.

Where the code comes from:
- a learner's copies (`learner/`, `student/`) have their solution cells stubbed, so the copying
  scripts store every solution, in both languages, in `labkit/solutions.json` beside this file;
- the instructors' notebooks (`notebooks/`, `notebooks/zh/`, a fresh clone) have no such file:
  the solutions are read from the lessons beside `labkit/`.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import io
import json
import re
from pathlib import Path
from typing import Any

from . import hints

DATA = "solutions.json"  # {"en": {exercise: code}, "zh": {...}}, written by the copying scripts
BEGIN, END = "# BEGIN SOLUTION", "# END SOLUTION"
LESSON_GLOB = "[0-9][0-9]_*.ipynb"
CHECK_CALL = re.compile(r"\b(lesson\d\d)\.(check_\w+)\s*\(")
VERDICT = re.compile(r"""verdict\(\s*["']([^"']+)["']""")
HERE = Path(__file__).resolve().parent

_exercise_of_check: dict[tuple[str, str], str | None] = {}


def _cells(path: Path) -> list[dict[str, Any]]:
    """A notebook's cells as stored (JSON: no nbformat needed where the learner's kernel runs)."""
    cells = json.loads(path.read_text(encoding="utf-8")).get("cells", [])
    for cell in cells:
        if isinstance(cell.get("source"), list):
            cell["source"] = "".join(cell["source"])
    return cells


def exercise_of(module: str, check: str) -> str | None:
    """The exercise `labkit.<module>.<check>` reports on: the one it names when given `...`."""
    key = (module, check)
    if key not in _exercise_of_check:
        _exercise_of_check[key] = _ask(module, check)
    return _exercise_of_check[key]


def _ask(module: str, check: str) -> str | None:
    from . import learner_progress

    try:
        fn = getattr(importlib.import_module(f"{__package__}.{module}"), check)
    except (ImportError, AttributeError):
        return None
    args, kwargs = [], {}
    try:
        for p in inspect.signature(fn).parameters.values():
            if p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                continue
            if p.kind == p.KEYWORD_ONLY:
                kwargs[p.name] = ...
            else:
                args.append(...)
    except (TypeError, ValueError):
        args = [...]
    last, record = list(hints._last), learner_progress.record
    hints._last[:] = []
    learner_progress.record = lambda exercise, passed: None  # asking is not an attempt
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            fn(*args, **kwargs)
    except Exception:  # noqa: BLE001 - the verdict was opened (or not) before whatever failed
        pass
    finally:
        named = hints._last[0] if hints._last else None
        hints._last[:] = last
        learner_progress.record = record
    if named is None:  # a check that never opened its verdict on `...`: read its source
        try:
            found = set(VERDICT.findall(inspect.getsource(fn)))
        except (OSError, TypeError):
            found = set()
        named = found.pop() if len(found) == 1 else None
    return named


def without_markers(source: str) -> str:
    """A solution cell as the instructors wrote it, minus the marker lines."""
    lines = [line for line in source.splitlines() if line.strip() not in (BEGIN, END)]
    return "\n".join(lines).strip("\n")


def extract(path: Path) -> dict[str, str]:
    """exercise -> solution code, for one lesson (`path`, with its solution cells)."""
    found: dict[str, str] = {}
    pending: list[str] = []
    for cell in _cells(path):
        if cell.get("cell_type") != "code":
            continue
        source = cell["source"]
        tags = cell.get("metadata", {}).get("tags", [])
        if "solution" in tags and BEGIN in source:
            pending.append(without_markers(source))
            continue
        calls = CHECK_CALL.findall(source)
        if not calls:
            continue
        for module, check in calls:
            exercise = exercise_of(module, check)
            if exercise and exercise not in found and pending:
                found[exercise] = "\n\n".join(pending)
        pending = []
    return found


def extract_course(folder: Path) -> dict[str, str]:
    """exercise -> solution code, for every lesson in `folder`."""
    found: dict[str, str] = {}
    for path in sorted(folder.glob(LESSON_GLOB)):
        for exercise, code in extract(path).items():
            found.setdefault(exercise, code)
    return found


def write(labkit: Path, course: Path) -> Path:
    """Store the solutions of the lessons in `course` (English) and `course/zh` (Chinese) in
    `labkit/solutions.json`, for learner copies whose solution cells are stubbed."""
    data = {"en": extract_course(course)}
    if (course / "zh").is_dir():
        data["zh"] = extract_course(course / "zh")
    target = labkit / DATA
    target.write_text(json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True), "utf-8")
    return target


def lookup(exercise: str, lang: str) -> str | None:
    """The instructors' solution to `exercise` in `lang` ("en" or "zh"), or None."""
    stored = HERE / DATA
    if stored.exists():
        try:
            data = json.loads(stored.read_text(encoding="utf-8"))
        except ValueError:
            data = {}
        return data.get(lang, {}).get(exercise) or data.get("en", {}).get(exercise)
    lesson = hints.LESSON_OF.get(exercise)
    if lesson is None:
        return None
    folder = HERE.parent / "zh" if lang == "zh" else HERE.parent
    for path in sorted(folder.glob(f"{lesson}_*.ipynb")):  # read as it is now (it may be edited)
        found = extract(path).get(exercise)
        if found:
            return found
    return None
