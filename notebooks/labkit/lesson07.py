"""Lesson 07 (switching autograd off): checking a hand-written SGD step."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .feedback import close, verdict
from .hints import register
from .language import say

register(
    "07",
    "sgd_step",
    "The update must change each parameter tensor itself (in place) and must not be recorded "
    "by autograd.",
    "Put the loop inside an mg.no_grad() block and change each p with an in-place operator "
    "(-= or sub_): an assignment p = ... only rebinds a local name.",
    "Not through p.data: that write is invisible to the version counter (the habit this lesson "
    "warns against). Inside no_grad, an in-place subtraction of lr times p.grad is all it takes.",
    zh_title="手写 SGD 一步（sgd_step）",
    zh=(
        "更新必须改变每个参数张量本身（原地修改），而且不能被 autograd 记录下来。",
        "把循环放进 mg.no_grad() 块里，用原地运算符（-= 或 sub_）修改每个 p：赋值 p = ... "
        "只是让一个局部变量名指向了新对象。",
        "别通过 p.data 来改：这种写入版本计数器看不见（正是本课提醒你戒掉的习惯）。"
        "在 no_grad 里，原地减去 lr 乘 p.grad 就够了。",
    ),
)


def check_sgd_step(sgd_step: Callable[[list[Any], float], Any]) -> None:
    """The step must change the parameters *in place*, without recording, keeping them leaves.

    And not through `.data`: a write there does not bump the version counter, so the check
    requires each parameter's `_version` to have gone up.
    """
    import minigrad as mg

    v = verdict("sgd_step")
    if not v.answered(sgd_step, "`sgd_step`"):
        v.done("")
        return
    w = mg.tensor([1.0, -2.0], requires_grad=True)
    b = mg.tensor([0.5], requires_grad=True)
    (w * mg.tensor([3.0, 4.0]) + b).sum().backward()  # w.grad = [3, 4], b.grad = [2]
    params = [w, b]
    versions = [w._version, b._version]
    if not v.require(
        callable(sgd_step),
        say(
            f"`sgd_step` should be a function sgd_step(params, lr), not {type(sgd_step).__name__}.",
            f"`sgd_step` 应该是一个函数 sgd_step(params, lr)，而不是 {type(sgd_step).__name__}。",
        ),
    ):
        v.done("")
        return
    try:
        sgd_step(params, 0.1)
    except RuntimeError as err:
        if "leaf Variable that requires grad" in str(err):
            v.require(
                False,
                say(
                    "an in-place update of a parameter raised 'a leaf Variable that "
                    "requires grad is being used in an in-place operation': autograd "
                    "would record the update. Do it inside `with mg.no_grad():`.",
                    "原地更新参数时报错，说需要梯度的叶子张量被用在了原地操作里：autograd "
                    "会把这次更新记录下来。请在 `with mg.no_grad():` 里面做更新。",
                ),
            )
        else:
            v.require(
                False,
                say(f"your step raised RuntimeError: {err}", f"你的更新抛出了 RuntimeError：{err}"),
            )
        v.done("")
        return
    except Exception as err:  # any other error is feedback too
        v.require(
            False,
            say(
                f"your step raised {type(err).__name__}: {err}",
                f"你的更新抛出了 {type(err).__name__}：{err}",
            ),
        )
        v.done("")
        return
    if params[0] is not w or params[1] is not b:
        v.require(
            False,
            say(
                "the list now holds new tensors: update the parameters themselves in "
                "place (an optimizer holds references to the original objects).",
                "列表里现在装的是新张量：请原地更新参数本身（优化器持有的是对原来那些对象的引用）。",
            ),
        )
        w, b = params
    if close(w, [1.0, -2.0]) and close(b, [0.5]):
        v.require(
            False,
            say(
                "the parameters did not change (is the body still `...`?). If you wrote "
                "`p = p - lr * p.grad`: that makes a new tensor and rebinds the local name p; the "
                "parameter stays as it was. Update in place: `p -= lr * p.grad` (inside "
                "mg.no_grad()).",
                "参数没有变化（函数体还是 `...` 吗？）。如果你写的是 `p = p - lr * p.grad`："
                "这会创建一个新张量，再让局部变量名 p 指向它，参数本身原封未动。"
                "请原地更新：`p -= lr * p.grad`（放在 mg.no_grad() 里面）。",
            ),
        )
        v.done("")
        return
    if close(w, [1.3, -1.6]) and close(b, [0.7]):
        v.require(
            False,
            say(
                "the parameters moved *up* the gradient (p + lr·p.grad): a descent step "
                "subtracts, p -= lr * p.grad.",
                "参数沿梯度方向 *上升* 了（p + lr·p.grad）：梯度下降的一步要做减法，"
                "p -= lr * p.grad。",
            ),
        )
    elif close(w, [-2.0, -6.0]) and close(b, [-1.5]):
        v.require(
            False,
            say(
                "the step used the whole gradient (p - p.grad): multiply it by the learning "
                "rate lr.",
                "这一步减去了整个梯度（p - p.grad）：要先乘上学习率 lr。",
            ),
        )
    else:
        v.require(
            close(w, [0.7, -2.4]) and close(b, [0.3]),
            say(
                f"after one step with lr=0.1, w should be w - 0.1·w.grad = [0.7, -2.4] and b "
                f"[0.3], but they are {_show(w)} and {_show(b)}.",
                f"以 lr=0.1 走一步之后，w 应为 w - 0.1·w.grad = [0.7, -2.4]，b 应为 [0.3]，"
                f"实际却是 {_show(w)} 和 {_show(b)}。",
            ),
        )
    v.require(
        w.grad_fn is None and w.is_leaf,
        say(
            f"w now has grad_fn {w.grad_fn}: the update was recorded in the graph. Wrap it in "
            "mg.no_grad().",
            f"w 现在有了 grad_fn {w.grad_fn}：这次更新被记录进了计算图。"
            "请把它包在 mg.no_grad() 里。",
        ),
    )
    v.require(
        w.requires_grad and b.requires_grad,
        say(
            "a parameter no longer requires grad, so the next backward would not reach it.",
            "有参数不再需要梯度了，下一次反向传播就到不了它那里。",
        ),
    )
    unseen = [n for n, t, v0 in (("w", w, versions[0]), ("b", b, versions[1])) if t._version == v0]
    if not v.problems and unseen:
        v.require(
            False,
            say(
                f"the values are right, but the version counter{'s' if len(unseen) > 1 else ''} "
                f"of {' and '.join(unseen)} did not move (`_version`): you wrote through "
                "`.data`, which autograd cannot see (the habit that made b.grad silently wrong "
                "above). Update inside `with mg.no_grad():` with `p -= lr * p.grad`; that write "
                "is counted.",
                f"数值是对的，但 {' 和 '.join(unseen)} 的版本计数器（`_version`）没有动："
                "你是通过 `.data` 写入的，autograd 看不见这种写入（前面让 b.grad 悄悄算错的"
                "正是这个习惯）。请在 `with mg.no_grad():` 里用 `p -= lr * p.grad` 更新；"
                "这样的写入会被计数。",
            ),
        )
    v.done(
        say(
            "in place and unrecorded: the parameters are still leaves that require grad.",
            "原地更新且未被记录：参数仍然是需要梯度的叶子张量。",
        )
    )


def _show(t: Any) -> list[float]:
    return [round(float(x), 4) for x in t.detach().reshape(-1).tolist()]
