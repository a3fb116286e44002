"""Lesson 09 in Chinese: every exercise's feedback, wrong answers and solutions."""

from __future__ import annotations

import pytest
from labkit import lesson09
from test_checks_lessons_08_14 import _monitor
from test_chinese_lessons import chinese_only


def _clip(limit):
    return lambda grad: grad.clamp(-limit, limit)


def _clip_stub(limit): ...


def _clip_in_place(limit):
    def hook(grad):
        grad.clamp_(-limit, limit)

    return hook


def test_09_clip_hook_solution_in_chinese(chinese, said):
    out = said(lesson09.check_clip_hook, _clip)
    chinese_only(out)
    assert out.startswith("✓ 裁剪钩子：")


@pytest.mark.parametrize(
    "make_hook",
    [
        ...,
        3,
        _clip_stub,
        _clip_in_place,
        lambda limit: 5,
        lambda limit: lambda g: None,
        lambda limit: lambda g: [0.0],
        lambda limit: lambda g: g.clamp(0.0, limit),
        lambda limit: lambda g: g.clamp(max=limit),
        lambda limit: lambda g: g * (limit / g.norm()),
        lambda limit: lambda g: g * 0.5,
        lambda limit: lambda g: g * 2,
        lambda limit: lambda g: g.clamp(-2.0, 2.0),
    ],
)
def test_09_clip_hook_wrong_answers_in_chinese(chinese, said, make_hook):
    out = said(lesson09.check_clip_hook, make_hook)
    chinese_only(out)
    assert out.startswith("✗ 裁剪钩子：还没对。")


def test_09_clip_hook_calling_real_torch_in_chinese(chinese, said):
    torch = pytest.importorskip("torch")
    out = said(lesson09.check_clip_hook, lambda limit: lambda g: torch.clamp(g, -limit, limit))
    chinese_only(out)
    assert out.startswith("✗ 裁剪钩子：还没对。") and "PyTorch" in out


def test_09_watch_gradients_solution_in_chinese(chinese, said):
    out = said(lesson09.check_watch_gradients, _monitor("right"))
    chinese_only(out)
    assert out.startswith("✓ 梯度监视器：")


def _watch_stub(model, norms): ...


@pytest.mark.parametrize(
    "watch",
    [
        ...,
        _watch_stub,
        _monitor("late binding"),
        _monitor("tensor hook reads .grad"),
        _monitor("tensors"),
        _monitor("overwrite"),
        _monitor("no setdefault"),
        _monitor("no handles"),
        _monitor("wrong norm"),
        _monitor("nothing"),
    ],
)
def test_09_watch_gradients_wrong_answers_in_chinese(chinese, said, watch):
    out = said(lesson09.check_watch_gradients, watch)
    chinese_only(out)
    assert out.startswith("✗ 梯度监视器：还没对。")
