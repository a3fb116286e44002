"""Lesson 11 in Chinese: both exercises' feedback, for the solution and for typical mistakes."""

from __future__ import annotations

import numpy as np
import pytest
from labkit import lesson11
from test_chinese_lessons import chinese_only

import minigrad as mg

# --- Exercise 1: params_without_grad --------------------------------------------------------


def right(model):
    return [n for n, p in model.named_parameters() if p.grad is None]


def test_11_params_without_grad_solution_in_chinese(chinese, said):
    out = said(lesson11.check_params_without_grad, right)
    chinese_only(out)
    assert out.startswith("✓ 找出没有梯度的参数：")


def stub(model): ...


def clears_first(model):
    model.zero_grad()
    return [n for n, p in model.named_parameters() if p.grad is None]


def zero_counts_as_missing(model):
    return [
        n
        for n, p in model.named_parameters()
        if p.grad is None or not np.any(np.asarray(p.grad.tolist()))
    ]


WRONG = {
    "stub": (..., "还是 `...`"),
    "body left empty": (stub, "返回了 None"),
    "tensors, not names": (lambda m: [p for p in m.parameters() if p.grad is None], "名字"),
    "a string": (lambda m: "unused.weight", "由名字组成的列表"),
    "truthiness": (lambda m: [n for n, p in m.named_parameters() if not p.grad], "歧义"),
    "copied names": (lambda m: ["temperature", "extra.weight"], "不是检查所传入模型的参数"),
    "clears the gradients": (clears_first, "zero_grad"),
    "zero counts as missing": (zero_counts_as_missing, "零梯度并不等于没有梯度"),
    "only the unused": (
        lambda m: [n for n, p in m.named_parameters() if n.startswith("unused")],
        "漏掉了 ['detached.bias', 'detached.weight']",
    ),
}


@pytest.mark.parametrize("case", sorted(WRONG))
def test_11_params_without_grad_wrong_answers_in_chinese(chinese, said, case):
    fn, expected = WRONG[case]
    out = said(lesson11.check_params_without_grad, fn)
    chinese_only(out)
    assert out.startswith("✗ 找出没有梯度的参数：还没对。") and expected in out
    assert "hint()" in out


def test_11_missing_grad_used_as_a_tensor_in_chinese(chinese, said):
    by_value = lambda m: [n for n, p in m.named_parameters() if p.grad.abs().sum() == 0]  # noqa: E731
    out = said(lesson11.check_params_without_grad, by_value)
    chinese_only(out, "'NoneType' object has no attribute 'abs'")
    assert "把缺失的梯度当成了张量来用" in out


# --- Exercise 2: safe_norm -------------------------------------------------------------------


def safe(v):
    s = (v * v).sum(dim=1)
    pos = s > 0
    return mg.where(pos, mg.where(pos, s, 1.0).sqrt(), 0.0)


def test_11_safe_norm_solution_in_chinese(chinese, said):
    out = said(lesson11.check_safe_norm, safe)
    chinese_only(out)
    assert out.startswith("✓ 不出 NaN 的范数：")


def where_trap(v):
    s = (v * v).sum(dim=1)
    return mg.where(s > 0, s.sqrt(), 0.0)


def lesson_distance(v):  # the lesson's safe distance, on the lesson's a and b
    a = mg.tensor([[0.0, 0.0], [1.0, 1.0], [2.0, 0.0]], requires_grad=True)
    b = mg.tensor([[3.0, 4.0], [1.0, 1.0], [2.0, 1.0]])
    return safe(a - b)


def no_grad_norm(v):
    with mg.no_grad():
        return safe(v)


SAFE_WRONG = {
    "stub": (..., "还是 `...`"),
    "returns None": (lambda v: None, "返回了 None"),
    "numpy": (lambda v: v.detach().numpy(), "numpy 会切断计算图"),
    "lesson's a and b": (lesson_distance, "`a` 和 `b` 之间的距离"),
    "one number in all": (lambda v: (v * v).sum().sqrt(), "每行一个数"),
    "built-in norm": (lambda v: v.norm(dim=1), "内置的范数"),
    "where trap": (where_trap, "sqrt 分支在 0 处照样会运行"),
    "under no_grad": (no_grad_norm, "没有和 v 连在一起"),
}


@pytest.mark.parametrize("case", sorted(SAFE_WRONG))
def test_11_safe_norm_wrong_answers_in_chinese(chinese, said, case):
    fn, expected = SAFE_WRONG[case]
    out = said(lesson11.check_safe_norm, fn)
    chinese_only(out)
    assert out.startswith("✗ 不出 NaN 的范数：还没对。") and expected in out
