"""Lesson 19, part 2: a loss-scaled float16 step written by hand, checked against GradScaler.

`scaled_step(loss, model, opt, scale, max_norm) -> bool` gets a loss whose forward ran under
float16 autocast on a model the learner never saw, with small gradients that flush to zero
unless the loss is scaled. It must do what `GradScaler.scale / unscale_ / clip / step` does:
backward of the scaled loss, gradients divided back BEFORE clipping, and no step at all when a
gradient holds an inf or NaN. The check runs three cases per call (clipping active, clipping
idle, an overflowing scale) and compares the parameters after the step with GradScaler's; when
they differ it also runs each typical mistake itself and names the one that matches. GradScaler
(minigrad's or torch's) called by the learner is seen and refused.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import minigrad as mg

from .calls import calls_where
from .feedback import Verdict, verdict
from .hints import register
from .language import say

register(
    "19",
    SCALED := "a loss-scaled step",
    "Backward of `loss * scale`, not of `loss`: the float16 gradients inside are then `scale` "
    "times larger and no longer round to 0.",
    "Before anything reads the gradients, divide every `p.grad` by `scale` in place "
    "(`p.grad.div_(scale)`): clipping a scaled gradient clips the wrong size.",
    "If any gradient is not finite (`not p.grad.isfinite().all()`), return False without "
    "stepping; otherwise `mg.nn.utils.clip_grad_norm_(model.parameters(), max_norm)`, "
    "`opt.step()`, return True.",
    zh_title="手写损失缩放的一步",
    zh=(
        "对 `loss * scale` 做 backward，而不是对 `loss`：这样里面的 float16 梯度大了 `scale` "
        "倍，就不会再被舍入成 0。",
        "在任何代码读梯度之前，先把每个 `p.grad` 原地除以 `scale`（`p.grad.div_(scale)`）："
        "对放大过的梯度做裁剪，裁的是错的大小。",
        "只要有一个梯度不是有限值（`not p.grad.isfinite().all()`），就不更新，返回 False；"
        "否则 `mg.nn.utils.clip_grad_norm_(model.parameters(), max_norm)`，`opt.step()`，"
        "返回 True。",
    ),
)

_SCALER_FILES = ("minigrad/amp/grad_scaler.py", "torch/amp/grad_scaler.py", "cuda/amp/grad_scaler")


def _scaler_name(code: Any) -> str | None:
    """GradScaler's methods, minigrad's or torch's, by the file that defines them."""
    file = Path(code.co_filename).as_posix()
    if any(part in file for part in _SCALER_FILES) and code.co_qualname.startswith("GradScaler"):
        return code.co_qualname
    return None


class _Case:
    """One unseen problem: a small model, float16 forward, a loss small enough to underflow."""

    def __init__(self, gen: np.random.Generator) -> None:
        self.seed = int(gen.integers(1, 10_000))
        self.d, self.h, self.n = int(gen.integers(4, 9)), int(gen.integers(8, 17)), 16
        self.x = gen.normal(size=(self.n, self.d)).astype(np.float32)
        self.y = gen.normal(size=(self.n, 1)).astype(np.float32)
        self.small = float(gen.uniform(2e-7, 5e-7))  # most float16 gradients < 6e-8 without scale
        self.lr = 1.0  # set by `_cases` so that one step moves the weights visibly

    def setup(self) -> tuple[mg.nn.Module, Any, mg.Tensor]:
        """The model, an SGD with momentum (Adam would hide a wrong scale) and the loss."""
        mg.manual_seed(self.seed)
        model = mg.nn.Sequential(
            mg.nn.Linear(self.d, self.h), mg.nn.Tanh(), mg.nn.Linear(self.h, 1)
        )
        opt = mg.optim.SGD(model.parameters(), lr=self.lr, momentum=0.9)
        with mg.amp.autocast("cpu", dtype=mg.float16):
            out = model(mg.tensor(self.x))
            loss = mg.nn.functional.mse_loss(out, mg.tensor(self.y)) * self.small
        return model, opt, loss


def _params(model: mg.nn.Module) -> list[np.ndarray]:
    return [p.detach().numpy().copy() for p in model.parameters()]


def _finite(model: mg.nn.Module) -> bool:
    return all(p.grad is None or p.grad.isfinite().all().item() for p in model.parameters())


def _variant(case: _Case, scale: float, max_norm: float, mistake: str) -> tuple[list, bool]:
    """The parameters after one step done GradScaler's way ("right"), or with one mistake."""
    model, opt, loss = case.setup()
    params = list(model.parameters())
    if mistake == "right":
        scaler = mg.amp.GradScaler("cpu", init_scale=scale)
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        stepped = _finite(model)
        mg.nn.utils.clip_grad_norm_(params, max_norm)
        scaler.step(opt)
        return _params(model), stepped
    (loss if mistake == "no_scale" else loss * scale).backward()
    finite = _finite(model)
    with mg.no_grad():
        if mistake == "clip_first":
            mg.nn.utils.clip_grad_norm_(params, max_norm)
        if mistake not in ("no_scale", "no_unscale"):
            for p in params:
                p.grad.div_(scale)
        if mistake != "clip_first":
            mg.nn.utils.clip_grad_norm_(params, max_norm)
    if finite or mistake == "no_inf_check":
        opt.step()
    return _params(model), finite or mistake == "no_inf_check"


def _same(a: list[np.ndarray], b: list[np.ndarray], before: list[np.ndarray]) -> bool:
    """The same step: each parameter's change equal to a thousandth of the largest change."""
    moves = [y - b0 for y, b0 in zip(b, before, strict=True)]
    if not all(np.isfinite(m).all() for m in moves):
        return False
    size = max(float(np.abs(m).max()) for m in moves) or 1e-3
    return all(
        x.shape == y.shape and np.allclose(x - b0, m, rtol=0, atol=1e-3 * size)
        for x, y, b0, m in zip(a, b, before, moves, strict=True)
    )


def _mistake_words(mistake: str) -> str:
    return {
        "no_scale": say(
            "the step matches one whose backward ran on the UNSCALED loss: the float16 "
            "gradients underflowed to 0. Call backward on `loss * scale`.",
            "这一步和对**未缩放**的损失做 backward 的结果一样：float16 梯度下溢成了 0。"
            "请对 `loss * scale` 调用 backward。",
        ),
        "no_unscale": say(
            "the gradients were never divided by the scale: the step used gradients `scale` "
            "times too large. Divide every `.grad` by `scale` before clipping.",
            "梯度从来没有除以缩放系数：这一步用的梯度大了 `scale` 倍。"
            "请在裁剪之前把每个 `.grad` 除以 `scale`。",
        ),
        "clip_first": say(
            "you clipped BEFORE unscaling: the clip measured the scaled norm, so the gradients "
            "ended up far too small. Unscale first, then clip (GradScaler's `unscale_` comes "
            "before `clip_grad_norm_`).",
            "你在**去缩放之前**做了裁剪：裁剪量的是放大后的范数，结果梯度被缩得太小。先去缩放，"
            "再裁剪（GradScaler 的 `unscale_` 在 `clip_grad_norm_` 之前）。",
        ),
        "no_inf_check": say(
            "a gradient held inf/NaN and you stepped anyway: the parameters are now broken. "
            "Check every gradient with `isfinite()` and skip the step (return False).",
            "有梯度是 inf/NaN，你却照样更新了：参数已经坏掉了。用 `isfinite()` 检查每个梯度，"
            "遇到这种情况跳过这一步（返回 False）。",
        ),
    }[mistake]


def _cases(gen: np.random.Generator) -> list[tuple[_Case, float, float]]:
    """(problem, scale, max_norm): clipping active, clipping idle, and an overflowing scale."""
    case = _Case(gen)
    scale = float(2 ** int(gen.integers(14, 18)))
    model, _, loss = case.setup()
    (loss * scale).backward()
    norm = float(np.sqrt(sum(((p.grad.numpy() / scale) ** 2).sum() for p in model.parameters())))
    case.lr = 0.05 / norm
    big = scale
    while _finite(model):  # double the scale until the float16 backward overflows
        big *= 2.0**6
        model, _, loss = case.setup()
        (loss * big).backward()
    return [
        (case, scale, 0.5 * norm),
        (case, scale, 3.0 * norm),
        (case, big, 0.5 * norm),
    ]


def check_scaled_step(scaled_step: Any, *, gen: np.random.Generator | None = None) -> bool:
    """`scaled_step(loss, model, opt, scale, max_norm) -> bool` steps as GradScaler would."""
    v: Verdict = verdict(SCALED)
    if not v.answered(scaled_step, "scaled_step"):
        return v.done("")
    gen = gen if gen is not None else np.random.default_rng()
    with np.errstate(all="ignore"):  # an overflowing step makes inf and NaN on purpose
        for case, scale, max_norm in _cases(gen):
            if not _one_case(v, scaled_step, case, scale, max_norm):
                return v.done("")
    return v.done(
        say(
            "the same parameters as GradScaler's scale → unscale_ → clip → step, with the clip "
            "active and idle, and the overflowing step skipped.",
            "与 GradScaler 的 scale → unscale_ → clip → step 得到的参数相同（裁剪生效和不生效时"
            "都一样），溢出的那一步也跳过了。",
        )
    )


def _one_case(
    v: Verdict, scaled_step: Callable, case: _Case, scale: float, max_norm: float
) -> bool:
    """Run the learner's step on one case; False (with the problem noted) when it is wrong."""
    model, opt, loss = case.setup()
    before = _params(model)
    try:
        with calls_where(_scaler_name) as called:
            stepped = scaled_step(loss, model, opt, scale, max_norm)
    except Exception as err:  # the learner's code
        return v.require(
            False,
            say(
                f"scaled_step raised {type(err).__name__}: {err}",
                f"scaled_step 抛出了 {type(err).__name__}：{err}",
            ),
        )
    if called.switched_off:
        return v.require(False, called.switched_off_message())
    if called:
        return v.require(
            False,
            say(
                f"scaled_step called {called[0]}: this exercise is the scaler written by hand "
                "(scale, unscale, check for inf, clip, step), without GradScaler.",
                f"scaled_step 调用了 {called[0]}：这道练习是要你亲手写出缩放器（缩放、去缩放、"
                "检查 inf、裁剪、更新），不用 GradScaler。",
            ),
        )
    want, want_stepped = _variant(case, scale, max_norm, "right")
    got = _params(model)
    unmoved = all(np.array_equal(g, b) for g, b in zip(got, before, strict=True))
    if unmoved and want_stepped:
        return v.require(
            False,
            say(
                "the parameters did not move: scaled_step must run the backward of the scaled "
                "loss and, when every gradient is finite, call `opt.step()`.",
                "参数一点都没动：scaled_step 要对缩放后的损失做 backward，并且在所有梯度都是"
                "有限值时调用 `opt.step()`。",
            ),
        )
    if not _same(got, want, before):
        for mistake in ("no_scale", "no_unscale", "clip_first", "no_inf_check"):
            wrong, _ = _variant(case, scale, max_norm, mistake)
            if _same(got, wrong, before) or (mistake == "no_inf_check" and not want_stepped):
                return v.require(False, _mistake_words(mistake))
        return v.require(
            False,
            say(
                "the parameters after your step differ from GradScaler's (scale the loss, "
                "backward, unscale, clip to max_norm, step).",
                "你这一步之后的参数与 GradScaler 的不同（缩放损失、backward、去缩放、裁剪到 "
                "max_norm、更新）。",
            ),
        )
    if stepped is None or bool(stepped) != want_stepped:
        return v.require(
            False,
            say(
                f"scaled_step returned {stepped!r}; return True when it stepped and False when "
                "it skipped the step"
                + (" (this one had an inf: skipped)." if not want_stepped else "."),
                f"scaled_step 返回了 {stepped!r}；更新了就返回 True，跳过了就返回 False"
                + ("（这一次有 inf：应当跳过）。" if not want_stepped else "。"),
            ),
        )
    return True
