"""Hints between "✗ not yet" and the solution: one at a time, and only when the learner asks.

Each lesson's module registers its exercises' hints in both languages (`register`); a failed
check says that a hint is there; `hint()` shows the next one for the exercise checked last (or a
named one). An exercise is known by its English title everywhere (progress.json, `hint('…')`),
and shown by its title in the lesson's language.
"""

from __future__ import annotations

from collections import Counter

from .language import current, say

HINTS: dict[str, dict[str, tuple[str, ...]]] = {}  # exercise -> language -> hints, gentlest first
TITLES_ZH: dict[str, str] = {}  # exercise -> its Chinese title
LESSON_OF: dict[str, str] = {}  # exercise title -> lesson number ("07")
_shown: Counter = Counter()  # exercise title -> hints shown so far (this kernel)
_last: list[str] = []  # the exercise whose check ran last


def register(lesson: str, exercise: str, *hints: str, zh_title: str, zh: tuple[str, ...]) -> None:
    """Declare an exercise of `lesson` with one to three hints, and the same in Chinese: every
    lesson has a Chinese twin (notebooks/zh/), so an exercise without Chinese is refused."""
    if not 1 <= len(hints) <= 3:
        raise ValueError(f"{exercise!r}: give one to three hints, not {len(hints)}")
    if not zh_title or len(zh) != len(hints):
        raise ValueError(
            f"{exercise!r}: {len(hints)} hints but {len(zh)} in Chinese, Chinese title "
            f"{zh_title!r}: give both"
        )
    HINTS[exercise] = {"en": hints, "zh": tuple(zh)}
    TITLES_ZH[exercise], LESSON_OF[exercise] = zh_title, lesson


def title(exercise: str) -> str:
    """The exercise's title in the lesson's language."""
    return say(exercise, TITLES_ZH.get(exercise, exercise))


def _hints(exercise: str) -> tuple[str, ...]:
    return HINTS.get(exercise, {}).get(current(), ())


def checked(exercise: str) -> None:
    """A check of `exercise` ran (the default for `hint()`)."""
    _last[:] = [exercise]


def offer(exercise: str) -> str | None:
    """The line a failed check prints about hints, or None when there are none left."""
    total, seen = len(_hints(exercise)), _shown[exercise]
    if seen >= total:
        return None
    return say(
        f"Stuck? Run `hint()` for hint {seen + 1} of {total}.",
        f"卡住了？运行 `hint()` 查看第 {seen + 1} 条提示（共 {total} 条）。",
    )


def _known(name: str) -> str | None:
    """The exercise a learner named, by its English or its Chinese title."""
    for exercise in HINTS:
        if name in (exercise, TITLES_ZH.get(exercise)):
            return exercise
    return None


def hint(exercise: str | None = None) -> None:
    """Print the next hint for `exercise` (by default the one checked last)."""
    if exercise is None:
        exercise = _last[0] if _last else None
    if exercise is None:
        names = ", ".join(repr(title(name)) for name in HINTS) or say("none yet", "暂无")
        print(
            say(
                f"Run an exercise's check first, or name it: hint('…'). Exercises: {names}",
                f"请先运行某个练习的检查，或者写出练习名：hint('…')。练习有：{names}",
            )
        )
        return
    known = _known(exercise)
    hints = _hints(known) if known else ()
    if not hints:
        print(say(f"No hints for {exercise!r}.", f"{exercise!r} 没有提示。"))
        return
    k = min(_shown[known], len(hints) - 1)
    _shown[known] = k + 1
    more = ""
    if k + 1 >= len(hints):
        more = say(" (the last one: the solution is next)", "（最后一条：接下来就是答案了）")
    print(
        say(
            f"Hint {k + 1} of {len(hints)} for {known}{more}:\n  {hints[k]}",
            f"「{title(known)}」的提示 {k + 1}/{len(hints)}{more}：\n  {hints[k]}",
        )
    )


def solution(exercise: str | None = None) -> None:
    """The instructors' solution, after the hints (being built: issue 23)."""
    print(say("No solution to show yet.", "暂时还没有可显示的答案。"))
