"""Lesson 04 (backward in depth): checking a Jacobian function built from backward passes.

The learner writes `jacobian(f, x)`. The check calls it on points and on functions the notebook
never shows, so a matrix copied from the lesson's table cannot pass; it counts the backward
passes the engine ran through f's output, one per row, so a formula or finite differences (with
or without an unrelated pass beside them) cannot pass either; one of its functions has a custom
backward that is not its numerical slope, so finite differences give another matrix; and a call
of the library's own Jacobian is named as such.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .calls import calls_to
from .demo import verdict_or_demo
from .hints import register
from .jacobians import as_array, same, slip
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


def _rounded(t: Any) -> Any:
    """t rounded to quarters, with a straight-through backward (the gradient passes unchanged),
    as quantized networks train: its backward is not its numerical slope (0 almost everywhere),
    so finite differences cannot find the Jacobian the backward passes give."""
    import minigrad as mg

    class RoundStraightThrough(mg.autograd.Function):
        @staticmethod
        def forward(ctx: Any, a: Any) -> Any:
            return (a * 4).round() / 4

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            return grad

    return RoundStraightThrough.apply(t)


def _rounded_f(x: Any) -> Any:
    import minigrad as mg

    return mg.stack([_rounded(x[0]) * x[1], _rounded(x[1] * 2) + x[0] ** 2])


def _rounded_jacobian(p: np.ndarray) -> np.ndarray:
    """What the backward passes give (the rounding's backward is the identity)."""
    q0 = np.round(p[0] * 4) / 4
    return np.array([[p[1], q0], [2 * p[0], 2.0]])


def _rounded_slopes(p: np.ndarray) -> np.ndarray:
    """What finite differences give: the rounding's numerical slope is 0 at these points."""
    q0 = np.round(p[0] * 4) / 4
    return np.array([[0.0, q0], [2 * p[0], 0.0]])


ROUNDED_POINT = np.array([0.26, -0.62])  # an example point (no jump nearby); checks draw their own


def _rounded_point() -> np.ndarray:
    """A point drawn afresh for each check, away from the rounding's jumps (4·x0 and 8·x1 within
    0.3 of a whole number), so the answer there cannot be looked up or worked out in advance."""
    pick = np.random.default_rng()
    whole = pick.integers(-4, 5, 2)
    offset = pick.uniform(-0.3, 0.3, 2)
    return np.array([(whole[0] + offset[0]) / 4, (whole[1] + offset[1]) / 8])


def _cases() -> list[tuple[str, Callable[[Any], Any], np.ndarray, np.ndarray]]:
    """(description, f, point, Jacobian there): points the notebook never prints."""
    rng = np.random.default_rng(404)
    p1 = rng.uniform(-2, 2, 2).round(2)
    p2 = rng.uniform(-1, 1, 3).round(2)
    p3 = _rounded_point()
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
        (
            say(
                "a function of the check's own with a custom backward (it rounds, and lets "
                "the gradient straight through), at a point drawn at random",
                "检查自带的一个有自定义 backward 的函数（它做取整，并让梯度直接通过），"
                "在随机取的一点",
            ),
            _rounded_f,
            p3,
            _rounded_jacobian(p3),
        ),
    ]


def _ready_made() -> dict[str, Callable[..., Any]]:
    """Functions that already compute a Jacobian: calling one skips the exercise."""
    import minigrad as mg

    return {
        "mg.autograd.functional.jacobian": mg.autograd.functional.jacobian,
        "mg.autograd.functional.hessian": mg.autograd.functional.hessian,
        "mg.func.jacrev": mg.func.jacrev,
        "mg.func.jacfwd": mg.func.jacfwd,
        "mg.func.hessian": mg.func.hessian,
        "labkit.lesson04._lesson_jacobian": _lesson_jacobian,
        "labkit.lesson04._wide_jacobian": _wide_jacobian,
        "labkit.lesson04._rounded_jacobian": _rounded_jacobian,
        "labkit.lesson04._rounded_slopes": _rounded_slopes,
        "labkit.lesson04._cases": _cases,
    }


def _passes_through(records: list[dict[str, Any]], outputs: list[Any]) -> int:
    """How many backward passes ran the node of one of f's outputs: the passes that can have
    given a row of f's Jacobian (an unrelated pass, x.sum().backward(), does not)."""
    nodes = [out.grad_fn for out in outputs if getattr(out, "grad_fn", None) is not None]
    count, inside, seen = 0, 0, False
    for r in records:
        kind = r["kind"]
        if kind == "backward_start":
            inside += 1
            if inside == 1:
                seen = False
        elif kind == "node_start" and inside and any(r["node"] is n for n in nodes):
            seen = True
        elif kind in ("backward_end", "error") and inside:
            inside -= 1
            if inside == 0 and seen:
                count += 1
    return count


def _produced(records: list[dict[str, Any]], x: Any) -> list[np.ndarray]:
    """The gradients for x the passes produced: what each pass added to x.grad (and left
    there), and what autograd.grad returned (one row per seed when batched)."""
    found: list[np.ndarray] = []
    for r in records:
        if r["kind"] == "accumulate" and r["variable"] is x:
            found += [np.asarray(a, dtype=float) for a in (r["added"], r["after"]) if a is not None]
        elif r["kind"] == "backward_end":
            for a in r["results"] or []:
                if a is not None:
                    a = np.asarray(a, dtype=float)
                    found += list(a) if a.ndim == 2 else [a]
    return [a for a in found if a.shape == tuple(x.shape)]


def _rows_produced(got: np.ndarray, produced: list[np.ndarray]) -> bool:
    return all(any(np.allclose(row, g, rtol=1e-4, atol=1e-5) for g in produced) for row in got)


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


def check_jacobian(
    jacobian: Callable[[Callable[[Any], Any], Any], Any], *, demo: bool = False
) -> None:
    """`jacobian(f, x)[i][j]` must be dy_i/dx_j, for functions and points chosen here.

    The evidence of method: the backward passes the engine ran that went through f's output
    (counted per row), a function whose custom backward differs from its numerical slope (so
    finite differences give another matrix), and no call of a ready-made Jacobian.
    """
    import minigrad as mg

    v = verdict_or_demo("Jacobian from backward", demo)
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
        outputs: list[Any] = []

        def watched(t: Any, f: Callable[[Any], Any] = f, outputs: list[Any] = outputs) -> Any:
            out = f(t)
            outputs.append(out)
            return out

        with mg.autograd.record_steps() as steps, calls_to(_ready_made()) as borrowed:
            try:
                result = jacobian(watched, x)
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
        if borrowed.switched_off:
            v.require(False, borrowed.switched_off_message())
            break
        if borrowed:
            v.require(
                False,
                say(
                    f"your function calls {borrowed[0]}, which computes the Jacobian for you: "
                    "the exercise is to build it yourself, one backward pass per output with a "
                    "one-hot gradient.",
                    f"你的函数调用了 {borrowed[0]}，它会替你算出雅可比矩阵：这道题要你自己"
                    "构造它，每个输出一次反向传播，梯度取 one-hot 向量。",
                ),
            )
            break
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
        got = as_array(result)
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
        through = _passes_through(steps.records, outputs)
        if through == 0:
            v.require(
                False,
                say(
                    f"on {label} {passes} backward pass{'' if passes == 1 else 'es'} ran, but "
                    "none went through the output of f: the numbers come from somewhere else "
                    "(finite differences, a formula?). Start each pass from y = f(x).",
                    f"在{label}上运行了 {passes} 次反向传播，但没有一次经过 f 的输出："
                    "这些数值是从别处来的（有限差分？公式？）。每次反向传播都要从 y = f(x) 出发。",
                ),
            )
            break
        slopes = _rounded_slopes(point)
        numeric = got.shape == slopes.shape and np.allclose(got, slopes, rtol=1e-2, atol=1e-2)
        if f is _rounded_f and numeric and not same(got, want):
            v.require(
                False,
                say(
                    f"on {label}: your matrix is what finite differences give, not what "
                    "backward passes give. This f's backward is chosen on purpose (the "
                    "rounding lets the gradient straight through, its numerical slope is 0), "
                    "so only backward passes find its Jacobian: one per output.",
                    f"在{label}上：你的矩阵是有限差分给出的，而不是反向传播给出的。这个 f 的 "
                    "backward 是特意定制的（取整让梯度直接通过，而它的数值斜率是 0），所以只有"
                    "反向传播才能求出它的雅可比矩阵：每个输出一次。",
                ),
            )
            break
        rows = want.shape[0]
        near = got.shape == want.shape and np.allclose(got, want, rtol=1e-2, atol=1e-2)
        if through < rows and near and not same(got, want):
            v.require(
                False,
                say(
                    f"on {label} your matrix is only close to the Jacobian (off in the third or "
                    f"fourth digit, as finite differences are), and only {through} backward "
                    f"pass{'' if through == 1 else 'es'} went through f's output for its {rows} "
                    "rows. Build each row with a backward pass: they are exact.",
                    f"在{label}上，你的矩阵只是接近雅可比矩阵（第三四位数字有偏差，有限差分"
                    f"正是这样），而且它有 {rows} 行，经过 f 的输出的反向传播却只有 {through} 次。"
                    "请用反向传播算出每一行：那样是精确的。",
                ),
            )
            break
        if got.shape == want.shape and np.allclose(got, want, rtol=1e-4, atol=1e-5):
            if through < rows:
                v.require(
                    False,
                    say(
                        f"on {label} the matrix is right, but only {through} backward pass"
                        f"{'' if through == 1 else 'es'} went through f's output for its "
                        f"{rows} rows: the other rows come from somewhere else. One pass per "
                        "output, each with a one-hot gradient.",
                        f"在{label}上矩阵是对的，但它有 {rows} 行，经过 f 的输出的反向传播"
                        f"却只有 {through} 次：其余的行是从别处来的。每个输出一次反向传播，"
                        "梯度取 one-hot 向量。",
                    ),
                )
                break
            if not _rows_produced(got, _produced(steps.records, x)):
                v.require(
                    False,
                    say(
                        f"on {label} the matrix is right and backward passes went through f's "
                        "output, but not every row you returned is a gradient one of those passes "
                        "produced (what it added to x.grad, or what mg.autograd.grad returned): "
                        "those rows were made some other way, beside passes that answer another "
                        "question (y.sum().backward()?). Return, row by row, what each pass with "
                        "a one-hot gradient gives.",
                        f"在{label}上矩阵是对的，反向传播也经过了 f 的输出，但你返回的行并不都是"
                        "这些反向传播产生的梯度（加到 x.grad 里的，或 mg.autograd.grad 返回的）："
                        "这些行是用别的办法做出来的，旁边的反向传播回答的是另一个问题"
                        "（y.sum().backward()？）。请逐行返回每次用 one-hot 梯度的"
                        "反向传播给出的结果。",
                    ),
                )
                break
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
