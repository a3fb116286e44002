"""Lesson 06 (retain_graph, create_graph): checking a second derivative computed by autograd.

The learner writes `second_derivative(f, x)`. The check runs it on points and functions of its
own and reads the engine's records: the answer must come from two backward passes tied to f, the
first with create_graph=True, so a hand-derived formula (numpy or tensor), finite differences
beside dummy passes, or a ready-made hessian cannot pass (issue 23).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .calls import library_calls
from .demo import verdict_or_demo
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


class _Bent:
    """A hidden custom Function: forward sin(x), backward declares cos(x) + 1/2. Its autograd
    derivative is not the slope of its values, so only autograd gives the answer the check wants;
    finite differences or a formula give the true slope's, which differs by 1 in f''."""

    fn: Any = None

    @classmethod
    def apply(cls, x: Any) -> Any:
        if cls.fn is None:
            import minigrad as mg

            class Bent(mg.autograd.Function):
                @staticmethod
                def forward(ctx: Any, x: Any) -> Any:
                    ctx.save_for_backward(x)
                    return x.sin()

                @staticmethod
                def backward(ctx: Any, grad: Any) -> Any:
                    (x,) = ctx.saved_tensors
                    return grad * (x.cos() + 0.5)

            cls.fn = Bent
        return cls.fn.apply(x)


def _cases() -> list[tuple[str, Callable[[Any], Any], np.ndarray, np.ndarray, np.ndarray, bool]]:
    """(description, f, points, f', f'', hidden): points and functions the notebook never shows.
    `f'` and `f''` are what autograd gives; for the hidden case the true slope's f'' differs."""
    import minigrad as mg

    xs = np.random.default_rng(606).uniform(-2, 2, 4).round(2)
    drawn = np.random.default_rng().uniform(-2, 2, 4).round(2)  # afresh for each check
    return [
        (
            say(f"f(x) = x·sin(x) at x = {xs.tolist()}", f"f(x) = x·sin(x)（x = {xs.tolist()}）"),
            lambda x: x * mg.sin(x),
            xs,
            np.sin(xs) + xs * np.cos(xs),
            2 * np.cos(xs) - xs * np.sin(xs),
            False,
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
            False,
        ),
        (
            say(
                "f(x) = x·s(x) at points drawn at random (s: a custom autograd Function, sin "
                "forward, a backward of its own)",
                "f(x) = x·s(x)（在随机取的几个点上；s 是一个自定义 autograd Function，"
                "前向是 sin，反向由它自己定义）",
            ),
            lambda x: x * _Bent.apply(x),
            drawn,
            drawn * (np.cos(drawn) + 0.5) + np.sin(drawn),
            2 * np.cos(drawn) - drawn * np.sin(drawn) + 1.0,
            True,
        ),
    ]


def _slope(xs: np.ndarray) -> np.ndarray:
    """The hidden case's f'' from its values alone (a formula, or finite differences)."""
    return 2 * np.cos(xs) - xs * np.sin(xs)


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


class _Watched:
    """The check's f, handed to the learner: notes where in the engine's records each call of f
    began and ended, so the check knows which graph nodes f built."""

    def __init__(self, f: Callable[[Any], Any], steps: Any) -> None:
        self.f, self.steps, self.spans = f, steps, []

    def __call__(self, x: Any) -> Any:
        begin = len(self.steps.records)
        try:
            return self.f(x)
        finally:
            self.spans.append((begin, len(self.steps.records)))


def _passes(records: list[dict], spans: list[tuple[int, int]]) -> tuple[list[dict], set[int]]:
    """Each backward pass (in the order they began): its flags, the nodes it ran and the nodes
    it created (create_graph); and the ids of the nodes f's calls created."""
    f_nodes = {
        id(records[i]["node"])
        for begin, end in spans
        for i in range(begin, end)
        if records[i]["kind"] == "node_created"
    }
    passes: list[dict] = []
    running: list[dict] = []
    for r in records:
        if r["kind"] == "backward_start":
            p = {"create_graph": bool(r["create_graph"]), "ran": set(), "created": set()}
            p["gave"] = []  # what the pass produced: autograd.grad's results, or .grad written
            passes.append(p)
            running.append(p)
        elif r["kind"] in ("backward_end", "error") and running:
            done = running.pop()
            done["gave"] += [g for g in r.get("results") or [] if g is not None]
        elif running and r["kind"] == "accumulate":
            running[-1]["gave"] += [g for g in (r["added"], r["after"]) if g is not None]
        elif running and r["kind"] == "node_start":
            running[-1]["ran"].add(id(r["node"]))
        elif running and r["kind"] == "node_created":
            running[-1]["created"].add(id(r["node"]))
    return passes, f_nodes


def _returned_by(got: np.ndarray, seconds: list[dict]) -> bool:
    """`got` is what the second passes produced: one pass's result, or the sum of them (one
    pass per point gives f'' at that point and zeros elsewhere)."""
    gave = [np.asarray(g, dtype=float) for p in seconds for g in p["gave"]]
    same = [g for g in gave if g.shape == got.shape]

    def near(a: np.ndarray) -> bool:
        return bool(np.allclose(got, a, rtol=1e-5, atol=1e-5))

    if any(near(g) for g in same) or (len(same) > 1 and near(sum(same))):
        return True
    scalars = [float(g.ravel()[0]) for g in gave if g.size == 1]  # one fresh leaf per point
    return bool(got.size) and all(
        any(np.isclose(value, s, rtol=1e-5, atol=1e-5) for s in scalars) for value in got.ravel()
    )


def _borrowed_second_pass(records: list[dict], firsts: list[dict], seconds: list[dict]) -> bool:
    """Did a second pass run a node that neither leads into the first derivative's graph nor
    lies upstream of it (a term such as (x * numbers).sum() added to first * 0): a pass made
    to return numbers worked out beside it."""
    made = {i for p in firsts for i in p["created"]}
    nodes = {
        id(r["node"]): r["node"] for r in records if r["kind"] in ("node_created", "node_start")
    }
    upstream: set[int] = set()  # the first passes' nodes and everything they lead to
    stack = [nodes[i] for i in made if i in nodes]
    while stack:
        n = stack.pop()
        if n is None or id(n) in upstream:
            continue
        upstream.add(id(n))
        stack.extend(m for m, _ in getattr(n, "next_functions", ()))

    def leads_in(node: object, seen: set[int]) -> bool:
        if node is None or id(node) in seen:
            return False
        seen.add(id(node))
        if id(node) in made:
            return True
        return any(leads_in(m, seen) for m, _ in getattr(node, "next_functions", ()))

    for p in seconds:
        for i in p["ran"]:
            if i in upstream or i not in nodes:
                continue
            if not leads_in(nodes[i], set()):
                return True
    return False


def _method(passes: list[dict], f_nodes: set[int], got: np.ndarray, records: list[dict]) -> str:
    """What is missing from the engine's records of a right answer ('' when nothing is)."""
    firsts = [i for i, p in enumerate(passes) if p["create_graph"] and p["ran"] & f_nodes]
    if not firsts:
        if any(p["ran"] & f_nodes for p in passes):
            return say(
                "no backward pass through f's graph had create_graph=True, so no pass could "
                "differentiate f' again: the second derivative did not come from autograd.",
                "没有一次经过 f 的计算图的反向传播带着 create_graph=True，所以 f' 没法再被求导："
                "二阶导数不是 autograd 算出来的。",
            )
        return say(
            "the backward passes that ran did not go through the graph of f(x) (dummy "
            "passes?), so the answer did not come from them. Differentiate f(x) itself.",
            "运行过的反向传播都没有经过 f(x) 的计算图（是凑数的反向传播吗？），"
            "所以答案并不是它们算出来的。请对 f(x) 本身求导。",
        )
    n = len(passes)
    seconds = [
        passes[j]
        for j in range(n)
        if any(j > i and passes[j]["ran"] & passes[i]["created"] for i in firsts)
    ]
    if not seconds:
        return say(
            "after the first pass built the graph of f' (create_graph=True), no later pass "
            "went through it: differentiate that first derivative again.",
            "第一次反向传播（create_graph=True）建好了 f' 的计算图之后，再没有哪次反向传播经过它："
            "请对这个一阶导数再求一次导。",
        )
    if _borrowed_second_pass(records, [passes[i] for i in firsts], seconds):
        return say(
            "a second pass also went through a term that does not come from the first "
            "derivative (numbers of your own multiplied into x, added to first * 0?): "
            "what it returned is those numbers, not f''. Differentiate the first derivative "
            "itself (its sum), and nothing beside it.",
            "有一次第二遍反向传播还经过了一个不是来自一阶导数的项（你自己的数乘上 x，"
            "再加上 first * 0？）：它返回的是那些数，而不是 f''。请只对一阶导数本身"
            "（它的和）求导，旁边不要加别的东西。",
        )
    if not _returned_by(got, seconds):
        return say(
            "what you returned is not what the second pass produced (its gradient): return "
            "that gradient itself, not numbers worked out beside it.",
            "你返回的并不是第二次反向传播算出的梯度：请直接返回那个梯度，而不是在旁边另外算出的数。",
        )
    return ""


def check_second_derivative(
    second_derivative: Callable[[Callable[[Any], Any], Any], Any], demo: bool = False
) -> None:
    """`second_derivative(f, x)` must return f''(x) elementwise, by autograd.

    Evidence of the method, read from the engine's records: a backward pass with
    create_graph=True ran through the nodes the check's f built, a later pass ran through nodes
    that pass created, and what the function returned is what that later pass produced. A
    third f, built on a hidden custom Function whose backward is not the slope of its forward,
    has an autograd f'' that no formula or finite difference gives.
    Ready-made second derivatives (mg.autograd.functional, mg.func, forward mode) are named.
    `demo=True`: the lesson shows a wrong answer on purpose (labkit.demo).
    """
    import minigrad as mg

    v = verdict_or_demo("second derivative", demo)
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
    for label, f, xs, first, second, hidden in _cases():
        x = mg.tensor(xs.tolist(), requires_grad=True)
        with mg.autograd.record_steps() as steps, _ready_made_calls() as ready_made:
            watched = _Watched(f, steps)
            try:
                result = second_derivative(watched, x)
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
        if ready_made.switched_off:
            v.require(False, ready_made.switched_off_message())
            break
        if ready_made and "forward_ad" in ready_made.first():
            v.require(
                False,
                say(
                    f"on {label} your function used forward mode (mg.autograd.forward_ad, "
                    "lesson 16's topic). This exercise practices reverse mode twice: two "
                    "mg.autograd.grad calls, the first with create_graph=True.",
                    f"在 {label}上，你的函数用了前向模式"
                    "（mg.autograd.forward_ad，第 16 课的内容）。"
                    "这个练习练的是两次反向模式：调用两次 mg.autograd.grad，"
                    "第一次传入 create_graph=True。",
                ),
            )
            break
        if ready_made:
            v.require(
                False,
                say(
                    f"on {label} your function called {ready_made.first()}: it computes "
                    "derivatives for you. This exercise is what such a function does inside: "
                    "two mg.autograd.grad calls, the first with create_graph=True.",
                    f"在 {label}上，你的函数调用了 {ready_made.first()}：它替你把导数算好了。"
                    "这个练习要做的正是这类函数内部做的事：调用两次 mg.autograd.grad，"
                    "第一次传入 create_graph=True。",
                ),
            )
            break
        passes, f_nodes = _passes(steps.records, watched.spans)
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
                    f"on {label} no backward pass ran: you computed f'' from a formula (or from "
                    "f's values). The exercise is to let autograd do it (mg.autograd.grad "
                    "twice, the first with create_graph=True), so that it works for any f.",
                    f"在 {label}上，一次反向传播都没有运行：你是用公式算出的 f''"
                    "（或是从 f 的函数值算出的）。这个练习要让 autograd 来算"
                    "（调用两次 mg.autograd.grad，第一次传入 create_graph=True），"
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
            missing = _method(passes, f_nodes, got, steps.records)
            if missing:
                v.require(
                    False,
                    say(
                        f"on {label} the values are right, but {missing}",
                        f"在 {label}上，数值是对的，但{missing}",
                    ),
                )
                break
            continue
        if hidden and np.allclose(got, _slope(xs), rtol=1e-4, atol=1e-4):
            v.require(
                False,
                say(
                    f"on {label} you returned the second derivative of f's values, from a "
                    "formula or finite differences, not autograd's: s has a backward of its "
                    "own (as any custom Function may), and autograd's f'' follows it. Only "
                    "two autograd passes (the first with create_graph=True) give that.",
                    f"在 {label}上，你返回的是根据 f 的函数值（公式或有限差分）得到的二阶导数，"
                    "不是 autograd 算出的：s 有它自己的反向传播（任何自定义 Function 都可以这样），"
                    "autograd 的 f'' 跟着它走。只有两次 autograd 反向传播"
                    "（第一次带 create_graph=True）才能得到它。",
                ),
            )
            break
        v.require(
            False, say(f"on {label}: ", f"在 {label}上，") + _diagnose(got, first, second, hidden)
        )
        break
    v.done(
        say(
            "f'' by autograd, for any f: create_graph=True made the first derivative "
            "differentiable.",
            "f'' 由 autograd 算出，对任何 f 都适用：create_graph=True 让一阶导数可以再求导。",
        )
    )


_READY_MADE = ("autograd/functional.py", "autograd/forward_ad.py", "func/")


def _ready_made_calls() -> object:
    """Watch for ready-made derivatives: minigrad's (files under `_READY_MADE`, named as a
    learner writes them) and the check's own answers (`_cases`, `_slope`)."""
    own = {_cases.__code__: "labkit.lesson06._cases", _slope.__code__: "labkit.lesson06._slope"}
    return library_calls(*_READY_MADE, also=own)


def _diagnose(got: np.ndarray, first: np.ndarray, second: np.ndarray, hidden: bool = False) -> str:
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
    if hidden:  # (its f'' is the point of this case: not shown, so it cannot be copied)
        return say(
            f"your values {have} are not autograd's f'' of this f. Two mg.autograd.grad calls, "
            "the first with create_graph=True, give it for any f.",
            f"你的结果 {have} 不是 autograd 对这个 f 求出的 f''。调用两次 mg.autograd.grad"
            "（第一次传入 create_graph=True），对任何 f 都能得到它。",
        )
    return say(
        f"f''(x) should be {want}, but you got {have}.",
        f"f''(x) 应该是 {want}，但你得到的是 {have}。",
    )
