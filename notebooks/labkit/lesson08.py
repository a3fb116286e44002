"""Checks for lesson 08 (in-place operations and version counters).

Each check names the specific misconception behind a wrong answer, because the rules here
(which ops bump `_version`, views sharing a counter, rebinding a name) are easy to half-remember.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import minigrad as mg

from .feedback import Verdict, close, verdict
from .hints import register

register(
    "08",
    "Predict the versions",
    "Only in-place writes (`add_`, `zero_`, `t[i] = ...`) add one to `_version`; reading a tensor "
    "or taking a view of it does not.",
    "A view such as `t[1:]` shares its base's version counter: a write through the view counts "
    "for `t` as well.",
    "Line D rebinds the name `t` to the result of `t * 2`, a brand-new tensor. What version does "
    "a tensor start at?",
)
register(
    "08",
    "Fix swish",
    "Run `swish_broken` and read its error: which op saved which tensor, and which line changed "
    "that tensor afterwards?",
    "`sigmoid` saves its OUTPUT `s` for backward, and `s.mul_(x)` overwrites exactly that tensor.",
    "Multiply out of place: return a new tensor made from `x` and `s`, leaving `s` as sigmoid "
    "produced it (no `.data`, no `detach()`, no `no_grad()`: they would hide the change or cut "
    "the graph).",
)


def _stop(v: Verdict) -> None:
    """Print what is wrong so far and end the check (later steps depend on this one)."""
    v.done("")


def check_versions(answer: Any) -> None:
    """Predicted `t._version` after each marked line of:

    t = ones(4); t.add_(1)  # A;  t[0] = 7.0  # B;  v = t[1:]; v.zero_()  # C;  t = t * 2  # D
    """
    v = verdict("Predict the versions")
    if not v.answered(answer, "versions"):
        return _stop(v)
    try:
        got = [int(a) for a in answer]
    except (TypeError, ValueError):
        v.require(False, "versions should be a list of four whole numbers, e.g. [1, 1, 1, 1].")
        return _stop(v)
    if not v.require(len(got) == 4, f"expected 4 numbers (one per marked line), got {len(got)}."):
        return _stop(v)
    a, b, c, d = got
    v.require(
        a == 1,
        f"line A: `t.add_(1)` is one in-place op on a fresh tensor (version 0), "
        f"so the version becomes 1, not {a}.",
    )
    v.require(
        b == 2,
        "line B: `t[0] = 7.0` is an in-place write too (item assignment calls "
        "`__setitem__`, which changes t's memory), so the counter goes up by one: 2."
        if b == 1
        else f"line B: one more in-place write after version 1 gives 2, not {b}.",
    )
    v.require(
        c == 3,
        "line C: `v = t[1:]` is a view that shares t's storage AND its version "
        "counter, so `v.zero_()` bumps t's version as well: 3."
        if c == 2
        else f"line C: the view's `zero_()` adds one to the shared counter: 3, not {c}.",
    )
    v.require(
        d == 0,
        "line D: `t * 2` is out of place. It makes a brand-new tensor and the name "
        "`t` now points to it; a new tensor starts at version 0."
        if d != 0
        else "",
    )
    v.done(
        "[1, 2, 3, 0]. Only in-place writes count, views share their base's counter, "
        "and rebinding a name gives you a fresh tensor."
    )


def _swish_reference(x: mg.Tensor) -> tuple[list, list]:
    x = x.detach().requires_grad_()
    y = x * x.sigmoid()
    y.sum().backward()
    return y.detach().tolist(), x.grad.tolist()


def check_swish(fn: Any) -> None:
    """The learner's `swish(x)` = x * sigmoid(x): right values, right gradient, no error."""
    v = verdict("Fix swish")
    if not v.answered(fn, "swish"):
        return _stop(v)
    if not v.require(callable(fn), "swish should be a function taking a tensor."):
        return _stop(v)
    fn_: Callable = fn
    x = mg.tensor([-2.0, -0.5, 0.0, 1.0, 3.0], requires_grad=True)
    want_y, want_g = _swish_reference(x)
    try:
        y = fn_(x)
    except Exception as err:  # the learner's code: say what it raised, in a sentence
        v.require(False, f"calling swish(x) raised {type(err).__name__}: {err}")
        return _stop(v)
    if y is None:
        v.require(
            False,
            "swish(x) returned None: is its body still `...`, or is a `return` missing? "
            "It should return the new tensor x * sigmoid(x).",
        )
        return _stop(v)
    if not v.require(
        isinstance(y, mg.Tensor),
        f"swish(x) returned a {type(y).__name__}; return a minigrad tensor computed from x "
        "with tensor operations (numpy or Python numbers would cut the graph).",
    ):
        return _stop(v)
    try:
        y.sum().backward()
    except RuntimeError as err:
        msg = str(err)
        if "modified by an inplace operation" in msg:
            v.require(
                False,
                "backward still fails: your function changes a tensor in place "
                "after an op saved it (sigmoid saves its OUTPUT, so `s.mul_(x)` "
                "destroys what SigmoidBackward needs). Use `x * s` instead.",
            )
        elif "leaf Variable" in msg:
            v.require(
                False,
                "you wrote into the input `x` in place; x is a leaf that requires "
                "grad, which autograd forbids. Compute a new tensor instead.",
            )
        elif "does not require grad" in msg:
            v.require(
                False,
                "the result has no graph at all (backward says it does not require grad): "
                "was it computed under `no_grad()`, or from detached tensors? That hides the "
                "in-place write instead of fixing it.",
            )
        else:
            v.require(False, f"calling backward on swish's result raised: {msg}")
        return _stop(v)
    if not v.require(
        close(y, want_y, atol=1e-5),
        f"the values are wrong: got {y.tolist()}, "
        f"expected {[round(a, 4) for a in want_y]} (x * sigmoid(x)).",
    ):
        return _stop(v)
    if not v.require(
        x.grad is not None,
        "x.grad is None: the result is not connected to x. "
        "Did you use .detach() or .data somewhere?",
    ):
        return _stop(v)
    if close(x.grad, x.detach().sigmoid(), atol=1e-5):
        v.require(
            False,
            "the values are right but x.grad is just sigmoid(x): the gradient through the "
            "sigmoid is missing, so the sigmoid was cut off the graph (`detach()`, `.data` or "
            "`no_grad()`). Keep it in the graph and multiply out of place.",
        )
    else:
        v.require(
            close(x.grad, want_g, atol=1e-5),
            "the values are right but the gradient is wrong. That is the signature of an "
            "in-place change hidden from autograd (through `.data`): the version counter did "
            "not see it, so backward silently used the modified values. Don't modify "
            "in place at all here.",
        )
    v.done(
        "no in-place write, so nothing saved for backward is disturbed, and the "
        "gradient matches x * sigmoid(x)."
    )
