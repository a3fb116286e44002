"""Lesson 09 in Chinese: every exercise's feedback, wrong answers and solutions."""

from __future__ import annotations

import pytest
from labkit import lesson09
from test_chinese_lessons import CJK, ENGLISH_RUN


def chinese_only(out: str) -> None:
    assert CJK.search(out), out
    for line in out.splitlines():
        assert not ENGLISH_RUN.search(line), f"English left in: {line!r}"


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


def _monitor(kind: str):
    def watch(model, norms):
        handles = []
        for name, p in model.named_parameters():
            if kind != "no setdefault":
                norms[name] = []
            if kind == "late binding":
                hook = lambda t: norms[name].append(t.grad.norm().item())  # noqa: E731, B023
                handles.append(p.register_post_accumulate_grad_hook(hook))
            elif kind == "tensor hook reads .grad":
                hook = lambda g, p=p, name=name: norms[name].append(p.grad.norm().item())  # noqa: E731
                handles.append(p.register_hook(hook))
            elif kind == "tensors":
                hook = lambda t, name=name: norms[name].append(t.grad.norm())  # noqa: E731
                handles.append(p.register_post_accumulate_grad_hook(hook))
            elif kind == "overwrite":
                hook = lambda t, name=name: norms.__setitem__(name, [t.grad.norm().item()])  # noqa: E731
                handles.append(p.register_post_accumulate_grad_hook(hook))
            elif kind == "no setdefault":
                hook = lambda t, name=name: norms[name].append(t.grad.norm().item())  # noqa: E731
                handles.append(p.register_post_accumulate_grad_hook(hook))
            elif kind in ("right", "no handles", "wrong norm"):
                scale = 2.0 if kind == "wrong norm" else 1.0
                hook = lambda t, name=name, s=scale: norms[name].append(s * t.grad.norm().item())  # noqa: E731
                handles.append(p.register_post_accumulate_grad_hook(hook))
        return [] if kind == "no handles" else handles

    return watch


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
