"""Checks for lesson 08 (in-place operations and version counters).

Each check names the specific misconception behind a wrong answer, because the rules here
(which ops bump `_version`, views sharing a counter, rebinding a name) are easy to half-remember.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import minigrad as mg

from .feedback import Verdict, close, verdict
from .hints import register
from .language import say

register(
    "08",
    "Predict the versions",
    "Only in-place writes (`add_`, `zero_`, `t[i] = ...`) add one to `_version`; reading a tensor "
    "or taking a view of it does not.",
    "A view such as `t[1:]` shares its base's version counter: a write through the view counts "
    "for `t` as well.",
    "Line D rebinds the name `t` to the result of `t * 2`, a brand-new tensor. What version does "
    "a tensor start at?",
    zh_title="预测版本号",
    zh=(
        "只有原地写入（`add_`、`zero_`、`t[i] = ...`）才会让 `_version` 加 1；读取张量、"
        "或者取它的视图，都不会。",
        "像 `t[1:]` 这样的视图和它的基张量共用一个版本计数器：通过视图写入，也算在 `t` 头上。",
        "D 行把名字 `t` 重新绑定到 `t * 2` 的结果上，那是一个全新的张量。新张量的版本号从几开始？",
    ),
)
register(
    "08",
    "Fix swish",
    "Run `swish_broken` and read its error: which op saved which tensor, and which line changed "
    "that tensor afterwards?",
    "`sigmoid` saves its OUTPUT `s` for backward, and `s.mul_(x)` overwrites exactly that tensor.",
    "Multiply out of place: return a new tensor made from `x` and `s`, leaving `s` as sigmoid "
    "produced it (no `.data`, no `detach()`, no `no_grad()`: they would hide the change or cut "
    "the graph).",
    zh_title="修好 swish",
    zh=(
        "运行 `swish_broken`，读一读它的报错：哪个运算保存了哪个张量？"
        "之后又是哪一行改动了那个张量？",
        "`sigmoid` 为反向传播保存的是它的输出 `s`，而 `s.mul_(x)` 覆盖的恰恰就是这个张量。",
        "用非原地的乘法：返回一个由 `x` 和 `s` 算出的新张量，让 `s` 保持 sigmoid 算出来的样子"
        "（不要用 `.data`、`detach()` 或 `no_grad()`：它们要么把改动藏起来，要么把计算图切断）。",
    ),
)


def _stop(v: Verdict) -> None:
    """Print what is wrong so far and end the check (later steps depend on this one)."""
    v.done("")


def _typed_in(name: str = "versions") -> bool:
    """Was `name` typed in as predictions? The notebook cell that last assigned it (IPython's
    input history) must give it a literal list (or tuple) of whole numbers (`...` for a blank);
    a list read off `t._version` by running the lines is not a prediction. True outside IPython
    or when no such cell is found."""
    import ast
    import re

    try:
        from IPython import get_ipython
    except ImportError:
        return True
    shell = get_ipython()
    history = shell.user_ns.get("In", []) if shell is not None else []
    for source in reversed(history[:-1]):  # (the last one is the check's own cell)
        if not re.search(rf"^\s*{name}\s*(\[[^\]]*\]\s*)?(=|\+=|\.append)", source, re.M):
            continue
        try:
            tree = ast.parse(source)
        except SyntaxError:
            return not re.search(r"_version\b", re.sub(r"#.*", "", source))

        def whole(node: ast.AST) -> bool:
            return isinstance(node, ast.Constant) and (
                node.value is Ellipsis
                or (isinstance(node.value, int) and not isinstance(node.value, bool))
            )

        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "append":
                if getattr(node.func.value, "id", None) == name:
                    return False  # (filled in as the lines run)
            if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                    value = node.value
                    if not (
                        isinstance(value, ast.List | ast.Tuple)
                        and all(whole(e) for e in value.elts)
                    ):
                        return False
        return True
    return True


def check_versions(answer: Any) -> None:
    """Predicted `t._version` after each marked line of:

    t = ones(4); t.add_(1)  # A;  t[0] = 7.0  # B;  v = t[1:]; v.zero_()  # C;  t = t * 2  # D
    """
    v = verdict("Predict the versions")
    if not v.answered(answer, "versions"):
        return _stop(v)

    def whole(a: Any) -> bool:
        if isinstance(a, bool):
            return False
        if isinstance(a, int | np.integer):
            return True
        return isinstance(a, float | np.floating) and float(a).is_integer()

    try:
        got = [int(a) for a in answer if whole(a)]
        if len(got) != len(answer):
            raise ValueError
    except (TypeError, ValueError):
        v.require(
            False,
            say(
                "versions should be a list of four whole numbers, e.g. [1, 1, 1, 1].",
                "versions 应当是由四个整数组成的列表，例如 [1, 1, 1, 1]。",
            ),
        )
        return _stop(v)
    if not v.require(
        len(got) == 4,
        say(
            f"expected 4 numbers (one per marked line), got {len(got)}.",
            f"应当有 4 个数（每个标记行一个），你给了 {len(got)} 个。",
        ),
    ):
        return _stop(v)
    if not _typed_in("versions"):
        v.require(
            False,
            say(
                "your `versions` was not typed in as predictions: the cell that made it "
                "computes it (reading t._version as the lines run, or from another variable), "
                "which runs the answer instead of predicting it. Write the four numbers as a "
                "list, e.g. versions = [1, 1, 1, 1], from the rules, then let the check compare.",
                "你的 `versions` 不是作为预测手写出来的：产生它的单元格是把它算出来的"
                "（在运行这几行时读出 t._version，或者取自别的变量），这是把答案跑出来，"
                "而不是预测。请根据规则把四个数写成一个列表，例如 versions = [1, 1, 1, 1]，"
                "再让检查来比对。",
            ),
        )
        return _stop(v)
    a, b, c, d = got
    v.require(
        a == 1,
        say(
            f"line A: `t.add_(1)` is one in-place op on a fresh tensor (version 0), "
            f"so the version becomes 1, not {a}.",
            f"A 行：`t.add_(1)` 是对一个新张量（版本 0）做的一次原地操作，"
            f"所以版本号变成 1，而不是 {a}。",
        ),
    )
    v.require(
        b == 2,
        say(
            "line B: `t[0] = 7.0` is an in-place write too (item assignment calls "
            "`__setitem__`, which changes t's memory), so the counter goes up by one: 2.",
            "B 行：`t[0] = 7.0` 也是原地写入（按下标赋值会调用 `__setitem__`，"
            "直接改动 t 的内存），所以计数器再加 1：2。",
        )
        if b == 1
        else say(
            f"line B: one more in-place write after version 1 gives 2, not {b}.",
            f"B 行：在版本 1 之后再做一次原地写入，得到 2，而不是 {b}。",
        ),
    )
    v.require(
        c == 3,
        say(
            "line C: `v = t[1:]` is a view that shares t's storage AND its version "
            "counter, so `v.zero_()` bumps t's version as well: 3.",
            "C 行：`v = t[1:]` 是一个视图，它和 t 共用存储，而且共用版本计数器，"
            "所以 `v.zero_()` 同样让 t 的版本号加 1：3。",
        )
        if c == 2
        else say(
            f"line C: the view's `zero_()` adds one to the shared counter: 3, not {c}.",
            f"C 行：视图上的 `zero_()` 让共用的计数器加 1：3，而不是 {c}。",
        ),
    )
    v.require(
        d == 0,
        say(
            "line D: `t * 2` is out of place. It makes a brand-new tensor and the name "
            "`t` now points to it; a new tensor starts at version 0.",
            "D 行：`t * 2` 是非原地运算。它生成一个全新的张量，名字 `t` 从此指向它；"
            "新张量的版本号从 0 开始。",
        )
        if d != 0
        else "",
    )
    v.done(
        say(
            "[1, 2, 3, 0]. Only in-place writes count, views share their base's counter, "
            "and rebinding a name gives you a fresh tensor.",
            "[1, 2, 3, 0]。只有原地写入才计数，视图与基张量共用计数器，"
            "而把名字重新绑定，得到的是一个新张量。",
        )
    )


def _leaf_write() -> str:
    """Writing in place into the input, a leaf that requires grad (in the lesson's language)."""
    return say(
        "you wrote into the input `x` in place; x is a leaf that requires "
        "grad, which autograd forbids. Compute a new tensor instead.",
        "你原地写入了输入 `x`；x 是一个需要梯度的叶子张量，autograd 不允许这样做。"
        "请改为计算一个新张量。",
    )


def _raised(err: Exception) -> str:
    """What calling the learner's swish raised, naming a call into real PyTorch."""
    if isinstance(err, TypeError) and "must be Tensor, not Tensor" in str(err):
        return say(
            f"calling swish(x) raised TypeError ({err}): x is a minigrad tensor, but your "
            "function called a real PyTorch function on it (`torch.…`, or an `F` imported from "
            "torch.nn.functional). minigrad has the same ones: `mg.sigmoid`, "
            "`mg.nn.functional.silu`.",
            f"调用 swish(x) 抛出了 TypeError（{err}）：x 是 minigrad 张量，你的函数却对它调用了"
            "真正的 PyTorch 函数（`torch.…`，或者从 torch.nn.functional 导入的 `F`）。"
            "minigrad 里有同样的函数：`mg.sigmoid`、`mg.nn.functional.silu`。",
        )
    return say(
        f"calling swish(x) raised {type(err).__name__}: {err}",
        f"调用 swish(x) 抛出了 {type(err).__name__}：{err}",
    )


def _swish_reference(x: mg.Tensor) -> tuple[list, list]:
    x = x.detach().requires_grad_()
    y = x * x.sigmoid()
    y.sum().backward()
    return y.detach().tolist(), x.grad.tolist()


def check_swish(fn: Any) -> None:
    """The learner's `swish(x)` = x * sigmoid(x): right values, right gradient, no error.

    On points the learner never saw (2×3). Any correct out-of-place version passes (`x *
    x.sigmoid()`, `mg.nn.functional.silu`, `x / (1 + exp(-x))`, a custom Function, a clone
    multiplied in place); a result cut off the graph, a write hidden from the version counter
    (`.data`, numpy) and a call into real PyTorch each get their own message."""
    v = verdict("Fix swish")
    if not v.answered(fn, "swish"):
        return _stop(v)
    if not v.require(
        callable(fn),
        say("swish should be a function taking a tensor.", "swish 应当是一个接收张量的函数。"),
    ):
        return _stop(v)
    fn_: Callable = fn
    points = np.random.default_rng(808).uniform(-4, 4, (2, 3)).round(2)  # never shown
    x = mg.tensor(points.tolist(), requires_grad=True)
    want_y, want_g = _swish_reference(x)
    try:
        y = fn_(x)
    except Exception as err:  # the learner's code: say what it raised, in a sentence
        v.require(False, _leaf_write() if "leaf Variable" in str(err) else _raised(err))
        return _stop(v)
    if y is None:
        v.require(
            False,
            say(
                "swish(x) returned None: is its body still `...`, or is a `return` missing? "
                "It should return the new tensor x * sigmoid(x).",
                "swish(x) 返回了 None：函数体是不是还是 `...`，或者漏了 `return`？"
                "它应当返回新张量 x * sigmoid(x)。",
            ),
        )
        return _stop(v)
    if not v.require(
        isinstance(y, mg.Tensor),
        say(
            f"swish(x) returned a {type(y).__name__}; return a minigrad tensor computed from x "
            "with tensor operations (numpy or Python numbers would cut the graph).",
            f"swish(x) 返回的是 {type(y).__name__}；请返回一个用张量运算从 x 算出的 minigrad "
            "张量（改用 numpy 或 Python 数字会切断计算图）。",
        ),
    ):
        return _stop(v)
    try:
        y.sum().backward()
    except RuntimeError as err:
        msg = str(err)
        if "modified by an inplace operation" in msg:
            v.require(
                False,
                say(
                    "backward still fails: your function changes a tensor in place "
                    "after an op saved it (sigmoid saves its OUTPUT, so `s.mul_(x)` "
                    "destroys what SigmoidBackward needs). Use `x * s` instead.",
                    "backward 仍然报错：你的函数在某个运算保存了张量之后，又原地修改了它"
                    "（sigmoid 保存的是它的输出，所以 `s.mul_(x)` 毁掉了 SigmoidBackward "
                    "需要的东西）。请改用 `x * s`。",
                ),
            )
        elif "leaf Variable" in msg:
            v.require(False, _leaf_write())
        elif "does not require grad" in msg:
            v.require(
                False,
                say(
                    "the result has no graph at all (backward says it does not require grad): "
                    "was it computed under `no_grad()`, or from detached tensors? That hides the "
                    "in-place write instead of fixing it.",
                    "结果根本没有计算图（backward 说它不需要梯度）：它是不是在 `no_grad()` 下、"
                    "或者用 detach 过的张量算出来的？这样只是把原地写入藏了起来，并没有修好它。",
                ),
            )
        else:
            v.require(
                False,
                say(
                    f"calling backward on swish's result raised: {msg}",
                    f"对 swish 的结果调用 backward 时出错：{msg}",
                ),
            )
        return _stop(v)
    if not v.require(
        close(y, want_y, atol=1e-5),
        say(
            f"the values are wrong: got {y.tolist()}, "
            f"expected {np.round(want_y, 4).tolist()} (x * sigmoid(x)).",
            f"数值不对：得到 {y.tolist()}，应为 {np.round(want_y, 4).tolist()}（x * sigmoid(x)）。",
        ),
    ):
        return _stop(v)
    if not v.require(
        x.grad is not None,
        say(
            "x.grad is None: the result is not connected to x. "
            "Did you use .detach() or .data somewhere?",
            "x.grad 是 None：结果和 x 没有连上。是不是在哪里用了 .detach() 或 .data？",
        ),
    ):
        return _stop(v)
    if close(x.grad, mg.zeros_like(x), atol=1e-8):
        v.require(
            False,
            say(
                "the values are right but x.grad is all zeros: the result does not depend on x "
                "in the graph (its values were computed off the graph, then joined to x by "
                "something like `+ 0 * x`). Compute x * sigmoid(x) with tensor operations.",
                "数值对了，但 x.grad 全是 0：在计算图里结果并不依赖 x（数值是在图外算好的，"
                "再用 `+ 0 * x` 之类的办法接到 x 上）。请用张量运算算出 x * sigmoid(x)。",
            ),
        )
    elif close(x.grad, x.detach().sigmoid(), atol=1e-5):
        v.require(
            False,
            say(
                "the values are right but x.grad is just sigmoid(x): the gradient through the "
                "sigmoid is missing, so the sigmoid was cut off the graph (`detach()`, `.data` or "
                "`no_grad()`). Keep it in the graph and multiply out of place.",
                "数值对了，但 x.grad 只是 sigmoid(x)：少了经过 sigmoid 的那部分梯度，说明 sigmoid "
                "被从计算图上切掉了（`detach()`、`.data` 或 `no_grad()`）。"
                "让它留在计算图里，并用非原地的乘法。",
            ),
        )
    else:
        v.require(
            close(x.grad, want_g, atol=1e-5),
            say(
                "the values are right but the gradient is wrong. That is the signature of an "
                "in-place change hidden from autograd (through `.data`, or in numpy through "
                "`.detach().numpy()`): the version counter did not see it, so backward silently "
                "used the modified values. Don't modify in place at all here.",
                "数值对了，梯度却是错的。这正是一次瞒过 autograd 的原地修改"
                "（通过 `.data`，或者通过 `.detach().numpy()` 在 numpy 里改）"
                "留下的痕迹：版本计数器没看到它，于是 backward 悄悄用上了被改过的值。"
                "这里干脆不要做任何原地修改。",
            ),
        )
    v.done(
        say(
            "no in-place write, so nothing saved for backward is disturbed, and the "
            "gradient matches x * sigmoid(x).",
            "没有原地写入，为反向传播保存的张量都完好无损，梯度与 x * sigmoid(x) 的一致。",
        )
    )
