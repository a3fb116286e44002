"""Naming the usual slip behind a wrong Jacobian: lessons 04 and 17 both ask for one."""

from __future__ import annotations

import numpy as np


def same(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal shapes and values, to the tolerance of a float32 backward pass."""
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=1e-4, atol=1e-5))


def slip(got: np.ndarray, want: np.ndarray, name: str = "J") -> str:
    """What is wrong with `got`, after a lesson's own checks: one vᵀJ with v = all ones, rows
    that accumulated in x.grad, the wrong shape, or else which entries differ."""
    rows, cols = want.shape
    if same(got, want.sum(0)):
        return (
            "that is one vector-Jacobian product, vᵀJ with v = all ones (the gradient of "
            "y.sum()): a one-hot v per output gives each row."
        )
    if same(got, np.cumsum(want, axis=0)):
        return (
            "each row includes the rows before it: x.grad accumulates across backward passes. "
            "Reset it (x.grad = None) before each pass, or use mg.autograd.grad, which returns "
            "gradients instead of adding them to x.grad."
        )
    if got.shape != want.shape:
        return (
            f"the Jacobian of {rows} outputs with respect to {cols} inputs has shape "
            f"({rows}, {cols}), yours has shape {got.shape}."
        )
    wrong = np.argwhere(~np.isclose(got, want, rtol=1e-4, atol=1e-5))
    i, j = wrong[0]
    return (
        f"{len(wrong)} entries differ; e.g. {name}[{i}][{j}] = ∂y{i}/∂x{j} should be "
        f"{want[i, j]:.4f} but is {got[i, j]:.4f}."
    )
