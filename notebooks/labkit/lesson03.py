"""Lesson 03 (leaf and non-leaf tensors): checks for the is_leaf predictions and retain_grad."""

from __future__ import annotations

from typing import Any

import numpy as np

from .feedback import close, verdict
from .hints import register

register(
    "03",
    "leaf predictions",
    "A tensor is a leaf exactly when it has no grad_fn. For each line ask: did autograd record "
    "the operation that made it?",
    "An operation is recorded only when one of its inputs requires grad: w does, k does not. "
    "detach() returns a tensor with no grad_fn.",
    "Line by line: p = k * 2 (does any input require grad?), q = w * k (w does), r = q.detach() "
    "(cut off), s = r + p (do r or p require grad?).",
)
register(
    "03",
    "gradient of a non-leaf",
    "After backward only leaves keep a .grad. h is not a leaf, so you must ask autograd to keep "
    "its gradient, and ask before the backward pass.",
    "Call retain_grad() on h after making it and before the backward pass; afterwards h.grad "
    "holds dy/dh.",
)

# The tensors of the exercise, as the notebook builds them:
#   w = tensor([1., 2.], requires_grad=True); k = tensor([3., 4.])
#   p = k * 2; q = w * k; r = q.detach(); s = r + p
LEAF_FACTS: dict[str, tuple[bool, str]] = {
    "w": (True, "made by you, so a leaf (and it requires grad: it will get a .grad)"),
    "k": (True, "made by you; every tensor that does not require grad is a leaf"),
    "p": (
        True,
        "p = k * 2 is an op result, but no input requires grad, so no grad_fn is "
        "recorded and p is a leaf",
    ),
    "q": (
        False,
        "q = w * k has an input that requires grad, so it has a grad_fn "
        "(MulBackward0) and is not a leaf",
    ),
    "r": (True, "detach() returns a tensor cut off from the graph: no grad_fn, so a leaf"),
    "s": (True, "s = r + p: neither input requires grad, so nothing is recorded: a leaf"),
}


def check_leaf_predictions(is_leaf: Any) -> None:
    """`is_leaf` maps each name to the learner's prediction of `.is_leaf`."""
    v = verdict("leaf predictions")
    if not v.answered(is_leaf, "`is_leaf`"):
        v.done("")
        return
    if not v.require(
        isinstance(is_leaf, dict),
        f"`is_leaf` should be a dict like {{'w': True, ...}}, not {type(is_leaf).__name__}.",
    ):
        v.done("")
        return
    missing = [n for n in LEAF_FACTS if n not in is_leaf]
    v.require(not missing, f"give a prediction for {', '.join(missing)} too.")
    for name, (truth, why) in LEAF_FACTS.items():
        if name not in is_leaf:
            continue
        guess = is_leaf[name]
        if guess is Ellipsis:
            v.require(False, f"`{name}` is still `...`.")
        elif not isinstance(guess, bool):
            v.require(False, f"`{name}` should be True or False, not {guess!r}.")
        elif guess != truth:
            v.require(False, f"{name}.is_leaf is {truth}, not {guess}: {why}.")
    v.done(
        "a tensor is a leaf exactly when it has no grad_fn; only leaves that "
        "require grad get a .grad."
    )


def check_hidden_grad(h_grad: Any, h: Any, x: Any) -> None:
    """y = (h * h).sum() with h = x.exp(): dy/dh = 2h, and it is only stored if retained."""
    v = verdict("gradient of a non-leaf")
    if not v.answered(h_grad, "`h_grad`"):
        v.done("")
        return
    if h_grad is None:
        v.require(
            False,
            "h_grad is None: h is not a leaf, so backward does not store its "
            "gradient unless you call h.retain_grad() *before* y.backward().",
        )
        v.done("")
        return
    if getattr(h_grad, "grad_fn", None) is not None:
        v.require(
            False,
            f"h_grad has a grad_fn ({h_grad.grad_fn.name()}): you computed it with tensor "
            "operations (a formula such as 2 * h?). Let the backward pass compute it: "
            "h.retain_grad() before y.backward(), then read h.grad.",
        )
        v.done("")
        return
    expected = 2 * h.detach()
    if close(h_grad, expected):
        v.done("dy/dh = 2h, kept because you called h.retain_grad() before backward.")
        return
    if x.grad is not None and close(h_grad, x.grad):
        v.require(
            False,
            "that is x.grad (dy/dx = 2h·exp(x)), the gradient at the leaf; the "
            "question asks for dy/dh = 2h.",
        )
    elif close(h_grad, 2 * expected):
        v.require(
            False,
            "your values are twice 2h: backward ran twice and the gradient "
            "accumulated; rebuild x, h and y, then call backward once.",
        )
    else:
        got = np.asarray(h_grad.tolist() if hasattr(h_grad, "tolist") else h_grad)
        v.require(False, f"dy/dh should be 2h = {expected.tolist()}, but you got {got.tolist()}.")
    v.done("")
