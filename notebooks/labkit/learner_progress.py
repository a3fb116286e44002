"""A learner's progress: which exercises passed, kept in `progress.json` beside their copies.

Only in a learner's folder (the one `make lab` keeps, marked by its `.course.json`): running the
solution notebooks as tests writes nothing. `progress()` prints the course's exercises lesson by
lesson with ✓ for those that passed at least once.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
from pathlib import Path

from . import hints
from .language import say

FILE = "progress.json"
MARKER = ".course.json"  # written by scripts/learner_copies.py


def _folder() -> Path | None:
    here = Path.cwd()
    return here if (here / MARKER).exists() else None


def _load(folder: Path) -> dict[str, bool]:
    try:
        return json.loads((folder / FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def record(exercise: str, passed: bool) -> None:
    """Remember the outcome (a pass is never taken back by a later failure)."""
    folder = _folder()
    if folder is None:
        return
    seen = _load(folder)
    seen[exercise] = seen.get(exercise, False) or passed
    (folder / FILE).write_text(json.dumps(seen, indent=1, sort_keys=True), encoding="utf-8")


def progress() -> None:
    """Print every exercise of the course, lesson by lesson, ✓ where it has passed."""
    for info in pkgutil.iter_modules([str(Path(__file__).parent)]):
        if info.name.startswith("lesson"):
            importlib.import_module(f"{__package__}.{info.name}")  # registers its exercises
    folder = _folder()
    seen = _load(folder) if folder else {}
    by_lesson: dict[str, list[str]] = {}
    for exercise, lesson in hints.LESSON_OF.items():
        by_lesson.setdefault(lesson, []).append(exercise)
    done = sum(bool(seen.get(e)) for e in hints.LESSON_OF)
    total = len(hints.LESSON_OF)
    print(say(f"{done} of {total} exercises passed", f"{total} 个练习中已通过 {done} 个"))
    for lesson in sorted(by_lesson):
        marks = say(", ", "，").join(
            ("✓ " if seen.get(e) else "· ") + hints.title(e) for e in by_lesson[lesson]
        )
        print(say(f"  lesson {lesson}: {marks}", f"  第 {lesson} 课：{marks}"))
