"""Checks for lesson 13 (myths and facts).

One prediction per snippet: does it raise? Each wrong prediction gets the reason behind the
real behaviour, which is the point of the lesson (the myths are plausible, the rules are precise).
The answer key, `RAISES`, marks whatever is read out of it, so a copy of it is told apart from a
prediction written by hand.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from .feedback import Verdict, verdict
from .hints import register
from .language import say

register(
    "13",
    "Raise or run?",
    "Match each snippet to a claim of this lesson: a second backward (claim 18), an in-place op "
    "on a leaf (claim 8), backward on a one-element tensor (claim 15), backward on a detached "
    "tensor (claim 17).",
    "A second backward fails only if the first one freed saved tensors: does `+` save anything? "
    "Does `x * x`? One element is enough for backward(); a detached tensor has no graph.",
    "Exactly three snippets raise: the one needing tensors the first backward freed, the "
    "in-place write into a leaf that requires grad, and the backward from a tensor with no "
    "history.",
    zh_title="报错还是运行？",
    zh=(
        "把每段代码对应到本课的一条说法：第二次反向传播（说法 18）、对叶子张量的原地操作"
        "（说法 8）、对单元素张量调用 backward()（说法 15）、对 detach 后的张量调用 backward()"
        "（说法 17）。",
        "只有当第一次反向传播释放了保存的张量时，第二次才会失败：`+` 保存了什么吗？"
        "`x * x` 呢？backward() 只要求张量恰好有一个元素；detach 后的张量没有计算图。",
        "恰好有三段代码报错：需要第一次反向传播已释放的张量的那段、对需要梯度的叶子张量做原地写入的"
        "那段，以及从没有历史的张量开始反向传播的那段。",
    ),
)


def _stop(v: Verdict) -> None:
    """Print what is wrong so far and end the check (later steps depend on this one)."""
    v.done("")


_KEY = {"a": False, "b": True, "c": True, "d": False, "e": True}


class _Letter(str):
    """A snippet letter read out of the answer key: a copy of the key carries these."""

    __slots__ = ()


class _Verdict(int):
    """A verdict read out of the answer key (1 raises, 0 runs): a learner's own dict holds
    True and False, a copy of the key holds these."""

    __slots__ = ()

    def __repr__(self) -> str:
        return repr(bool(self))

    def __bool__(self) -> bool:
        return int(self) != 0


class _AnswerKey(Mapping):
    """The check's answer key, `lesson13.RAISES`: readable like a dict, but whatever is read
    out of it is marked, so a copy (`dict(RAISES)`, `{**RAISES}`, `RAISES.copy()`, a
    comprehension over its items) is recognised as the key, not as a prediction."""

    def __getitem__(self, key: str) -> _Verdict:
        return _Verdict(_KEY[key])

    def __iter__(self) -> Iterator[_Letter]:
        return iter([_Letter(k) for k in _KEY])

    def __len__(self) -> int:
        return len(_KEY)

    def copy(self) -> dict:
        return dict(self)

    def __repr__(self) -> str:
        return repr(dict(self))


RAISES = _AnswerKey()


def _copied(answer: dict) -> bool:
    """Whether `answer` holds keys or values read out of the answer key."""
    return any(type(k) is _Letter for k in answer) or any(
        type(value) is _Verdict for value in answer.values()
    )


def _why(key: str) -> str:
    """Why snippet `key` raises or runs, in the lesson's language."""
    return {
        "a": say(
            "(x + 1).sum() saves no tensors (the gradient of + is 1), so there is nothing to free: "
            "a second backward works and doubles x.grad.",
            "(x + 1).sum() 不保存任何张量（+ 的梯度是 1），所以没有东西可释放："
            "第二次反向传播照常运行，x.grad 翻倍。",
        ),
        "b": say(
            "(x * x).sum() saves x for MulBackward0; the first backward frees it, so the second "
            "raises 'Trying to backward through the graph a second time'.",
            "(x * x).sum() 为 MulBackward0 保存了 x；第一次反向传播把它释放了，所以第二次会报错，"
            "提示不能再次反向穿过同一个计算图。",
        ),
        "c": say(
            "an in-place op on a leaf that requires grad is refused with a RuntimeError (not a "
            "warning), whatever an article says.",
            "对需要梯度的叶子张量做原地操作会被 RuntimeError 拒绝（不是警告），不管文章怎么说。",
        ),
        "d": say(
            "backward() needs one element, not zero dimensions: a shape-[1] tensor works without a "
            "gradient argument.",
            "backward() 要求的是只有一个元素，而不是零维：形状为 [1] 的张量不传 gradient "
            "参数也能调用。",
        ),
        "e": say(
            "a detached tensor does not require grad (it has no history), so calling backward() on "
            "it raises 'element 0 of tensors does not require grad'.",
            "detach 后的张量不需要梯度（它没有历史），所以对它调用 backward() 会报错，"
            "提示第 0 个元素不需要梯度。",
        ),
    }[key]


def check_predictions(answer: Any) -> None:
    """`answer` maps each snippet letter a-e to True (raises) or False (runs)."""
    v = verdict("Raise or run?")
    if not v.answered(answer, "predictions"):
        return _stop(v)
    if not v.require(
        not isinstance(answer, _AnswerKey),
        say(
            "that is the check's own answer key (lesson13.RAISES), not your prediction: write "
            "the dict yourself, one True or False per snippet.",
            "这是检查程序自己的答案表（lesson13.RAISES），不是你的预测：请自己写出这个字典，"
            "每段代码一个 True 或 False。",
        ),
    ):
        return _stop(v)
    if not v.require(
        isinstance(answer, dict),
        say(
            "predictions should be a dict like {'a': True, 'b': False, ...}.",
            "predictions 应当是一个字典，形如 {'a': True, 'b': False, ...}。",
        ),
    ):
        return _stop(v)
    if not v.require(
        not _copied(answer),
        say(
            "these predictions were copied from the check's own answer key (lesson13.RAISES, "
            "through dict(), copy() or its items), so they are not yours yet. Predict each "
            "snippet yourself, one True or False per snippet; if you are unsure, run it and "
            "see: that is the point of the exercise.",
            "这些预测是从检查程序自己的答案表（lesson13.RAISES，经 dict()、copy() 或它的各项）"
            "抄来的，所以还不算你的预测。请自己预测每段代码，每段一个 True 或 False；"
            "拿不准就运行一下看看：这正是这个练习的用意。",
        ),
    ):
        return _stop(v)
    extra = sorted(map(repr, set(answer) - set(_KEY)))
    if not v.require(
        not extra,
        say(
            f"there is no snippet {', '.join(extra)}: the keys are 'a' to 'e' (lower case).",
            f"没有代码段 {', '.join(extra)}：键应当是 'a' 到 'e'（小写）。",
        ),
    ):
        return _stop(v)
    missing = sorted(set(_KEY) - set(answer))
    if not v.require(
        not missing,
        say(
            f"no prediction for {', '.join(missing)}.",
            f"缺少对 {', '.join(missing)} 的预测。",
        ),
    ):
        return _stop(v)
    for key, raises in _KEY.items():
        if not v.require(
            isinstance(answer[key], bool),
            say(
                f"{key}: use True or False, got {answer[key]!r}.",
                f"{key}：请用 True 或 False，而不是 {answer[key]!r}。",
            ),
        ):
            continue
        if answer[key] != raises:
            said = "raises" if answer[key] else "runs"
            said_zh = "报错" if answer[key] else "正常运行"
            v.require(
                False,
                say(
                    f"{key}: you said it {said}, but it {'raises' if raises else 'runs'}: "
                    f"{_why(key)}",
                    f"{key}：你预测它{said_zh}，实际上它{'会报错' if raises else '能正常运行'}："
                    f"{_why(key)}",
                ),
            )
    v.done(
        say(
            "all five right: b, c and e raise; a and d run.",
            "五个全对：b、c、e 报错；a、d 正常运行。",
        )
    )
