"""Lesson 07 (switching autograd off): checking a hand-written SGD step by its method."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .calls import _ROOT, calls_where
from .demo import verdict_or_demo
from .feedback import Verdict, close
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


class _Writes:
    """While the step runs: which code it called (minigrad's optim/, PyTorch), and for each
    counted write to a parameter (a bump of its version counter) whether that write itself
    changed the parameter. The values are noted at every call (the profile of labkit.calls),
    so at a bump the last note is what the parameter held just before the write; a `.data`
    write followed by a counted `add_(0)` is a counted write that changed nothing."""

    def __init__(self, params: list[Any]) -> None:
        from minigrad.core.tensor import Tensor

        self.params = params
        self.before = [self._values(p) for p in params]
        self.changed = [False] * len(params)
        self.counted = [0] * len(params)
        self.tensor = Tensor
        self.original = Tensor._bump
        self.skip = {getattr(self.original, "__code__", None)}
        self.busy = False  # (inside a bump: the calls it makes note nothing)

    @staticmethod
    def _values(p: Any) -> np.ndarray:
        return np.array(p._data, copy=True)

    def name_of(self, code: Any) -> str | None:
        if code not in self.skip and not self.busy:
            self.before = [self._values(p) for p in self.params]
        file = code.co_filename
        if "/torch/" in file and "<" not in code.co_qualname:
            where = file.rsplit("/torch/", 1)[1].removesuffix(".py").removesuffix("/__init__")
            return ".".join(("torch", *where.split("/"), code.co_qualname))
        if file.startswith(_ROOT + "optim/") and "<" not in code.co_qualname:
            return ".".join(("mg.optim", code.co_qualname.removesuffix(".__init__")))
        return None

    def __enter__(self) -> Any:
        writes, original = self, self.original

        def bump(t: Any) -> None:
            # (compared first: the counter's own code calls functions, which would note the
            # values after the write as "before")
            writes.busy = True
            for i, p in enumerate(writes.params):
                if t._version_counter is p._version_counter:
                    writes.counted[i] += 1
                    now = writes._values(p)
                    if now.shape != writes.before[i].shape or not np.array_equal(
                        now, writes.before[i]
                    ):
                        writes.changed[i] = True
                    writes.before[i] = now
            try:
                original(t)
            finally:
                writes.busy = False

        self.skip.add(bump.__code__)
        self.tensor._bump = bump
        self.watch = calls_where(self.name_of)
        return self.watch.__enter__()

    def __exit__(self, *exc: Any) -> None:
        self.tensor._bump = self.original
        self.watch.__exit__(*exc)


def check_sgd_step(sgd_step: Callable[[list[Any], float], Any], demo: bool = False) -> None:
    """The step must change the parameters *in place*, without recording, keeping them leaves.

    Evidence of the method: each parameter's `_version` went up (a write through `.data` leaves
    it, so it does not count), no grad_fn appeared, no `mg.optim` code ran (a profile of the
    call, labkit.calls), and a second step on parameters, gradients and a learning rate the
    learner never saw gives p - lr·p.grad (numbers fitted to the first case do not).
    `demo=True`: the lesson shows a wrong answer on purpose (labkit.demo).
    """
    import minigrad as mg

    v = verdict_or_demo("sgd_step", demo)
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
        writes = _Writes(params)
        with writes as optimizer:
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
    if optimizer.switched_off:
        v.require(False, optimizer.switched_off_message())
        v.done("")
        return
    if any(name.startswith("torch.") for name in optimizer):
        torch_names = [name for name in optimizer if name.startswith("torch.")]
        public = [n for n in torch_names if not any(x.startswith("_") for x in n.split("."))]
        used = next((n for n in public if n.startswith("torch.optim")), (public or torch_names)[0])
        v.require(
            False,
            say(
                f"your step ran PyTorch code ({used}) and copied the result back: an optimizer "
                "(or PyTorch) did the update for you. The exercise is to write it on the "
                "minigrad parameters: inside `with mg.no_grad():`, change each p in place by lr "
                "times p.grad.",
                f"你的更新运行了 PyTorch 的代码（{used}），再把结果拷回来：是优化器（或 PyTorch）"
                "替你做了更新。这个练习要你直接在 minigrad 参数上写：在 `with mg.no_grad():` 里，"
                "把每个 p 原地减去 lr 乘 p.grad。",
            ),
        )
        v.done("")
        return
    optimizer = [name for name in optimizer if name.startswith("mg.optim")]
    if optimizer:
        v.require(
            False,
            say(
                f"your step used mg.optim ({optimizer[0]}): an optimizer does this update "
                "for you. The exercise is to write it: inside `with mg.no_grad():`, change each "
                "parameter in place by lr times its gradient.",
                f"你的更新用了 mg.optim（{optimizer[0]}）：优化器会替你做这次更新。"
                "这个练习要你自己写：在 `with mg.no_grad():` 里，"
                "把每个参数原地减去 lr 乘它的梯度。",
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
    idle = [
        n
        for n, moved, changed in zip("wb", writes.counted, writes.changed, strict=True)
        if moved and not changed
    ]
    if not v.problems and not unseen and idle:
        v.require(
            False,
            say(
                f"the values are right and the version counter of {' and '.join(idle)} moved, "
                "but the counted write did not change anything (add_(0), mul_(1)...): the real "
                "update went through `.data` (or a numpy view), which autograd cannot see, and "
                "the counter was moved by hand. Make the update itself the in-place write, "
                "inside `with mg.no_grad():`: `p -= lr * p.grad`.",
                f"数值是对的，{' 和 '.join(idle)} 的版本计数器也动了，但被计数的那次写入什么都没改"
                "（add_(0)、mul_(1)……）：真正的更新是通过 `.data`（或 numpy 视图）写进去的，"
                "autograd 看不见，计数器是你手动拨动的。请让更新本身就是那次原地写入，"
                "放在 `with mg.no_grad():` 里：`p -= lr * p.grad`。",
            ),
        )
    if not v.problems:
        _unseen(v, sgd_step)
    v.done(
        say(
            "in place and unrecorded: the parameters are still leaves that require grad.",
            "原地更新且未被记录：参数仍然是需要梯度的叶子张量。",
        )
    )


def _unseen(v: Verdict, sgd_step: Callable[[list[Any], float], Any]) -> None:
    """A second step on parameters, gradients and a learning rate the learner never saw: the
    update must come from the arguments, not from numbers read off the first case."""
    import minigrad as mg

    rng = np.random.default_rng(707)
    values = [rng.normal(size=3).round(3), rng.normal(size=(2, 2)).round(3)]
    params = [mg.tensor(a.tolist(), requires_grad=True) for a in values]
    grads = [rng.normal(size=a.shape).round(3) for a in values]
    for p, g in zip(params, grads, strict=True):
        p.grad = mg.tensor(g.tolist())
    lr = 0.05
    try:
        sgd_step(params, lr)
    except Exception as err:  # the learner's code: say what it raised
        v.require(
            False,
            say(
                f"on parameters of shapes (3,) and (2, 2) with lr={lr} your step raised "
                f"{type(err).__name__}: {err}. Does it use its arguments (every p in params, "
                "lr and p.grad) rather than numbers of its own?",
                f"在形状为 (3,) 和 (2, 2) 的参数上、lr={lr} 时，你的更新抛出了 "
                f"{type(err).__name__}：{err}。它用的是传进来的参数（params 里的每个 p、lr 和 "
                "p.grad），而不是自己写死的数吗？",
            ),
        )
        return
    want = [a - lr * g for a, g in zip(values, grads, strict=True)]
    v.require(
        all(close(p, w, atol=1e-5) for p, w in zip(params, want, strict=True)),
        say(
            f"on other parameters (shapes (3,) and (2, 2), lr={lr}) the step gave "
            f"{[_show(p) for p in params]}, not p - lr·p.grad = "
            f"{[np.round(w, 4).reshape(-1).tolist() for w in want]}: does it use its arguments "
            "(every p in params, lr and p.grad) rather than numbers of its own?",
            f"在另一组参数上（形状 (3,) 和 (2, 2)，lr={lr}），这一步得到 "
            f"{[_show(p) for p in params]}，而不是 p - lr·p.grad = "
            f"{[np.round(w, 4).reshape(-1).tolist() for w in want]}：它用的是传进来的参数"
            "（params 里的每个 p、lr 和 p.grad），而不是自己写死的数吗？",
        ),
    )


def _show(t: Any) -> list[float]:
    return [round(float(x), 4) for x in t.detach().reshape(-1).tolist()]
