"""Lesson 07 (switching autograd off): checking a hand-written SGD step."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .feedback import close, verdict


def check_sgd_step(sgd_step: Callable[[list[Any], float], Any]) -> None:
    """The step must change the parameters *in place*, without recording, keeping them leaves."""
    import minigrad as mg

    v = verdict("sgd_step")
    if not v.answered(sgd_step, "`sgd_step`"):
        v.done("")
        return
    w = mg.tensor([1.0, -2.0], requires_grad=True)
    b = mg.tensor([0.5], requires_grad=True)
    (w * mg.tensor([3.0, 4.0]) + b).sum().backward()  # w.grad = [3, 4], b.grad = [2]
    params = [w, b]
    try:
        sgd_step(params, 0.1)
    except RuntimeError as err:
        if "leaf Variable that requires grad" in str(err):
            v.require(
                False,
                "an in-place update of a parameter raised 'a leaf Variable that "
                "requires grad is being used in an in-place operation': autograd "
                "would record the update. Do it inside `with torch.no_grad():`.",
            )
        else:
            v.require(False, f"your step raised RuntimeError: {err}")
        v.done("")
        return
    except Exception as err:  # any other error is feedback too
        v.require(False, f"your step raised {type(err).__name__}: {err}")
        v.done("")
        return
    if params[0] is not w or params[1] is not b:
        v.require(
            False,
            "the list now holds new tensors: update the parameters themselves in "
            "place (an optimizer holds references to the original objects).",
        )
        w, b = params
    if close(w, [1.0, -2.0]) and close(b, [0.5]):
        v.require(
            False,
            "the parameters did not change. If you wrote `p = p - lr * p.grad`: that "
            "makes a new tensor and rebinds the local name p; the parameter stays as it was. "
            "Update in "
            "place: `p -= lr * p.grad` (inside torch.no_grad()).",
        )
        v.done("")
        return
    v.require(
        close(w, [0.7, -2.4]) and close(b, [0.3]),
        f"after one step with lr=0.1, w should be w - 0.1·w.grad = [0.7, -2.4] and b "
        f"[0.3], but they are {w.detach().tolist()} and {b.detach().tolist()}.",
    )
    v.require(
        w.grad_fn is None and w.is_leaf,
        f"w now has grad_fn {w.grad_fn}: the update was recorded in the graph. Wrap it in "
        "torch.no_grad().",
    )
    v.require(
        w.requires_grad and b.requires_grad,
        "a parameter no longer requires grad, so the next backward would not reach it.",
    )
    v.done("in place and unrecorded: the parameters are still leaves that require grad.")
