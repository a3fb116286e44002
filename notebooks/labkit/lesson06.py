"""Lesson 06 (retain_graph, create_graph): checking a second derivative computed by autograd.

The learner writes `second_derivative(f, x)`. The check runs it on points and functions of its
own and reads the engine's records: the answer must come from two backward passes, the first with
create_graph=True, so a hand-derived formula (numpy or tensor) cannot pass.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .feedback import verdict
from .hints import register
from .language import say

register(
    "06",
    "second derivative",
    "Differentiate twice with autograd: f' from f(x), then the derivative of f'. For the "
    "second step to work, the first gradient needs a graph of its own.",
    "mg.autograd.grad wants a scalar output: as f acts elementwise, the gradient of f(x).sum() "
    "is f'(x) at every point. Pass create_graph=True to that first call.",
    "mg.autograd.grad returns a tuple. Differentiate the sum of the first derivative with "
    "respect to x once more, and return that gradient.",
    zh_title="二阶导数",
    zh=(
        "用 autograd 求两次导：先由 f(x) 求出 f'，再对 f' 求导。要让第二步走得通，第一次求出的"
        "梯度必须有自己的计算图。",
        "mg.autograd.grad 要求输出是标量：f 是逐元素作用的，所以 f(x).sum() 的梯度在每个点上"
        "就是 f'(x)。第一次调用时传入 create_graph=True。",
        "mg.autograd.grad 返回的是元组。把一阶导数求和，再对 x 求一次梯度，返回这个梯度即可。",
    ),
)


def _cases() -> list[tuple[str, Callable[[Any], Any], np.ndarray, np.ndarray, np.ndarray]]:
    """(description, f, points, f', f''): points and a function the notebook never shows."""
    import minigrad as mg

    xs = np.random.default_rng(606).uniform(-2, 2, 4).round(2)
    return [
        (
            say(f"f(x) = x·sin(x) at x = {xs.tolist()}", f"f(x) = x·sin(x)（x = {xs.tolist()}）"),
            lambda x: x * mg.sin(x),
            xs,
            np.sin(xs) + xs * np.cos(xs),
            2 * np.cos(xs) - xs * np.sin(xs),
        ),
        (
            say(
                f"f(x) = x³ + exp(x) at x = {xs.tolist()}",
                f"f(x) = x³ + exp(x)（x = {xs.tolist()}）",
            ),
            lambda x: x**3 + x.exp(),
            xs,
            3 * xs**2 + np.exp(xs),
            6 * xs + np.exp(xs),
        ),
    ]


def _as_array(value: Any) -> np.ndarray | None:
    if hasattr(value, "detach"):
        value = value.detach()
    try:
        return np.asarray(value.tolist() if hasattr(value, "tolist") else value, dtype=float)
    except (TypeError, ValueError):
        return None


def _explain_error(err: Exception) -> str:
    text = str(err)
    if "does not require grad and does not have a grad_fn" in text:
        return say(
            " The first derivative has no graph to differentiate: compute it with "
            "create_graph=True.",
            "一阶导数没有可以再求导的计算图：计算它时传入 create_graph=True。",
        )
    if "backward through the graph a second time" in text:
        return say(
            " The first pass freed f's graph: create_graph=True in the first pass keeps it "
            "(and implies retain_graph).",
            "第一次反向传播已经释放了 f 的计算图：第一次传入 create_graph=True 就能保留它"
            "（它隐含了 retain_graph=True）。",
        )
    if "implicitly created only for scalar outputs" in text:
        return say(
            " Differentiate a scalar: f(x).sum() (f acts elementwise), then first.sum().",
            "请对标量求导：先 f(x).sum()（f 是逐元素作用的），再 first.sum()。",
        )
    if "Can't call numpy()" in text:
        return say(
            " Stay with tensors and autograd; numpy cannot differentiate.",
            "请始终使用张量和 autograd：numpy 不会求导。",
        )
    return ""


def check_second_derivative(second_derivative: Callable[[Callable[[Any], Any], Any], Any]) -> None:
    """`second_derivative(f, x)` must return f''(x) elementwise, by autograd."""
    import minigrad as mg

    v = verdict("second derivative")
    if not v.answered(second_derivative, "`second_derivative`"):
        v.done("")
        return
    if not v.require(
        callable(second_derivative),
        say(
            "`second_derivative` should be a function second_derivative(f, x), not "
            f"{type(second_derivative).__name__}.",
            "`second_derivative` 应该是一个函数 second_derivative(f, x)，而不是 "
            f"{type(second_derivative).__name__}。",
        ),
    ):
        v.done("")
        return
    for label, f, xs, first, second in _cases():
        x = mg.tensor(xs.tolist(), requires_grad=True)
        with mg.autograd.record_steps() as steps:
            try:
                result = second_derivative(f, x)
            except Exception as err:  # the learner's error is feedback, not a crash of the check
                said = str(err).split(". ")[0].rstrip(".")
                v.require(
                    False,
                    say(
                        f"on {label} your function raised {type(err).__name__}: “{said}”.",
                        f"在 {label}上，你的函数抛出了 {type(err).__name__}：“{said}”。",
                    )
                    + _explain_error(err),
                )
                break
        passes = [r for r in steps if r["kind"] == "backward_start"]
        if result is None or result is Ellipsis:
            v.require(
                False,
                say(
                    f"on {label} your function returned {result!r}: return f''(x) (a function "
                    "body of `...` returns None).",
                    f"在 {label}上，你的函数返回了 {result!r}：应该返回 f''(x)"
                    "（函数体只有 `...` 时返回的是 None）。",
                ),
            )
            break
        got = _as_array(result)
        if got is None:
            v.require(
                False,
                say(
                    f"on {label} you returned a {type(result).__name__}: return a tensor of "
                    "f''(x), one value per point.",
                    f"在 {label}上，你返回的是 {type(result).__name__}：应该返回 f''(x) 的张量，"
                    "每个点一个值。",
                ),
            )
            break
        if not passes:
            v.require(
                False,
                say(
                    f"on {label} no backward pass ran: you computed f'' from a formula. The "
                    "exercise is to let autograd do it (mg.autograd.grad twice, the first with "
                    "create_graph=True), so that it works for any f.",
                    f"在 {label}上，一次反向传播都没有运行：你是用公式算出的 f''。这个练习要让 "
                    "autograd 来算（调用两次 mg.autograd.grad，第一次传入 create_graph=True），"
                    "这样对任何 f 都适用。",
                ),
            )
            break
        if got.shape != xs.shape:
            v.require(
                False,
                say(
                    f"on {label} the answer should hold one value per point (shape "
                    f"{xs.shape}), but has shape {got.shape}.",
                    f"在 {label}上，答案应该每个点对应一个值（形状 {xs.shape}），"
                    f"但它的形状是 {got.shape}。",
                ),
            )
            break
        if np.allclose(got, second, rtol=1e-4, atol=1e-4):
            if not passes[0]["create_graph"] or len(passes) < 2:
                v.require(
                    False,
                    say(
                        f"on {label} the values are right, but the engine did not differentiate "
                        "twice with create_graph=True in the first pass: compute f'' by autograd.",
                        f"在 {label}上，数值是对的，但引擎的记录里没有两次反向传播"
                        "（第一次带 create_graph=True）：请让 autograd 算出 f''。",
                    ),
                )
                break
            continue
        v.require(False, say(f"on {label}: ", f"在 {label}上，") + _diagnose(got, first, second))
        break
    v.done(
        say(
            "f'' by autograd, for any f: create_graph=True made the first derivative "
            "differentiable.",
            "f'' 由 autograd 算出，对任何 f 都适用：create_graph=True 让一阶导数可以再求导。",
        )
    )


def _diagnose(got: np.ndarray, first: np.ndarray, second: np.ndarray) -> str:
    def same(a: np.ndarray) -> bool:
        return bool(np.allclose(got, a, rtol=1e-4, atol=1e-4))

    if same(first):
        return say(
            "that is the first derivative: differentiate it once more (compute it with "
            "create_graph=True, then take the grad of it).",
            "这是一阶导数：还要再求一次导（计算它时传入 create_graph=True，再对它求梯度）。",
        )
    if same(first + second):
        return say(
            "that is f' + f'': the second backward() added f'' onto x.grad, which already held "
            "f'. Use mg.autograd.grad, which returns gradients instead of accumulating them.",
            "这是 f' + f''：第二次 backward() 把 f'' 累加到了 x.grad 上，而 x.grad 里已经有 f'。"
            "请用 mg.autograd.grad，它直接返回梯度，而不是累积梯度。",
        )
    if same(2 * second):
        return say(
            "your values are twice f'': the second gradient was added onto x.grad that already "
            "held one; use mg.autograd.grad, which returns gradients instead of accumulating them.",
            "你的结果是 f'' 的两倍：第二个梯度被累加到了已经有一个梯度的 x.grad 上；"
            "请用 mg.autograd.grad，它直接返回梯度，而不是累积梯度。",
        )
    want, have = np.round(second, 4).tolist(), np.round(got, 4).tolist()
    return say(
        f"f''(x) should be {want}, but you got {have}.",
        f"f''(x) 应该是 {want}，但你得到的是 {have}。",
    )
