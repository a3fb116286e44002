"""Lesson 17's checks in Chinese: for each exercise, the solution and the usual slips."""

from __future__ import annotations

import pytest
from labkit import lesson17
from test_checks_lessons_08_14 import _bool_mean, _dim0, _no_graph, _right, _with_graph
from test_chinese_lessons import chinese_only

import minigrad as mg


def _step(zero=True, backward=True, update=True, as_float=True, twice=False, where=None):
    def train_step(model, opt, loss_fn, xb, yb):
        if zero:
            opt.zero_grad()
        loss = loss_fn(model(xb), yb)
        if backward:
            loss.backward(retain_graph=twice)
            if twice:
                loss.backward()
        if where == "between":
            opt.zero_grad()
        if update == "data":
            for p in model.parameters():
                p.data -= 0.5 * p.grad.data
        elif update:
            opt.step()
        return loss.item() if as_float else loss

    return train_step


def _notebook_data(model, opt, loss_fn, xb, yb):
    return loss_fn(model(mg.randn(32, 64)), yb).item()


def _stub(*args): ...


def test_14_train_step_solution_in_chinese(chinese, said):
    out = said(lesson17.check_train_step, _step())
    chinese_only(out)
    assert out.startswith("✓ 训练一步（train_step）：")


@pytest.mark.parametrize(
    "step, words",
    [
        (_step(zero=False), "累积"),
        (_step(update=False), "参数没有变化"),
        (_step(backward=False), "参数没有变化"),
        (_step(as_float=False), "Python float"),
        (_step(twice=True), "backward 运行了 4 次"),
        (_step(where="between"), "之前调用 `opt.zero_grad()`"),
        (_step(update="data"), "版本计数器"),
        (_no_graph, "损失没有计算图"),
        (_notebook_data, "只使用它的参数"),
        (_stub, "返回了 None"),
        (..., "还是 `...`"),
    ],
)
def test_14_train_step_slips_in_chinese(chinese, said, step, words):
    out = said(lesson17.check_train_step, step)
    chinese_only(out)
    assert out.startswith("✗ 训练一步（train_step）：还没对。") and words in out, out


def test_14_accuracy_solution_in_chinese(chinese, said):
    out = said(lesson17.check_accuracy, _right)
    chinese_only(out)
    assert out.startswith("✓ 准确率（accuracy）：")


@pytest.mark.parametrize(
    "accuracy, words",
    [
        (lambda m, x, y: 100 * _right(m, x, y), "百分数"),
        (lambda m, x, y: 1 - _right(m, x, y), "错误率"),
        (lambda m, x, y: mg.tensor(_right(m, x, y)), "Python float"),
        (lambda m, x, y: 0.5, "dim 1"),
        (_with_graph, "mg.no_grad()"),
        (_bool_mean, "`.float()`"),
        (_dim0, "形状不同"),
        (lambda m, x, y: None, "返回了 None"),
        (..., "还是 `...`"),
    ],
)
def test_14_accuracy_slips_in_chinese(chinese, said, accuracy, words):
    out = said(lesson17.check_accuracy, accuracy)
    chinese_only(out)
    assert out.startswith("✗ 准确率（accuracy）：还没对。") and words in out, out
