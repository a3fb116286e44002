"""Lesson 16 (forward mode and the functional API): counting passes, and checking three methods.

`backward_passes(lib, run)` counts the backward passes a piece of code starts, in minigrad (its
engine reports each one) and in PyTorch (every pass of its functional API goes through
`torch.autograd.grad`); `forward_passes(run)` counts minigrad's forward-mode (dual) passes. The
checks call the learner's functions on functions and points of their own, count the passes
minigrad ran, and compare with the library's answer on fresh inputs: a matrix copied from the
notebook, a formula, finite differences, the library doing the work (every public transform of
mg.func and mg.autograd.functional the learner's code calls is watched by code object and
named), the other mode, or the costlier direction cannot pass.

Every function the checks differentiate hides a custom Function, `q`: it rounds to eighths and
declares a straight-through derivative (1, as quantized models do). Its steps are flat, so any
numerical differentiation of f sees slope 0 where autograd's answer uses 1: finite differences
give a different Jacobian, Jv or Hv, and the check names them. Its backward and jvp count their
runs, which ties the learner's passes to f (a dummy pass beside a numeric answer runs neither).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

import minigrad as mg
from minigrad.autograd import functional as mg_functional
from minigrad.autograd import record_steps
from minigrad.core import forward_grad

from .calls import calls_where
from .demo import verdict_or_demo
from .feedback import Verdict
from .hints import register
from .jacobians import as_array, slip
from .jacobians import same as _same
from .language import say

# Each exercise's key (its English title, as in progress.json) is named where it is registered.
register(
    "16",
    JVP := "Jv by forward mode",
    "One dual pass: inside a forward_ad.dual_level(), give x the tangent v with make_dual, run "
    "f once on that dual tensor, and read the output's tangent back.",
    "fw = mg.autograd.forward_ad; with fw.dual_level(): y = f(fw.make_dual(x, v)). The tangent "
    "exists only while the level is open: unpack it inside the block.",
    "primal, tangent = fw.unpack_dual(y) gives f(x) and Jv. Return (primal, tangent): no "
    "backward pass, and f runs once.",
    zh_title="用前向模式求 Jv",
    zh=(
        "一遍对偶计算：在 forward_ad.dual_level() 里用 make_dual 给 x 配上切向量 v，在这个对偶"
        "张量上只运行一次 f，再把输出的切向量读出来。",
        "fw = mg.autograd.forward_ad；with fw.dual_level(): y = f(fw.make_dual(x, v))。切向量只"
        "在这一层打开时存在：要在 with 块里面把它取出来。",
        "primal, tangent = fw.unpack_dual(y) 给出 f(x) 和 Jv。返回 (primal, tangent)：不做反向"
        "传播，f 只运行一次。",
    ),
)
register(
    "16",
    JACOBIAN := "Jacobian, the cheaper way",
    "First run f(x) once to learn the shape: m = y.numel() outputs, n = x.numel() inputs. Rows "
    "cost one backward pass per output (m), columns by the double-backward trick one pass for "
    "g = Jᵀu plus one per input (n + 1). Pick the smaller.",
    "Rows: jacobian_by_rows(f, x) from section 4. Columns: u = mg.zeros_like(y, "
    "requires_grad=True), then g = Jᵀu from ONE mg.autograd.grad(y, x, grad_outputs=u, "
    "create_graph=True); it does not depend on which column you want, so reuse it.",
    "For each input j: column j is mg.autograd.grad(g, u, grad_outputs=mg.eye(n)[j], "
    "retain_graph=True)[0] (retain_graph: g's graph serves every column). mg.stack(columns, "
    "dim=1) puts them side by side: shape (m, n).",
    zh_title="雅可比矩阵，走更省的方向",
    zh=(
        "先运行一次 f(x)，弄清形状：m = y.numel() 个输出，n = x.numel() 个输入。按行算，"
        "每个输出一次反向传播（共 m 次）；按列用双重反向技巧，g = Jᵀu 一次，再每个输入一次"
        "（共 n + 1 次）。选次数少的那个方向。",
        "按行：用第 4 节的 jacobian_by_rows(f, x)。按列：u = mg.zeros_like(y, "
        "requires_grad=True)，然后只调用一次 mg.autograd.grad(y, x, grad_outputs=u, "
        "create_graph=True) 得到 g = Jᵀu；它和你要算哪一列无关，所以每一列都复用它。",
        "对每个输入 j：第 j 列是 mg.autograd.grad(g, u, grad_outputs=mg.eye(n)[j], "
        "retain_graph=True)[0]（retain_graph：g 的计算图要为每一列服务）。mg.stack(columns, "
        "dim=1) 把各列并排放好，形状为 (m, n)。",
    ),
)
register(
    "16",
    HVP := "Hessian-vector product",
    "Two backward passes, whatever the size of x: the first gives the gradient g as a tensor "
    "with a graph of its own, the second differentiates g in the direction v.",
    "g = mg.autograd.grad(f(x), x, create_graph=True)[0]. Without create_graph, g is plain "
    "numbers and cannot be differentiated.",
    "Differentiate g weighted by v: mg.autograd.grad(g, x, grad_outputs=v)[0] (the same as "
    "the gradient of (g * v).sum()). That is vᵀH, and vᵀH = Hv because H is symmetric.",
    zh_title="黑塞-向量积",
    zh=(
        "不管 x 有多大，都只要两次反向传播：第一次得到梯度 g，它是一个自带计算图的张量；"
        "第二次沿方向 v 对 g 求导。",
        "g = mg.autograd.grad(f(x), x, create_graph=True)[0]。不加 create_graph，g 就只是"
        "一串数字，无法再求导。",
        "以 v 为权重对 g 求导：mg.autograd.grad(g, x, grad_outputs=v)[0]（等同于对 "
        "(g * v).sum() 求梯度）。这就是 vᵀH，而 H 对称，所以 vᵀH = Hv。",
    ),
)


# --- counting passes, in both libraries ---------------------------------------------------------


@contextmanager
def _counting_torch_passes() -> Iterator[list[str]]:
    """Count calls of torch.autograd.grad and torch.autograd.backward (Tensor.backward calls the
    latter) while the block runs; each call is one backward pass of PyTorch's engine."""
    import torch  # here, not at the top: labkit.progress() imports every lesson module

    calls: list[str] = []
    real = {name: getattr(torch.autograd, name) for name in ("grad", "backward")}

    def counted(name: str) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            calls.append(name)
            return real[name](*args, **kwargs)

        return call

    for name in real:
        setattr(torch.autograd, name, counted(name))
    try:
        yield calls
    finally:
        for name, fn in real.items():
            setattr(torch.autograd, name, fn)


def backward_passes(lib: Any, run: Callable[[], Any]) -> int:
    """How many backward passes `run()` starts, with `lib` minigrad or torch."""
    if lib is mg:
        with record_steps() as steps:
            run()
        return steps.kinds().count("backward_start")
    with _counting_torch_passes() as calls:
        run()
    return len(calls)


def forward_passes(run: Callable[[], Any]) -> int:
    """How many forward-mode passes `run()` makes in minigrad: the dual levels it enters (each
    of func.jvp's and jacfwd's passes opens its own)."""
    before = forward_grad.Levels.generation
    run()
    return forward_grad.Levels.generation - before


# --- the hidden step: a custom Function whose derivative is not its numerical slope -------------

_Q_RUNS = {"backward": 0, "jvp": 0}  # how often q's backward and jvp ran (reset per case)


class _StraightThrough(mg.autograd.Function):
    """q(x): x rounded to eighths, with the straight-through derivative 1 (as quantized models
    declare it). Finite differences see the flat steps, slope 0; autograd uses 1."""

    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        return (x * 8).round() / 8

    @staticmethod
    def backward(ctx: Any, grad: Any) -> Any:
        _Q_RUNS["backward"] += 1
        return grad * 1  # a recorded op under create_graph, like any differentiable backward

    @staticmethod
    def jvp(ctx: Any, tangent: Any) -> Any:
        _Q_RUNS["jvp"] += 1
        return tangent * 1


def _q(x: Any) -> Any:
    return _StraightThrough.apply(x)


def _q_flat(x: Any) -> Any:
    """q as numerical differentiation sees it: the same steps, slope 0."""
    return (x * 8).round() / 8


@contextmanager
def _q_runs() -> Iterator[dict[str, int]]:
    """q's backward and jvp runs while the block runs."""
    before = dict(_Q_RUNS)
    runs = {"backward": 0, "jvp": 0}
    try:
        yield runs
    finally:
        for key in runs:
            runs[key] = _Q_RUNS[key] - before[key]


def _loosely(got: np.ndarray | None, want: np.ndarray) -> bool:
    """Close enough to be the same quantity computed numerically (finite differences)."""
    return (
        got is not None
        and got.shape == want.shape
        and bool(np.allclose(got, want, rtol=2e-2, atol=2e-3))
    )


def _numeric_words(label: str, what: str, passes: int) -> str:
    """The message for an answer that matches numerical differentiation, not autograd."""
    extra = (
        say(
            f" (Your {passes} backward pass(es) ran, but the answer is a difference quotient.)",
            f"（你的 {passes} 次反向传播确实跑了，但答案是差商算出来的。）",
        )
        if passes
        else ""
    )
    return say(
        f"on {label} your {what} is what finite differences give, not what autograd gives: the "
        "check's f contains q, a custom Function that rounds to eighths and declares the "
        "straight-through derivative 1. Its steps are flat, so a difference quotient sees slope "
        "0 there; only autograd's own passes, which run q's backward (or jvp), give the "
        f"derivative f declares.{extra}",
        f"对于{label}，你的{what}是有限差分给出的，而不是 autograd 给出的：检查用的 f 里藏着 "
        "q，一个自定义 Function，它把数值舍入到 1/8，并声明直通（straight-through）导数为 1。"
        "它的台阶是平的，差商在那里看到的斜率是 0；只有 autograd 自己的传播（会运行 q 的 "
        f"backward 或 jvp）才能给出 f 所声明的导数。{extra}",
    )


def _passes_missed_f(label: str, passes: int, what: str) -> str:
    return say(
        f"on {label} your {passes} backward pass(es) never went through f: the check's f "
        "contains a custom Function, q, and its backward never ran. Passes on some other graph "
        f"beside an answer computed another way are not {what}: differentiate f(x) itself.",
        f"对于{label}，你的 {passes} 次反向传播从来没有经过 f：检查用的 f 里有一个自定义 "
        "Function q，而它的 backward 一次也没有运行。在别的计算图上跑几次反向传播，答案却用别的"
        f"办法算出来，这不是{what}：请对 f(x) 本身求导。",
    )


# --- what the learner's function did -----------------------------------------------------------


@contextmanager
def _watching() -> Iterator[set[str]]:
    """Which functions of mg.autograd.functional run while the block runs, however the learner
    reached them (even bound to a name before the check): each of them differentiates through
    the module's `_grad`, and the spy notes who called it ("jacobian", which `hessian` uses too,
    "vjp", "jvp", or "hvp"/"vhp")."""
    used: set[str] = set()
    real = mg_functional._grad

    def spy(*args: Any, **kwargs: Any) -> Any:
        caller = sys._getframe(1)
        name = caller.f_code.co_name
        used.add(caller.f_locals.get("name", name) if name == "_hessian_product" else name)
        return real(*args, **kwargs)

    mg_functional._grad = spy
    try:
        yield used
    finally:
        mg_functional._grad = real


def _public_codes() -> dict[Any, str]:
    """The code of each public function of mg.func and mg.autograd.functional, by its name."""
    codes = {}
    for prefix, module in (("mg.func", mg.func), ("mg.autograd.functional", mg_functional)):
        for name in module.__all__:
            fn = getattr(module, name)
            code = getattr(getattr(fn, "__wrapped__", fn), "__code__", None)
            if code is not None:
                codes[code] = f"{prefix}.{name}"
    return codes


_READY_MADE = _public_codes()
_LIBRARY_FILES = {code.co_filename for code in _READY_MADE}


def _ready_made_called(code: Any) -> str | None:
    """The public name of a transform of mg.func or mg.autograd.functional called by the
    learner's code (not one the library calls inside another: `grad` runs `grad_and_value`)."""
    name = _READY_MADE.get(code)
    if name is None:
        return None
    frame = sys._getframe(1)
    while frame is not None and frame.f_code is not code:
        frame = frame.f_back
    caller = frame.f_back if frame is not None else None
    if caller is not None and caller.f_code.co_filename in _LIBRARY_FILES:
        return None
    return name


def _run(fn: Callable[..., Any], args: tuple) -> tuple:
    """(result, error, backward passes, their create_graph flags, library functions used, the
    ready-made transforms called); a forward-mode pass (a dual level entered: forward_ad,
    mg.func.jvp, functional.jvp) is noted in `used` as "forward mode". The transforms are
    mg.func's and mg.autograd.functional's public functions the learner's code called, watched
    by code object (however they were reached), in the order of their first call."""
    result, error = None, None
    levels = forward_grad.Levels.generation
    with (
        _watching() as used,
        record_steps() as steps,
        calls_where(_ready_made_called) as ready,
    ):
        try:
            result = fn(*args)
        except Exception as err:  # the learner's error is feedback, not a crash of the check
            error = err
    if forward_grad.Levels.generation != levels:
        used.add("forward mode")
    starts = [r for r in steps if r["kind"] == "backward_start"]
    return result, error, len(starts), [bool(r["create_graph"]) for r in starts], used, list(ready)


def _names(ready: list[str]) -> str:
    return ", ".join(f"`{name}`" for name in ready)


def _ready_made(label: str, ready: list[str], own: str, own_zh: str) -> str:
    """The library's transforms did (part of) the work: name each one, and what to write."""
    return say(
        f"on {label} the library's ready-made {'functions' if len(ready) > 1 else 'function'} "
        f"{_names(ready)} did the work. {own}",
        f"对于{label}，活是库里现成的函数 {'、'.join(f'`{n}`' for n in ready)} 干的。{own_zh}",
    )


def _via(ready: list[str]) -> tuple[str, str]:
    """' (through `mg.func.hessian`)', in English and Chinese, or nothing."""
    if not ready:
        return "", ""
    return f" (through {_names(ready)})", f"（通过 {'、'.join(f'`{n}`' for n in ready)}）"


def _first_sentence(err: Exception) -> str:
    return str(err).split(". ")[0].split("\n")[0].rstrip(".")


def _explain(err: Exception) -> str:
    """What a typical error inside the learner's function means, in the lesson's words."""
    text = str(err)
    if "One of the differentiated Tensors does not require grad" in text:
        return say(
            " The dummy u must require grad, since the column passes differentiate with respect "
            "to it: mg.zeros_like(y, requires_grad=True).",
            "哑变量 u 必须 requires_grad，因为求各列的那几次反向传播要对它求导："
            "mg.zeros_like(y, requires_grad=True)。",
        )
    if "does not require grad and does not have a grad_fn" in text:
        return say(
            " The first pass has to build a graph of its own: pass create_graph=True to it, or "
            "its result is plain numbers that cannot be differentiated again.",
            "第一次反向传播必须自己建出计算图：给它传 create_graph=True，否则它的结果只是"
            "一串数字，无法再求导。",
        )
    if "backward through the graph a second time" in text:
        return say(
            " A pass freed a graph that a later pass needs: retain_graph=True on every pass "
            "that reuses a graph (create_graph=True already keeps the first one).",
            "某次反向传播释放了后面还要用的计算图：凡是复用同一张图的反向传播都要加 "
            "retain_graph=True（create_graph=True 已经会保留第一次的图）。",
        )
    if "implicitly created only for scalar outputs" in text:
        return say(
            " That output has several entries, so its pass needs a vector: grad_outputs= a "
            "tensor shaped like it (a one-hot vector, u, or v).",
            "这个输出有多个元素，所以它的反向传播需要一个向量：grad_outputs= 一个与它形状"
            "相同的张量（one-hot 向量、u 或 v）。",
        )
    if "Mismatch in shape" in text:
        return say(
            " grad_outputs must have the shape of what you differentiate: read the sizes from "
            "y and x instead of fixing them.",
            "grad_outputs 的形状必须与被求导的张量相同：尺寸要从 y 和 x 读出来，不要写死。",
        )
    if "appears to not have been used in the graph" in text:
        return say(
            " Differentiate with respect to the x your function was given (the one f used), "
            "or, for a column, with respect to u.",
            "要对传给你函数的那个 x（也就是 f 用到的那个）求导；求某一列时，则对 u 求导。",
        )
    if "Can't call numpy()" in text:
        return say(
            " Stay with tensors and autograd: numpy cannot differentiate.",
            "请一直使用张量和 autograd：numpy 不会求导。",
        )
    if isinstance(err, IndexError):
        return say(
            " Read the sizes from y and x (y.numel(), x.numel()) instead of fixing them.",
            "尺寸要从 y 和 x 读出来（y.numel()、x.numel()），不要写死。",
        )
    return ""


def _usable(v: Verdict, label: str, result: Any, error: Exception | None, what: str) -> Any:
    """The answer as an array, or None after saying why there is nothing to compare."""
    if error is not None:
        v.require(
            False,
            say(
                f"on {label} your function raised {type(error).__name__}: "
                f"“{_first_sentence(error)}”.",
                f"对于{label}，你的函数抛出了 {type(error).__name__}：“{_first_sentence(error)}”。",
            )
            + _explain(error),
        )
        return None
    if result is None or result is Ellipsis:
        v.require(
            False,
            say(
                f"on {label} your function returned {result!r}: is its body still `...`, or is "
                f"the `return` missing? It should return {what}.",
                f"对于{label}，你的函数返回了 {result!r}：函数体是不是还是 `...`，或者漏了 "
                f"`return`？它应当返回{what}。",
            ),
        )
        return None
    got = as_array(result)
    if got is None:
        v.require(
            False,
            say(
                f"on {label} you returned a {type(result).__name__}: return a tensor of {what}.",
                f"对于{label}，你返回的是 {type(result).__name__}：请返回一个张量，内容是{what}。",
            ),
        )
    return got


def _callable(v: Verdict, fn: Any, name: str, signature: str) -> bool:
    if not v.answered(fn, f"`{name}`"):
        return False
    return v.require(
        callable(fn),
        say(
            f"`{name}` should be a function {signature}, not {type(fn).__name__}.",
            f"`{name}` 应当是函数 {signature}，而不是 {type(fn).__name__}。",
        ),
    )


# --- the forward-mode exercise: Jv in one dual pass -------------------------------------------


@contextmanager
def _forward_mode_watch() -> Iterator[dict[str, int]]:
    """How the block used forward mode: dual levels entered, and make_dual calls made by the
    learner's own code (the library's func.jvp and functional.jvp make theirs from inside
    minigrad, and are counted as "library")."""
    fw = mg.autograd.forward_ad
    counts = {"levels": 0, "own": 0, "library": 0}
    real, levels = fw.make_dual, forward_grad.Levels.generation

    def spy(*args: Any, **kwargs: Any) -> Any:
        caller = sys._getframe(1).f_globals.get("__name__", "")
        counts["library" if caller.startswith("minigrad.") else "own"] += 1
        return real(*args, **kwargs)

    fw.make_dual = spy
    try:
        yield counts
    finally:
        fw.make_dual = real
        counts["levels"] = forward_grad.Levels.generation - levels


def _jvp_cases(q: Callable[[Any], Any] = _q) -> list[tuple[str, Callable, np.ndarray, np.ndarray]]:
    """(description, f, point, v): functions and directions the notebook never shows, each with
    the hidden step q (pass `_q_flat` for what finite differences see)."""
    rng = np.random.default_rng(1719)
    weights = mg.tensor(rng.uniform(-1, 1, (4, 3)).round(2).tolist())

    def mixed(x: Any) -> Any:
        return (weights @ q(x).sin()) * x.sum().exp()

    def ratios(x: Any) -> Any:
        return mg.stack([x[0] / (1 + q(x[1]) ** 2), x.tanh().sum(), x[2] * q(x[0])])

    return [
        (
            say(
                "f(x) = (W sin q(x))·e^Σx, 3 inputs, 4 outputs",
                "f(x) = (W sin q(x))·e^Σx，3 个输入，4 个输出",
            ),
            mixed,
            rng.uniform(-1, 1, 3).round(2),
            rng.uniform(-1, 1, 3).round(2),
        ),
        (
            say(
                "f(x) = (x0/(1+q(x1)²), Σ tanh x, x2·q(x0))",
                "f(x) = (x0/(1+q(x1)²), Σ tanh x, x2·q(x0))",
            ),
            ratios,
            rng.uniform(-1, 1, 3).round(2),
            rng.uniform(-1, 1, 3).round(2),
        ),
    ]


def _counted(f: Callable[[Any], Any], calls: list[int]) -> Callable[[Any], Any]:
    def counted(x: Any) -> Any:
        calls[0] += 1
        return f(x)

    return counted


def check_jvp(jvp: Callable[[Callable[[Any], Any], Any, Any], Any], *, demo: bool = False) -> None:
    """`jvp(f, x, v)` must give (f(x), Jv) from one dual pass of f, and no backward pass."""
    v = verdict_or_demo(JVP, demo)
    if not _callable(v, jvp, "jvp", "jvp(f, x, v)"):
        v.done("")
        return
    for (label, f, point, vec), (_, flat, _, _) in zip(_jvp_cases(), _jvp_cases(_q_flat)):
        want_y, want = mg.func.jvp(f, (mg.tensor(point.tolist()),), (mg.tensor(vec.tolist()),))
        numeric = mg.func.jvp(flat, (mg.tensor(point.tolist()),), (mg.tensor(vec.tolist()),))[1]
        calls = [0]
        x, direction = mg.tensor(point.tolist()), mg.tensor(vec.tolist())
        with _forward_mode_watch() as forward, _q_runs() as q_runs:
            result, error, passes, _, used, ready = _run(jvp, (_counted(f, calls), x, direction))
        pair = result if isinstance(result, tuple) and len(result) == 2 else (None, result)
        if error is None and pair[0] is None and result not in (None, Ellipsis):
            v.require(
                False,
                say(
                    f"on {label} your function returned {type(result).__name__}: return the "
                    "pair (f(x), Jv).",
                    f"对于{label}，你的函数返回了 {type(result).__name__}：请返回 (f(x), Jv) "
                    "这一对。",
                ),
            )
            break
        got = _usable(v, label, pair[1], error, say("the pair (f(x), Jv)", "(f(x), Jv) 这一对"))
        if got is None:
            break
        if forward["library"] or used & {"jvp", "jacobian"} or ready:
            which = _names(ready) or say(
                "func.jvp, functional.jvp or a Jacobian", "func.jvp、functional.jvp 或雅可比矩阵"
            )
            which_zh = "、".join(f"`{n}`" for n in ready) or which
            v.require(
                False,
                say(
                    f"on {label} the library did the work ({which}). Write the dual pass "
                    "yourself: make_dual, f, unpack_dual.",
                    f"对于{label}，活是库函数干的（{which_zh}）。"
                    "请自己写出这遍对偶计算：make_dual、f、unpack_dual。",
                ),
            )
            break
        if passes:
            v.require(
                False,
                say(
                    f"on {label} your function ran {passes} backward pass(es): that is reverse "
                    "mode (the double-backward trick takes two). Forward mode needs none: the "
                    "tangent rides along the one forward pass.",
                    f"对于{label}，你的函数跑了 {passes} 次反向传播：那是反向模式（双重反向技巧要"
                    "两次）。前向模式一次都不需要：切向量搭着那一遍前向计算走。",
                ),
            )
            break
        numerically = not _same(got, want.numpy()) and _loosely(got, numeric.numpy())
        if numerically:
            v.require(False, _numeric_words(label, say("Jv", " Jv "), passes))
            break
        if not forward["own"]:
            v.require(
                False,
                say(
                    f"on {label} f ran {calls[0]} time(s) without a dual tensor: finite "
                    "differences or a formula approximate or hard-code Jv. Make x dual with "
                    "make_dual(x, v) and let every op carry the tangent.",
                    f"对于{label}，f 在没有对偶张量的情况下运行了 {calls[0]} 次：有限差分或公式"
                    "只能近似或写死 Jv。用 make_dual(x, v) 把 x 变成对偶张量，让每个运算带着"
                    "切向量走。",
                ),
            )
            break
        if not q_runs["jvp"]:
            v.require(
                False,
                say(
                    f"on {label} you made a dual tensor, but it never went through f: the "
                    "check's f contains a custom Function, q, whose jvp never ran. Run f on "
                    "the dual tensor itself, f(make_dual(x, v)), and read the tangent of what "
                    "it returns.",
                    f"对于{label}，你造了对偶张量，但它从没经过 f：检查用的 f 里有一个自定义 "
                    "Function q，而它的 jvp 一次也没有运行。请直接在对偶张量上运行 f，即 "
                    "f(make_dual(x, v))，再读出返回值的切向量。",
                ),
            )
            break
        if not _same(got, want.numpy()):
            v.require(False, say(f"on {label}: ", f"对于{label}：") + slip(got, want.numpy()))
            break
        if not _same(as_array(pair[0]), want_y.numpy()):
            v.require(
                False,
                say(
                    f"on {label} Jv is right but the first value is not f(x): return the "
                    "primal of the output (unpack_dual(y).primal) beside its tangent.",
                    f"对于{label}，Jv 是对的，但第一个值不是 f(x)：请把输出的原值"
                    "（unpack_dual(y).primal）和它的切向量一起返回。",
                ),
            )
            break
        if not v.require(
            calls[0] == 1 and forward["levels"] == 1,
            say(
                f"on {label} the values are right, but f ran {calls[0]} times in "
                f"{forward['levels']} dual level(s): one pass of f in one level is enough.",
                f"对于{label}，数值是对的，但 f 在 {forward['levels']} 个对偶层里运行了 "
                f"{calls[0]} 次：一层、一遍就够了。",
            ),
        ):
            break
    v.done(
        say(
            "f(x) and Jv from one forward pass on a dual input, and no backward pass.",
            "一遍带对偶输入的前向计算同时给出 f(x) 和 Jv，没有反向传播。",
        )
    )


# --- exercise 1: a Jacobian, the cheaper way ----------------------------------------------------


def _jacobian_cases(q: Callable[[Any], Any] = _q) -> list[tuple[str, Callable, np.ndarray]]:
    """(description, f, point): a wide and a tall function with the hidden step q, at points the
    notebook never shows."""
    rng = np.random.default_rng(1717)
    times = mg.linspace(0.0, 1.0, 7)

    def wide(x: Any) -> Any:
        return mg.stack([(q(x) * x.exp()).sum(), (x[:-1] * x[1:]).sum()])

    def tall(x: Any) -> Any:
        return (q(x[0]) * times).sin() + x[1] * times**2

    return [
        (
            say(
                "a wide f (6 inputs, 2 outputs: [Σ q(x)·eˣ, Σ x_k·x_k+1])",
                "「宽」的 f（6 个输入，2 个输出：[Σ q(x)·eˣ, Σ x_k·x_k+1]）",
            ),
            wide,
            rng.uniform(-1, 1, 6).round(2),
        ),
        (
            say(
                "a tall f (2 inputs, 7 outputs: sin(q(x0)·t) + x1·t² at 7 times t)",
                "「高」的 f（2 个输入，7 个输出：7 个时刻 t 上的 sin(q(x0)·t) + x1·t²）",
            ),
            tall,
            rng.uniform(-1, 1, 2).round(2),
        ),
    ]


def _jacobian_passes(label: str, passes: int, flags: list[bool], m: int, n: int) -> str | None:
    """None if the passes are the cheaper direction's, else what the learner's passes show."""
    by_rows, by_columns = m, n + 1
    best = min(by_rows, by_columns)
    if passes == best and (best == by_rows or (flags and flags[0])):
        return None
    cost = say(
        f"with {m} outputs and {n} inputs, rows cost {by_rows} passes (one per output) and "
        f"columns {by_columns} (one for g = Jᵀu, then one per input)",
        f"有 {m} 个输出、{n} 个输入时，按行要 {by_rows} 次反向传播（每个输出一次），按列要 "
        f"{by_columns} 次（g = Jᵀu 一次，再每个输入一次）",
    )
    if passes == by_columns and by_rows < by_columns:
        return say(
            f"on {label} the matrix is right, but your {passes} backward passes went column by "
            f"column: {cost}. Here rows are cheaper.",
            f"对于{label}，矩阵是对的，但你的 {passes} 次反向传播是按列算的：{cost}。"
            "这里按行更省。",
        )
    if passes == by_rows and by_columns < by_rows:
        return say(
            f"on {label} the matrix is right, but your {passes} backward passes went row by "
            f"row, one per output: {cost}. Here columns are cheaper.",
            f"对于{label}，矩阵是对的，但你的 {passes} 次反向传播是按行算的，每个输出一次："
            f"{cost}。这里按列更省。",
        )
    if passes == 2 * n and by_columns < by_rows:
        return say(
            f"on {label} the matrix is right, but it took {passes} passes, two per column: "
            "each column ran its own first pass (PyTorch's functional.jvp does that). The "
            "first pass, g = Jᵀu, is the same for every column: run it once and reuse it with "
            f"retain_graph=True, {by_columns} passes in all.",
            f"对于{label}，矩阵是对的，但用了 {passes} 次反向传播，每列两次：每一列都单独跑了"
            "一遍第一次反向传播（PyTorch 的 functional.jvp 就是这么做的）。第一次反向传播 "
            "g = Jᵀu 对每一列都一样：只跑一次，再配合 retain_graph=True 复用它，总共 "
            f"{by_columns} 次。",
        )
    return say(
        f"on {label} the matrix is right, but it took {passes} backward passes: {cost}.",
        f"对于{label}，矩阵是对的，但用了 {passes} 次反向传播：{cost}。",
    )


def _diagnose_jacobian(got: np.ndarray, want: np.ndarray) -> str:
    rows, cols = want.shape
    if _same(got, want.T):
        return say(
            f"you have the transpose: rows should be the {rows} outputs and columns the {cols} "
            "inputs (J[i][j] = ∂y_i/∂x_j). Columns collected in a list go side by side with "
            "mg.stack(columns, dim=1).",
            f"你得到的是转置：行应当对应 {rows} 个输出，列对应 {cols} 个输入"
            "（J[i][j] = ∂y_i/∂x_j）。收集在列表里的各列要用 mg.stack(columns, dim=1) "
            "并排放好。",
        )
    if _same(got, want.sum(1)):
        return say(
            "that is one Jacobian-vector product with v = all ones (J·1): a one-hot v per "
            "input gives each column.",
            "这是一个雅可比-向量积，v 取全 1（J·1）：每个输入用一个 one-hot 的 v，才能得到各列。",
        )
    return slip(got, want)


def check_jacobian(
    jacobian: Callable[[Callable[[Any], Any], Any], Any], *, demo: bool = False
) -> None:
    """`jacobian(f, x)` must be f's Jacobian at x, built in the direction with fewer passes."""
    v = verdict_or_demo(JACOBIAN, demo)
    if not _callable(v, jacobian, "jacobian", "jacobian(f, x)"):
        v.done("")
        return
    for (label, f, point), (_, flat, _) in zip(_jacobian_cases(), _jacobian_cases(_q_flat)):
        want = mg_functional.jacobian(f, mg.tensor(point.tolist())).numpy()
        numeric = mg_functional.jacobian(flat, mg.tensor(point.tolist())).numpy()
        m, n = want.shape
        x = mg.tensor(point.tolist(), requires_grad=True)
        with _q_runs() as q_runs:
            result, error, passes, flags, used, ready = _run(jacobian, (f, x))
        got = _usable(v, label, result, error, say("the Jacobian", "雅可比矩阵"))
        if got is None:
            break
        if "jacobian" in used:
            v.require(
                False,
                say(
                    f"on {label} mg.autograd.functional.jacobian did the work (and it always goes "
                    "row by row). Build J yourself, by rows or by columns, whichever needs fewer "
                    "backward passes.",
                    f"对于{label}，活是 mg.autograd.functional.jacobian 干的（而它总是按行算）。"
                    "请自己构造 J，按行或按列，哪个方向需要的反向传播少就用哪个。",
                ),
            )
            break
        if "forward mode" in used:
            v.require(
                False,
                say(
                    f"on {label} your columns came from forward mode (a dual pass per column: "
                    f"functional.jvp, func.jvp or forward_ad), with {passes} backward passes. That "
                    "is section 3's method, and a good one; this exercise builds columns with "
                    "backward passes, the double-backward trick of section 2, its first pass run "
                    "once.",
                    f"对于{label}，你的各列来自前向模式（每列一遍对偶计算：functional.jvp、"
                    f"func.jvp 或 forward_ad），反向传播 {passes} 次。那是第 3 节的方法，"
                    "也是好方法；但这个练习要用反向传播构造各列，即第 2 节的双重反向技巧，"
                    "且它的第一次反向传播只跑一次。",
                ),
            )
            break
        if ready:
            v.require(
                False,
                _ready_made(
                    label,
                    ready,
                    "Build J yourself with mg.autograd.grad (or backward), by rows or by "
                    "columns, whichever needs fewer backward passes.",
                    "请用 mg.autograd.grad（或 backward）自己构造 J，按行或按列，"
                    "哪个方向需要的反向传播少就用哪个。",
                ),
            )
            break
        if not _same(got, want) and _loosely(got, numeric):
            v.require(False, _numeric_words(label, say("Jacobian", "雅可比矩阵"), passes))
            break
        if passes == 0:
            v.require(
                False,
                say(
                    f"on {label} no backward pass ran: build J with backward passes (vjp rows or "
                    "columns by the double-backward trick), not from a formula or finite "
                    "differences.",
                    f"对于{label}，一次反向传播都没有运行：请用反向传播构造 J（vjp 求行，或用双重"
                    "反向技巧求列），不要用公式或有限差分。",
                ),
            )
            break
        if not q_runs["backward"]:
            v.require(False, _passes_missed_f(label, passes, say("a Jacobian", "雅可比矩阵")))
            break
        if not _same(got, want):
            v.require(False, say(f"on {label}: ", f"对于{label}：") + _diagnose_jacobian(got, want))
            break
        slower = _jacobian_passes(label, passes, flags, m, n)
        if not v.require(slower is None, slower or ""):
            break
    v.done(
        say(
            "rows for the wide f (2 passes), columns for the tall one (3 passes): one pass per "
            "output or one per input plus one, whichever is fewer.",
            "「宽」的 f 按行（2 次反向传播），「高」的 f 按列（3 次）：每个输出一次，或每个输入"
            "一次再加一次，取少的那个。",
        )
    )


# --- exercise 2: a Hessian-vector product -------------------------------------------------------


def _hvp_cases(q: Callable[[Any], Any] = _q) -> list[tuple[str, Callable, np.ndarray, np.ndarray]]:
    """(description, f, point, v): two scalar functions with dense Hessians and the hidden step
    q, at fresh points."""
    rng = np.random.default_rng(1718)

    def chain(x: Any) -> Any:
        return (q(x).sin() * x).sum() + (x[:-1] * x[1:] ** 2).sum()

    def log_norm(x: Any) -> Any:
        return ((x**2).sum() + 1).log() + q(x[0]) * x.exp().sum()

    return [
        (
            say(
                "f(x) = Σ x·sin(q(x)) + Σ x_k·x_k+1² with 8 inputs",
                "有 8 个输入的 f(x) = Σ x·sin(q(x)) + Σ x_k·x_k+1²",
            ),
            chain,
            rng.uniform(-1, 1, 8).round(2),
            rng.uniform(-1, 1, 8).round(2),
        ),
        (
            say(
                "f(x) = log(|x|² + 1) + q(x0)·Σ eˣ with 5 inputs",
                "有 5 个输入的 f(x) = log(|x|² + 1) + q(x0)·Σ eˣ",
            ),
            log_norm,
            rng.uniform(-1, 1, 5).round(2),
            rng.uniform(-1, 1, 5).round(2),
        ),
    ]


def _numeric_hvps(f: Callable, flat: Callable, point: np.ndarray, vec: np.ndarray) -> list:
    """Hv as numerical differentiation finds it: second differences of f (which see q's flat
    steps everywhere) and a central difference of two autograd gradients (g at x ± h·v)."""
    x, v = mg.tensor(point.tolist()), mg.tensor(vec.tolist())
    of_f = mg_functional.hvp(flat, x, v)[1].numpy()
    h = 1e-3

    def gradient(at: np.ndarray) -> np.ndarray:
        t = mg.tensor(at.tolist(), dtype=mg.float64, requires_grad=True)
        return mg.autograd.grad(f(t), t)[0].numpy()

    of_gradients = (gradient(point + h * vec) - gradient(point - h * vec)) / (2 * h)
    return [of_f, of_gradients]


def _diagnose_hvp(got: np.ndarray, f: Callable[[Any], Any], point: np.ndarray, vec: np.ndarray):
    x = mg.tensor(point.tolist())
    want = mg_functional.hvp(f, x, mg.tensor(vec.tolist()))[1].numpy()
    gradient = mg_functional.vjp(f, x)[1].numpy()
    row_sums = mg_functional.hvp(f, x, mg.ones(len(point)))[1].numpy()
    if _same(got, gradient):
        return say(
            "that is the gradient g: differentiate it once more, in the direction v (compute g "
            "with create_graph=True, then mg.autograd.grad(g, x, grad_outputs=v)).",
            "这是梯度 g：还要沿方向 v 再对它求一次导（用 create_graph=True 算出 g，再调用 "
            "mg.autograd.grad(g, x, grad_outputs=v)）。",
        )
    if _same(got, gradient * vec):
        return say(
            "that is g·v entry by entry, one derivative only: Hv needs a second backward pass "
            "through g, weighted by v.",
            "这是 g 与 v 逐元素相乘，只求了一次导：Hv 还需要以 v 为权重，穿过 g 再做一次反向传播。",
        )
    if _same(got, row_sums):
        return say(
            "that is H·1, the sums of H's rows: the second pass differentiated g.sum(). Weight "
            "it by v instead: grad_outputs=v, or (g * v).sum().",
            "这是 H·1，即 H 各行之和：第二次反向传播求的是 g.sum() 的导数。应当以 v 为权重："
            "grad_outputs=v，或者 (g * v).sum()。",
        )
    if _same(got, gradient + want):
        return say(
            "that is g + Hv: the second backward() added Hv onto x.grad, which already held g. "
            "Use mg.autograd.grad, which returns gradients instead of accumulating them.",
            "这是 g + Hv：第二次 backward() 把 Hv 累加到了 x.grad 上，而 x.grad 里已经有 g。"
            "请用 mg.autograd.grad，它直接返回梯度，不做累加。",
        )
    if got.shape != want.shape:
        return say(
            f"Hv has one entry per input, shape {want.shape}; yours has shape {got.shape}.",
            f"Hv 每个输入对应一个元素，形状为 {want.shape}；你的结果形状为 {got.shape}。",
        )
    wrong = np.argwhere(~np.isclose(got, want, rtol=1e-4, atol=1e-5)).ravel()
    return say(
        f"{len(wrong)} entries differ; e.g. (Hv)[{wrong[0]}] should be {want[wrong[0]]:.4f} but "
        f"is {got[wrong[0]]:.4f}.",
        f"有 {len(wrong)} 个元素不对；例如 (Hv)[{wrong[0]}] 应为 {want[wrong[0]]:.4f}，"
        f"实际是 {got[wrong[0]]:.4f}。",
    )


def check_hvp(hvp: Callable[[Callable[[Any], Any], Any, Any], Any], *, demo: bool = False) -> None:
    """`hvp(f, x, v)` must be H v by two backward passes, with no Hessian built."""
    v = verdict_or_demo(HVP, demo)
    if not _callable(v, hvp, "hvp", "hvp(f, x, v)"):
        v.done("")
        return
    for (label, f, point, vec), (_, flat, _, _) in zip(_hvp_cases(), _hvp_cases(_q_flat)):
        n = len(point)
        want = mg_functional.hvp(f, mg.tensor(point.tolist()), mg.tensor(vec.tolist()))[1]
        numeric = _numeric_hvps(f, flat, point, vec)
        x = mg.tensor(point.tolist(), requires_grad=True)
        direction = mg.tensor(vec.tolist())
        with _q_runs() as q_runs:
            result, error, passes, flags, used, ready = _run(hvp, (f, x, direction))
        got = _usable(v, label, result, error, say("Hv", " Hv"))
        if got is None:
            break
        if "jacobian" in used:
            v.require(
                False,
                say(
                    f"on {label} you built the whole Hessian ({n}×{n}) with the library, {passes} "
                    "backward passes. Hv needs two passes and no matrix at all: the gradient with "
                    "create_graph=True, then its derivative in the direction v.",
                    f"对于{label}，你用库函数构造了整个黑塞矩阵（{n}×{n}），用了 {passes} 次"
                    "反向传播。Hv 只需要两次反向传播，根本不用矩阵：先用 create_graph=True "
                    "求梯度，再求它沿方向 v 的导数。",
                ),
            )
            break
        products = sorted(used & {"hvp", "vhp"})
        if products:
            v.require(
                False,
                say(
                    f"on {label} mg.autograd.functional.{products[0]} did the work. Write its two "
                    "passes yourself: that is all it does inside.",
                    f"对于{label}，活是 mg.autograd.functional.{products[0]} 干的。请自己写出"
                    "那两次反向传播：它内部做的也不过如此。",
                ),
            )
            break
        if not _same(got, want.numpy()) and any(_loosely(got, ref) for ref in numeric):
            v.require(False, _numeric_words(label, say("Hv", " Hv "), passes))
            break
        if passes >= n:
            via, via_zh = _via(ready)
            v.require(
                False,
                say(
                    f"on {label} your function ran {passes} backward passes for {n} inputs{via}: "
                    "that "
                    f"is the cost of building the whole Hessian (one pass per row, {n + 1} with "
                    "the gradient), which is what this exercise avoids. Hv needs two passes, "
                    "whatever n.",
                    f"对于{label}，{n} 个输入你的函数跑了 {passes} 次反向传播{via_zh}："
                    f"这正是构造整个黑塞矩阵的代价（每行一次，加上梯度共 {n + 1} 次），"
                    "也正是本练习要避免的。无论 n 多大，Hv 都只需要两次反向传播。",
                ),
            )
            break
        if "forward mode" in used:
            v.require(
                False,
                say(
                    f"on {label} Hv came from forward mode (forward over reverse: a dual pass and "
                    f"{passes} backward pass(es)). Right, and section 5 shows it; this exercise "
                    "asks for reverse over reverse, written yourself: two backward passes.",
                    f"对于{label}，Hv 来自前向模式（前向套反向：一遍对偶计算加 {passes} 次反向"
                    "传播）。这是对的，第 5 节也讲了；但这个练习要的是反向套反向，由你自己写："
                    "两次反向传播。",
                ),
            )
            break
        if ready:
            v.require(
                False,
                _ready_made(
                    label,
                    ready,
                    "Write the two passes yourself with mg.autograd.grad: the gradient with "
                    "create_graph=True, then its derivative in the direction v.",
                    "请用 mg.autograd.grad 自己写出那两次反向传播：先用 create_graph=True "
                    "求梯度，再求它沿方向 v 的导数。",
                ),
            )
            break
        if passes == 0:
            v.require(
                False,
                say(
                    f"on {label} no backward pass ran: you computed Hv from a formula. Let "
                    "autograd do it, so that it works for any f.",
                    f"对于{label}，一次反向传播都没有运行：你是用公式算出 Hv 的。交给 autograd "
                    "去算，这样对任何 f 都适用。",
                ),
            )
            break
        if not q_runs["backward"]:
            v.require(False, _passes_missed_f(label, passes, say("Hv", " Hv")))
            break
        if not _same(got, want.numpy()):
            v.require(
                False, say(f"on {label}: ", f"对于{label}：") + _diagnose_hvp(got, f, point, vec)
            )
            break
        if not v.require(
            passes == 2 and flags[0],
            say(
                f"on {label} the values are right, but the engine ran {passes} backward passes: "
                "two are enough, the first with create_graph=True.",
                f"对于{label}，数值是对的，但引擎跑了 {passes} 次反向传播：两次就够了，第一次要加 "
                "create_graph=True。",
            ),
        ):
            break
    v.done(
        say(
            "Hv from two backward passes whatever the size of x; the n×n Hessian was never built.",
            "无论 x 多大，Hv 都只用两次反向传播；n×n 的黑塞矩阵从未构造出来。",
        )
    )
