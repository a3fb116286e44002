"""Lesson 01 (start here): the setup check and the first exercise's check."""

from __future__ import annotations

from typing import Any

from .feedback import close, verdict
from .hints import register
from .language import say

register(
    "01",
    "first gradient",
    "Three steps: build f from x, call f.backward(), then read the gradient where backward "
    "left it.",
    "f is a one-element tensor, so its backward() needs no argument; afterwards the slope at "
    "x = 2 is in x.grad.",
    zh_title="第一个梯度",
    zh=(
        "三步：用 x 构造 f，调用 f.backward()，然后到 backward 存放梯度的地方去读它。",
        "f 是只有一个元素的张量，所以它的 backward() 不需要参数；调用之后，x = 2 处的斜率就在 "
        "x.grad 里。",
    ),
)


def setup_check() -> None:
    """Say, line by line, whether everything the lessons need is in place.

    A learner on a broken install should learn *which* piece is missing and how to get it, here in
    lesson 01, rather than from a traceback in the middle of lesson 05.
    """
    ok = True
    try:
        import minigrad

        x = minigrad.tensor([3.0], requires_grad=True)
        (x * x).sum().backward()
        works = x.grad is not None and close(x.grad, [6.0])
        print(
            say(
                f"{'✓' if works else '✗'} minigrad {minigrad.__version__} imports and "
                "differentiates",
                f"{'✓' if works else '✗'} minigrad {minigrad.__version__} 可以导入，也能求导",
            )
        )
        ok &= works
    except Exception as err:  # any failure here is what the learner must read about
        print(
            say(
                f"✗ minigrad does not import: {err}. Run `pip install -e .` in the repository.",
                f"✗ 无法导入 minigrad：{err}。请在仓库根目录运行 `pip install -e .`。",
            )
        )
        return

    try:
        from widgets import draw_graph

        y = (x * 2).sum()
        svg = draw_graph(y).svg()
        drawn = "<svg" in svg
        print(
            say(
                f"{'✓' if drawn else '✗'} the graph explorer draws a tiny graph",
                f"{'✓' if drawn else '✗'} 计算图浏览器能画出一个小计算图",
            )
        )
        ok &= drawn
    except Exception as err:
        ok = False
        print(
            say(
                f"✗ the graph explorer could not draw: {type(err).__name__}: {err}",
                f"✗ 计算图浏览器画不出图：{type(err).__name__}: {err}",
            )
        )
    print(
        say("All set: on to the lessons!", "一切就绪：开始上课吧！")
        if ok
        else say("Fix the ✗ lines above before you go on.", "请先解决上面标 ✗ 的行，再继续。")
    )


def check_first_gradient(answer: Any) -> None:
    """f(x) = 3x² + 2x at x = 2: df/dx = 6x + 2 = 14."""
    v = verdict("first gradient")
    if not v.answered(answer, "`answer`"):
        v.done("")
        return
    if answer is None:
        v.require(
            False,
            say(
                "`answer` is None: x.grad stays None until a backward pass reaches x. "
                "Call f.backward() before reading x.grad.",
                "`answer` 是 None：在反向传播到达 x 之前，x.grad 一直是 None。"
                "请先调用 f.backward()，再读取 x.grad。",
            ),
        )
        v.done("")
        return
    if v.require(
        hasattr(answer, "grad_fn") or isinstance(answer, int | float),
        say(
            f"`answer` should be a tensor (x.grad) or a number, not {type(answer).__name__}.",
            f"`answer` 应当是一个张量（x.grad）或一个数，而不是 {type(answer).__name__}。",
        ),
    ):
        if close(answer, [14.0]) or close(answer, 14.0):
            v.done(
                say(
                    "df/dx = 6x + 2 = 14 at x = 2, exactly what x.grad holds.",
                    "在 x = 2 处 df/dx = 6x + 2 = 14，正是 x.grad 里的值。",
                )
            )
            return
        if close(answer, [16.0]) or close(answer, 16.0):
            v.require(
                False,
                say(
                    "you got 16, the value of f(2) = 3·4 + 2·2, not its slope: "
                    "read x.grad after f.backward().",
                    "你得到的是 16，即函数值 f(2) = 3·4 + 2·2，而不是它的斜率："
                    "请在 f.backward() 之后读取 x.grad。",
                ),
            )
        elif hasattr(answer, "grad_fn") and answer.numel() != 1:
            v.require(
                False,
                say(
                    f"`answer` should hold one number, got {answer!r}.",
                    f"`answer` 应当只含一个数，你给的是 {answer!r}。",
                ),
            )
        elif close(answer, [2.0]) or close(answer, 2.0):
            v.require(
                False,
                say(
                    "you handed in x itself (2): the gradient is in x.grad.",
                    "你交上来的是 x 本身（2）：梯度在 x.grad 里。",
                ),
            )
        elif close(answer, [28.0]) or close(answer, 28.0):
            v.require(
                False,
                say(
                    "you got 28 = 2 × 14: did you call backward twice? Gradients add "
                    "up (lesson 05); rebuild x before running again.",
                    "你得到的是 28 = 2 × 14：是不是调用了两次 backward？梯度会累加"
                    "（第 05 课）；再次运行前请重新创建 x。",
                ),
            )
        else:
            v.require(
                False,
                say(
                    f"x.grad should be 6·x + 2 = 14 at x = 2 (the derivative of "
                    f"3x² + 2x), but you got {_show(answer)}.",
                    f"在 x = 2 处 x.grad 应当是 6·x + 2 = 14（3x² + 2x 的导数），"
                    f"而你得到的是 {_show(answer)}。",
                ),
            )
    v.done("")


def _show(value: Any) -> str:
    return str(value.tolist()) if hasattr(value, "tolist") else repr(value)
