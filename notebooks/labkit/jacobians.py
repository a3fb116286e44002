"""Naming the usual slip behind a wrong Jacobian: lessons 04 and 16 both ask for one."""

from __future__ import annotations

from typing import Any

import numpy as np

from .language import say


def as_array(value: Any) -> np.ndarray | None:
    """A learner's Jacobian (a tensor, a list of row or column tensors, nested lists) as floats,
    or None when it is none of those."""
    if isinstance(value, list | tuple) and value and all(hasattr(v, "detach") for v in value):
        value = [v.detach().tolist() for v in value]
    if hasattr(value, "detach"):
        value = value.detach()
    if hasattr(value, "tolist"):
        value = value.tolist()
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return None


def same(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal shapes and values, to the tolerance of a float32 backward pass."""
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=1e-4, atol=1e-5))


def slip(got: np.ndarray, want: np.ndarray, name: str = "J") -> str:
    """What is wrong with `got`, after a lesson's own checks: one vᵀJ with v = all ones, rows
    that accumulated in x.grad, the wrong shape, or else which entries differ."""
    rows, cols = want.shape
    if same(got, want.sum(0)):
        return say(
            "that is one vector-Jacobian product, vᵀJ with v = all ones (the gradient of "
            "y.sum()): a one-hot v per output gives each row.",
            "这只是一个向量-雅可比积，即 v 全为 1 时的 vᵀJ（也就是 y.sum() 的梯度）："
            "每个输出各用一个 one-hot 的 v，才能得到每一行。",
        )
    if same(got, np.cumsum(want, axis=0)):
        return say(
            "each row includes the rows before it: x.grad accumulates across backward passes. "
            "Reset it (x.grad = None) before each pass, or use mg.autograd.grad, which returns "
            "gradients instead of adding them to x.grad.",
            "每一行都包含了它前面的各行：x.grad 会在多次反向传播之间累积。"
            "请在每次反向传播之前重置它（x.grad = None），或者改用 mg.autograd.grad，"
            "它把梯度返回给你，而不是累加到 x.grad 上。",
        )
    if got.shape != want.shape:
        return say(
            f"the Jacobian of {rows} outputs with respect to {cols} inputs has shape "
            f"({rows}, {cols}), yours has shape {got.shape}.",
            f"{rows} 个输出对 {cols} 个输入的雅可比矩阵形状是 ({rows}, {cols})，"
            f"而你的形状是 {got.shape}。",
        )
    wrong = np.argwhere(~np.isclose(got, want, rtol=1e-4, atol=1e-5))
    i, j = wrong[0]
    return say(
        f"{len(wrong)} entries differ; e.g. {name}[{i}][{j}] = ∂y{i}/∂x{j} should be "
        f"{want[i, j]:.4f} but is {got[i, j]:.4f}.",
        f"有 {len(wrong)} 个元素不对；例如 {name}[{i}][{j}] = ∂y{i}/∂x{j} 应当是 "
        f"{want[i, j]:.4f}，实际是 {got[i, j]:.4f}。",
    )
