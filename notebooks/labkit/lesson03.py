"""Lesson 03 (leaf and non-leaf tensors): checks for the is_leaf predictions and retain_grad."""

from __future__ import annotations

from typing import Any

import numpy as np

from .feedback import close, verdict
from .hints import register
from .language import say

register(
    "03",
    "leaf predictions",
    "A tensor is a leaf exactly when it has no grad_fn. For each line ask: did autograd record "
    "the operation that made it?",
    "An operation is recorded only when one of its inputs requires grad: w does, k does not. "
    "detach() returns a tensor with no grad_fn.",
    "Line by line: p = k * 2 (does any input require grad?), q = w * k (w does), r = q.detach() "
    "(cut off), s = r + p (do r or p require grad?).",
    zh_title="是不是叶子",
    zh=(
        "一个张量是叶子张量，当且仅当它没有 grad_fn。对每一行都问一句：autograd 记录下"
        "产生它的那个运算了吗？",
        "只有当某个输入需要梯度时，运算才会被记录：w 需要，k 不需要。"
        "detach() 返回的张量没有 grad_fn。",
        "逐行来看：p = k * 2（有输入需要梯度吗？），q = w * k（w 需要），r = q.detach()"
        "（被切断了），s = r + p（r 或 p 需要梯度吗？）。",
    ),
)
register(
    "03",
    "gradient of a non-leaf",
    "After backward only leaves keep a .grad. h is not a leaf, so you must ask autograd to keep "
    "its gradient, and ask before the backward pass.",
    "Call retain_grad() on h after making it and before the backward pass; afterwards h.grad "
    "holds dy/dh.",
    zh_title="非叶子张量的梯度",
    zh=(
        "反向传播之后，只有叶子张量会保留 .grad。h 不是叶子，所以你得请 autograd 保留它的梯度，"
        "而且要在反向传播之前提出。",
        "创建 h 之后、反向传播之前，对 h 调用 retain_grad()；之后 h.grad 里就是 dy/dh。",
    ),
)


# The tensors of the exercise, as the notebook builds them:
#   w = tensor([1., 2.], requires_grad=True); k = tensor([3., 4.])
#   p = k * 2; q = w * k; r = q.detach(); s = r + p
def _leaf_facts() -> dict[str, tuple[bool, str]]:
    """Each tensor of the exercise: is it a leaf, and why, in the lesson's language."""
    return {
        "w": (
            True,
            say(
                "made by you, so a leaf (and it requires grad: it will get a .grad)",
                "由你创建，所以是叶子张量（它还需要梯度：它会得到 .grad）",
            ),
        ),
        "k": (
            True,
            say(
                "made by you; every tensor that does not require grad is a leaf",
                "由你创建；凡是不需要梯度的张量都是叶子张量",
            ),
        ),
        "p": (
            True,
            say(
                "p = k * 2 is an op result, but no input requires grad, so no grad_fn is "
                "recorded and p is a leaf",
                "p = k * 2 虽然是运算结果，但没有任何输入需要梯度，"
                "所以不会记录 grad_fn，p 是叶子张量",
            ),
        ),
        "q": (
            False,
            say(
                "q = w * k has an input that requires grad, so it has a grad_fn "
                "(MulBackward0) and is not a leaf",
                "q = w * k 有一个需要梯度的输入，所以它有 grad_fn（MulBackward0），不是叶子张量",
            ),
        ),
        "r": (
            True,
            say(
                "detach() returns a tensor cut off from the graph: no grad_fn, so a leaf",
                "detach() 返回一个从计算图上切断的张量：没有 grad_fn，所以是叶子张量",
            ),
        ),
        "s": (
            True,
            say(
                "s = r + p: neither input requires grad, so nothing is recorded: a leaf",
                "s = r + p：两个输入都不需要梯度，什么都不会被记录，所以是叶子张量",
            ),
        ),
    }


def check_leaf_predictions(is_leaf: Any) -> None:
    """`is_leaf` maps each name to the learner's prediction of `.is_leaf`."""
    v = verdict("leaf predictions")
    if not v.answered(is_leaf, "`is_leaf`"):
        v.done("")
        return
    if not v.require(
        isinstance(is_leaf, dict),
        say(
            f"`is_leaf` should be a dict like {{'w': True, ...}}, not {type(is_leaf).__name__}.",
            f"`is_leaf` 应当是形如 {{'w': True, ...}} 的字典，而不是 {type(is_leaf).__name__}。",
        ),
    ):
        v.done("")
        return
    facts = _leaf_facts()
    missing = [n for n in facts if n not in is_leaf]
    v.require(
        not missing,
        say(
            f"give a prediction for {', '.join(missing)} too.",
            f"还要给出对 {', '.join(missing)} 的预测。",
        ),
    )
    for name, (truth, why) in facts.items():
        if name not in is_leaf:
            continue
        guess = is_leaf[name]
        if guess is Ellipsis:
            v.require(False, say(f"`{name}` is still `...`.", f"`{name}` 还是 `...`。"))
        elif not isinstance(guess, bool):
            v.require(
                False,
                say(
                    f"`{name}` should be True or False, not {guess!r}.",
                    f"`{name}` 应当是 True 或 False，而不是 {guess!r}。",
                ),
            )
        elif guess != truth:
            v.require(
                False,
                say(
                    f"{name}.is_leaf is {truth}, not {guess}: {why}.",
                    f"{name}.is_leaf 是 {truth}，不是 {guess}：{why}。",
                ),
            )
    v.done(
        say(
            "a tensor is a leaf exactly when it has no grad_fn; only leaves that "
            "require grad get a .grad.",
            "一个张量是叶子张量，当且仅当它没有 grad_fn；只有需要梯度的叶子张量才会得到 .grad。",
        )
    )


def check_hidden_grad(h_grad: Any, h: Any, x: Any) -> None:
    """y = (h * h).sum() with h = x.exp(): dy/dh = 2h, and it is only stored if retained."""
    v = verdict("gradient of a non-leaf")
    if not v.answered(h_grad, "`h_grad`"):
        v.done("")
        return
    if h_grad is None:
        v.require(
            False,
            say(
                "h_grad is None: h is not a leaf, so backward does not store its "
                "gradient unless you call h.retain_grad() *before* y.backward().",
                "h_grad 是 None：h 不是叶子张量，所以除非你在 y.backward() *之前* 调用 "
                "h.retain_grad()，否则反向传播不会保存它的梯度。",
            ),
        )
        v.done("")
        return
    if getattr(h_grad, "grad_fn", None) is not None:
        v.require(
            False,
            say(
                f"h_grad has a grad_fn ({h_grad.grad_fn.name()}): you computed it with tensor "
                "operations (a formula such as 2 * h?). Let the backward pass compute it: "
                "h.retain_grad() before y.backward(), then read h.grad.",
                f"h_grad 有 grad_fn（{h_grad.grad_fn.name()}）：你是用张量运算算出来的"
                "（比如 2 * h 这样的公式？）。应当让反向传播来计算它：在 y.backward() 之前调用 "
                "h.retain_grad()，然后读取 h.grad。",
            ),
        )
        v.done("")
        return
    expected = 2 * h.detach()
    if close(h_grad, expected):
        v.done(
            say(
                "dy/dh = 2h, kept because you called h.retain_grad() before backward.",
                "dy/dh = 2h，它被保留下来，是因为你在反向传播之前调用了 h.retain_grad()。",
            )
        )
        return
    if x.grad is not None and close(h_grad, x.grad):
        v.require(
            False,
            say(
                "that is x.grad (dy/dx = 2h·exp(x)), the gradient at the leaf; the "
                "question asks for dy/dh = 2h.",
                "这是 x.grad（dy/dx = 2h·exp(x)），即叶子张量处的梯度；题目要的是 dy/dh = 2h。",
            ),
        )
    elif close(h_grad, 2 * expected):
        v.require(
            False,
            say(
                "your values are twice 2h: backward ran twice and the gradient "
                "accumulated; rebuild x, h and y, then call backward once.",
                "你的值是 2h 的两倍：反向传播运行了两次，梯度累积了起来；"
                "请重新创建 x、h 和 y，然后只调用一次 backward。",
            ),
        )
    else:
        got = np.asarray(h_grad.tolist() if hasattr(h_grad, "tolist") else h_grad)
        v.require(
            False,
            say(
                f"dy/dh should be 2h = {expected.tolist()}, but you got {got.tolist()}.",
                f"dy/dh 应当是 2h = {expected.tolist()}，而你得到的是 {got.tolist()}。",
            ),
        )
    v.done("")
