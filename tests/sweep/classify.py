"""Name the class of a mismatch from the first problem the comparison reported (compare.py).

The classes follow issue 10's list; draft.py uses them to label new known failures, and a person
reviews the labels before they go into known_failures.py.
"""

from __future__ import annotations

import re

MISSING_OP = "missing op"
MISSING_FEATURE = "argument, dtype or overload missing"
REFUSES = "minigrad refuses what torch accepts"
NO_ERROR = "minigrad accepts what torch refuses"
LEAK = "numpy/Python exception leaks"
ERROR_TYPE = "exception type differs"
ERROR_MESSAGE = "error message differs"
MASKED_NAN = "masked gradient is nan (torch gives a number)"
INF_NAN = "inf/nan propagation differs"
GRAD_VALUES = "gradient values differ"
GRAD_NONE = "gradient missing (None) or extra"
FORWARD_VALUES = "forward values differ"
DTYPE = "dtype differs"
FLAGS = "requires_grad or grad_fn differs"
VERSION = "saved value not version-checked"
ANOMALY = "anomaly mode differs"
HOOK = "tensor hook differs"
SECOND_ORDER = "create_graph differs"
NO_FORWARD_FORMULA = "forward mode: no tangent formula yet"
TANGENTS = "forward mode: tangents differ"
ACCUMULATE = "graph freed after backward differs"

_INTERNAL = (
    "ValueError",
    "IndexError",
    "UFuncTypeError",
    "AxisError",
    "KeyError",
    "ZeroDivisionError",
    "OverflowError",
)
_SIGNATURE = (
    "unexpected keyword",
    "required positional",
    "positional argument",
    "unsupported operand",
)


def _raised(text: str) -> str:
    """The exception type named at the start of ``text`` ("ValueError('...')")."""
    m = re.match(r"\s*(\w+)\(", text)
    return m.group(1) if m else ""


def _minigrad_raises(problem: str) -> str:
    """What minigrad raised where torch returned, or ""."""
    if "minigrad raises:" in problem:
        return problem.split("minigrad raises:", 1)[1]
    return ""


def classify(check: str, problem: str, op: str) -> str:
    kind = check.split(".")[0]
    if f"has no attribute '{op.split('.', 1)[1]}'" in problem:
        return MISSING_OP
    if kind == "jvp":
        return NO_FORWARD_FORMULA if "Trying to use forward AD with" in problem else TANGENTS
    if "lacks torch's" in problem:
        return ANOMALY if kind == "anomaly" and "returned nan" in problem else ERROR_MESSAGE
    both = re.search(r"torch raises (\w+)\(.*?, minigrad (\w+)\(", problem)
    if both:
        return LEAK if both.group(2) in _INTERNAL or "Error" not in both.group(2) else ERROR_TYPE
    if re.search(r"torch [^;]*raises:", problem):  # torch raised, minigrad returned
        if kind == "version" and "modified by an inplace operation" in problem:
            return VERSION
        if "backward through the graph a second time" in problem:
            return ACCUMULATE
        if kind == "anomaly":
            return ANOMALY
        return NO_ERROR
    raised = _minigrad_raises(problem)
    if raised:
        exc = _raised(raised)
        if kind == "anomaly" and "returned nan" in raised:
            return ANOMALY
        if exc in _INTERNAL or "numpy" in raised:
            return LEAK
        if exc == "NotImplementedError" or any(w in raised for w in _SIGNATURE):
            return MISSING_FEATURE
        return REFUSES
    if kind == "hook" and "calls of" in problem:
        return HOOK
    if "minigrad None" in problem or "torch None" in problem:
        return SECOND_ORDER if kind == "double" else GRAD_NONE
    m = re.search(r"values differ, first at .*?: torch (\S+), minigrad (\S+)$", problem)
    if m:
        t, g = m.groups()
        if kind == "forward":
            return FORWARD_VALUES
        if g == "nan" and t not in ("nan", "inf", "-inf"):
            return MASKED_NAN
        if "nan" in (t, g) or "inf" in t or "inf" in g:
            return INF_NAN
        return SECOND_ORDER if kind == "double" else GRAD_VALUES
    if ": dtype torch" in problem:
        return DTYPE
    if ": requires_grad torch" in problem or ": grad_fn torch" in problem:
        return SECOND_ORDER if kind == "double" else FLAGS
    if ": shape torch" in problem or ": at (" in problem:
        return FORWARD_VALUES if kind == "forward" else GRAD_VALUES
    if kind == "forward":
        return FORWARD_VALUES
    return SECOND_ORDER if kind == "double" else GRAD_VALUES
