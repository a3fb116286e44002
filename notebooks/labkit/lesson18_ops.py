"""Lesson 18's op exercises: matmul, broadcasting add, fused softmax cross-entropy, layer norm.

Each check draws new shapes and values per call (a closure written for the lesson's one example
shape fails), includes the special cases of its op (a leading batch dim and a size-1
dim for broadcasting, a square `a @ a` where one node is both inputs, logits far beyond exp's
range, rows with a tiny spread where eps matters) and a large case where finite differences
would need hundreds of forward evaluations. Every check runs its cases through
lesson18_probe.run_check.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .hints import register
from .language import say
from .lesson18_bench import functional, int_tensor
from .lesson18_probe import Case, drawn, run_check

register(
    "18",
    "Matmul backward",
    "For `out = a @ b` with a of shape (n, k) and b of shape (k, m), out.grad has shape (n, m). "
    "Each gradient must have its input's shape: which product of out.grad and the other input "
    "gives (n, k)? And (k, m)?",
    "`a.grad += out.grad @ b.data.T` and `b.grad += a.data.T @ out.grad`.",
    zh_title="矩阵乘法的反向",
    zh=(
        "对 `out = a @ b`，a 的形状是 (n, k)，b 的形状是 (k, m)，out.grad 的形状是 (n, m)。"
        "每个梯度都必须和它的输入形状相同：out.grad 和另一个输入怎样相乘才能得到 (n, k)？"
        "(k, m) 呢？",
        "即 `a.grad += out.grad @ b.data.T`，以及 `b.grad += a.data.T @ out.grad`。",
    ),
)
register(
    "18",
    "Broadcasting add",
    "The forward may have stretched an input: extra dims added on the left, size-1 dims "
    "repeated. Each copy receives gradient, so sum the copies back up.",
    "In `sum_to_shape(grad, shape)`: first sum over the leading dims that `shape` does not have "
    "(`grad.ndim - len(shape)` of them), then over every dim where `shape` has 1 but grad does "
    "not, with `keepdims=True`.",
    "Then `self.grad += sum_to_shape(out.grad, self.data.shape)` and the same for other.",
    zh_title="广播加法",
    zh=(
        "前向计算可能拉伸过某个输入：在左边补了新的维度，或者把大小为 1 的维度重复了很多份。"
        "每一份副本都会收到梯度，所以要把这些副本的梯度加回去。",
        "在 `sum_to_shape(grad, shape)` 里：先在 `shape` 没有的那些前导维度上求和"
        "（共 `grad.ndim - len(shape)` 个），再在 `shape` 为 1 而 grad 不为 1 的每个维度上求和，"
        "用 `keepdims=True`。",
        "然后 `self.grad += sum_to_shape(out.grad, self.data.shape)`，other 也一样。",
    ),
)
register(
    "18",
    "Softmax cross-entropy",
    "Forward, stable: subtract each row's max, then `log_softmax = z - log(sum(exp(z)))`; the "
    "loss is the mean over rows of `-log_softmax[row, target]`.",
    "Backward of the mean loss: `(softmax - one_hot) / N`, times out.grad (a number).",
    "One node: `Var(loss, (self,), 'cross_entropy')`, whose closure adds that into self.grad.",
    zh_title="softmax 交叉熵",
    zh=(
        "前向，稳定的写法：先减去每一行的最大值，再算 `log_softmax = z - log(sum(exp(z)))`；"
        "损失是各行 `-log_softmax[row, target]` 的平均值。",
        "平均损失的反向：`(softmax - one_hot) / N`，再乘以 out.grad（一个数）。",
        "只用一个节点：`Var(loss, (self,), 'cross_entropy')`，它的闭包把上面的结果加进 self.grad。",
    ),
)
register(
    "18",
    "Layer norm",
    "Keep `xhat = (x - mean) / std` and `std = sqrt(var + eps)` from the forward (over the last "
    "dim, `keepdims=True`, var without Bessel's correction).",
    "The mean and the variance depend on x too, so the gradient is not just g / std: with "
    "g = out.grad, `dx = (g - g.mean(-1) - xhat * (g * xhat).mean(-1)) / std` (means with "
    "keepdims).",
    zh_title="层归一化",
    zh=(
        "在前向里留下 `xhat = (x - mean) / std` 和 `std = sqrt(var + eps)`（在最后一维上，"
        "`keepdims=True`，方差不做贝塞尔校正）。",
        "均值和方差也依赖 x，所以梯度不只是 g / std：记 g = out.grad，"
        "`dx = (g - g.mean(-1) - xhat * (g * xhat).mean(-1)) / std`（求均值时保留维度）。",
    ),
)


def _dims(rng: np.random.Generator, k: int, low: int = 2, high: int = 7) -> list[int]:
    """k different sizes, so that a transpose in the wrong place cannot line up by luck."""
    return [int(d) for d in rng.choice(np.arange(low, high + 1), size=k, replace=False)]


# --- matmul --------------------------------------------------------------------------------------


def _matmul_cases(rng: np.random.Generator) -> list[Case]:
    """2-D inputs of new shapes and `a @ a`, drawn afresh."""
    n, k, m = _dims(rng, 3)
    big_n, big_k, big_m = _dims(rng, 3, 8, 12)
    sq = int(rng.integers(2, 6))
    up = drawn(rng)
    pair = lambda vs: vs[0] @ vs[1]  # noqa: E731
    return [
        Case(
            say("larger matrices", "更大的矩阵"),
            _normal(rng, (big_n, big_k), (big_k, big_m)),
            pair,
            lambda ls, lib: ls[0] @ ls[1],
            up,
            large=True,
        ),
        Case(
            say("a (n, k) @ b (k, m)", "a (n, k) @ b (k, m)"),
            _normal(rng, (n, k), (k, m)),
            pair,
            lambda ls, lib: ls[0] @ ls[1],
            up,
        ),
        Case(
            say("a @ a: one node is both inputs", "a @ a：同一个节点同时是两个输入"),
            _normal(rng, (sq, sq)),
            lambda vs: vs[0] @ vs[0],
            lambda ls, lib: ls[0] @ ls[0],
            up,
        ),
    ]


def check_matmul(cls: Any, demo: bool = False) -> None:
    """`a @ b` on the learner's class: 2-D inputs of new shapes, and `a @ a`."""
    success = say(
        "out.grad @ b.T and a.T @ out.grad, with fresh shapes every time, and two "
        "contributions add up when a node is both inputs.",
        "out.grad @ b.T 和 a.T @ out.grad，每次都换新的形状也对；同一个节点同时作两个输入时，"
        "两份梯度也正确地加在了一起。",
    )
    run_check("Matmul backward", "a @ b", cls, demo, _matmul_cases, success)


def _normal(rng: np.random.Generator, *shapes: tuple) -> list[np.ndarray]:
    return [rng.normal(size=s) for s in shapes]


# --- broadcasting add ----------------------------------------------------------------------------


def _add_cases(rng: np.random.Generator) -> list[Case]:
    """Every way broadcasting stretches an input, and `x + x`."""
    b, n, m = _dims(rng, 3)
    up = drawn(rng)
    plus = lambda vs: vs[0] + vs[1]  # noqa: E731
    ref = lambda ls, lib: ls[0] + ls[1]  # noqa: E731
    shapes = [
        (say("the same shape", "形状相同"), (n, m), (n, m)),
        (say("a leading batch dim on one side", "一侧多出一个前导的批量维度"), (b, n, m), (n, m)),
        (say("a size-1 dim", "一个大小为 1 的维度"), (n, 1), (n, m)),
        (say("size-1 dims on both sides", "两侧都有大小为 1 的维度"), (n, 1), (1, m)),
        (
            say("a leading dim and a size-1 dim", "一个前导维度加一个大小为 1 的维度"),
            (n, m),
            (b, 1, m),
        ),
        (say("a 0-d value and a matrix", "一个 0 维的值和一个矩阵"), (), (n, m)),
        (say("a large batch", "一个很大的批量"), (12, n, m), (1, m)),
    ]
    cases = [
        Case(lab, _normal(rng, s, t), plus, ref, up, broadcasts=True, large=s[:1] == (12,))
        for lab, s, t in shapes
    ]
    cases.append(
        Case(
            say("x + x: one node is both inputs", "x + x：同一个节点同时是两个输入"),
            _normal(rng, (n, m)),
            lambda vs: vs[0] + vs[0],
            lambda ls, lib: ls[0] + ls[0],
            up,
        )
    )
    return cases


def check_add(cls: Any, demo: bool = False) -> None:
    """`a + b` on the learner's class, over the ways broadcasting stretches an input."""
    success = say(
        "each input's gradient is the upstream gradient summed over the dims broadcasting "
        "added or stretched, for every way it can happen.",
        "每个输入的梯度，都是上游梯度在广播新增或拉伸过的维度上求和的结果，各种广播方式都对。",
    )
    run_check("Broadcasting add", "a + b", cls, demo, _add_cases, success)


# --- softmax cross-entropy -----------------------------------------------------------------------


def _wrong_mean(arrays: list[np.ndarray], upstream: np.ndarray, targets: np.ndarray) -> tuple:
    """The gradient of the SUM over rows (the mean's 1/N forgotten)."""
    z = arrays[0]
    p = np.exp(z - z.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    p[np.arange(len(targets)), targets] -= 1
    return [p * upstream], say(
        "the gradient is N times too large: the loss is the MEAN over the N rows, so the "
        "backward divides (softmax - one_hot) by N.",
        "梯度大了 N 倍：损失是 N 行的 *平均值*，所以反向要把 (softmax - one_hot) 除以 N。",
    )


def _cross_entropy_cases(rng: np.random.Generator) -> list[Case]:
    """A larger batch, a small one, and logits near 1000."""
    cases = []
    for lab, rows, classes, scale, shift in (
        (
            say("a larger batch", "更大的批量"),
            int(rng.integers(10, 14)),
            int(rng.integers(8, 11)),
            2,
            0,
        ),
        (
            say("a small batch", "一个小批量"),
            int(rng.integers(2, 6)),
            int(rng.integers(3, 7)),
            1,
            0,
        ),
        (say("logits near 1000", "1000 左右的 logits"), int(rng.integers(2, 5)), 4, 20, 1000),
    ):
        targets = rng.integers(0, classes, size=rows)
        logits = rng.normal(size=(rows, classes)) * scale + shift
        cases.append(_ce_case(lab, logits, targets, rng, large=rows >= 10))
    return cases


def check_cross_entropy(cls: Any, demo: bool = False) -> None:
    """`logits.cross_entropy(targets)`: mean loss over rows, one node, stable for huge logits."""
    success = say(
        "one node, stable for huge logits, and its closure gives (softmax - one_hot) / N "
        "times the upstream gradient.",
        "只用一个节点，面对巨大的 logits 也稳定，它的闭包给出 (softmax - one_hot) / N "
        "再乘以上游梯度。",
    )
    run_check(
        "Softmax cross-entropy",
        "logits.cross_entropy(targets)",
        cls,
        demo,
        _cross_entropy_cases,
        success,
    )


def _ce_case(
    lab: str, logits: np.ndarray, targets: np.ndarray, rng: np.random.Generator, large: bool
) -> Case:
    def ref(ls: list, lib: str) -> Any:
        return functional(lib).cross_entropy(ls[0], int_tensor(lib, targets))

    def wrong(arrays: list[np.ndarray], upstream: np.ndarray) -> tuple:
        return _wrong_mean(arrays, upstream, targets)

    return Case(
        lab,
        [logits],
        lambda vs: vs[0].cross_entropy(targets.copy()),
        ref,
        lambda shape: np.asarray(rng.uniform(0.5, 2.0) * rng.choice((-1.0, 1.0))),
        fused=True,
        large=large,
        extra=[wrong],
    )


# --- layer norm ----------------------------------------------------------------------------------

EPS = 1e-5


def _constant_statistics(arrays: list[np.ndarray], upstream: np.ndarray) -> tuple:
    """The gradient as if the mean and the variance were constants: g / std."""
    x = arrays[0]
    std = np.sqrt(x.var(axis=-1, keepdims=True) + EPS)
    return [upstream / std], say(
        "your backward treats the mean and the variance as constants (it gives out.grad / std), "
        "but both are computed from x: moving one element moves them too. Add their two terms: "
        "dx = (g - mean(g) - xhat * mean(g * xhat)) / std.",
        "你的反向闭包把均值和方差当成了常数（它给出的是 out.grad / std），可两者都是由 x 算出来的："
        "动一个元素，它们也跟着动。请加上它们带来的两项："
        "dx = (g - mean(g) - xhat * mean(g * xhat)) / std。",
    )


def _layer_norm_cases(rng: np.random.Generator) -> list[Case]:
    """Matrices, (batch, time, features) tensors, and rows where eps matters."""
    n, d, t = _dims(rng, 3, 3, 8)
    up = drawn(rng)

    def ref(ls: list, lib: str) -> Any:
        return functional(lib).layer_norm(ls[0], (ls[0].shape[-1],), eps=EPS)

    def norm(vs: list) -> Any:
        return vs[0].layer_norm()

    return [
        Case(
            say("a larger tensor", "更大的张量"),
            _normal(rng, (3 * n, 16)),
            norm,
            ref,
            up,
            True,
            large=True,
            extra=[_constant_statistics],
        ),
        Case(
            say("rows of a matrix", "矩阵的每一行"),
            _normal(rng, (n, d)),
            norm,
            ref,
            up,
            True,
            extra=[_constant_statistics],
        ),
        Case(
            say("a (batch, time, features) tensor", "(批量, 时间, 特征) 形状的张量"),
            _normal(rng, (t, n, d)),
            norm,
            ref,
            up,
            True,
            extra=[_constant_statistics],
        ),
        Case(
            say("rows with a tiny spread, where eps matters", "数值很集中的行，eps 起作用"),
            [rng.normal(size=(n, d)) * 3e-3 + 5.0],
            norm,
            ref,
            up,
            True,
        ),
    ]


def check_layer_norm(cls: Any, demo: bool = False) -> None:
    """`x.layer_norm()`: normalise over the last dim (eps 1e-5, no scale or shift), one node."""
    success = say(
        "one node normalising the last dim, whose closure carries the mean's and the "
        "variance's share of the gradient.",
        "一个在最后一维上做归一化的节点，它的闭包把均值和方差那两份梯度也算了进去。",
    )
    run_check("Layer norm", "x.layer_norm()", cls, demo, _layer_norm_cases, success)
