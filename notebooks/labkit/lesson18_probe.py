"""Lesson 18: one backward closure put to the test, the way every op exercise is checked.

A case builds the op's output from fresh Vars, fills the inputs' `.grad` with random numbers first
(a node used twice must ADD its contribution, not overwrite), sets a non-uniform upstream gradient
on the output, and calls the output's own `_backward` alone, so the op is checked apart from the
learner's engine. What comes out is compared with minigrad's and PyTorch's vector-Jacobian
product for the same inputs and upstream gradient. While the closure runs, its numpy operations on
the nodes' data are counted (finite differences need one or two forward evaluations per input
element) and other autograds are watched for (torch, minigrad's engine, jax, the complex step).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .demo import verdict_or_demo
from .feedback import Verdict
from .language import say
from .lesson18_bench import counting, parents_of, reference, watched

RTOL, ATOL = 1e-8, 1e-10  # float64 against float64: a formula lands far closer than this
FORMULA_OPS = 40  # numpy operations on the nodes' data a closure may make (a formula: a handful)
# (on a large case: finite differences make at least one per input element, a loop over rows
# fewer than one per element, so the limit is the larger of this and the number of elements)


@dataclass
class Case:
    """One input set for an op: what to build in the learner's engine and in the references."""

    label: str  # how a message names the case, in the lesson's language
    arrays: list[np.ndarray]
    build: Callable[[list[Any]], Any]  # learner's Vars -> output Var
    ref: Callable[[list[Any], str], Any]  # (leaves, "minigrad" | "torch") -> output tensor
    upstream: Callable[[tuple], np.ndarray]  # output shape -> upstream gradient
    fused: bool = False  # the output must be one node whose parents are the inputs
    broadcasts: bool = False  # the forward may broadcast: a shape error means "sum it back"
    large: bool = False  # big enough to tell finite differences from a formula by its work
    extra: list[Callable[[list[np.ndarray], np.ndarray], tuple[list[np.ndarray], str]]] = field(
        default_factory=list
    )  # known wrong answers: (inputs, upstream) -> (their gradients, what to say)


def stop(v: Verdict) -> None:
    """Print what is wrong so far and end the check (later cases depend on this one)."""
    v.done("")


def close(a: Any, b: Any) -> bool:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=RTOL, atol=ATOL))


def raised(v: Verdict, what: str, err: Exception) -> bool:
    return v.require(
        False,
        say(
            f"{what} raised {type(err).__name__}: {err}",
            f"{what} 抛出了 {type(err).__name__}（{err}）",
        ),
    )


def handed_over(seen: Any) -> str | None:
    """What to say when a closure (or an engine) handed the derivative to something else."""
    kind = seen.first()
    if kind is None:
        return None
    if kind == "torch":
        used = ", ".join(seen.torch)
        return say(
            f"your code hands the derivative to PyTorch's autograd ({used}): torch "
            "differentiates, your code copies its answer. Write the formula with numpy on the "
            "nodes' data.",
            f"你的代码把求导交给了 PyTorch 的 autograd（{used}）：求导的是 torch，你的代码只是"
            "抄了它的答案。请用 numpy 在节点的数据上写出公式。",
        )
    if kind == "library":
        used = ", ".join(seen.library)
        return say(
            f"your code calls {used} to differentiate (or switches the check's watcher off): "
            "that library finds the derivative, not your code.",
            f"你的代码调用了 {used} 来求导（或者关掉了检查的观察器）：找出导数的是那个库，"
            "而不是你的代码。",
        )
    if kind == "complex":
        return say(
            "your code computes with complex numbers: that is the complex-step derivative, "
            "Im f(x + ih) / h, a numerical method, not the derivative written down.",
            "你的代码用复数做计算：这是复步长求导 Im f(x + ih) / h，一种数值方法，"
            "而不是写出来的导数。",
        )
    return say(
        "your code runs minigrad's own autograd (a backward pass, autograd.grad, forward-mode "
        "dual numbers, or a built-in op's backward node): minigrad's engine finds the "
        "derivative, not yours.",
        "你的代码运行了 minigrad 自己的自动微分（一次反向传播、autograd.grad、前向模式的对偶数，"
        "或者内置运算的反向节点）：找出导数的是 minigrad 的引擎，而不是你的。",
    )


def _unbroadcast() -> str:
    return say(
        "A gradient must have the shape of its input: where the forward broadcast an input, sum "
        "the upstream gradient down to that input's shape before adding it into .grad.",
        "梯度必须和它的输入形状相同：前向计算在哪里广播了输入，就先把上游梯度在那些维度上求和、"
        "还原成输入的形状，再加进 .grad。",
    )


def _shapes() -> str:
    return say(
        "A gradient has its input's shape: let the shapes decide which product (and which "
        "transpose) gives it, and take every shape from the arrays the closure reads (out.grad, "
        "the inputs' data), never from one example's numbers: the check draws new shapes every "
        "time.",
        "梯度的形状就是它的输入的形状：让形状来决定用哪个乘积（以及在哪里转置），并且每个形状"
        "都要取自闭包读取的数组（out.grad、输入的数据），而不能来自某个例子里的数字：检查每次都会"
        "抽取新的形状。",
    )


def _value_error(what: str, case: Case, err: Exception, advice: str) -> str:
    """A closure's ValueError, named, then the advice for its likely cause."""
    return (
        say(
            f"{what}'s backward raised ValueError ({case.label}): {err}. ",
            f"{what} 的反向闭包（{case.label}）抛出了 ValueError（{err}）。",
        )
        + advice
    )


def _finite_differences(what: str) -> str:
    return say(
        f"{what}'s backward computes with its nodes' data over and over, once or twice per input "
        "element: that is finite differences, (f(x + h) - f(x - h)) / 2h, an approximation that "
        "costs one forward per element. Write the derivative's formula: a few array operations "
        "whatever the size.",
        f"{what} 的反向闭包一遍又一遍地拿节点的数据做计算，每个输入元素一到两次：这是有限差分 "
        "(f(x + h) - f(x - h)) / 2h，一种近似，每个元素都要做一次前向计算。请写出导数的公式："
        "不管数组多大，都只是几次数组运算。",
    )


def run_case(v: Verdict, cls: type, what: str, case: Case, rng: np.random.Generator) -> bool:
    """Build, backpropagate one upstream gradient through the output's own closure, compare."""
    value, want_mg, want_torch, upstream = reference(case.ref, case.arrays, case.upstream)
    inputs = [cls(np.array(a, dtype=np.float64)) for a in case.arrays]
    try:
        out = case.build(inputs)
    except Exception as err:  # noqa: BLE001 - the learner's forward: say what it raised
        return raised(v, f"{what} ({case.label})", err)
    if not v.require(
        all(hasattr(out, a) for a in ("data", "grad", "_backward")),
        say(
            f"{what} should return a new {cls.__name__} (the output node, with data, grad, "
            f"parents and _backward); it returned {type(out).__name__}. Is it still `...`?",
            f"{what} 应当返回一个新的 {cls.__name__}（输出节点，带有 data、grad、parents 和 "
            f"_backward）；它却返回了 {type(out).__name__}。是不是还是 `...`？",
        ),
    ):
        return False
    data = np.asarray(out.data, dtype=float)
    if not np.all(np.isfinite(data)) and np.all(np.isfinite(value)):
        return v.require(
            False,
            say(
                f"{what}'s forward gives {data.tolist()} ({case.label}); the true value is "
                "finite: exp overflowed. Subtract each row's max before exp (log-sum-exp).",
                f"{what} 的前向结果是 {data.tolist()}（{case.label}）；真实值是有限的："
                "exp 溢出了。请在 exp 之前减去每一行的最大值（log-sum-exp）。",
            ),
        )
    if not v.require(
        close(data, value),
        say(
            f"{what}'s forward value is wrong ({case.label}): shape {data.shape}, expected "
            f"{value.shape}, largest difference {_gap(data, value)}.",
            f"{what} 的前向结果不对（{case.label}）：形状 {data.shape}，应为 {value.shape}，"
            f"最大差 {_gap(data, value)}。",
        ),
    ):
        return False
    if case.fused and not v.require(
        {id(p) for p in parents_of(out)} == {id(i) for i in inputs},
        say(
            f"{what} builds a graph of several nodes; here the exercise is ONE fused node whose "
            "parents are the inputs and whose closure holds the whole derivative (fewer nodes, "
            "and the stable formula).",
            f"{what} 建了一张由好几个节点组成的图；这个练习要的是 *一个* 融合节点：它的父节点就是"
            "输入，它的闭包里装着完整的导数（节点更少，公式也稳定）。",
        ),
    ):
        return False
    prefill = [rng.normal(size=np.shape(a)) for a in case.arrays]
    for var, fill in zip(inputs, prefill, strict=True):
        var.grad = fill.copy()
    out.grad = np.array(upstream, dtype=np.float64)
    nodes = list({id(n): n for n in (out, *inputs)}.values())
    try:
        with watched() as seen, counting(nodes) as ops:
            out._backward()
    except Exception as err:  # noqa: BLE001 - the learner's closure: say what it raised
        if case.broadcasts and isinstance(err, ValueError) and "broadcast" in str(err):
            return v.require(False, _value_error(what, case, err, _unbroadcast()))
        if isinstance(err, ValueError) and any(w in str(err) for w in ("shape", "mismatch")):
            return v.require(False, _value_error(what, case, err, _shapes()))
        return raised(v, f"{what}'s backward ({case.label})", err)
    if not v.require(handed_over(seen) is None, handed_over(seen) or ""):
        return False
    limit = max(FORMULA_OPS, sum(np.size(a) for a in case.arrays))
    if case.large and not v.require(ops[0] <= limit, _finite_differences(what)):
        return False
    return _compare(v, what, case, inputs, prefill, upstream, want_mg, want_torch)


def run_check(
    title: str,
    what: str,
    cls: Any,
    demo: bool,
    draw: Callable[[np.random.Generator], list[Case]],
    success: str,
) -> None:
    """An op check: `...` refused, cases drawn afresh per call, each run in turn until one fails
    (the later ones build on it), then `success`."""
    v = verdict_or_demo(title, demo)
    if not v.answered(cls, "Var"):
        return stop(v)
    rng = np.random.default_rng()
    for case in draw(rng):
        if not run_case(v, cls, what, case, rng):
            return stop(v)
    v.done(success)


def _gap(a: Any, b: Any) -> str:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape:
        return "—"
    return f"{float(np.max(np.abs(a - b))):.3g}" if a.size else "0"


def _compare(
    v: Verdict,
    what: str,
    case: Case,
    inputs: list,
    prefill: list[np.ndarray],
    upstream: np.ndarray,
    want_mg: list[np.ndarray],
    want_torch: list[np.ndarray],
) -> bool:
    grads = [np.asarray(var.grad, dtype=float) for var in inputs]
    for k, (grad, var) in enumerate(zip(grads, inputs, strict=True)):
        shape = np.shape(var.data)
        if not v.require(
            grad.shape == shape,
            say(
                f"after {what}'s backward ({case.label}), input {k + 1}'s .grad has shape "
                f"{grad.shape} but its data has shape {shape}: a gradient always has the shape of "
                "what it is the gradient of. Sum it over the dims broadcasting added or "
                "stretched.",
                f"{what} 的反向闭包运行之后（{case.label}），第 {k + 1} 个输入的 .grad 形状是 "
                f"{grad.shape}，而它的数据形状是 {shape}：梯度的形状永远和它所对应的张量相同。"
                "请在广播新增或拉伸过的维度上求和。",
            ),
        ):
            return False
    added = [g - p for g, p in zip(grads, prefill, strict=True)]
    if all(close(a, m) and close(a, t) for a, m, t in zip(added, want_mg, want_torch, strict=True)):
        return True
    if all(close(g, m) for g, m in zip(grads, want_mg, strict=True)):
        return v.require(
            False,
            say(
                f"{what}'s backward writes `.grad = ...` and so throws away what was already "
                "there: a node used twice (or by two ops) gets two contributions, and they must "
                "add up. Use `+=`.",
                f"{what} 的反向闭包写的是 `.grad = ...`，把原来已有的梯度扔掉了：一个节点被用了"
                "两次（或者被两个运算使用）就会收到两份梯度，它们必须加起来。请用 `+=`。",
            ),
        )
    ones = np.ones_like(np.asarray(upstream, dtype=float))
    if not close(upstream, ones):
        _, at_ones, _, _ = reference(case.ref, case.arrays, lambda shape: ones)
        if all(close(a, w) for a, w in zip(added, at_ones, strict=True)):
            return v.require(
                False,
                say(
                    f"{what}'s backward ignores the upstream gradient `out.grad`: it gives the "
                    "right answer only when out.grad is all ones (the check used other values). "
                    "Multiply by out.grad (the chain rule).",
                    f"{what} 的反向闭包忽略了上游梯度 `out.grad`：只有当 out.grad 全是 1 时它才对"
                    "（检查用的是别的值）。请乘上 out.grad（链式法则）。",
                ),
            )
    for wrong in case.extra:
        theirs, message = wrong(case.arrays, upstream)
        if all(close(a, w) for a, w in zip(added, theirs, strict=True)):
            return v.require(False, message)
    worst = max(range(len(added)), key=lambda k: float(np.max(np.abs(added[k] - want_mg[k]))))
    gap = _gap(added[worst], want_mg[worst])
    scale = float(np.max(np.abs(want_mg[worst]))) if want_mg[worst].size else 0.0
    near = 0 < float(np.max(np.abs(added[worst] - want_mg[worst]))) < 1e-4 * max(scale, 1.0)
    approx = (
        say(
            " Close, but not to float64 precision: an approximation (finite differences, "
            "float32) rather than the formula?",
            "很接近，但没有达到 float64 的精度：这是不是一种近似（有限差分、float32），"
            "而不是公式本身？",
        )
        if near
        else ""
    )
    return v.require(
        False,
        say(
            f"{what}'s backward gives a wrong gradient for input {worst + 1} ({case.label}): "
            f"largest difference from minigrad's and PyTorch's {gap}." + approx,
            f"{what} 的反向闭包给第 {worst + 1} 个输入的梯度不对（{case.label}）：与 minigrad "
            f"和 PyTorch 的结果最大相差 {gap}。" + approx,
        ),
    )


def drawn(rng: np.random.Generator) -> Callable[[tuple], np.ndarray]:
    """Upstream gradients of the output's shape, non-uniform: signs and sizes vary."""

    def upstream(shape: tuple) -> np.ndarray:
        return rng.uniform(0.5, 2.0, size=shape) * rng.choice((-1.0, 1.0), size=shape)

    return upstream
