"""Lesson 10 in Chinese: every exercise's feedback, wrong answers and solutions."""

from __future__ import annotations

import pytest
from labkit import lesson10
from test_checks_lessons_08_14 import (
    _function,
    _mask_on_ctx,
    _saves_scale,
    _sign_forward,
    _stub,
    _tanh_backward,
    _tanh_forward,
    _tanh_from_ctx,
    _tanh_on_ctx,
    _true_sign,
    _tuple_not_unpacked,
)
from test_chinese_lessons import chinese_only


def _saves_x(ctx, x, scale):
    ctx.save_for_backward(x)
    ctx.scale = scale
    return x.tanh() * scale


def _one_minus_x2(ctx, g):
    (x,) = ctx.saved_tensors
    return g * ctx.scale * (1 - x * x), None


def test_10_scaled_tanh_solution_in_chinese(chinese, said):
    out = said(lesson10.check_scaled_tanh, _function(_tanh_forward, _tanh_backward))
    chinese_only(out)
    assert out.startswith("✓ 缩放的 tanh（ScaledTanh）：")


@pytest.mark.parametrize(
    "answer",
    [
        ...,
        int,
        _function(_stub, _stub),
        _function(_tanh_forward, _stub),
        _function(_tanh_on_ctx, _tanh_from_ctx),
        _function(_tanh_forward, _tuple_not_unpacked),
        _function(_saves_scale, _tanh_backward),
        _function(lambda ctx, x, scale: x.tanh(), lambda ctx, g: (g, None)),
        _function(lambda ctx, x, scale: [x], lambda ctx, g: (g, None)),
        _function(_tanh_forward, lambda ctx, g: (g * (1 - ctx.saved_tensors[0] ** 2), None)),
        _function(_saves_x, _one_minus_x2),
        _function(_tanh_forward, lambda ctx, g: (g * ctx.scale, None)),
        _function(_tanh_forward, lambda ctx, g: g),
    ],
)
def test_10_scaled_tanh_wrong_answers_in_chinese(chinese, said, answer):
    out = said(lesson10.check_scaled_tanh, answer)
    chinese_only(out)
    assert out.startswith("✗ 缩放的 tanh（ScaledTanh）：还没对。")


def _sign_backward(ctx, g):
    (x,) = ctx.saved_tensors
    return g * (x.abs() <= 1)


def _strict_mask(ctx, g):
    (x,) = ctx.saved_tensors
    return g * (x.abs() < 1)


def test_10_sign_ste_solution_in_chinese(chinese, said):
    out = said(lesson10.check_sign_ste, _function(_sign_forward, _sign_backward))
    chinese_only(out)
    assert out.startswith("✓ 带直通估计器的符号函数：")


@pytest.mark.parametrize(
    "answer",
    [
        ...,
        3,
        _function(_stub, _stub),
        _function(_sign_forward, _stub),
        _function(_true_sign, lambda ctx, g: g),
        _function(lambda ctx, x: x * 2, lambda ctx, g: g),
        _function(_sign_forward, lambda ctx, g: g * 0),
        _function(_sign_forward, lambda ctx, g: g),
        _function(_sign_forward, _strict_mask),
        _function(_sign_forward, lambda ctx, g: g.clamp(-1, 1)),
        _function(_sign_forward, lambda ctx, g: g * 2),
        _function(_sign_forward, lambda ctx, g: (g, None)),
        _function(_mask_on_ctx, lambda ctx, g: g * ctx.mask),
    ],
)
def test_10_sign_ste_wrong_answers_in_chinese(chinese, said, answer):
    out = said(lesson10.check_sign_ste, answer)
    chinese_only(out)
    assert out.startswith("✗ 带直通估计器的符号函数：还没对。")
