"""Lesson 04 (backward in depth): checking a Jacobian built from backward passes."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .feedback import verdict

# f(x) = [x0 * x1, x0 + x1**2, sin(x0)] at x = [1, 2]
JACOBIAN = np.array([[2.0, 1.0], [1.0, 4.0], [math.cos(1.0), 0.0]])


def _as_array(value: Any) -> np.ndarray | None:
    if hasattr(value, "detach"):
        value = value.detach()
    if hasattr(value, "tolist"):
        value = value.tolist()
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return None


def check_jacobian(jac: Any) -> None:
    """`jac[i][j]` must be dy_i/dx_j, i.e. shape (3 outputs, 2 inputs)."""
    v = verdict("Jacobian from backward")
    if not v.answered(jac, "`jac`"):
        v.done("")
        return
    got = _as_array(jac)
    if not v.require(
        got is not None,
        f"`jac` should be a tensor or nested list of numbers, not {type(jac).__name__}.",
    ):
        v.done("")
        return
    assert got is not None
    if got.shape == (3, 2) and np.allclose(got, JACOBIAN, atol=1e-5):
        v.done(
            "one backward pass per output, gradient = a one-hot row: each pass "
            "gives one row of the Jacobian."
        )
        return
    if got.shape == (2, 3) and np.allclose(got, JACOBIAN.T, atol=1e-5):
        v.require(
            False,
            "you have the transpose: rows should be the 3 outputs and columns the "
            "2 inputs (jac[i][j] = dy_i/dx_j).",
        )
    elif got.shape == (2,) and np.allclose(got, JACOBIAN.sum(0), atol=1e-5):
        v.require(
            False,
            "that is one vector-Jacobian product, vᵀJ with v = all ones (the "
            "gradient of y.sum()): use a one-hot v per output to get each row.",
        )
    elif got.shape == (3, 2) and np.allclose(got, np.cumsum(JACOBIAN, axis=0), atol=1e-5):
        v.require(
            False,
            "each row includes the rows before it: x.grad accumulates across "
            "backward passes. Reset it (x.grad = None) before each pass, or use "
            "torch.autograd.grad.",
        )
    elif got.shape != (3, 2):
        v.require(
            False,
            f"the Jacobian of 3 outputs w.r.t. 2 inputs has shape (3, 2), yours "
            f"has shape {got.shape}.",
        )
    else:
        wrong = [
            (i, j)
            for i in range(3)
            for j in range(2)
            if not math.isclose(got[i, j], JACOBIAN[i, j], abs_tol=1e-5)
        ]
        i, j = wrong[0]
        v.require(
            False,
            f"{len(wrong)} entries differ; e.g. jac[{i}][{j}] = dy{i}/dx{j} should "
            f"be {JACOBIAN[i, j]:.4f} but is {got[i, j]:.4f}.",
        )
    v.done("")
