"""Hints between "✗ not yet" and the solution: one at a time, and only when the learner asks.

Each lesson's module registers its exercises' hints (`register`); a failed check says that a hint
is there; `hint()` shows the next one for the exercise checked last (or a named one).
"""

from __future__ import annotations

from collections import Counter

HINTS: dict[str, tuple[str, ...]] = {}  # exercise title -> its hints, gentlest first
LESSON_OF: dict[str, str] = {}  # exercise title -> lesson number ("07")
_shown: Counter = Counter()  # exercise title -> hints shown so far (this kernel)
_last: list[str] = []  # the exercise whose check ran last


def register(lesson: str, exercise: str, *hints: str) -> None:
    """Declare an exercise of `lesson` with one to three hints."""
    if not 1 <= len(hints) <= 3:
        raise ValueError(f"{exercise!r}: give one to three hints, not {len(hints)}")
    HINTS[exercise], LESSON_OF[exercise] = hints, lesson


def checked(exercise: str) -> None:
    """A check of `exercise` ran (the default for `hint()`)."""
    _last[:] = [exercise]


def offer(exercise: str) -> str | None:
    """The line a failed check prints about hints, or None when there are none left."""
    total, seen = len(HINTS.get(exercise, ())), _shown[exercise]
    if seen >= total:
        return None
    return f"Stuck? Run `hint()` for hint {seen + 1} of {total}."


def hint(exercise: str | None = None) -> None:
    """Print the next hint for `exercise` (by default the one checked last)."""
    if exercise is None:
        exercise = _last[0] if _last else None
    if exercise is None:
        names = ", ".join(repr(name) for name in HINTS) or "none yet"
        print(f"Run an exercise's check first, or name it: hint('…'). Exercises: {names}")
        return
    hints = HINTS.get(exercise)
    if not hints:
        print(f"No hints for {exercise!r}.")
        return
    k = min(_shown[exercise], len(hints) - 1)
    _shown[exercise] = k + 1
    more = "" if k + 1 < len(hints) else " (the last one: the solution is next)"
    print(f"Hint {k + 1} of {len(hints)} for {exercise}{more}:\n  {hints[k]}")
