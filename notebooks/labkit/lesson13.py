"""Checks for lesson 13 (myths and facts).

One prediction per snippet: does it raise? Each wrong prediction gets the reason behind the
real behaviour, which is the point of the lesson (the myths are plausible, the rules are precise).
"""

from __future__ import annotations

from typing import Any

from .feedback import Verdict, verdict
from .hints import register

register(
    "13",
    "Raise or run?",
    "Match each snippet to a claim of this lesson: a second backward (claim 18), an in-place op "
    "on a leaf (claim 8), backward on a one-element tensor (claim 15), backward on a detached "
    "tensor (claim 17).",
    "A second backward fails only if the first one freed saved tensors: does `+` save anything? "
    "Does `x * x`? One element is enough for backward(); a detached tensor has no graph.",
    "Exactly three snippets raise: the one needing tensors the first backward freed, the "
    "in-place write into a leaf that requires grad, and the backward from a tensor with no "
    "history.",
)


def _stop(v: Verdict) -> None:
    """Print what is wrong so far and end the check (later steps depend on this one)."""
    v.done("")


RAISES = {"a": False, "b": True, "c": True, "d": False, "e": True}

WHY = {
    "a": "(x + 1).sum() saves no tensors (the gradient of + is 1), so there is nothing to free: "
    "a second backward works and doubles x.grad.",
    "b": "(x * x).sum() saves x for MulBackward0; the first backward frees it, so the second "
    "raises 'Trying to backward through the graph a second time'.",
    "c": "an in-place op on a leaf that requires grad is refused with a RuntimeError (not a "
    "warning), whatever an article says.",
    "d": "backward() needs one element, not zero dimensions: a shape-[1] tensor works without a "
    "gradient argument.",
    "e": "a detached tensor does not require grad (it has no history), so calling backward() on "
    "it raises 'element 0 of tensors does not require grad'.",
}


def check_predictions(answer: Any) -> None:
    """`answer` maps each snippet letter a-e to True (raises) or False (runs)."""
    v = verdict("Raise or run?")
    if not v.answered(answer, "predictions"):
        return _stop(v)
    if not v.require(
        isinstance(answer, dict), "predictions should be a dict like {'a': True, 'b': False, ...}."
    ):
        return _stop(v)
    extra = sorted(map(repr, set(answer) - set(RAISES)))
    if not v.require(
        not extra, f"there is no snippet {', '.join(extra)}: the keys are 'a' to 'e' (lower case)."
    ):
        return _stop(v)
    missing = sorted(set(RAISES) - set(answer))
    if not v.require(not missing, f"no prediction for {', '.join(missing)}."):
        return _stop(v)
    for key, raises in RAISES.items():
        if not v.require(
            isinstance(answer[key], bool), f"{key}: use True or False, got {answer[key]!r}."
        ):
            continue
        if answer[key] != raises:
            said = "raises" if answer[key] else "runs"
            v.require(
                False,
                f"{key}: you said it {said}, but it {'raises' if raises else 'runs'}: {WHY[key]}",
            )
    v.done("all five right: b, c and e raise; a and d run.")
