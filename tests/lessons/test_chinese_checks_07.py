"""Lesson 07 in Chinese: the feedback on the hand-written SGD step."""

from __future__ import annotations

import pytest
from labkit import lesson07
from test_checks_lessons_01_07 import ascent, no_lr
from test_chinese_lessons import chinese_only

import minigrad as mg


def right(params, lr):
    with mg.no_grad():
        for p in params:
            p -= lr * p.grad


def rebinding(params, lr):
    for p in params:
        p = p - lr * p.grad  # noqa: PLW2901 - the mistake under test


def through_data(params, lr):
    for p in params:
        p.data -= lr * p.grad


def only_w_through_data(params, lr):
    params[0].data -= lr * params[0].grad
    with mg.no_grad():
        params[1] -= lr * params[1].grad


def no_no_grad(params, lr):
    for p in params:
        p.sub_(lr * p.grad)


def half_lr(params, lr):
    with mg.no_grad():
        for p in params:
            p -= lr / 2 * p.grad


def new_list(params, lr):
    params[:] = [(p - lr * p.grad).detach().requires_grad_() for p in params]


def recorded(params, lr):
    for k, p in enumerate(params):
        params[k] = p - lr * p.grad


def no_longer_requires_grad(params, lr):
    with mg.no_grad():
        for p in params:
            p -= lr * p.grad
            p.requires_grad_(False)


def test_07_sgd_step_solution_in_chinese(chinese, said):
    out = said(lesson07.check_sgd_step, right)
    chinese_only(out)
    assert out.startswith("✓ 手写 SGD 一步（sgd_step）：")


@pytest.mark.parametrize(
    "answer",
    [
        ...,
        None,
        rebinding,
        through_data,
        only_w_through_data,
        no_no_grad,
        ascent,
        no_lr,
        half_lr,
        new_list,
        recorded,
        no_longer_requires_grad,
    ],
)
def test_07_wrong_sgd_steps_in_chinese(chinese, said, answer):
    out = said(lesson07.check_sgd_step, answer)
    chinese_only(out)
    assert out.startswith("✗ 手写 SGD 一步（sgd_step）：还没对。")


def test_07_the_data_habit_is_named_in_chinese(chinese, said):
    out = said(lesson07.check_sgd_step, through_data)
    assert "w 和 b 的版本计数器" in out and "`.data`" in out
    assert "w 的版本计数器" in said(lesson07.check_sgd_step, only_w_through_data)
