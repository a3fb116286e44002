"""Hints between "✗ not yet" and the solution: one at a time, and only when the learner asks.

Each lesson's module registers its exercises' hints in both languages (`register`); a failed
check says that a hint is there; `hint()` shows the next one for the exercise checked last (or a
named one). After the last hint, `solution()` shows the instructors' solution (labkit/solutions.py
finds it), once the learner has asked for it twice: the first call says what the second will do,
so seeing the solution is a choice, and progress.json remembers it was made. An exercise is known
by its English title everywhere (progress.json, `hint('…')`, `solution('…')`), and shown by its
title in the lesson's language.
"""

from __future__ import annotations

from collections import Counter

from .language import current, say

HINTS: dict[str, dict[str, tuple[str, ...]]] = {}  # exercise -> language -> hints, gentlest first
TITLES_ZH: dict[str, str] = {}  # exercise -> its Chinese title
LESSON_OF: dict[str, str] = {}  # exercise title -> lesson number ("07")
_shown: Counter = Counter()  # exercise title -> hints shown so far (this kernel)
_last: list[str] = []  # the exercise whose check ran last
_asked: set[str] = set()  # exercises whose solution the learner asked for once (this kernel)


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
    if not total:
        return None
    if seen >= total:
        return say(
            "Still stuck? Run `solution()` to see the instructors' solution.",
            "还是卡住了？运行 `solution()` 可以看参考答案。",
        )
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


def _choose(exercise: str | None, call: str) -> str | None:
    """The exercise a call of `hint`/`solution` is about, or None after saying why there is none."""
    if exercise is None:
        exercise = _last[0] if _last else None
    if exercise is None:
        names = ", ".join(repr(title(name)) for name in HINTS) or say("none yet", "暂无")
        print(
            say(
                f"Run an exercise's check first, or name it: {call}('…'). Exercises: {names}",
                f"请先运行某个练习的检查，或者写出练习名：{call}('…')。练习有：{names}",
            )
        )
        return None
    return _known(exercise) or exercise


def hint(exercise: str | None = None) -> None:
    """Print the next hint for `exercise` (by default the one checked last)."""
    exercise = _choose(exercise, "hint")
    if exercise is None:
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
        more = say(
            " (the last one: run `solution()` to see the instructors' solution)",
            "（最后一条：想看参考答案，运行 `solution()`）",
        )
    print(
        say(
            f"Hint {k + 1} of {len(hints)} for {known}{more}:\n  {hints[k]}",
            f"「{title(known)}」的提示 {k + 1}/{len(hints)}{more}：\n  {hints[k]}",
        )
    )


def solution(exercise: str | None = None) -> None:
    """The instructors' solution for `exercise` (by default the one checked last), on the second
    request: the first says what it will do (and how many hints are left), the learner chooses."""
    from . import learner_progress, solutions
    from .language import current

    exercise = _choose(exercise, "solution")
    if exercise is None:
        return
    if exercise not in HINTS:
        print(say(f"There is no exercise called {exercise!r}.", f"没有叫 {exercise!r} 的练习。"))
        return
    name, lesson = title(exercise), LESSON_OF[exercise]
    if exercise not in _asked:
        _asked.add(exercise)
        total, seen = len(_hints(exercise)), min(_shown[exercise], len(_hints(exercise)))
        if seen < total:
            if seen == 0:
                which = say(
                    f"{name} has {total} hints you have not seen yet; the first may be all you "
                    "need: run `hint()`.",
                    f"「{name}」有 {total} 条提示，你还一条都没看；第一条也许就够了："
                    "运行 `hint()`。",
                )
            else:
                which = say(
                    f"You have seen {seen} of the {total} hints for {name}; the next one may be "
                    "all you need: run `hint()`.",
                    f"「{name}」共有 {total} 条提示，你看过 {seen} 条；下一条也许就够了："
                    "运行 `hint()`。",
                )
            choose = say(
                " If you would rather see the instructors' solution now, run `solution()` again.",
                "如果想现在就看参考答案，再运行一次 `solution()`。",
            )
            print(which + choose)
        else:
            print(
                say(
                    f"Run `solution()` again to see the instructors' solution for {name} "
                    f"(lesson {lesson}); your progress will note that you saw it. Another try "
                    "first often teaches more, but the choice is yours.",
                    f"再运行一次 `solution()`，就会显示「{name}」（第 {lesson} 课）的参考答案，"
                    "学习进度里会记下你看过答案。先自己再试一次往往学得更多，不过由你决定。",
                )
            )
        return
    code = solutions.lookup(exercise, current())
    if not code:
        print(
            say(
                f"No solution for {name} is stored here: the instructors' notebook of lesson "
                f"{lesson} (notebooks/) has it.",
                f"这里没有存「{name}」的参考答案：它在讲师版的第 {lesson} 课笔记本里"
                "（notebooks/ 目录）。",
            )
        )
        return
    learner_progress.record_solution(exercise)
    print(
        say(
            f"The instructors' solution for {name} (lesson {lesson}), one correct way among "
            "others:",
            f"「{name}」（第 {lesson} 课）的参考答案，正确的写法不止这一种：",
        )
    )
    print()
    print(code)
    print()
    print(
        say(
            "Compare it with yours, then type it into your exercise cell yourself (typing teaches "
            "more than pasting) and run the check again.",
            "和你的写法对照一下，然后亲手把它敲进练习的代码格（亲手敲比粘贴学得多），"
            "再运行一次检查。",
        )
    )
