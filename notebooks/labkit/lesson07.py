"""Lesson 07 (switching autograd off): checking a hand-written SGD step."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .feedback import close, verdict
from .hints import register

register(
    "07",
    "sgd_step",
    "The update must change each parameter tensor itself (in place) and must not be recorded "
    "by autograd.",
    "Put the loop inside an mg.no_grad() block and change each p with an in-place operator "
    "(-= or sub_): an assignment p = ... only rebinds a local name.",
    "Not through p.data: that write is invisible to the version counter (the habit this lesson "
    "warns against). Inside no_grad, an in-place subtraction of lr times p.grad is all it takes.",
)


def check_sgd_step(sgd_step: Callable[[list[Any], float], Any]) -> None:
    """The step must change the parameters *in place*, without recording, keeping them leaves.

    And not through `.data`: a write there does not bump the version counter, so the check
    requires each parameter's `_version` to have gone up.
    """
    import minigrad as mg

    v = verdict("sgd_step")
    if not v.answered(sgd_step, "`sgd_step`"):
        v.done("")
        return
    w = mg.tensor([1.0, -2.0], requires_grad=True)
    b = mg.tensor([0.5], requires_grad=True)
    (w * mg.tensor([3.0, 4.0]) + b).sum().backward()  # w.grad = [3, 4], b.grad = [2]
    params = [w, b]
    versions = [w._version, b._version]
    if not v.require(
        callable(sgd_step),
        f"`sgd_step` should be a function sgd_step(params, lr), not {type(sgd_step).__name__}.",
    ):
        v.done("")
        return
    try:
        sgd_step(params, 0.1)
    except RuntimeError as err:
        if "leaf Variable that requires grad" in str(err):
            v.require(
                False,
                "an in-place update of a parameter raised 'a leaf Variable that "
                "requires grad is being used in an in-place operation': autograd "
                "would record the update. Do it inside `with mg.no_grad():`.",
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
            "the parameters did not change (is the body still `...`?). If you wrote "
            "`p = p - lr * p.grad`: that makes a new tensor and rebinds the local name p; the "
            "parameter stays as it was. Update in place: `p -= lr * p.grad` (inside "
            "mg.no_grad()).",
        )
        v.done("")
        return
    if close(w, [1.3, -1.6]) and close(b, [0.7]):
        v.require(
            False,
            "the parameters moved *up* the gradient (p + lr·p.grad): a descent step subtracts, "
            "p -= lr * p.grad.",
        )
    elif close(w, [-2.0, -6.0]) and close(b, [-1.5]):
        v.require(
            False,
            "the step used the whole gradient (p - p.grad): multiply it by the learning rate lr.",
        )
    else:
        v.require(
            close(w, [0.7, -2.4]) and close(b, [0.3]),
            f"after one step with lr=0.1, w should be w - 0.1·w.grad = [0.7, -2.4] and b "
            f"[0.3], but they are {_show(w)} and {_show(b)}.",
        )
    v.require(
        w.grad_fn is None and w.is_leaf,
        f"w now has grad_fn {w.grad_fn}: the update was recorded in the graph. Wrap it in "
        "mg.no_grad().",
    )
    v.require(
        w.requires_grad and b.requires_grad,
        "a parameter no longer requires grad, so the next backward would not reach it.",
    )
    unseen = [n for n, t, v0 in (("w", w, versions[0]), ("b", b, versions[1])) if t._version == v0]
    if not v.problems and unseen:
        v.require(
            False,
            f"the values are right, but the version counter{'s' if len(unseen) > 1 else ''} "
            f"of {' and '.join(unseen)} did not move (`_version`): you wrote through "
            "`.data`, which autograd cannot see (the habit that made b.grad silently wrong "
            "above). Update inside `with mg.no_grad():` with `p -= lr * p.grad`; that write "
            "is counted.",
        )
    v.done("in place and unrecorded: the parameters are still leaves that require grad.")


def _show(t: Any) -> list[float]:
    return [round(float(x), 4) for x in t.detach().reshape(-1).tolist()]
