"""Lesson 06 (retain_graph, create_graph): checking a second derivative computed by autograd."""

from __future__ import annotations

from typing import Any

import numpy as np

from .feedback import verdict

POINTS = [0.0, 1.0, 2.0]


def _first(x: np.ndarray) -> np.ndarray:
    """d/dx x·sin x."""
    return np.sin(x) + x * np.cos(x)


def _second(x: np.ndarray) -> np.ndarray:
    """d²/dx² x·sin x."""
    return 2 * np.cos(x) - x * np.sin(x)


def check_second_derivative(second: Any) -> None:
    """`second` must hold f''(x) for f(x) = x·sin(x) at x = 0, 1, 2."""
    v = verdict("second derivative")
    if not v.answered(second, "`second`"):
        v.done("")
        return
    if hasattr(second, "requires_grad") and second.requires_grad:
        second = second.detach()
    try:
        got = np.asarray(second.tolist() if hasattr(second, "tolist") else second, dtype=float)
    except (TypeError, ValueError):
        v.require(False, f"`second` should be a tensor of 3 numbers, not {second!r}.")
        v.done("")
        return
    xs = np.array(POINTS)
    want = _second(xs)
    if not v.require(
        got.shape == want.shape,
        f"`second` should hold one value per point (shape (3,)), but has shape {got.shape}.",
    ):
        v.done("")
        return
    if np.allclose(got, want, atol=1e-4):
        v.done(
            "f''(x) = 2cos x − x sin x; create_graph=True made the first derivative differentiable."
        )
        return
    if np.allclose(got, _first(xs), atol=1e-4):
        v.require(
            False,
            "that is the first derivative, sin x + x cos x: differentiate it once "
            "more (compute it with create_graph=True, then take the grad of it).",
        )
    elif np.allclose(got, 2 * want, atol=1e-4):
        v.require(
            False,
            "your values are twice f'': the second gradient was added onto x.grad "
            "that already held one; use torch.autograd.grad, which returns "
            "gradients instead of accumulating them.",
        )
    else:
        v.require(
            False,
            f"f''(x) should be 2cos x − x sin x = {np.round(want, 4).tolist()} at "
            f"x = {POINTS}, but you got {np.round(got, 4).tolist()}.",
        )
    v.done("")
