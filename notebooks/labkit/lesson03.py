"""Lesson 03 (leaf and non-leaf tensors): checks for the is_leaf predictions and retain_grad."""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from . import witness
from .demo import verdict_or_demo
from .feedback import Verdict, close
from .hints import register
from .language import say

witness.start_in_kernel()  # the lesson's first cell imports this module

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


def _read_off(name: str) -> bool:
    """Was `name` filled by running instead of predicting? The notebook cell that last assigned
    it (IPython's input history) must give it a literal: a dict display (or dict(...)) of True
    and False, or single True/False entries. Anything computed there (`w.is_leaf`, a getattr, a
    dict read off in an earlier cell) is running; False outside IPython."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    history = shell.user_ns.get("In", []) if shell is not None else []
    for source in reversed(history[:-1]):  # (the last one is the check's own cell)
        if re.search(rf"^\s*{name}\s*(\[[^\]]*\]\s*)?=", source, re.M):
            return not _typed_literally(source, name)
    return False


def _typed_literally(source: str, name: str) -> bool:
    """Every assignment to `name` (or `name[...]`) in `source` is a literal of True/False."""
    import ast

    try:
        tree = ast.parse(source)
    except SyntaxError:  # (an IPython magic in the cell): judge the text
        code = re.sub(r"#.*", "", source)
        return not re.search(r"\.(is_leaf|grad_fn)\b", code)

    def boolean(node: ast.AST) -> bool:
        return isinstance(node, ast.Constant) and (
            isinstance(node.value, bool) or node.value is Ellipsis  # (the exercise's blanks)
        )

    def literal(node: ast.AST) -> bool:
        if isinstance(node, ast.Dict):
            return all(k is not None and isinstance(k, ast.Constant) for k in node.keys) and all(
                boolean(value) for value in node.values
            )
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "dict"
        ):
            return not node.args and all(boolean(k.value) for k in node.keywords)
        return False

    found = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name) and target.id == name:
                    found = True
                    if node.value is None or not literal(node.value):
                        return False
                elif (
                    isinstance(target, ast.Subscript)
                    and isinstance(target.value, ast.Name)
                    and target.value.id == name
                ):
                    found = True
                    if node.value is None or not boolean(node.value):
                        return False
    return found


def check_leaf_predictions(is_leaf: Any, *, demo: bool = False) -> None:
    """`is_leaf` maps each name to the learner's prediction of `.is_leaf`.

    A prediction is made without running: a dict filled by reading `.is_leaf` off the tensors
    (`{"w": w.is_leaf, ...}`) has the right values and teaches nothing, so the cell that made it
    is looked at (IPython's input history).
    """
    v = verdict_or_demo("leaf predictions", demo)
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
    if not demo and _read_off("is_leaf"):
        v.require(
            False,
            say(
                "your cell reads .is_leaf (or .grad_fn) off the tensors, or otherwise computes "
                "`is_leaf` instead of typing it in (from another variable, a getattr): that runs "
                "the answer instead of predicting it. Write it as a dict of True and False, one "
                "per name, from the rule (a leaf has no grad_fn), then let the check compare.",
                "你的单元格是从张量上直接读出 .is_leaf（或 .grad_fn）的，或者用别的办法把 "
                "`is_leaf` 算了出来（取自别的变量、用 getattr），而不是手写的：这是把答案跑出来，"
                "而不是预测。请根据规则（叶子张量没有 grad_fn），为每个名字写下 True 或 False，"
                "写成一个字典，再让检查来比对。",
            ),
        )
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
    wrong = 0
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
        elif guess != truth and demo:  # (the lesson's own wrong answer, shown below the check)
            v.require(
                False,
                say(
                    f"{name}.is_leaf is {truth}, not {guess}: {why}.",
                    f"{name}.is_leaf 是 {truth}，不是 {guess}：{why}。",
                ),
            )
        elif guess != truth:
            wrong += 1
    if wrong:  # (how many, not which: with two choices, which would be the answer)
        v.require(
            False,
            say(
                f"{wrong} of your {len(facts)} predictions "
                + ("is" if wrong == 1 else "are")
                + " not right. Go through the lines again asking one question each: did "
                "autograd record the operation that made this tensor (did an input require "
                "grad)? If not, it is a leaf; detach() always gives a leaf.",
                f"你的 {len(facts)} 个预测里有 {wrong} 个不对。请逐行再看一遍，每行只问一个问题："
                "autograd 记录下产生这个张量的运算了吗（有输入需要梯度吗）？没有的话，它就是叶子"
                "张量；detach() 得到的总是叶子张量。",
            ),
        )
    v.done(
        say(
            "a tensor is a leaf exactly when it has no grad_fn; only leaves that "
            "require grad get a .grad.",
            "一个张量是叶子张量，当且仅当它没有 grad_fn；只有需要梯度的叶子张量才会得到 .grad。",
        )
    )


def check_hidden_grad(h_grad: Any, h: Any, x: Any, *, demo: bool = False) -> None:
    """y = (h * h).sum() with h = x.exp(): dy/dh = 2h, and it must come from the backward pass.

    The numbers 2h are easy to write down without autograd (2 * h.detach(), numpy). The evidence
    is the pass itself: the witness (labkit/witness.py) must have seen a backward pass keep the
    gradient arriving at h's node, by the hook retain_grad() puts there, a tensor hook on h, or
    autograd.grad returning it; h.grad written that way counts too. That pass must start from a
    root other than h (not h.backward(gradient=2h), not autograd.grad(h, h, 2h): the seed would be
    the hand formula) and run through h times itself (not a surrogate linear in h).
    """
    v = verdict_or_demo("gradient of a non-leaf", demo)
    if not v.answered(h_grad, "`h_grad`"):
        v.done("")
        return
    if h_grad is None:
        late = getattr(h, "retains_grad", False) and h.grad is None
        v.require(
            False,
            say(
                "h_grad is None: you called h.retain_grad() after the backward pass, when "
                "dy/dh had already gone by. Call it before y.backward().",
                "h_grad 是 None：你是在反向传播之后才调用 h.retain_grad() 的，那时 dy/dh "
                "早已传过去了。请在 y.backward() 之前调用它。",
            )
            if late
            else say(
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
        if _from_the_pass(v, h_grad, h):
            v.done(
                say(
                    "dy/dh = 2h, kept from the backward pass as it reached h.",
                    "dy/dh = 2h，是反向传播到达 h 时留下来的。",
                )
            )
            return
    elif x.grad is not None and close(h_grad, x.grad):
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


def _from_the_pass(v: Verdict, h_grad: Any, h: Any) -> bool:
    """The right numbers: were they kept from a backward pass as it reached h?"""
    node = h.grad_fn
    retained = getattr(h, "retains_grad", False) and h.grad is not None and close(h_grad, h.grad)
    if not witness.running():
        return retained or v.require(
            False,
            say(
                "the numbers are 2h, but h.grad is None: they did not come from the backward "
                "pass. Call h.retain_grad() before y.backward() and read h.grad.",
                "数值是 2h，但 h.grad 是 None：它们不是反向传播算出来的。请在 y.backward() "
                "之前调用 h.retain_grad()，然后读取 h.grad。",
            ),
        )
    if type(h).__module__.split(".")[0] == "torch":
        return v.require(
            False,
            say(
                "these are PyTorch tensors: the numbers may well be right, but this course's "
                "checks watch minigrad's backward passes and cannot see PyTorch's. Build x with "
                "mg.tensor(..., requires_grad=True) (minigrad, imported as mg) and run the same "
                "lines.",
                "这些是 PyTorch 张量：数值也许是对的，但本课程的检查观察的是 minigrad 的反向传播，"
                "看不到 PyTorch 的。请用 mg.tensor(..., requires_grad=True)（minigrad，导入为 mg）"
                "创建 x，再运行同样的几行。",
            ),
        )
    passes = witness.passes()
    kept = [
        p for p in passes for _, grad in p.kept_at(node) if grad is not None and close(h_grad, grad)
    ]
    if any(not p.started_at(h) and p.squares(h) for p in kept):
        return True
    if kept and all(p.started_at(h) for p in kept):
        return v.require(
            False,
            say(
                "the numbers are 2h, but the pass that kept them started at h itself, with 2h "
                "handed in as its seed (h.backward(gradient=...) or autograd.grad(h, h, ...)): "
                "the seed is the formula worked out by hand. Start the pass from y = (h * h).sum() "
                "and let it find dy/dh.",
                "数值是 2h，但留下它们的那次反向传播是从 h 本身开始的，2h 是作为起点的梯度交进去的"
                "（h.backward(gradient=...) 或 autograd.grad(h, h, ...)）：这个起点就是手推的公式。"
                "请从 y = (h * h).sum() 开始反向传播，让它求出 dy/dh。",
            ),
        )
    if kept:
        return v.require(
            False,
            say(
                "the numbers are 2h, but the pass that kept them never went through h * h: it "
                "started from a tensor made linear in h (such as (h * 2 * h.detach()).sum()), "
                "whose slope is the formula worked out by hand. Build y = (h * h).sum() and call "
                "y.backward().",
                "数值是 2h，但留下它们的那次反向传播从没经过 h * h：它的起点是一个对 h 呈线性的"
                "张量（比如 (h * 2 * h.detach()).sum()），其斜率就是手推的公式。请构造 "
                "y = (h * h).sum()，再调用 y.backward()。",
            ),
        )
    numpy = isinstance(h_grad, np.ndarray | list | float)
    if any(p.ran_node(node) for p in passes):
        return v.require(
            False,
            say(
                "the numbers are 2h and a backward pass did go through h, but nothing kept "
                "its gradient there (h.grad is None): the 2h you handed in is a formula of "
                "your own"
                + (" in numpy" if numpy else " (2 * h.detach()?)")
                + ". Call h.retain_grad() before y.backward() and hand in h.grad.",
                "数值是 2h，反向传播也确实经过了 h，但没有任何东西在那里留下它的梯度"
                "（h.grad 是 None）：你交上来的 2h 是你自己"
                + ("用 numpy " if numpy else "（2 * h.detach()？）")
                + "写的公式。请在 y.backward() 之前调用 h.retain_grad()，然后交上 h.grad。",
            ),
        )
    return v.require(
        False,
        say(
            "the numbers are 2h, but no backward pass reached h: "
            + ("a numpy formula" if numpy else "a formula such as 2 * h.detach()")
            + " is the derivative worked out by hand. The exercise is to get it from "
            "the pass: h.retain_grad(), then y.backward(), then h.grad.",
            "数值是 2h，但没有任何反向传播到达过 h："
            + ("numpy 公式" if numpy else "2 * h.detach() 这样的公式")
            + "是手推出来的导数。这道题要从反向传播里拿到它：先 h.retain_grad()，"
            "再 y.backward()，然后读 h.grad。",
        ),
    )
