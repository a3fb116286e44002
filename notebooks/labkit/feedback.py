"""How an exercise answers: one line for a pass, one specific line per problem otherwise."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import hints, learner_progress
from .language import say

UNANSWERED = Ellipsis  # student copies leave `...` where the answer goes
PASSED: set[str] = set()  # exercises whose check passed in this kernel (what `needs` asks)


class Verdict:
    """Collects problems while a check runs; prints the outcome and tells the notebook."""

    def __init__(self, exercise: str) -> None:
        self.exercise = exercise
        self.problems: list[str] = []
        hints.checked(exercise)

    def require(self, ok: bool, problem: str) -> bool:
        """Record `problem` unless `ok`; returns ok so checks can stop early."""
        if not ok:
            self.problems.append(problem)
        return ok

    def answered(self, value: Any, what: str) -> bool:
        return self.require(
            value is not UNANSWERED,
            say(f"{what} is still `...`: fill it in first.", f"{what} 还是 `...`：请先填写。"),
        )

    def done(self, success: str) -> bool:
        learner_progress.record(self.exercise, not self.problems)
        title = hints.title(self.exercise)
        if self.problems:
            print(say(f"✗ {title}: not yet.", f"✗ {title}：还没对。"))
            for p in self.problems:
                print(f"  - {p}")
            offer = hints.offer(self.exercise)
            if offer:
                print(f"  {offer}")
            return False
        PASSED.add(self.exercise)
        print(say(f"✓ {title}: {success}", f"✓ {title}：{success}"))
        return True


def verdict(exercise: str) -> Verdict:
    return Verdict(exercise)


def close(actual: Any, expected: Any, rtol: float = 1e-5, atol: float = 1e-6) -> bool:
    """Numerically equal, for tensors of minigrad or torch, numpy arrays or numbers."""

    def arr(v: Any) -> np.ndarray:
        if hasattr(v, "detach"):
            v = v.detach()
        if hasattr(v, "tolist"):
            v = v.tolist()
        return np.asarray(v, dtype=float)

    try:
        a, e = arr(actual), arr(expected)
    except (TypeError, ValueError):
        return False
    return a.shape == e.shape and bool(np.allclose(a, e, rtol=rtol, atol=atol))


class NotYet(Exception):
    """Raised by `needs`: shown as its message alone, without a traceback."""

    def _render_traceback_(self) -> list[str]:
        return [str(self)]


def needs(*exercises: str) -> None:
    """Stop a cell that uses the learner's answers to `exercises` (English titles) until their
    checks have passed in this kernel: the cell then says which, instead of failing somewhere
    inside with an error about the learner's unfinished code."""
    missing = [e for e in exercises if e not in PASSED]
    if missing:
        names = ", ".join(f"“{hints.title(e)}”" for e in missing)
        names_zh = "、".join(f"「{hints.title(e)}」" for e in missing)
        raise NotYet(
            say(
                f"This cell uses your answer to {names}: run its check until it passes "
                "(`hint()` helps, then `solution()`).",
                f"这个单元格要用到你对{names_zh}的答案：先运行它的检查，直到通过"
                "（可以用 `hint()`，最后还有 `solution()`）。",
            )
        )
