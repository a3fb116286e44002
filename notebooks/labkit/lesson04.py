"""Lesson 04 (backward in depth): checking a Jacobian function built from backward passes.

The learner writes `jacobian(f, x)`. The check calls it on points and on a function the notebook
never shows, so a matrix copied from the lesson's table cannot pass, and it counts the backward
passes the engine ran, so a formula or finite differences cannot pass either.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .feedback import verdict
from .hints import register
from .jacobians import same, slip
from .language import say

register(
    "04",
    "Jacobian from backward",
    "Row i of the Jacobian is the gradient of the single output y[i]: one backward pass per "
    "output, each with a gradient vector that picks out that output.",
    "For output i the vector is one-hot: 1 at position i, 0 elsewhere, shaped like y. "
    "mg.autograd.grad(y, x, grad_outputs=onehot, retain_graph=True) returns that row and "
    "leaves x.grad alone.",
    "Loop i over range(len(y)), not a fixed 3 (the check uses other functions too), collect "
    "the rows and stack them: mg.stack(rows) has shape (outputs, inputs).",
    zh_title="用反向传播求雅可比矩阵",
    zh=(
        "雅可比矩阵的第 i 行，就是单个输出 y[i] 的梯度：每个输出做一次反向传播，"
        "每次用一个只挑出该输出的梯度向量。",
        "对输出 i，这个向量是 one-hot 的：第 i 个位置为 1，其余为 0，形状与 y 相同。"
        "mg.autograd.grad(y, x, grad_outputs=onehot, retain_graph=True) 返回这一行，"
        "并且不动 x.grad。",
        "让 i 遍历 range(len(y))，而不是写死的 3（检查时还会用别的函数），把各行收集起来"
        "再堆叠：mg.stack(rows) 的形状是 (输出数, 输入数)。",
    ),
)

# The lesson's table: the Jacobian of f(x) = [x0 * x1, x0 + x1**2, sin(x0)] at x = (1, 2).
TABLE = np.array([[2.0, 1.0], [1.0, 4.0], [math.cos(1.0), 0.0]])


def _lesson_f(x: Any) -> Any:
    import minigrad as mg

    return mg.stack([x[0] * x[1], x[0] + x[1] ** 2, mg.sin(x[0])])


def _lesson_jacobian(p: np.ndarray) -> np.ndarray:
    return np.array([[p[1], p[0]], [1.0, 2 * p[1]], [math.cos(p[0]), 0.0]])


def _wide_f(x: Any) -> Any:
    import minigrad as mg

    return mg.stack([x[0] * x[1] * x[2], x[2].exp() - x[0]])


def _wide_jacobian(p: np.ndarray) -> np.ndarray:
    return np.array([[p[1] * p[2], p[0] * p[2], p[0] * p[1]], [-1.0, 0.0, math.exp(p[2])]])


def _cases() -> list[tuple[str, Callable[[Any], Any], np.ndarray, np.ndarray]]:
    """(description, f, point, Jacobian there): points the notebook never prints."""
    rng = np.random.default_rng(404)
    p1 = rng.uniform(-2, 2, 2).round(2)
    p2 = rng.uniform(-1, 1, 3).round(2)
    return [
        (
            say(f"the lesson's f at x = {p1.tolist()}", f"本课的 f（x = {p1.tolist()}）"),
            _lesson_f,
            p1,
            _lesson_jacobian(p1),
        ),
        (
            say(
                f"f(x) = [x0·x1·x2, exp(x2) − x0] (2 outputs, 3 inputs) at x = {p2.tolist()}",
                f"函数 f(x) = [x0·x1·x2, exp(x2) − x0]（2 个输出，3 个输入；x = {p2.tolist()}）",
            ),
            _wide_f,
            p2,
            _wide_jacobian(p2),
        ),
    ]


def _as_array(value: Any) -> np.ndarray | None:
    if isinstance(value, list | tuple) and value and all(hasattr(v, "detach") for v in value):
        value = [v.detach().tolist() for v in value]  # a list of row tensors
    if hasattr(value, "detach"):
        value = value.detach()
    if hasattr(value, "tolist"):
        value = value.tolist()
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return None


def _explain_error(err: Exception) -> str:
    """What a typical error inside the learner's function means, in the lesson's words."""
    text = str(err)
    if "backward through the graph a second time" in text:
        return say(
            "The first pass freed the graph's saved values: pass retain_graph=True to the "
            "passes (lesson 06 explains why).",
            "第一次反向传播释放了计算图里保存的张量：请给各次反向传播传入 retain_graph=True"
            "（第 06 课会解释原因）。",
        )
    if "implicitly created only for scalar outputs" in text:
        return say(
            "Your y has several elements, so each pass needs a gradient vector: backward(gradient="
            "onehot) or mg.autograd.grad(y, x, grad_outputs=onehot).",
            "你的 y 有多个元素，所以每次反向传播都需要一个梯度向量：backward(gradient=onehot) "
            "或 mg.autograd.grad(y, x, grad_outputs=onehot)。",
        )
    if "Mismatch in shape" in text:
        return say(
            "The one-hot vector must have y's shape, one entry per output: read its length "
            "from y instead of fixing it.",
            "one-hot 向量的形状必须和 y 相同，每个输出对应一个元素：它的长度要从 y 读出来，"
            "而不是写死。",
        )
    if isinstance(err, IndexError):
        return say(
            "Read the sizes from y and x (len(y), len(x)) instead of fixing them.",
            "请从 y 和 x 读出大小（len(y)、len(x)），而不是写死。",
        )
    if "does not require grad" in text or "not have been used in the graph" in text:
        return say(
            "Differentiate with respect to the x your function was given (the one f used); "
            "it already requires grad, so do not make a new one.",
            "请对传给你的函数的那个 x（也就是 f 用到的那个）求导；它已经需要梯度了，"
            "不要再新建一个。",
        )
    return ""


def check_jacobian(jacobian: Callable[[Callable[[Any], Any], Any], Any]) -> None:
    """`jacobian(f, x)[i][j]` must be dy_i/dx_j, for functions and points chosen here."""
    import minigrad as mg

    v = verdict("Jacobian from backward")
    if not v.answered(jacobian, "`jacobian`"):
        v.done("")
        return
    if not v.require(
        callable(jacobian),
        say(
            f"`jacobian` should be a function jacobian(f, x), not {type(jacobian).__name__}.",
            f"`jacobian` 应当是一个函数 jacobian(f, x)，而不是 {type(jacobian).__name__}。",
        ),
    ):
        v.done("")
        return
    for label, f, point, want in _cases():
        x = mg.tensor(point.tolist(), requires_grad=True)
        with mg.autograd.record_steps() as steps:
            try:
                result = jacobian(f, x)
            except Exception as err:  # the learner's error is feedback, not a crash of the check
                first = str(err).split(". ")[0].rstrip(".")
                v.require(
                    False,
                    say(
                        f"on {label} your function raised {type(err).__name__}: “{first}”. ",
                        f"在{label}上，你的函数抛出了 {type(err).__name__}：“{first}”。",
                    )
                    + _explain_error(err),
                )
                break
        passes = steps.kinds().count("backward_start")
        if result is None or result is Ellipsis:
            v.require(
                False,
                say(
                    f"on {label} your function returned {result!r}: return the Jacobian (a "
                    "function body of `...` returns None).",
                    f"在{label}上，你的函数返回了 {result!r}：应当返回雅可比矩阵"
                    "（函数体只有 `...` 时返回的是 None）。",
                ),
            )
            break
        got = _as_array(result)
        if got is None:
            v.require(
                False,
                say(
                    f"on {label} you returned a {type(result).__name__}: return a tensor or a "
                    "nested list of numbers.",
                    f"在{label}上，你返回了一个 {type(result).__name__}：应当返回一个张量，"
                    "或者由数构成的嵌套列表。",
                ),
            )
            break
        if got.shape == TABLE.shape and np.allclose(got, TABLE, rtol=1e-4, atol=1e-5):
            v.require(False, say(f"on {label}: ", f"在{label}上：") + _diagnose(got, want))
            break
        if passes == 0:
            v.require(
                False,
                say(
                    f"on {label} no backward pass ran: build each row with a backward pass "
                    "(y.backward(gradient=...) or mg.autograd.grad), not from a formula or "
                    "finite differences.",
                    f"在{label}上，没有运行任何反向传播：每一行都要用一次反向传播算出来"
                    "（y.backward(gradient=...) 或 mg.autograd.grad），而不是用公式或有限差分。",
                ),
            )
            break
        if got.shape == want.shape and np.allclose(got, want, rtol=1e-4, atol=1e-5):
            continue
        v.require(False, say(f"on {label}: ", f"在{label}上：") + _diagnose(got, want))
        break
    v.done(
        say(
            "one backward pass per output, gradient = a one-hot vector: each pass gives one row "
            "of the Jacobian, for any f.",
            "每个输出一次反向传播，梯度取 one-hot 向量：每次反向传播得到雅可比矩阵的一行，"
            "对任何 f 都成立。",
        )
    )


def _diagnose(got: np.ndarray, want: np.ndarray) -> str:
    """Name the typical slip behind a wrong matrix."""
    rows, cols = want.shape
    if same(got, TABLE):
        return say(
            "that is the Jacobian at x = (1, 2), the lesson's table; compute it from the f and "
            "x your function is given.",
            "这是 x = (1, 2) 处的雅可比矩阵，也就是本课里的那张表；请用传给你的函数的 f 和 x "
            "来计算。",
        )
    if same(got, want.T) and rows != cols:
        return say(
            f"you have the transpose: rows should be the {rows} outputs and columns the "
            f"{cols} inputs (jac[i][j] = dy_i/dx_j).",
            f"你得到的是转置：行应当对应 {rows} 个输出，列对应 {cols} 个输入"
            f"（jac[i][j] = dy_i/dx_j）。",
        )
    return slip(got, want, name="jac")
