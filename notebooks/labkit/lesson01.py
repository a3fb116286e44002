"""Lesson 01 (start here): the setup check and the first exercise's check."""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from . import witness
from .demo import verdict_or_demo
from .feedback import Verdict, close
from .hints import register
from .language import say

witness.start_in_kernel()  # the lesson's first cell imports this module

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


def check_first_gradient(answer: Any, x: Any = None, *, demo: bool = False) -> None:
    """f(x) = 3x² + 2x at x = 2: df/dx = 6x + 2 = 14, and it must come from a backward pass.

    The number alone proves nothing (14.0 typed in, 6·x + 2 worked out by hand, a difference
    quotient). The evidence is x itself (the notebook passes it; without it, the leaf whose .grad
    is `answer`, or the notebook's `x`): x.grad must hold 14, and the witness (labkit/witness.py)
    must have seen a backward pass write it, started from f = 3x² + 2x (worth 16 at x = 2) and
    running through x times itself (a pass from 14·x − 12 is worth 16 too, but is linear), and
    x.grad must still hold what that pass left there (not x.grad = ..., .data += or add_ after a
    pass of zeros). PyTorch tensors are told to use minigrad: the witness cannot see torch.
    """
    v = verdict_or_demo("first gradient", demo)
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
        hasattr(answer, "grad_fn") or isinstance(answer, int | float | np.ndarray),
        say(
            f"`answer` should be a tensor (x.grad) or a number, not {type(answer).__name__}.",
            f"`answer` 应当是一个张量（x.grad）或一个数，而不是 {type(answer).__name__}。",
        ),
    ):
        if close(answer, [14.0]) or close(answer, 14.0):
            if _method_ok(v, answer, _leaf_of(answer, x)):
                v.done(
                    say(
                        "df/dx = 6x + 2 = 14 at x = 2, exactly what x.grad holds.",
                        "在 x = 2 处 df/dx = 6x + 2 = 14，正是 x.grad 里的值。",
                    )
                )
                return
        elif close(answer, [16.0]) or close(answer, 16.0):
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


def _leaf_of(answer: Any, x: Any) -> Any:
    """The leaf whose gradient `answer` should be: x as passed, else the leaf a witnessed pass
    wrote whose .grad is `answer`, else the notebook's global `x`."""
    if x is not None:
        return x
    for p in reversed(witness.passes()):
        for ref, _ in p.writes:
            leaf = ref()
            if leaf is not None and leaf.grad is answer:
                return leaf
    frame = inspect.currentframe()
    caller = frame.f_back.f_back if frame and frame.f_back else None
    found = caller.f_globals.get("x") if caller is not None else None
    return found if hasattr(found, "grad_fn") else None


def _method_ok(v: Verdict, answer: Any, x: Any) -> bool:
    """The right number: did a backward pass from f put it into x.grad?"""
    if getattr(answer, "grad_fn", None) is not None:
        return v.require(
            False,
            say(
                f"14 is right, but your `answer` was computed from x with tensor operations (it "
                f"has grad_fn {answer.grad_fn.name()}): that is the derivative worked out by "
                "hand, 6·x + 2. The exercise is to let autograd find it: f.backward(), then "
                "answer = x.grad.",
                f"14 是对的，但你的 `answer` 是用张量运算从 x 算出来的（它有 grad_fn "
                f"{answer.grad_fn.name()}）：这是手推出来的导数 6·x + 2。这道题要让 autograd "
                "去求它：先 f.backward()，再 answer = x.grad。",
            ),
        )
    if _is_torch(x) or _is_torch(answer):
        return v.require(
            False,
            say(
                "14 is right, and PyTorch computed it: but this course's checks watch "
                "minigrad's backward passes, and a PyTorch pass is invisible to them. Make x "
                "with mg.tensor(2.0, requires_grad=True) (minigrad, imported as mg) and run the "
                "same three lines.",
                "14 是对的，而且是 PyTorch 算出来的：但本课程的检查观察的是 minigrad 的反向传播，"
                "PyTorch 的反向传播它们看不到。请用 mg.tensor(2.0, requires_grad=True)"
                "（minigrad，导入为 mg）创建 x，再运行同样的三行。",
            ),
        )
    grad = None if x is None else x.grad
    returned = [
        (p, g) for p in witness.passes() for g in p.kept_for_leaf(x) if g is not None
    ]  # autograd.grad(f, x): a backward pass that hands the gradient back instead
    if grad is None and any(close(answer, g) for _, g in returned):
        return _root_was_f(v, [p for p, g in returned if close(answer, g)], x)
    if grad is None:
        typed = isinstance(answer, int | float | np.ndarray) or not hasattr(answer, "grad_fn")
        return v.require(
            False,
            say(
                "14 is right, but no backward pass produced it: x.grad is still None. "
                + (
                    "A number typed in (or worked out by hand, or a difference quotient) "
                    if typed
                    else "A tensor made from the number (mg.tensor(14.0)) "
                )
                + "skips what the exercise practises: build f from x, call f.backward(), "
                "then answer = x.grad.",
                "14 是对的，但它不是反向传播算出来的：x.grad 还是 None。"
                + (
                    "直接填上这个数（或者手算、用差商算出来）"
                    if typed
                    else "用这个数新建一个张量（mg.tensor(14.0)）"
                )
                + "就跳过了这道题要练的东西：用 x 构造 f，调用 f.backward()，"
                "再令 answer = x.grad。",
            ),
        )
    if not np.allclose(np.ravel(_number(grad)), np.ravel(_number(answer))):
        return v.require(
            False,
            say(
                f"14 is right, but x.grad holds {_show(grad)}: your `answer` did not come from "
                "x.grad. Hand in x.grad itself, after f.backward().",
                f"14 是对的，但 x.grad 里是 {_show(grad)}：你的 `answer` 不是从 x.grad 来的。"
                "请在 f.backward() 之后直接交上 x.grad。",
            ),
        )
    if not witness.running():
        return True  # (outside a kernel, unless a test watches: the value of x.grad is all we have)
    writers = [p for p in witness.passes() if p.wrote(x)]
    if not writers:
        return v.require(
            False,
            say(
                "x.grad holds 14, but no backward pass wrote it: it was assigned by hand "
                "(x.grad = ...). Let f.backward() fill it.",
                "x.grad 里是 14，但不是反向传播写进去的：它是手动赋值的（x.grad = ...）。"
                "请让 f.backward() 去填写它。",
            ),
        )
    left = writers[-1].after_for(x)
    if left is not None and not np.allclose(np.ravel(left), np.ravel(_number(grad))):
        return v.require(
            False,
            say(
                f"x.grad holds 14, but the last backward pass left {_show_array(left)} there: "
                "it was changed by hand afterwards (x.grad = ..., x.grad.data += ..., "
                "x.grad.add_(...)). Hand in what f.backward() wrote, untouched.",
                f"x.grad 里是 14，但最后一次反向传播留在那里的是 {_show_array(left)}："
                "它之后被手动改过（x.grad = ...、x.grad.data += ...、x.grad.add_(...)）。"
                "请交上 f.backward() 写进去的值，不要改动它。",
            ),
        )
    return _root_was_f(v, writers, x)


def _is_torch(value: Any) -> bool:
    return type(value).__module__.split(".")[0] == "torch"


def _root_was_f(v: Verdict, writers: list[witness.Pass], x: Any = None) -> bool:
    """The pass that produced 14 started from f (worth 16 at x = 2), not from a tensor made up
    to give 14 (14 * x, or x.backward(gradient=14))."""
    roots = [value for p in writers for value in p.root_values if value is not None]
    if roots and not any(np.allclose(value, 16.0) for value in roots):
        worth = _show_array(roots[-1])
        return v.require(
            False,
            say(
                f"the 14 is right, but the backward pass that produced it started from a tensor "
                f"worth {worth}, not from f = 3x² + 2x (worth 16 at x = 2): a pass made to "
                "give 14 is not the derivative of f. Call backward on f itself.",
                f"14 是对的，但算出它的那次反向传播是从一个值为 {worth} 的张量开始的，"
                "而不是从 f = 3x² + 2x（在 x = 2 处为 16）开始：为了凑出 14 而做的反向传播"
                "并不是 f 的导数。请对 f 本身调用 backward。",
            ),
        )
    if x is not None and not any(p.squares(x) for p in writers):
        return v.require(
            False,
            say(
                "the 14 is right, but the backward pass that produced it never went through "
                "x² (x times itself): it ran through a tensor made to have slope 14 (such as "
                "14 * x - 12, worth 16 too), not through f = 3x² + 2x. Build f from x as written "
                "and call f.backward().",
                "14 是对的，但算出它的那次反向传播从没经过 x²（x 乘以它自己）：它经过的是一个"
                "为了斜率为 14 而造出来的张量（比如 14 * x - 12，值也是 16），而不是 "
                "f = 3x² + 2x。请照原样用 x 构造 f，再调用 f.backward()。",
            ),
        )
    return True


def _show_array(value: np.ndarray) -> str:
    return f"{value.item():g}" if value.size == 1 else str(value.tolist())


def _number(value: Any) -> Any:
    return value.detach().tolist() if hasattr(value, "detach") else value


def _show(value: Any) -> str:
    return str(value.tolist()) if hasattr(value, "tolist") else repr(value)
