"""Lesson 17's checks in Chinese: each solution, and each bug or shortcut named in Chinese."""

from __future__ import annotations

import warnings

import pytest
from labkit import lesson17
from test_chinese_lessons import chinese_only
from test_lesson17 import (
    BuiltinAutograd,
    CallsForward,
    InNumpy,
    NoChainRule,
    OnCtx,
    QuotientInFloat64,
    Right,
    SavesSigmoid,
    SigmoidOnly,
    ThroughTorch,
    backward_inside,
    compressing_hooks,
    detached_midway,
    finite_differences,
    in_half,
    loss_only,
    no_step,
    numpy_loss,
    on_parameters,
    penalty,
    per_block,
    plain,
    reentrant,
    reentrant_by_default,
    script,
    under_no_grad,
    whole_chain,
)

# what minigrad or PyTorch itself says stays as it is, quoted inside the Chinese text
LIBRARY = ("AccumulateGrad", "SigmoidBackward0", "ClampBackward1", "MulBackward0")


def _said_in_chinese(said, check, answer) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = said(check, answer)
    chinese_only(out, *LIBRARY)
    return out


@pytest.mark.parametrize(
    "check, answer, title",
    [
        (lesson17.check_train, script(), "训练脚本"),
        (lesson17.check_silu, Right, "把 SiLU 写成 Function"),
        (lesson17.check_penalty, penalty(), "梯度惩罚"),
        (lesson17.check_checkpointed, per_block, "分块检查点"),
    ],
)
def test_17_solutions_pass_in_chinese(chinese, said, check, answer, title):
    out = _said_in_chinese(said, check, answer)
    assert out.startswith(f"✓ {title}："), out


SLIPS = [
    (lesson17.check_train, script(write="in_place"), "训练脚本", "原地修改"),
    (lesson17.check_train, script(write="in_place", catch=True), "训练脚本", "try/except"),
    (lesson17.check_train, script(write="data"), "训练脚本", "绕过了版本计数器"),
    (lesson17.check_train, script(write="none"), "训练脚本", "NaN"),
    (lesson17.check_train, script(broadcast=True), "训练脚本", "仍然有广播"),
    (lesson17.check_train, script(zero=False), "训练脚本", "历史梯度之和"),
    (lesson17.check_train, numpy_loss, "训练脚本", "一次反向传播都没有"),
    (lesson17.check_train, no_step, "训练脚本", "参数从未改变"),
    (lesson17.check_train, ..., "训练脚本", "还是 `...`"),
    (lesson17.check_silu, NoChainRule, "把 SiLU 写成 Function", "链式法则"),
    (lesson17.check_silu, SigmoidOnly, "把 SiLU 写成 Function", "乘积法则"),
    (lesson17.check_silu, InNumpy, "把 SiLU 写成 Function", "没法再求导"),
    (lesson17.check_silu, ThroughTorch, "把 SiLU 写成 Function", "PyTorch 的 autograd"),
    (lesson17.check_silu, BuiltinAutograd, "把 SiLU 写成 Function", "又跑了一次反向传播"),
    (lesson17.check_silu, CallsForward, "把 SiLU 写成 Function", "数值求导"),
    (lesson17.check_silu, QuotientInFloat64, "把 SiLU 写成 Function", "差商"),
    (lesson17.check_silu, SavesSigmoid, "把 SiLU 写成 Function", "常数"),
    (lesson17.check_silu, OnCtx, "把 SiLU 写成 Function", "属性"),
    (lesson17.check_silu, ..., "把 SiLU 写成 Function", "还是 `...`"),
    (lesson17.check_penalty, penalty("no_create_graph"), "梯度惩罚", "没有任何贡献"),
    (lesson17.check_penalty, penalty("detach"), "梯度惩罚", "断开"),
    (lesson17.check_penalty, penalty("backward"), "梯度惩罚", "已经有 `.grad`"),
    (lesson17.check_penalty, penalty("norm"), "梯度惩罚", "平方"),
    (lesson17.check_penalty, penalty("unweighted"), "梯度惩罚", "weight"),
    (lesson17.check_penalty, on_parameters, "梯度惩罚", "对参数的梯度"),
    (lesson17.check_penalty, finite_differences, "梯度惩罚", "有限差分"),
    (lesson17.check_penalty, loss_only, "梯度惩罚", "没有运行任何反向传播"),
    (lesson17.check_penalty, ..., "梯度惩罚", "还是 `...`"),
    (lesson17.check_checkpointed, plain, "分块检查点", "没有任何重算"),
    (lesson17.check_checkpointed, whole_chain, "分块检查点", "单独做检查点"),
    (lesson17.check_checkpointed, reentrant, "分块检查点", "use_reentrant=False"),
    (lesson17.check_checkpointed, reentrant_by_default, "分块检查点", "不写 use_reentrant"),
    (lesson17.check_checkpointed, under_no_grad, "分块检查点", "没有计算图"),
    (lesson17.check_checkpointed, in_half, "分块检查点", "降低精度"),
    (lesson17.check_checkpointed, compressing_hooks, "分块检查点", "钩子"),
    (lesson17.check_checkpointed, detached_midway, "分块检查点", "没有得到梯度"),
    (lesson17.check_checkpointed, backward_inside, "分块检查点", "自己运行了反向传播"),
    (lesson17.check_checkpointed, ..., "分块检查点", "还是 `...`"),
]


@pytest.mark.parametrize("check, answer, title, words", SLIPS)
def test_17_slips_are_named_in_chinese(chinese, said, check, answer, title, words):
    out = _said_in_chinese(said, check, answer)
    assert out.startswith(f"✗ {title}：还没对。") and words in out, out
