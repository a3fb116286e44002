"""A check run on a wrong answer the lesson shows on purpose: it says so, and counts for nothing.

A lesson shows what a check answers to a typical mistake by calling the check with
`demo=True`. The reply must not look like a failure of the learner's own work (a learner who has
just passed would otherwise read "✗ not yet" and "Stuck? Run `hint()`" under the exercise), so
the demo verdict prints the problems under a "demo" heading, offers no hint, leaves the exercise
that `hint()` talks about unchanged and records nothing in the learner's progress.
"""

from __future__ import annotations

from . import hints
from .feedback import Verdict, verdict
from .language import say


class DemoVerdict(Verdict):
    def __init__(self, exercise: str) -> None:  # (no hints.checked: hint() keeps its exercise)
        self.exercise = exercise
        self.problems: list[str] = []

    def done(self, success: str) -> bool:
        title = hints.title(self.exercise)
        if self.problems:
            print(
                say(
                    f"Demo, not your answer: what the “{title}” check replies to it:",
                    f"演示（不是你的答案）：「{title}」的检查对它的回答：",
                )
            )
            for p in self.problems:
                print(f"  - {p}")
            return False
        print(
            say(
                f"Demo, not your answer: the “{title}” check accepts it: {success}",
                f"演示（不是你的答案）：「{title}」的检查接受它：{success}",
            )
        )
        return True


def verdict_or_demo(exercise: str, demo: bool) -> Verdict:
    """The learner's verdict on `exercise`, or the demo's when the lesson shows a wrong answer."""
    return DemoVerdict(exercise) if demo else verdict(exercise)
