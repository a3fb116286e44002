"""Lesson 19's checks in Chinese: each solution, and each shortcut named in Chinese."""

from __future__ import annotations

import numpy as np
import pytest
from labkit.lesson19_amp import check_scaled_step
from labkit.lesson19_ddp import check_reducer
from test_chinese_lessons import chinese_only
from test_lesson19 import (
    AllAtTheEnd,
    CopiesAReference,
    CountsDuringNoSync,
    MixedOrder,
    NoNoSync,
    NoSyncDoesNothing,
    OnLeavingNoSync,
    PerParameter,
    ReadsOtherRanks,
    RecomputesInHooks,
    Reducer,
    ReducesWhileBuilding,
    scaled_step,
    stub,
    variant,
    with_minigrads_scaler,
)

# what minigrad or PyTorch itself names stays as it is, quoted inside the Chinese text
LIBRARY = ("GradScaler.__init__",)


def _said_in_chinese(capsys, check, answer) -> str:
    check(answer, gen=np.random.default_rng(3))
    out = capsys.readouterr().out
    chinese_only(out, *LIBRARY)
    return out


@pytest.mark.parametrize(
    "check, answer, title",
    [
        (check_reducer, Reducer, "分桶归约器"),
        (check_scaled_step, scaled_step, "手写损失缩放的一步"),
    ],
)
def test_19_solutions_pass_in_chinese(chinese, capsys, check, answer, title):
    out = _said_in_chinese(capsys, check, answer)
    assert out.startswith(f"✓ {title}："), out


SLIPS = [
    (check_reducer, PerParameter, "分桶归约器", "每个参数调用一次就忽略了桶"),
    (check_reducer, AllAtTheEnd, "分桶归约器", "等整个反向传播结束再归约"),
    (check_reducer, ReadsOtherRanks, "分桶归约器", "读别的副本的 .grad"),
    (check_reducer, OnLeavingNoSync, "分桶归约器", "并没有反向传播在运行"),
    (check_reducer, NoSyncDoesNothing, "分桶归约器", "在 no_sync 里面运行了"),
    (check_reducer, CountsDuringNoSync, "分桶归约器", "在所有副本都写完梯度之前"),
    (check_reducer, CopiesAReference, "分桶归约器", "不是各副本的 backward 写下的梯度"),
    (check_reducer, RecomputesInHooks, "分桶归约器", "自己跑了一次前向或反向传播"),
    (check_reducer, MixedOrder, "分桶归约器", "不是按同样顺序排列的同一组参数"),
    (check_reducer, ReducesWhileBuilding, "分桶归约器", "还在构建时就调用了"),
    (check_reducer, NoNoSync, "分桶归约器", "没有 `no_sync()` 方法"),
    (check_reducer, ..., "分桶归约器", "还是 `...`"),
    (check_scaled_step, with_minigrads_scaler, "手写损失缩放的一步", "不用 GradScaler"),
    (check_scaled_step, variant("no_scale"), "手写损失缩放的一步", "下溢成了 0"),
    (check_scaled_step, variant("no_unscale"), "手写损失缩放的一步", "从来没有除以缩放系数"),
    (check_scaled_step, variant("clip_first"), "手写损失缩放的一步", "去缩放之前"),
    (check_scaled_step, variant("no_inf_check"), "手写损失缩放的一步", "照样更新了"),
    (check_scaled_step, variant("no_return"), "手写损失缩放的一步", "返回了 None"),
    (check_scaled_step, stub, "手写损失缩放的一步", "参数一点都没动"),
    (check_scaled_step, ..., "手写损失缩放的一步", "还是 `...`"),
]


@pytest.mark.parametrize("check, answer, title, words", SLIPS)
def test_19_slips_are_named_in_chinese(chinese, capsys, check, answer, title, words):
    out = _said_in_chinese(capsys, check, answer)
    assert out.startswith(f"✗ {title}：还没对。") and words in out, out
