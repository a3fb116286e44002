"""Lesson 06 (retain_graph, create_graph): checking a second derivative computed by autograd.

The learner writes `second_derivative(f, x)`. The check runs it on points and functions of its
own and reads the engine's records: the answer must come from two backward passes, the first with
create_graph=True, so a hand-derived formula (numpy or tensor) cannot pass.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .feedback import verdict
from .hints import register

register(
    "06",
    "second derivative",
    "Differentiate twice with autograd: f' from f(x), then the derivative of f'. For the "
    "second step to work, the first gradient needs a graph of its own.",
    "mg.autograd.grad wants a scalar output: as f acts elementwise, the gradient of f(x).sum() "
    "is f'(x) at every point. Pass create_graph=True to that first call.",
    "mg.autograd.grad returns a tuple. Differentiate the sum of the first derivative with "
    "respect to x once more, and return that gradient.",
)


def _cases() -> list[tuple[str, Callable[[Any], Any], np.ndarray, np.ndarray, np.ndarray]]:
    """(description, f, points, f', f''): points and a function the notebook never shows."""
    import minigrad as mg

    xs = np.random.default_rng(606).uniform(-2, 2, 4).round(2)
    return [
        (
            f"f(x) = x·sin(x) at x = {xs.tolist()}",
            lambda x: x * mg.sin(x),
            xs,
            np.sin(xs) + xs * np.cos(xs),
            2 * np.cos(xs) - xs * np.sin(xs),
        ),
        (
            f"f(x) = x³ + exp(x) at x = {xs.tolist()}",
            lambda x: x**3 + x.exp(),
            xs,
            3 * xs**2 + np.exp(xs),
            6 * xs + np.exp(xs),
        ),
    ]


def _as_array(value: Any) -> np.ndarray | None:
    if hasattr(value, "detach"):
        value = value.detach()
    try:
        return np.asarray(value.tolist() if hasattr(value, "tolist") else value, dtype=float)
    except (TypeError, ValueError):
        return None


def _explain_error(err: Exception) -> str:
    text = str(err)
    if "does not require grad and does not have a grad_fn" in text:
        return (
            " The first derivative has no graph to differentiate: compute it with "
            "create_graph=True."
        )
    if "backward through the graph a second time" in text:
        return (
            " The first pass freed f's graph: create_graph=True in the first pass keeps it "
            "(and implies retain_graph)."
        )
    if "implicitly created only for scalar outputs" in text:
        return " Differentiate a scalar: f(x).sum() (f acts elementwise), then first.sum()."
    if "Can't call numpy()" in text:
        return " Stay with tensors and autograd; numpy cannot differentiate."
    return ""


def check_second_derivative(second_derivative: Callable[[Callable[[Any], Any], Any], Any]) -> None:
    """`second_derivative(f, x)` must return f''(x) elementwise, by autograd."""
    import minigrad as mg

    v = verdict("second derivative")
    if not v.answered(second_derivative, "`second_derivative`"):
        v.done("")
        return
    if not v.require(
        callable(second_derivative),
        "`second_derivative` should be a function second_derivative(f, x), not "
        f"{type(second_derivative).__name__}.",
    ):
        v.done("")
        return
    for label, f, xs, first, second in _cases():
        x = mg.tensor(xs.tolist(), requires_grad=True)
        with mg.autograd.record_steps() as steps:
            try:
                result = second_derivative(f, x)
            except Exception as err:  # the learner's error is feedback, not a crash of the check
                said = str(err).split(". ")[0].rstrip(".")
                v.require(
                    False,
                    f"on {label} your function raised {type(err).__name__}: “{said}”."
                    + _explain_error(err),
                )
                break
        passes = [r for r in steps if r["kind"] == "backward_start"]
        if result is None or result is Ellipsis:
            v.require(
                False,
                f"on {label} your function returned {result!r}: return f''(x) (a function "
                "body of `...` returns None).",
            )
            break
        got = _as_array(result)
        if got is None:
            v.require(
                False,
                f"on {label} you returned a {type(result).__name__}: return a tensor of "
                "f''(x), one value per point.",
            )
            break
        if not passes:
            v.require(
                False,
                f"on {label} no backward pass ran: you computed f'' from a formula. The "
                "exercise is to let autograd do it (mg.autograd.grad twice, the first with "
                "create_graph=True), so that it works for any f.",
            )
            break
        if got.shape != xs.shape:
            v.require(
                False,
                f"on {label} the answer should hold one value per point (shape "
                f"{xs.shape}), but has shape {got.shape}.",
            )
            break
        if np.allclose(got, second, rtol=1e-4, atol=1e-4):
            if not passes[0]["create_graph"] or len(passes) < 2:
                v.require(
                    False,
                    f"on {label} the values are right, but the engine did not differentiate "
                    "twice with create_graph=True in the first pass: compute f'' by autograd.",
                )
                break
            continue
        v.require(False, f"on {label}: " + _diagnose(got, first, second))
        break
    v.done(
        "f'' by autograd, for any f: create_graph=True made the first derivative differentiable."
    )


def _diagnose(got: np.ndarray, first: np.ndarray, second: np.ndarray) -> str:
    def same(a: np.ndarray) -> bool:
        return bool(np.allclose(got, a, rtol=1e-4, atol=1e-4))

    if same(first):
        return (
            "that is the first derivative: differentiate it once more (compute it with "
            "create_graph=True, then take the grad of it)."
        )
    if same(first + second):
        return (
            "that is f' + f'': the second backward() added f'' onto x.grad, which already held "
            "f'. Use mg.autograd.grad, which returns gradients instead of accumulating them."
        )
    if same(2 * second):
        return (
            "your values are twice f'': the second gradient was added onto x.grad that already "
            "held one; use mg.autograd.grad, which returns gradients instead of accumulating them."
        )
    return (
        f"f''(x) should be {np.round(second, 4).tolist()}, but you got {np.round(got, 4).tolist()}."
    )
