"""Checks for lesson 14 (broadcasting and gradients).

Exercise 1 compares the learner's `sum_to_shape` with autograd itself, on hand-picked pairs and
on fresh random ones (leading dims and size-1 dims), and names the usual slips: leading dims kept,
size-1 dims dropped, `sum(dim=())` summing everything, a mean for a sum, the built-in
`sum_to_size` or the engine's helpers (watched by code object, however they are reached) called
instead. Then it checks the method: the learner's function must not run a
backward pass (autograd summing for it), and, given a gradient that is itself part of a graph,
its result must be a differentiable function of that gradient whose backward is the broadcast
(as the engine's own sum is under `create_graph=True`): numpy, or values typed into a new tensor,
break that link and are named. Exercise 2 runs the learner's fixed model on fresh samples and
compares every parameter's gradient with a correct model's; the original bug is recognised by
its (3, 1) bias.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

import minigrad as mg
from minigrad.autograd import engine
from minigrad.core import shapes
from minigrad.ops import formula
from minigrad.ops import shape as shape_ops

from .calls import calls_to
from .feedback import Verdict, close, verdict
from .hints import register
from .language import say

register(
    "14",
    "Sum to shape",
    "Line the two shapes up from the right, as broadcasting does. The dims `grad` has in front "
    "of `shape` are leading dims: the tensor had no such dim, so they are summed away.",
    "After the leading dims are gone, `grad` has as many dims as `shape`. Every dim where "
    "`shape` has a 1 and `grad` does not was broadcast too: sum over it with `keepdim=True` so "
    "the 1 stays. Careful: `grad.sum(dim=())` with an empty tuple sums over ALL dims.",
    "Two steps: `lead = grad.dim() - len(shape)`; if `lead`, sum over dims 0 … lead-1 (no "
    "keepdim). Then collect every i with `shape[i] == 1 and grad.shape[i] != 1` and, if there "
    "are any, sum over them with `keepdim=True`. Return the result.",
    zh_title="求和回原形状",
    zh=(
        "像广播那样把两个形状从右边对齐。`grad` 比 `shape` 多出来的前面那些维度是前导维度："
        "张量本来就没有这些维度，所以要把它们求和消掉。",
        "去掉前导维度之后，`grad` 的维数就和 `shape` 一样了。凡是 `shape` 为 1 而 `grad` 不为 1 "
        "的维度，也是被广播过的：用 `keepdim=True` 在这一维上求和，让那个 1 保留下来。注意："
        "`grad.sum(dim=())` 传空元组会对所有维度求和。",
        "分两步：`lead = grad.dim() - len(shape)`；如果 `lead` 不为 0，就对第 0 … lead-1 维求和"
        "（不加 keepdim）。然后收集所有满足 `shape[i] == 1 and grad.shape[i] != 1` 的 i，"
        "如果有，就用 `keepdim=True` 对它们求和。最后返回结果。",
    ),
)
register(
    "14",
    "Fix the silent bias",
    "Run `predict` on one sample and print the shape of every intermediate: `W @ x`, "
    "`W @ x + b`, the tanh, the result. Which shape is not what y = v·tanh(Wx + b) + c promises "
    "for one sample?",
    "`W @ x` has shape (3,) and `b` has shape (3, 1). Lined up from the right they broadcast to "
    "(3, 3), so `predict` returns 3 numbers per sample, and the `.mean()` in the loss hides it.",
    "Give `b` the shape `nn.Linear(2, 3).bias` has, (3,): in `init_params_fixed` draw it with "
    "`mg.randn(3)` (the same numbers, drawn in the same order) and keep every other line of "
    "`init_params` as it is.",
    zh_title="修好悄无声息的偏置",
    zh=(
        "对一个样本运行 `predict`，打印每个中间结果的形状：`W @ x`、`W @ x + b`、tanh 之后、"
        "最终结果。对单个样本来说，y = v·tanh(Wx + b) + c 应该给出什么形状？哪一步不对？",
        "`W @ x` 的形状是 (3,)，`b` 的形状是 (3, 1)。从右边对齐后它们广播成 (3, 3)，于是 `predict` "
        "对每个样本返回 3 个数，而损失里的 `.mean()` 把这一点掩盖了。",
        "让 `b` 的形状和 `nn.Linear(2, 3).bias` 一样，是 (3,)：在 `init_params_fixed` 里用 "
        "`mg.randn(3)` 生成它（数值相同，生成顺序也相同），`init_params` 的其余各行保持不变。",
    ),
)

SUM_TO_SHAPE_CASES: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...] = (
    ((2, 3), (3,)),  # a leading dim
    ((2, 3), (1, 3)),  # a size-1 dim, kept
    ((2, 3), (2, 1)),
    ((4, 2, 3), (2, 1)),  # both at once
    ((2, 3), (2, 3)),  # nothing to sum
    ((3, 1, 4), (1, 4)),  # a size-1 dim that grad has too: nothing to sum there
    ((2, 3), ()),  # a 0-d tensor gets everything
)
RANDOM_PAIRS = 40
PARAM_SHAPES = {"W": (3, 2), "b": (3,), "v": (3,), "c": ()}


def _stop(v: Verdict) -> None:
    """Print what is wrong so far and end the check (later steps depend on this one)."""
    v.done("")


def _shape(t: Any) -> tuple[int, ...]:
    return tuple(int(s) for s in t.shape)


def _raised(err: Exception, doing: str) -> str:
    """A sentence for an error raised by the learner's code, naming the likely cause."""
    text = str(err).splitlines()[0] if str(err) else ""
    torch_met_minigrad = "must be Tensor, not Tensor" in text or (
        "Tensor" in text and "expected" in text and "unexpected" not in text
    )
    gap = "" if re.search(r"[\u4e00-\u9fff]$", doing) else " "  # Chinese: no space after 汉字
    if isinstance(err, TypeError) and torch_met_minigrad:
        return say(
            f"{doing} raised TypeError: a minigrad tensor met a real PyTorch function "
            "(`torch.…`). Use minigrad here: tensor methods or `mg.…`.",
            f"{doing}{gap}抛出了 TypeError：一个 minigrad 张量被传给了真正的 PyTorch 函数"
            "（`torch.…`）。这里请用 minigrad：张量自己的方法或 `mg.…`。",
        )
    return say(
        f"{doing} raised {type(err).__name__}: {text}",
        f"{doing}{gap}抛出了 {type(err).__name__}：{text}",
    )


# --- exercise 1: sum_to_shape ------------------------------------------------------------------


def _autograd_sum(grad: mg.Tensor, shape: tuple[int, ...]) -> mg.Tensor:
    """What backward gives a tensor of `shape` broadcast to grad's shape: autograd's answer."""
    leaf = mg.zeros(shape, requires_grad=True)
    (leaf + mg.zeros(_shape(grad))).backward(grad)
    return leaf.grad


def _random_pair(rng: random.Random) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """A fresh broadcast pair: a gradient shape and a shape that broadcasts to it."""
    big = tuple(rng.randint(1, 4) for _ in range(rng.randint(1, 4)))
    lead = rng.randint(0, len(big))
    small = tuple(1 if rng.random() < 0.4 else s for s in big[lead:])
    return big, small


def _shape_problem(big: tuple, shape: tuple, got: tuple) -> str:
    """Why `got` is the wrong shape for a gradient of shape `big` summed down to `shape`."""
    lead = len(big) - len(shape)
    head = say(
        f"for a gradient of shape {big} and shape {shape} you returned shape {got}",
        f"梯度形状为 {big}、shape 为 {shape} 时，你返回的形状是 {got}",
    )
    if got == big:
        return say(
            f"{head}: nothing was summed. The result must have shape {shape}.",
            f"{head}：什么都没有求和。结果的形状必须是 {shape}。",
        )
    if int(np.prod(got)) == 1 and int(np.prod(shape)) != 1:
        return say(
            f"{head}: everything was summed. Note that `grad.sum(dim=())` with an EMPTY tuple "
            "of dims sums over all dims (PyTorch does the same): only call `sum` when there is "
            "at least one dim to sum.",
            f"{head}：所有维度都被求和了。注意，`grad.sum(dim=())` 传入空元组时会对所有维度求和"
            "（PyTorch 也是如此）：只有在至少有一个维度要求和时才调用 `sum`。",
        )
    if lead and len(got) == len(big) and got[:lead] == (1,) * lead and got[lead:] == shape:
        return say(
            f"{head}: the leading dims are still there as 1s. The tensor never had them, so "
            f"sum them away without keepdim: the result is {shape}.",
            f"{head}：前导维度还以 1 的形式留着。张量本来就没有这些维度，所以求和时不要加 "
            f"keepdim，把它们消掉：结果应为 {shape}。",
        )
    if got == tuple(s for s in shape if s != 1):
        return say(
            f"{head}: the size-1 dims were dropped. Where `shape` has a 1, sum with "
            f"`keepdim=True` so that the 1 stays: the result is {shape}.",
            f"{head}：大小为 1 的维度被丢掉了。`shape` 中为 1 的维度，求和时要加 "
            f"`keepdim=True`，让那个 1 保留下来：结果应为 {shape}。",
        )
    return say(
        f"{head}, expected {shape}. Line the shapes up from the right: dim i of `shape` "
        f"belongs to dim i + {lead} of `grad`.",
        f"{head}，应为 {shape}。把两个形状从右边对齐：`shape` 的第 i 维对应 `grad` 的"
        f"第 i + {lead} 维。",
    )


def _one_case(
    v: Verdict, fn: Callable, shape: tuple, values: np.ndarray, expected: mg.Tensor, first: bool
) -> bool:
    """Run the learner's function on one pair; record the first problem; True if it passed."""
    big = values.shape
    grad = mg.tensor(values)
    try:
        out = fn(grad, shape)
    except Exception as err:  # the learner's code: report whatever it raised
        doing = say(
            f"sum_to_shape(a gradient of shape {big}, {shape})",
            f"sum_to_shape(形状为 {big} 的梯度, {shape})",
        )
        return v.require(False, _raised(err, doing))
    if out is None:
        what = (
            say(
                "sum_to_shape returned None: is its body still `...`? It should return the summed "
                "gradient.",
                "sum_to_shape 返回了 None：函数体是不是还是 `...`？它应该返回求和后的梯度。",
            )
            if first
            else say(
                f"sum_to_shape returned None for a gradient of shape {big} and shape {shape}: "
                "does every path through it end in a `return`?",
                f"梯度形状为 {big}、shape 为 {shape} 时，sum_to_shape 返回了 None："
                "函数里的每条分支最后都有 `return` 吗？",
            )
        )
        return v.require(False, what)
    if not isinstance(out, mg.Tensor):
        return v.require(
            False,
            say(
                f"sum_to_shape returned a {type(out).__module__}.{type(out).__name__}; return a "
                "minigrad tensor (sum with the tensor's own `sum` method).",
                f"sum_to_shape 返回的是 {type(out).__module__}.{type(out).__name__}；请返回 "
                "minigrad 张量（用张量自己的 `sum` 方法求和）。",
            ),
        )
    if not close(grad, values):
        return v.require(
            False,
            say(
                "sum_to_shape changed `grad` in place. Leave the gradient it receives alone (other "
                "parts of the graph may share it) and return a new tensor.",
                "sum_to_shape 原地修改了 `grad`。不要改动传进来的梯度"
                "（计算图的其他部分可能共用它），而是返回一个新张量。",
            ),
        )
    if _shape(out) != shape:
        return v.require(False, _shape_problem(big, shape, _shape(out)))
    if out.dtype != grad.dtype:
        return v.require(
            False,
            say(
                f"sum_to_shape returned dtype {out.dtype}, the gradient was {grad.dtype}: a "
                "gradient keeps its tensor's dtype.",
                f"sum_to_shape 返回的 dtype 是 {out.dtype}，而传入的梯度是 {grad.dtype}："
                "梯度的 dtype 与其张量相同，应保持不变。",
            ),
        )
    if close(out, expected, atol=1e-4):
        return True
    copies = int(np.prod(big)) // max(1, int(np.prod(shape)))
    if copies > 1 and close(out * copies, expected, atol=1e-4):
        return v.require(
            False,
            say(
                f"for a gradient of shape {big} and shape {shape} you averaged: each broadcast "
                "copy sends its own gradient back, and the copies' gradients ADD up. Sum, don't "
                "average.",
                f"梯度形状为 {big}、shape 为 {shape} 时，你求的是平均：广播出的每个副本都会"
                "传回自己的梯度，这些梯度要**相加**。请求和，不要求平均。",
            ),
        )
    return v.require(
        False,
        say(
            f"for a gradient of shape {big} and shape {shape} autograd gives "
            f"{expected.tolist()}, you returned {out.tolist()}. Which dims did you sum?",
            f"梯度形状为 {big}、shape 为 {shape} 时，autograd 给出 {expected.tolist()}，"
            f"你返回的是 {out.tolist()}。你对哪些维度求了和？",
        ),
    )


# minigrad's code that sums a broadcast gradient to a shape, by the name a learner would know
_SUM_TO_SHAPE_CODE = {
    "Tensor.sum_to_size": shape_ops.sum_to_size,
    "minigrad.core.shapes.reduced_dims": shapes.reduced_dims,
    "minigrad.core.shapes.sum_to_array": shapes.sum_to_array,
    "minigrad.ops.formula.sum_to": formula.sum_to,
    "minigrad.autograd.engine.fit_gradient": engine.fit_gradient,
}


def check_sum_to_shape(fn: Any) -> None:
    """`fn(grad, shape)` sums a broadcast gradient down to `shape`, as backward does."""
    v = verdict("Sum to shape")
    if not v.answered(fn, "sum_to_shape"):
        return _stop(v)
    if not v.require(
        callable(fn),
        say(
            "sum_to_shape should be a function of (grad, shape).",
            "sum_to_shape 应该是一个以 (grad, shape) 为参数的函数。",
        ),
    ):
        return _stop(v)
    rng = random.Random()  # fresh pairs on every run: the answer must be a method, not a table
    cases = []
    for big, shape in list(SUM_TO_SHAPE_CASES) + [_random_pair(rng) for _ in range(RANDOM_PAIRS)]:
        values = np.array([rng.randint(-9, 9) for _ in range(int(np.prod(big)))], np.float32)
        values = values.reshape(big)
        cases.append((shape, values, _autograd_sum(mg.tensor(values), shape)))
    used_builtin: list[str] = []

    def watched(grad: mg.Tensor, shape: tuple) -> Any:
        """The learner's function, with minigrad's own sum-to-shape code watched by code
        object: an alias, a method bound before the check, or a helper imported from inside
        minigrad is seen all the same."""
        with calls_to(_SUM_TO_SHAPE_CODE) as called:
            out = fn(grad, shape)
        used_builtin.extend(n for n in called if n not in used_builtin)
        return out

    with mg.autograd.record_steps() as steps:  # the learner's calls only
        for i, (shape, values, expected) in enumerate(cases):
            if not _one_case(v, watched, shape, values, expected, first=i == 0):
                return _stop(v)
    problem = _method_problem(watched, rng)
    passes = steps.kinds().count("backward_start")
    if passes:
        v.require(
            False,
            say(
                f"the answers are right, but your function ran {passes} backward pass(es): "
                "autograd did the summing for you (a broadcast and a backward give exactly this "
                "gradient). The exercise is the rule itself, written with "
                "`sum(dim=..., keepdim=...)`, the reduction the engine applies inside backward.",
                f"答案是对的，但你的函数跑了 {passes} 次反向传播：求和是 autograd 替你做的"
                "（先广播再反向传播，得到的正是这个梯度）。本练习要的是这条规则本身，用 "
                "`sum(dim=..., keepdim=...)` 写出来，也就是引擎在反向传播内部做的那次求和。",
            ),
        )
        return _stop(v)
    if problem and not used_builtin:
        v.require(False, problem)
        return _stop(v)
    if used_builtin:
        first = used_builtin[0]  # the one the learner's code called; the others it calls
        v.require(
            False,
            say(
                f"the answers are right, but your function called `{first}`: minigrad's own "
                "sum to shape (the built-in `Tensor.sum_to_size` and the helpers it and the "
                "engine use), which does exactly this, whatever name it is reached by. Write it "
                "yourself with `sum(dim=..., keepdim=...)`, finding the dims to sum yourself: "
                "that is the exercise.",
                f"答案是对的，但你的函数调用了 `{first}`："
                "这是 minigrad 自己的求和回原形状（内置方法 `Tensor.sum_to_size`，以及它和引擎"
                "所用的辅助函数），做的正是这件事，不管通过什么名字调用。请用 "
                "`sum(dim=..., keepdim=...)` 自己写出来，要求和的维度也由你自己找出："
                "这才是本练习的目的。",
            ),
        )
    v.done(
        say(
            f"matches autograd on {len(SUM_TO_SHAPE_CASES)} hand-picked and {RANDOM_PAIRS} fresh "
            "random broadcast pairs: leading dims summed away, size-1 dims summed and kept.",
            f"在 {len(SUM_TO_SHAPE_CASES)} 组精选和 {RANDOM_PAIRS} 组新随机生成的广播形状上都与 "
            "autograd 一致：前导维度被求和消掉，大小为 1 的维度求和后保留。",
        )
    )


def _method_problem(fn: Callable, rng: random.Random) -> str | None:
    """None when fn's result is a differentiable function of the gradient it gets, whose
    backward is the broadcast (the engine's sum is, under create_graph=True); else what broke."""
    for big, shape in [((4, 2, 3), (2, 1)), _random_pair(rng)]:
        values = np.array([rng.randint(-9, 9) for _ in range(int(np.prod(big)))], np.float32)
        leaf = mg.tensor(values.reshape(big), requires_grad=True)
        grad = leaf * 1  # a gradient with a graph of its own, as under create_graph=True
        try:
            out = fn(grad, shape)
        except Exception as err:  # the learner's code: report whatever it raised
            if "numpy()" in str(err):
                return _outside_the_graph(say("went through numpy", "经过了 numpy"))
            doing = say(
                f"sum_to_shape(a gradient of shape {big} that requires grad, {shape})",
                f"sum_to_shape(形状为 {big}、需要梯度的梯度, {shape})",
            )
            return _raised(err, doing)
        if not isinstance(out, mg.Tensor) or not out.requires_grad:
            return _outside_the_graph(
                say(
                    "was computed outside autograd (numpy, or numbers typed into a new tensor)",
                    "是在 autograd 之外算出来的（numpy，或者把数字填进一个新张量）",
                )
            )
        weights = mg.tensor(
            np.array([rng.randint(1, 9) for _ in range(int(np.prod(shape)))], np.float32)
        ).reshape(shape)
        try:
            (back,) = mg.autograd.grad((out * weights).sum(), leaf, allow_unused=True)
        except RuntimeError:
            back = None
        if back is None or not close(back, weights.expand(*big)):
            return _outside_the_graph(
                say(
                    "is tied to the gradient only in part: its values do not all come from "
                    "summing `grad`",
                    "只有一部分和传进来的梯度相连：它的数值并不全是由 `grad` 求和得来的",
                )
            )
    return None


def _outside_the_graph(how: str) -> str:
    return say(
        f"the values are right, but your result {how}. Backward's own sum to shape is recorded "
        "like any op under `create_graph=True` (section 3 drew it as SumBackward1 and "
        "ViewBackward0), so a gradient of a gradient can pass through it: given a gradient that "
        "is part of a graph, sum_to_shape must return a tensor computed from it with tensor "
        "ops (`sum(dim=..., keepdim=...)`).",
        f"数值是对的，但你的结果{how}。反向传播自己做的求和回原形状，在 `create_graph=True` "
        "下会像别的运算一样被记录下来（第 3 节画出来的是 SumBackward1 和 ViewBackward0），"
        "这样梯度的梯度才能穿过它：如果传进来的梯度本身属于一张计算图，sum_to_shape 就必须用"
        "张量运算（`sum(dim=..., keepdim=...)`）从它算出结果。",
    )


# --- exercise 2: the silent bias --------------------------------------------------------------


def _reference_values(seed: int) -> dict[str, np.ndarray]:
    """init_params(seed) of the lesson with the bug fixed: the same draws, b of shape (3,)."""
    mg.manual_seed(seed)
    W = mg.randn(3, 2) * 0.5
    b = mg.randn(3) * 0.5
    v = mg.randn(3) * 0.5
    return {"W": W.numpy(), "b": b.numpy(), "v": v.numpy(), "c": np.zeros((), np.float32)}


def _reference_grads(
    values: Mapping[str, np.ndarray], xs: np.ndarray, ys: np.ndarray
) -> dict[str, np.ndarray]:
    """The gradients of sum((v·tanh(Wx + b) + c - y)²) over the samples, by autograd."""
    p = {k: mg.tensor(a, requires_grad=True) for k, a in values.items()}
    loss = mg.tensor(0.0)
    for x, y in zip(xs, ys, strict=True):
        pred = p["v"] @ (p["W"] @ mg.tensor(x) + p["b"]).tanh() + p["c"]
        loss = loss + (pred - float(y)) ** 2
    loss.backward()
    return {k: t.grad.numpy() for k, t in p.items()}


def _param_problem(name: str, t: Any) -> str | None:
    """What is wrong with one returned parameter on its own, or None."""
    if not isinstance(t, mg.Tensor):
        return say(
            f"params[{name!r}] is a {type(t).__module__}.{type(t).__name__}; every parameter "
            "should be a minigrad tensor, as in init_params.",
            f"params[{name!r}] 是 {type(t).__module__}.{type(t).__name__}；和 init_params 一样，"
            "每个参数都应该是 minigrad 张量。",
        )
    if not t.requires_grad:
        return say(
            f"params[{name!r}] does not require grad: it would get no gradient at all.",
            f"params[{name!r}] 不需要梯度：它根本得不到梯度。",
        )
    if not t.is_leaf:
        return say(
            f"params[{name!r}] is not a leaf (it has grad_fn {t.grad_fn.name()}): a reshape or "
            "view of a leaf is a new tensor with history, and its `.grad` stays None. Create "
            "the parameter with the right shape (`mg.randn(3) * 0.5`, then `.requires_grad_()`).",
            f"params[{name!r}] 不是叶子张量（它的 grad_fn 是 {t.grad_fn.name()}）：对叶子张量做 "
            "reshape 或取视图，得到的是一个带历史的新张量，它的 `.grad` 始终是 None。请直接以正确的"
            "形状创建这个参数（`mg.randn(3) * 0.5`，再调用 `.requires_grad_()`）。",
        )
    return None


def _run_model(params: Mapping, predict: Callable, xs: np.ndarray, ys: np.ndarray) -> str | None:
    """Backward of the summed squared error through the learner's predict: None, or what failed."""
    try:
        loss = mg.tensor(0.0)
        for x, y in zip(xs, ys, strict=True):
            pred = predict(params, mg.tensor(x))
            if not isinstance(pred, mg.Tensor) or _shape(pred) != ():
                got = _shape(pred) if isinstance(pred, mg.Tensor) else type(pred).__name__
                return say(
                    f"predict(params, x) for one sample returned {got}; it should be one "
                    "number, a 0-d minigrad tensor. Print the shape of every step inside "
                    "predict to see where it grows.",
                    f"对单个样本，predict(params, x) 返回了 {got}；它应该是一个数，即 0 维的 "
                    "minigrad 张量。打印 predict 内每一步的形状，看看形状是在哪里变大的。",
                )
            loss = loss + (pred - float(y)) ** 2
        loss.backward()
    except Exception as err:  # the learner's code: report whatever it raised
        doing = say(
            "predict(params, x) and backward on fresh samples",
            "在新样本上运行 predict(params, x) 并反向传播时",
        )
        return _raised(err, doing)
    return None


def _wrong_grads(params: Mapping, want: Mapping[str, np.ndarray]) -> list[str]:
    """The parameters whose gradient differs from the correct model's (b compared flat)."""
    wrong = []
    for name, expected in want.items():
        got = params[name].grad
        if got is None or not close(got.numpy().reshape(-1), expected.reshape(-1), 1e-4, 1e-5):
            wrong.append(name)
    return wrong


def _rounded(t: Any) -> Any:
    return None if t is None else np.round(np.asarray(t, dtype=float), 4).tolist()


def _column_bias(params: Mapping, predict: Callable, xs, ys, want) -> str:
    """b is still (3, 1): say whether predict works around it or the bug is all there."""
    if _run_model(params, predict, xs, ys) is not None:
        return say(
            "b still has shape (3, 1), the bug: `W @ x` has shape (3,), so `W @ x + b` "
            "broadcasts to (3, 3) and predict returns 3 numbers per sample, which the "
            "`.mean()` in the loss hides. Give b the shape nn.Linear(2, 3).bias has: (3,).",
            "b 的形状仍是 (3, 1)，这正是 bug 所在：`W @ x` 的形状是 (3,)，所以 `W @ x + b` "
            "广播成 (3, 3)，predict 对每个样本返回 3 个数，而损失里的 `.mean()` 把这一点掩盖了。"
            "请让 b 的形状与 nn.Linear(2, 3).bias 相同：(3,)。",
        )
    if _wrong_grads(params, want):
        return say(
            "predict returns one number per sample now, but only because it sums or averages "
            "the (3, 3) result away: the gradients are still the buggy model's. The bug is b's "
            "shape, (3, 1): give b the shape nn.Linear(2, 3).bias has, (3,).",
            "现在 predict 对每个样本返回一个数了，但那只是因为它把 (3, 3) 的结果求和或求平均"
            "抹掉了：梯度仍然是有 bug 的模型的梯度。bug 在于 b 的形状 (3, 1)：请让 b 的形状与 "
            "nn.Linear(2, 3).bias 相同，即 (3,)。",
        )
    return say(
        "predict gives the right numbers, but b still has shape (3, 1): fix the bug where it "
        "is made. A bias for 3 hidden units has shape (3,), like nn.Linear(2, 3).bias; then "
        "the lesson's predict works as written.",
        "predict 给出的数值是对的，但 b 的形状仍是 (3, 1)：请在 bug 产生的地方修复它。"
        "3 个隐藏单元的偏置形状是 (3,)，和 nn.Linear(2, 3).bias 一样；这样本课的 predict "
        "原样就能正确工作。",
    )


def check_fixed_model(init_fixed: Any, predict: Any) -> None:
    """`init_fixed(seed)` gives init_params(seed)'s parameters with b fixed to (3,); predict
    returns one number per sample and every parameter gets the correct model's gradient."""
    v = verdict("Fix the silent bias")
    if not v.answered(init_fixed, "init_params_fixed"):
        return _stop(v)
    if not v.require(
        callable(init_fixed) and callable(predict),
        say(
            "pass two functions: init_params_fixed(seed) and predict(params, x).",
            "请传入两个函数：init_params_fixed(seed) 和 predict(params, x)。",
        ),
    ):
        return _stop(v)
    rng = np.random.default_rng()  # fresh seed and samples on every run
    seed = int(rng.integers(1, 10**6))
    try:
        params = init_fixed(seed)
    except Exception as err:  # the learner's code: report whatever it raised
        v.require(False, _raised(err, f"init_params_fixed({seed})"))
        return _stop(v)
    if params is None:
        v.require(
            False,
            say(
                "init_params_fixed(seed) returned None: is its body still `...`? It should "
                "return the parameter dict, like init_params.",
                "init_params_fixed(seed) 返回了 None：函数体是不是还是 `...`？它应该像 "
                "init_params 一样返回参数字典。",
            ),
        )
        return _stop(v)
    if not isinstance(params, Mapping) or set(params) != set(PARAM_SHAPES):
        got = sorted(params) if isinstance(params, Mapping) else type(params).__name__
        v.require(
            False,
            say(
                f"init_params_fixed(seed) should return a dict with the keys 'W', 'b', 'v', 'c' "
                f"like init_params, got {got}.",
                f"init_params_fixed(seed) 应该像 init_params 一样返回键为 'W'、'b'、'v'、'c' "
                f"的字典，实际得到的是 {got}。",
            ),
        )
        return _stop(v)
    for name in PARAM_SHAPES:
        problem = _param_problem(name, params[name])
        if problem:
            v.require(False, problem)
            return _stop(v)
    reference = _reference_values(seed)
    changed = [
        name
        for name, want in reference.items()
        if (name != "b" and _shape(params[name]) != want.shape)
        or not close(params[name].detach().numpy().reshape(-1), want.reshape(-1))
    ]
    if changed:
        v.require(
            False,
            say(
                f"init_params_fixed({seed}) changes more than b's shape: "
                f"{', '.join(changed)} {'differs' if len(changed) == 1 else 'differ'} from "
                f"init_params({seed})'s. Start with `mg.manual_seed(seed)` and keep the same draws "
                "in the same order (W, b, v, then c = 0): only b's shape is the bug.",
                f"init_params_fixed({seed}) 改动的不只是 b 的形状：{'、'.join(changed)} 与 "
                f"init_params({seed}) 给出的不同。请以 `mg.manual_seed(seed)` 开头，按相同的顺序"
                "做相同的随机抽取（W、b、v，然后 c = 0）：bug 只在 b 的形状上。",
            ),
        )
        return _stop(v)
    xs = rng.normal(size=(4, 2)).astype(np.float32)
    ys = rng.normal(size=4).astype(np.float32)
    want = _reference_grads(reference, xs, ys)
    b_shape = _shape(params["b"])
    if b_shape == (3, 1):
        v.require(False, _column_bias(params, predict, xs, ys, want))
        return _stop(v)
    if not v.require(
        b_shape == PARAM_SHAPES["b"],
        say(
            f"b has shape {b_shape}; a bias for 3 hidden units has shape (3,), like "
            "nn.Linear(2, 3).bias, so that `W @ x + b` keeps the shape (3,) of `W @ x`.",
            f"b 的形状是 {b_shape}；3 个隐藏单元的偏置形状应为 (3,)，和 nn.Linear(2, 3).bias "
            "一样，这样 `W @ x + b` 才能保持 `W @ x` 的形状 (3,)。",
        ),
    ):
        return _stop(v)
    problem = _run_model(params, predict, xs, ys)
    if problem:
        v.require(False, problem)
        return _stop(v)
    wrong = _wrong_grads(params, want)
    if wrong:
        first = wrong[0]
        which = (
            say(f"the gradient of {first} differs", f"{first} 的梯度")
            if len(wrong) == 1
            else say(f"the gradients of {', '.join(wrong)} differ", f"{'、'.join(wrong)} 的梯度")
        )
        v.require(
            False,
            say(
                f"{which} from the correct model's (y = v·tanh(Wx + b) + c): {first}.grad is "
                f"{_rounded(params[first].grad)}, "
                f"expected {_rounded(want[first])}. Did predict change? Pass the lesson's predict.",
                f"{which}与正确模型（y = v·tanh(Wx + b) + c）的不同："
                f"{first}.grad 是 {_rounded(params[first].grad)}，"
                f"应为 {_rounded(want[first])}。predict 被改过吗？请传入本课的 predict。",
            ),
        )
    v.done(
        say(
            "b has shape (3,), predict returns one number per sample, and W, b, v, c get exactly "
            "the gradients of y = v·tanh(Wx + b) + c on fresh samples.",
            "b 的形状是 (3,)，predict 对每个样本返回一个数，并且在新样本上 W、b、v、c 得到的"
            "梯度与 y = v·tanh(Wx + b) + c 的梯度完全一致。",
        )
    )
