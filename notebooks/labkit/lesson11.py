"""Checks for lesson 11 (debugging gradients).

The test models are built so that each classic cause of a missing gradient appears once
(unused parameter, detached path, zero-but-present gradient), and the NaN check uses the exact
input (an all-zero row) that exposes the `where` trap; feedback names the cause it saw. Each
check then runs on a second input the learner never saw (another model with other names and
causes; float64 rows with a tiny and a zero norm), so names or norms copied from a message
fail. A built-in norm is found by its node in the result's graph (a custom Function of the
learner's is their own work and passes when its values and gradients are right); values
computed outside the graph show as zero gradients.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

import minigrad as mg
from minigrad.autograd.function import BackwardCFunction

from . import outsourced
from .feedback import Verdict, close, verdict
from .hints import register
from .language import say
from .lesson10 import _OWN

register(
    "11",
    "Find the parameters without a gradient",
    "A parameter that backward never reached has `.grad` equal to None; one that was reached but "
    "got a zero gradient holds a tensor of zeros. Only the first kind is missing.",
    "Loop over `model.named_parameters()` and keep the NAME of each parameter whose `.grad is "
    "None`. Test that before using `.grad` as a tensor: None has no `.abs()`, `.norm()`, ...",
    zh_title="找出没有梯度的参数",
    zh=(
        "反向传播从未到达的参数，`.grad` 等于 None；到达了、但得到零梯度的参数，`.grad` 是一个全零"
        "张量。只有前一种才算缺失。",
        "遍历 `model.named_parameters()`，把 `.grad is None` 的参数的 *名字* 留下。先做这个判断，"
        "再把 `.grad` 当张量用：None 没有 `.abs()`、`.norm()` 之类的方法。",
    ),
)
register(
    "11",
    "A NaN-free norm",
    "A row's norm is the square root of its sum of squares, `(v * v).sum(dim=1)`. The trouble is "
    "sqrt's derivative at 0, which is infinite.",
    "`where(s > 0, s.sqrt(), 0)` does not help: both branches are differentiated, and 0 * inf is "
    "NaN. Change the INPUT of sqrt so that it never sees a 0.",
    "First replace the zero sums by 1 with an inner `where`, take the sqrt of that, then choose 0 "
    "for those rows with an outer `where` on the same condition.",
    zh_title="不出 NaN 的范数",
    zh=(
        "一行的范数是它的平方和 `(v * v).sum(dim=1)` 的平方根。麻烦出在 sqrt 在 0 处的导数："
        "它是无穷大。",
        "`where(s > 0, s.sqrt(), 0)` 没有用：两个分支都会被求导，而 0 * inf 是 NaN。"
        "要改的是 sqrt 的 *输入*，让它永远见不到 0。",
        "先用内层的 `where` 把为零的平方和换成 1，对它开平方，再用同一条件的外层 `where` "
        "给这些行选 0。",
    ),
)


def _stop(v: Verdict) -> None:
    """Print what is wrong so far and end the check (later steps depend on this one)."""
    v.done("")


class _Other(mg.nn.Module):
    """A second model with other names and other causes: a number taken out with .item(), a
    term computed under no_grad, an unused layer; `proj` is used, `offset` gets a zero
    gradient through a `* 0`."""

    def __init__(self) -> None:
        super().__init__()
        mg.manual_seed(7)
        self.proj = mg.nn.Linear(2, 2)
        self.spare = mg.nn.Linear(2, 2)
        self.gate = mg.nn.Parameter(mg.tensor(0.5))
        self.shift = mg.nn.Parameter(mg.zeros(2))
        self.offset = mg.nn.Parameter(mg.ones(2))

    def forward(self, x: mg.Tensor) -> mg.Tensor:
        h = self.proj(x) * self.gate.item()
        with mg.no_grad():
            s = self.shift * 2
        return (h + s + self.offset * 0).sum()


class _Leaky(mg.nn.Module):
    """Four layers, four fates: used, unused, detached, and used with an all-zero gradient."""

    def __init__(self) -> None:
        super().__init__()
        mg.manual_seed(5)
        self.used = mg.nn.Linear(3, 3)
        self.unused = mg.nn.Linear(3, 3)
        self.detached = mg.nn.Linear(3, 3)
        self.zeroed = mg.nn.Linear(3, 1)

    def forward(self, x: mg.Tensor) -> mg.Tensor:
        h = self.used(x)
        side = self.detached(x).detach()
        dead = self.zeroed(x) * 0  # in the graph, so it gets a gradient, which is zero
        return h.sum() + side.sum() + dead.sum()


def _names_or_problem(v: Verdict, fn: Any, model: mg.nn.Module) -> set[str] | None:
    """The names `fn(model)` returns, or None after saying precisely what went wrong."""
    try:
        result = fn(model)
    except AttributeError as err:
        if "NoneType" in str(err):
            v.require(
                False,
                say(
                    f"your function used a missing gradient as a tensor ({err}): for exactly the "
                    "parameters you are looking for, `p.grad` is None, which has no tensor "
                    "methods. Test `p.grad is None` first, and only then look at values (you do "
                    "not need to).",
                    f"你的函数把缺失的梯度当成了张量来用（{err}）：恰恰对于你要找的那些参数，"
                    "`p.grad` 是 None，它没有张量的方法。先判断 `p.grad is None`，之后再看数值"
                    "（其实并不需要看）。",
                ),
            )
        else:
            v.require(
                False,
                say(
                    f"params_without_grad(model) raised AttributeError: {err}",
                    f"params_without_grad(model) 抛出了 AttributeError：{err}",
                ),
            )
        return None
    except RuntimeError as err:
        if "ambiguous" in str(err):
            v.require(
                False,
                say(
                    "`not p.grad` (or `if p.grad:`) asks for the truth value of a whole tensor, "
                    "which is ambiguous. Test `p.grad is None`.",
                    "`not p.grad`（或 `if p.grad:`）是在求整个张量的真值，这是有歧义的。"
                    "请判断 `p.grad is None`。",
                ),
            )
        else:
            v.require(
                False,
                say(
                    f"params_without_grad(model) raised RuntimeError: {err}",
                    f"params_without_grad(model) 抛出了 RuntimeError：{err}",
                ),
            )
        return None
    except Exception as err:  # the learner's code: say what it raised
        v.require(
            False,
            say(
                f"params_without_grad(model) raised {type(err).__name__}: {err}",
                f"params_without_grad(model) 抛出了 {type(err).__name__}：{err}",
            ),
        )
        return None
    if result is None:
        v.require(
            False,
            say(
                "params_without_grad(model) returned None: is its body still `...`, or is the "
                "`return` missing? Return a list of names.",
                "params_without_grad(model) 返回了 None：函数体是不是还是 `...`，"
                "或者漏了 `return`？请返回一个由名字组成的列表。",
            ),
        )
        return None
    if isinstance(result, str) or not hasattr(result, "__iter__"):
        v.require(
            False,
            say(
                f"return a list of names, got {type(result).__name__}.",
                f"请返回一个由名字组成的列表，得到的却是 {type(result).__name__}。",
            ),
        )
        return None
    items = list(result)
    if not v.require(
        all(isinstance(n, str) for n in items),
        say(
            "return parameter NAMES (strings) as model.named_parameters() gives them, "
            "e.g. 'unused.weight', not the tensors.",
            "请返回参数的 *名字*（字符串），即 model.named_parameters() 给出的那种，"
            "例如 'unused.weight'，而不是张量本身。",
        ),
    ):
        return None
    return set(items)


def check_params_without_grad(fn: Any) -> None:
    """`fn(model)` after a backward: the names of parameters whose .grad is None."""
    v = verdict("Find the parameters without a gradient")
    if not v.answered(fn, "params_without_grad"):
        return _stop(v)
    model = _Leaky()
    mg.manual_seed(6)
    model(mg.randn(4, 3)).backward()
    got = _names_or_problem(v, fn, model)
    if got is None:
        return _stop(v)
    names = {n for n, _ in model.named_parameters()}
    if got and not got & names:
        v.require(
            False,
            say(
                f"{sorted(got)} are not parameters of the model the check passes in (its "
                f"parameters are {sorted(names)}): compute the names from the `model` argument, "
                "not from the example above.",
                f"{sorted(got)} 不是检查所传入模型的参数（它的参数是 {sorted(names)}）："
                "请根据参数 `model` 算出名字，而不是照搬上面的例子。",
            ),
        )
        return _stop(v)
    if got == names:
        v.require(
            False,
            say(
                "you listed every parameter. Did your function clear the gradients (zero_grad sets "
                "them to None), or test something every parameter has in common?",
                "你列出了所有参数。是不是你的函数清掉了梯度（zero_grad 会把它们设为 None），"
                "或者判断的是所有参数都具备的某个性质？",
            ),
        )
        return _stop(v)
    want = {"unused.weight", "unused.bias", "detached.weight", "detached.bias"}
    if {"zeroed.weight", "zeroed.bias"} & got:
        v.require(
            False,
            say(
                "zeroed.* did receive a gradient; it is all zeros, but a zero "
                "gradient is not a missing one. Test `p.grad is None`, not its values.",
                "zeroed.* 确实收到了梯度；它全是零，但零梯度并不等于没有梯度。"
                "请判断 `p.grad is None`，而不是看它的数值。",
            ),
        )
    missing = sorted(want - got)
    extra = sorted(got - want - {"zeroed.weight", "zeroed.bias"})
    v.require(
        not missing,
        say(
            f"missing {missing}: their .grad is None after backward "
            "(unused in forward, or cut off by .detach()).",
            f"漏掉了 {missing}：反向传播之后它们的 .grad 是 None"
            "（前向传播中没用到，或者被 .detach() 切断了）。",
        ),
    )
    if (
        v.require(
            not extra,
            say(
                f"{extra} have a gradient; they should not be in the list.",
                f"{extra} 有梯度，不应该出现在列表里。",
            ),
        )
        and not v.problems
    ):
        other = _Other()
        other(mg.randn(3, 2)).backward()
        got = _names_or_problem(v, fn, other)
        want = {"spare.weight", "spare.bias", "gate", "shift"}
        all_names = sorted(n for n, _ in other.named_parameters())
        if got is not None:
            v.require(
                got == want,
                say(
                    f"on a second model (parameters {all_names}) expected {sorted(want)}, "
                    f"got {sorted(got)}: work the names out from the "
                    "model you are given, by testing each parameter's `.grad is None`.",
                    f"换一个模型（参数为 {all_names}）时，"
                    f"应为 {sorted(want)}，你得到的是 {sorted(got)}：请从传入的模型里，逐个判断"
                    "参数的 `.grad is None` 来找出名字。",
                ),
            )
    v.done(
        say(
            "unused.* never took part, detached.* were cut off by .detach(); zeroed.* has a real "
            "(zero) gradient.",
            "unused.* 从未参与计算，detached.* 被 .detach() 切断；"
            "zeroed.* 有一个真实的（零）梯度。",
        )
    )


_BUILT_IN = re.compile(r"^(Linalg\w*Norm|\w*Norm|Dist|Cdist|Pdist|Hypot)Backward\d*$")


def _built_in_norms(root: Any) -> set[str]:
    """The built-in norm-like nodes behind `root` (LinalgVectorNormBackward0, DistBackward0...);
    a custom Function of the learner's (SafeNormBackward) is their own work, not one of them."""
    found, seen, stack = set(), set(), [root]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        if _BUILT_IN.match(node.name()) and not isinstance(node, BackwardCFunction):
            found.add(node.name())
        stack.extend(n for n, _ in node.next_functions)
    return found


def _own_functions(root: Any) -> dict[Any, type]:
    """The learner's custom Function nodes behind `root`, with their Function classes."""
    found, seen, stack = {}, set(), [root]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        if isinstance(node, BackwardCFunction):
            found[node] = type(node)._forward_cls
        stack.extend(n for n, _ in node.next_functions)
    return found


def _norm_formula() -> str:
    return say(
        "v / |v| for a row of non-zero norm and 0 for a zero row",
        "范数不为零的行取 v / |v|，全零的行取 0",
    )


def _safe_norm_hidden(v: Verdict, fn: Any) -> None:
    """Rows the learner never saw, in float64: a tiny but non-zero norm, a zero row, larger
    values. Numbers copied from the first test, or an epsilon (or clamp) inside sqrt big enough
    to change the values beyond the first test's tolerance, show here; a small one passes, as
    in the first test."""
    rows = [[3e-20, -4e-20], [0.0, 0.0], [-2.5, 6.0], [1e-3, 0.0], [7.0, -24.0]]
    x = mg.tensor(rows, dtype=mg.float64, requires_grad=True)
    arr = np.asarray(rows)
    norms = np.sqrt((arr**2).sum(axis=1))
    want_grad = np.divide(arr, norms[:, None], out=np.zeros_like(arr), where=norms[:, None] > 0)
    try:
        n = fn(x)
        n.sum().backward()
        got = np.asarray(n.tolist(), dtype=float)
        g = None if x.grad is None else np.asarray(x.grad.tolist())
    except Exception as err:  # the learner's code: say what it raised
        v.require(
            False,
            say(
                f"on other rows ({rows}, float64) safe_norm raised {type(err).__name__}: {err}",
                f"换成其他行（{rows}，float64）时，safe_norm 抛出了 {type(err).__name__}：{err}",
            ),
        )
        return
    if got.shape != norms.shape:
        v.require(
            False,
            say(
                f"on other rows ({rows}) the result has shape {list(got.shape)}, not "
                f"{list(norms.shape)}: compute it from v, one number per row.",
                f"换成其他行（{rows}）时，结果的形状是 {list(got.shape)}，而不是 "
                f"{list(norms.shape)}：请从 v 算出来，每行一个数。",
            ),
        )
        return
    if not np.allclose(got[:2], norms[:2], rtol=1e-5, atol=1e-5):
        v.require(
            False,
            say(
                f"on rows with a tiny or zero norm your values are {got[:2].tolist()} instead of "
                f"{norms[:2].tolist()}: the epsilon added before sqrt (or the clamp) is big "
                "enough to change the norm itself, most of all for small vectors. Use a much "
                "smaller one, or better keep sqrt's input untouched where it is positive and "
                "choose 0 only where the sum of squares is 0.",
                f"在范数极小或为零的行上，你的值是 {got[:2].tolist()}，应为 {norms[:2].tolist()}："
                "你在 sqrt 之前加的 epsilon（或 clamp 的下限）大到改变了范数本身，向量越小影响"
                "越大。换一个小得多的值；更好的办法是在平方和为正的地方保持 sqrt 的输入不变，"
                "只在平方和为 0 的地方选 0。",
            ),
        )
        return
    if not v.require(
        np.allclose(got, norms, rtol=1e-5, atol=1e-5),
        say(
            f"on other rows ({rows}) expected the norms {norms.tolist()}, got {got.tolist()}: "
            "compute them from v, not from the numbers of the first test.",
            f"换成其他行（{rows}）时，范数应为 {norms.tolist()}，你得到的是 {got.tolist()}："
            "请从 v 算出来，而不是照搬第一次测试的数。",
        ),
    ):
        return
    v.require(
        g is not None
        and bool(np.isfinite(g).all())
        and np.allclose(g[2:], want_grad[2:], atol=1e-4),
        say(
            f"on other rows ({rows}) the gradient should be finite everywhere and v / |v| for "
            f"the rows of ordinary size, got {None if g is None else g.tolist()}.",
            f"换成其他行（{rows}）时，梯度应当处处有限，大小寻常的行的梯度应为 v / |v|，"
            f"你得到的是 {None if g is None else g.tolist()}。",
        ),
    )


def check_safe_norm(fn: Any) -> None:
    """`fn(v)`: per-row Euclidean norm of a 2-D tensor, with finite gradients at zero rows."""
    v = verdict("A NaN-free norm")
    if not v.answered(fn, "safe_norm"):
        return _stop(v)
    x = mg.tensor([[3.0, 4.0], [0.0, 0.0], [1.0, -1.0]], requires_grad=True)
    try:
        n = fn(x)
    except Exception as err:  # the learner's code: say what it raised
        v.require(
            False,
            say(
                f"safe_norm(v) raised {type(err).__name__}: {err}",
                f"safe_norm(v) 抛出了 {type(err).__name__}：{err}",
            ),
        )
        return _stop(v)
    if n is None:
        v.require(
            False,
            say(
                "safe_norm(v) returned None: is its body still `...`, or is the `return` missing?",
                "safe_norm(v) 返回了 None：函数体是不是还是 `...`，或者漏了 `return`？",
            ),
        )
        return _stop(v)
    if not v.require(
        isinstance(n, mg.Tensor),
        say(
            f"safe_norm(v) returned a {type(n).__name__}; return a minigrad tensor computed from v "
            "with tensor operations (numpy cuts the graph, so no gradient could flow).",
            f"safe_norm(v) 返回的是 {type(n).__name__}；请返回一个用张量运算从 v 算出的 minigrad "
            "张量（numpy 会切断计算图，梯度就流不过去了）。",
        ),
    ):
        return _stop(v)
    want = [5.0, 0.0, 2.0**0.5]
    if close(n, [5.0, 0.0, 1.0]):
        v.require(
            False,
            say(
                "you returned the distances of the lesson's `a` and `b` (5, 0, 1): compute the "
                "norms of the argument `v` (here its rows are [3, 4], [0, 0], [1, -1]).",
                "你返回的是课文里 `a` 和 `b` 之间的距离（5, 0, 1）：请计算参数 `v` 的范数"
                "（这里它的各行是 [3, 4]、[0, 0]、[1, -1]）。",
            ),
        )
        return _stop(v)
    values = n.tolist()
    if (
        isinstance(values, list)
        and len(values) == 3
        and 0 < values[1] < 0.1
        and not close(n, want, atol=1e-5)
        and close([values[0], values[2]], [want[0], want[2]], atol=1e-2)
    ):
        v.require(
            False,
            say(
                f"the zero row's norm comes out as {values[1]:.3g}, not 0: the epsilon added "
                "before sqrt (or the clamp) is big enough to change the norm itself. Use a much "
                "smaller one, or better keep sqrt's input untouched where it is positive and "
                "choose 0 only where the sum of squares is 0.",
                f"全零那一行的范数算出来是 {values[1]:.3g}，而不是 0：你在 sqrt 之前加的 epsilon"
                "（或 clamp 的下限）大到改变了范数本身。换一个小得多的值；更好的办法是在平方和"
                "为正的地方保持 sqrt 的输入不变，只在平方和为 0 的地方选 0。",
            ),
        )
        return _stop(v)
    if not v.require(
        close(n, want, atol=1e-5),
        say(
            f"values: expected the row norms {want}, got {n.tolist()} (one number per row).",
            f"数值：应为各行的范数 {want}，得到的是 {n.tolist()}（每行一个数）。",
        ),
    ):
        return _stop(v)
    built_in = _built_in_norms(n.grad_fn) if n.grad_fn is not None else set()
    if built_in:
        v.require(
            False,
            say(
                f"you used a built-in norm ({', '.join(sorted(built_in))} in your result's "
                "graph), whose backward already special-cases 0. The exercise is to build it "
                "yourself, safely: from `(v * v).sum(dim=1)` and `sqrt`, or as your own "
                "autograd.Function with a backward you write.",
                f"你用了内置的范数（结果的计算图里有 {'、'.join(sorted(built_in))}），它的反向传播"
                "已经对 0 做了特殊处理。这个练习要你自己安全地把它搭出来：用 "
                "`(v * v).sum(dim=1)` 和 `sqrt`，或者写一个自己的 autograd.Function，"
                "亲手写出它的 backward。",
            ),
        )
        return _stop(v)
    functions = _own_functions(n.grad_fn) if n.grad_fn is not None else {}
    for node in functions:
        kept = outsourced.kept_nodes(node, _OWN)
        if not v.require(not kept, outsourced.kept_message(kept)):
            return _stop(v)
    try:
        with outsourced.watched(*functions.values()) as seen:
            n.sum().backward()
    except Exception as err:  # the learner's backward: say what failed, no traceback
        if isinstance(err, RuntimeError) and "does not require grad" in str(err):
            v.require(
                False,
                say(
                    "the result is not connected to v (backward says it does not require grad): "
                    "was it computed under no_grad(), or from detached values?",
                    "结果没有和 v 连在一起（backward 说它不需要梯度）：它是不是在 no_grad() 下"
                    "算出来的，或者是从 detach 过的值算出来的？",
                ),
            )
        else:
            v.require(
                False,
                say(
                    f"backward through your result raised {type(err).__name__}: {err}"
                    + (" (in your Function's backward)" if functions else ""),
                    f"对你的结果做反向传播时抛出了 {type(err).__name__}：{err}"
                    + ("（出在你的 Function 的 backward 里）" if functions else ""),
                ),
            )
        return _stop(v)
    if not v.require(seen.first() is None, outsourced.message(seen, _norm_formula())):
        return _stop(v)
    if not v.require(
        x.grad is not None,
        say(
            "x.grad is None: the result is not connected to x.",
            "x.grad 是 None：结果没有和 x 连在一起。",
        ),
    ):
        return _stop(v)
    g = np.asarray(x.grad.tolist())
    if not v.require(
        bool(np.isfinite(g).all()),
        say(
            f"the gradient of the zero row is {g[1].tolist()}. If you wrote "
            "where(s > 0, s.sqrt(), 0), the sqrt branch still runs at 0 and its "
            "backward computes 0 * inf = nan even though where discards its value. "
            "Make the INPUT of sqrt safe first: where(s > 0, s, 1).sqrt().",
            f"全零那一行的梯度是 {g[1].tolist()}。如果你写的是 where(s > 0, s.sqrt(), 0)，"
            "sqrt 分支在 0 处照样会运行，尽管 where 丢弃了它的值，它的反向传播仍会算出 "
            "0 * inf = nan。先让 sqrt 的 *输入* 变安全：where(s > 0, s, 1).sqrt()。",
        ),
    ):
        return _stop(v)
    if close(g[0], [0.0, 0.0]) and close(g[2], [0.0, 0.0]):
        v.require(
            False,
            say(
                "the right values, but every gradient is 0: the result's values do not come "
                "from v through the graph (computed with numpy or from detached values, then "
                "joined to v by something like `+ v.sum() * 0`). Compute the norm from v with "
                "tensor operations.",
                "数值对了，但所有梯度都是 0：结果的数值并不是沿着计算图从 v 算出来的（先用 numpy "
                "或 detach 过的值算好，再用 `+ v.sum() * 0` 之类的办法接到 v 上）。请用张量运算"
                "从 v 算出范数。",
            ),
        )
        return _stop(v)
    if v.require(
        close(g[0], [0.6, 0.8], atol=1e-4) and close(g[2], [0.5**0.5, -(0.5**0.5)], atol=1e-4),
        say(
            f"gradients of the non-zero rows should be x / |x| = [0.6, 0.8] and "
            f"[0.707, -0.707], got {g[0].tolist()} and {g[2].tolist()}.",
            f"非零行的梯度应为 x / |x| = [0.6, 0.8] 和 [0.707, -0.707]，"
            f"得到的是 {g[0].tolist()} 和 {g[2].tolist()}。",
        ),
    ):
        _safe_norm_hidden(v, fn)
    v.done(
        say(
            "right values, and the zero row gets a finite gradient.",
            "数值正确，全零那一行也得到了有限的梯度。",
        )
    )
