"""Shared helpers for the lessons: exercise feedback and the setup check.

Each lesson keeps its own check functions in `labkit/lessonNN.py`; they report with `verdict`
so every exercise answers in the same voice: what is right, or exactly what is wrong. A learner
asks for `hint()` (one at a time), then `solution()` (asked twice: a choice), and sees `progress()`.
"""

from . import language
from .feedback import Verdict, close, verdict
from .hints import hint, solution
from .language import say
from .learner_progress import progress

__all__ = ["Verdict", "close", "hint", "language", "progress", "say", "solution", "verdict"]
