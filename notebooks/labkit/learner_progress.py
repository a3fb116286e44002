"""A learner's progress: which exercises passed, and whose solution was shown, in `progress.json`.

Only in a learner's folder (the one `make lab` keeps, marked by its `.course.json`): running the
solution notebooks as tests writes nothing. `progress()` prints the course's exercises lesson by
lesson with ✓ for those that passed at least once, and a note where `solution()` was shown.

progress.json: {"passed": {exercise: true/false}, "solution_shown": [exercise, ...]}, exercises
by their English titles. (The first version was the "passed" mapping alone: still read.)
"""

from __future__ import annotations

import importlib
import json
import pkgutil
from pathlib import Path
from typing import Any

from . import hints
from .language import say

FILE = "progress.json"
MARKER = ".course.json"  # written by scripts/learner_copies.py


def _folder() -> Path | None:
    here = Path.cwd()
    return here if (here / MARKER).exists() else None


def _load(folder: Path) -> dict[str, Any]:
    try:
        raw = json.loads((folder / FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raw = {}
    if not isinstance(raw, dict):
        raw = {}
    if isinstance(raw.get("passed"), dict):
        passed, shown = raw["passed"], raw.get("solution_shown", [])
    else:  # the first format: exercise -> passed
        passed, shown = {k: v for k, v in raw.items() if isinstance(v, bool)}, []
    return {
        "passed": {k: bool(v) for k, v in passed.items()},
        "solution_shown": [e for e in shown if isinstance(e, str)],
    }


def _save(folder: Path, seen: dict[str, Any]) -> None:
    seen["solution_shown"] = sorted(set(seen["solution_shown"]))
    text = json.dumps(seen, ensure_ascii=False, indent=1, sort_keys=True)
    (folder / FILE).write_text(text, encoding="utf-8")


def record(exercise: str, passed: bool) -> None:
    """Remember the outcome (a pass is never taken back by a later failure)."""
    folder = _folder()
    if folder is None:
        return
    seen = _load(folder)
    seen["passed"][exercise] = seen["passed"].get(exercise, False) or passed
    _save(folder, seen)


def record_solution(exercise: str) -> None:
    """Remember that the learner chose to see the instructors' solution of `exercise`."""
    folder = _folder()
    if folder is None:
        return
    seen = _load(folder)
    seen["solution_shown"].append(exercise)
    _save(folder, seen)


def progress() -> None:
    """Print every exercise of the course, lesson by lesson, ✓ where it has passed."""
    for info in pkgutil.iter_modules([str(Path(__file__).parent)]):
        if info.name.startswith("lesson"):
            importlib.import_module(f"{__package__}.{info.name}")  # registers its exercises
    folder = _folder()
    seen = _load(folder) if folder else {"passed": {}, "solution_shown": []}
    passed, shown = seen["passed"], set(seen["solution_shown"])
    by_lesson: dict[str, list[str]] = {}
    for exercise, lesson in hints.LESSON_OF.items():
        by_lesson.setdefault(lesson, []).append(exercise)
    done = sum(bool(passed.get(e)) for e in hints.LESSON_OF)
    total = len(hints.LESSON_OF)
    peeked = sum(e in shown for e in hints.LESSON_OF)
    line = say(f"{done} of {total} exercises passed", f"{total} 个练习中已通过 {done} 个")
    if peeked:
        line += say(
            f"; the instructors' solution was shown for {peeked}", f"；看过参考答案的有 {peeked} 个"
        )
    print(line)
    for lesson in sorted(by_lesson):
        marks = say(", ", "，").join(
            ("✓ " if passed.get(e) else "· ")
            + hints.title(e)
            + (say(" (solution shown)", "（看过答案）") if e in shown else "")
            for e in by_lesson[lesson]
        )
        print(say(f"  lesson {lesson}: {marks}", f"  第 {lesson} 课：{marks}"))
