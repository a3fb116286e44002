"""Lesson 04 (backward in depth): checking a Jacobian function built from backward passes.

The learner writes `jacobian(f, x)`. The check calls it on points and on a function the notebook
never shows, so a matrix copied from the lesson's table cannot pass, and it counts the backward
passes the engine ran, so a formula or finite differences cannot pass either.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .feedback import verdict
from .hints import register
from .jacobians import same, slip

register(
    "04",
    "Jacobian from backward",
    "Row i of the Jacobian is the gradient of the single output y[i]: one backward pass per "
    "output, each with a gradient vector that picks out that output.",
    "For output i the vector is one-hot: 1 at position i, 0 elsewhere, shaped like y. "
    "mg.autograd.grad(y, x, grad_outputs=onehot, retain_graph=True) returns that row and "
    "leaves x.grad alone.",
    "Loop i over range(len(y)), not a fixed 3 (the check uses other functions too), collect "
    "the rows and stack them: mg.stack(rows) has shape (outputs, inputs).",
)

# The lesson's table: the Jacobian of f(x) = [x0 * x1, x0 + x1**2, sin(x0)] at x = (1, 2).
TABLE = np.array([[2.0, 1.0], [1.0, 4.0], [math.cos(1.0), 0.0]])


def _lesson_f(x: Any) -> Any:
    import minigrad as mg

    return mg.stack([x[0] * x[1], x[0] + x[1] ** 2, mg.sin(x[0])])


def _lesson_jacobian(p: np.ndarray) -> np.ndarray:
    return np.array([[p[1], p[0]], [1.0, 2 * p[1]], [math.cos(p[0]), 0.0]])


def _wide_f(x: Any) -> Any:
    import minigrad as mg

    return mg.stack([x[0] * x[1] * x[2], x[2].exp() - x[0]])


def _wide_jacobian(p: np.ndarray) -> np.ndarray:
    return np.array([[p[1] * p[2], p[0] * p[2], p[0] * p[1]], [-1.0, 0.0, math.exp(p[2])]])


def _cases() -> list[tuple[str, Callable[[Any], Any], np.ndarray, np.ndarray]]:
    """(description, f, point, Jacobian there): points the notebook never prints."""
    rng = np.random.default_rng(404)
    p1 = rng.uniform(-2, 2, 2).round(2)
    p2 = rng.uniform(-1, 1, 3).round(2)
    return [
        (f"the lesson's f at x = {p1.tolist()}", _lesson_f, p1, _lesson_jacobian(p1)),
        (
            f"f(x) = [x0·x1·x2, exp(x2) − x0] (2 outputs, 3 inputs) at x = {p2.tolist()}",
            _wide_f,
            p2,
            _wide_jacobian(p2),
        ),
    ]


def _as_array(value: Any) -> np.ndarray | None:
    if isinstance(value, list | tuple) and value and all(hasattr(v, "detach") for v in value):
        value = [v.detach().tolist() for v in value]  # a list of row tensors
    if hasattr(value, "detach"):
        value = value.detach()
    if hasattr(value, "tolist"):
        value = value.tolist()
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return None


def _explain_error(err: Exception) -> str:
    """What a typical error inside the learner's function means, in the lesson's words."""
    text = str(err)
    if "backward through the graph a second time" in text:
        return (
            "The first pass freed the graph's saved values: pass retain_graph=True to the "
            "passes (lesson 06 explains why)."
        )
    if "implicitly created only for scalar outputs" in text:
        return (
            "Your y has several elements, so each pass needs a gradient vector: backward(gradient="
            "onehot) or mg.autograd.grad(y, x, grad_outputs=onehot)."
        )
    if "Mismatch in shape" in text:
        return (
            "The one-hot vector must have y's shape, one entry per output: read its length "
            "from y instead of fixing it."
        )
    if isinstance(err, IndexError):
        return "Read the sizes from y and x (len(y), len(x)) instead of fixing them."
    if "does not require grad" in text or "not have been used in the graph" in text:
        return (
            "Differentiate with respect to the x your function was given (the one f used); "
            "it already requires grad, so do not make a new one."
        )
    return ""


def check_jacobian(jacobian: Callable[[Callable[[Any], Any], Any], Any]) -> None:
    """`jacobian(f, x)[i][j]` must be dy_i/dx_j, for functions and points chosen here."""
    import minigrad as mg

    v = verdict("Jacobian from backward")
    if not v.answered(jacobian, "`jacobian`"):
        v.done("")
        return
    if not v.require(
        callable(jacobian),
        f"`jacobian` should be a function jacobian(f, x), not {type(jacobian).__name__}.",
    ):
        v.done("")
        return
    for label, f, point, want in _cases():
        x = mg.tensor(point.tolist(), requires_grad=True)
        with mg.autograd.record_steps() as steps:
            try:
                result = jacobian(f, x)
            except Exception as err:  # the learner's error is feedback, not a crash of the check
                first = str(err).split(". ")[0].rstrip(".")
                v.require(
                    False,
                    f"on {label} your function raised {type(err).__name__}: “{first}”. "
                    + _explain_error(err),
                )
                break
        passes = steps.kinds().count("backward_start")
        if result is None or result is Ellipsis:
            v.require(
                False,
                f"on {label} your function returned {result!r}: return the Jacobian (a "
                "function body of `...` returns None).",
            )
            break
        got = _as_array(result)
        if got is None:
            v.require(
                False,
                f"on {label} you returned a {type(result).__name__}: return a tensor or a "
                "nested list of numbers.",
            )
            break
        if got.shape == TABLE.shape and np.allclose(got, TABLE, rtol=1e-4, atol=1e-5):
            v.require(False, f"on {label}: " + _diagnose(got, want))
            break
        if passes == 0:
            v.require(
                False,
                f"on {label} no backward pass ran: build each row with a backward pass "
                "(y.backward(gradient=...) or mg.autograd.grad), not from a formula or "
                "finite differences.",
            )
            break
        if got.shape == want.shape and np.allclose(got, want, rtol=1e-4, atol=1e-5):
            continue
        v.require(False, f"on {label}: " + _diagnose(got, want))
        break
    v.done(
        "one backward pass per output, gradient = a one-hot vector: each pass gives one row "
        "of the Jacobian, for any f."
    )


def _diagnose(got: np.ndarray, want: np.ndarray) -> str:
    """Name the typical slip behind a wrong matrix."""
    rows, cols = want.shape
    if same(got, TABLE):
        return (
            "that is the Jacobian at x = (1, 2), the lesson's table; compute it from the f and "
            "x your function is given."
        )
    if same(got, want.T) and rows != cols:
        return (
            f"you have the transpose: rows should be the {rows} outputs and columns the "
            f"{cols} inputs (jac[i][j] = dy_i/dx_j)."
        )
    return slip(got, want, name="jac")
