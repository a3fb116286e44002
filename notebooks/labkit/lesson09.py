"""Checks for lesson 09 (hooks).

The checks call the learner's hooks both directly and inside a real backward pass, so they can
tell apart "returned nothing", "changed the gradient in place" and "computed the wrong thing";
then once more on a 2×3 intermediate tensor with a limit of the check's own, which a hook that
returns numbers fitted to the first cases (or handles only 1-d gradients) does not pass.
The gradient monitor's second backward runs without zero_grad, so `.grad` accumulates: the
post-accumulate hook the lesson teaches reads the sum, a tensor hook sees one pass only.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import minigrad as mg

from .feedback import Verdict, close, verdict
from .hints import register
from .language import say

register(
    "09",
    "Clipping hook",
    "`clip_grad_hook(limit)` builds a hook: define an inner function `hook(grad)` and return the "
    "function itself (do not call it).",
    "A tensor hook replaces the gradient by the tensor it returns; returning None keeps the "
    "gradient as it was, and changing `grad` in place is not allowed here.",
    "Limit every entry to the range from -limit to limit with the out-of-place `clamp` (not "
    "`clamp_`), and return its result.",
    zh_title="裁剪钩子",
    zh=(
        "`clip_grad_hook(limit)` 负责造出一个钩子：在里面定义一个内部函数 `hook(grad)`，"
        "然后返回这个函数本身（不要调用它）。",
        "张量钩子会用它返回的张量替换梯度；返回 None 表示梯度保持原样，"
        "而原地修改 `grad` 在这里是不允许的。",
        "用非原地的 `clamp`（不是 `clamp_`）把每个元素限制在 -limit 到 limit 之间，"
        "并返回它的结果。",
    ),
)
register(
    "09",
    "Gradient monitor",
    "Loop over `model.named_parameters()`; register one hook per parameter and keep the handle "
    "each `register_*` call returns.",
    "`register_post_accumulate_grad_hook(fn)` calls `fn(param)` once `.grad` is complete, so "
    "`param.grad.norm().item()` is there to read. A lambda made in a loop needs `name=name` as a "
    "default argument, or every hook sees the loop's last name.",
    "Create `norms[name]` once as an empty list (`setdefault`), append one float per call in the "
    "hook, and return the list of handles.",
    zh_title="梯度监视器",
    zh=(
        "遍历 `model.named_parameters()`；给每个参数注册一个钩子，"
        "并留下每次调用 `register_*` 返回的句柄。",
        "`register_post_accumulate_grad_hook(fn)` 会在 `.grad` 累积完成后调用 `fn(param)`，"
        "这时就可以读取 `param.grad.norm().item()`。在循环里创建的 lambda 需要把 `name=name` "
        "写成默认参数，否则每个钩子看到的都是循环最后一个名字。",
        "用 `setdefault` 把 `norms[name]` 初始化为空列表（只做一次），钩子每被调用一次就追加一个 "
        "float，最后返回句柄列表。",
    ),
)


def _stop(v: Verdict) -> None:
    """Print what is wrong so far and end the check (later steps depend on this one)."""
    v.done("")


def _raised(err: Exception, doing: str, doing_zh: str) -> str:
    """A sentence for an error raised by the learner's hook, naming the likely cause."""
    if isinstance(err, TypeError) and "Tensor" in str(err) and "expected" in str(err):
        return say(
            f"{doing} raised TypeError: the hook received a minigrad tensor but called a real "
            "PyTorch function (`torch.…`) on it. Use minigrad here: `grad.clamp(...)` or `mg.…`.",
            f"{doing_zh}抛出了 TypeError：钩子收到的是 minigrad 张量，却对它调用了真正的 "
            "PyTorch 函数（`torch.…`）。这里请用 minigrad：`grad.clamp(...)` 或 `mg.…`。",
        )
    return say(
        f"{doing} raised {type(err).__name__}: {err}",
        f"{doing_zh}抛出了 {type(err).__name__}：{err}",
    )


def _as_list(value: Any) -> Any:
    return value.tolist() if hasattr(value, "tolist") else value


def check_clip_hook(make_hook: Any) -> None:
    """`make_hook(limit)` returns a tensor hook clamping each entry to [-limit, limit]."""
    v = verdict("Clipping hook")
    if not v.answered(make_hook, "clip_grad_hook"):
        return _stop(v)
    if not v.require(
        callable(make_hook),
        say(
            "clip_grad_hook should be a function of `limit`.",
            "clip_grad_hook 应当是一个以 `limit` 为参数的函数。",
        ),
    ):
        return _stop(v)
    try:
        hook = make_hook(2.0)
    except Exception as err:  # the learner's code: report whatever it raised
        v.require(False, _raised(err, "clip_grad_hook(2.0)", "clip_grad_hook(2.0) "))
        return _stop(v)
    if hook is None:
        v.require(
            False,
            say(
                "clip_grad_hook(2.0) returned None: is its body still `...`, or is the "
                "`return hook` line missing? It should RETURN the hook function.",
                "clip_grad_hook(2.0) 返回了 None：函数体是不是还是 `...`，或者漏了 "
                "`return hook` 这一行？它应当返回钩子函数本身。",
            ),
        )
        return _stop(v)
    if not v.require(
        callable(hook),
        say(
            f"clip_grad_hook(limit) should RETURN a function (the hook), got "
            f"{type(hook).__name__}: return the inner function itself, without calling it.",
            f"clip_grad_hook(limit) 应当返回一个函数（钩子），你返回的是 "
            f"{type(hook).__name__}：请返回内部函数本身，不要调用它。",
        ),
    ):
        return _stop(v)
    g = mg.tensor([-5.0, 0.5, 3.0])
    try:
        out = hook(g)
    except Exception as err:
        v.require(False, _raised(err, "calling the hook on a gradient", "对一个梯度调用钩子时"))
        return _stop(v)
    if out is None:
        if g.tolist() != [-5.0, 0.5, 3.0]:
            v.require(
                False,
                say(
                    "your hook changed the gradient in place and returned None. Don't: "
                    "the gradient tensor a hook receives may be shared with other parts "
                    "of the graph. Return a new tensor instead.",
                    "你的钩子原地修改了梯度，然后返回 None。别这样：钩子收到的梯度张量"
                    "可能被计算图的其他部分共用。请返回一个新张量。",
                ),
            )
        else:
            v.require(
                False,
                say(
                    "your hook returned None, which means 'leave the gradient as it "
                    "is'. Return the clipped gradient.",
                    "你的钩子返回了 None，意思是“梯度保持原样”。请返回裁剪后的梯度。",
                ),
            )
        return _stop(v)
    if not v.require(
        isinstance(out, mg.Tensor),
        say(
            f"the hook returned a {type(out).__name__}; a hook must return a minigrad tensor "
            "(the new gradient) or None.",
            f"钩子返回的是 {type(out).__name__}；钩子必须返回一个 minigrad 张量（新的梯度）"
            "或者 None。",
        ),
    ):
        return _stop(v)
    if g.tolist() != [-5.0, 0.5, 3.0]:
        v.require(
            False,
            say(
                "your hook modified its argument in place before returning. Compute "
                "a new tensor (e.g. grad.clamp(...)) and leave the argument alone.",
                "你的钩子在返回之前原地修改了它的参数。请计算一个新张量"
                "（例如 grad.clamp(...)），别去动参数本身。",
            ),
        )
    if close(out, [0.0, 0.5, 2.0]):
        v.require(
            False,
            say(
                "only the upper side is clipped: -5 became 0 instead of -2. "
                "Clamp to [-limit, limit].",
                "只裁剪了上界：-5 变成了 0，而不是 -2。请限制在 [-limit, limit] 之内。",
            ),
        )
    elif close(out, [-5.0, 0.5, 2.0]):
        v.require(
            False,
            say(
                "only the upper side is clipped: -5 should become -2.",
                "只裁剪了上界：-5 应当变成 -2。",
            ),
        )
    elif close(out, (g * (2.0 / g.norm())).tolist(), atol=1e-4):
        v.require(
            False,
            say(
                "you rescaled the whole gradient to norm 2 (that is what "
                "clip_grad_norm_ does). Here each entry is clamped on its own.",
                "你把整个梯度缩放到了范数 2（那是 clip_grad_norm_ 做的事）。"
                "这里要对每个元素单独裁剪。",
            ),
        )
    elif close(out, [-2.5, 0.25, 1.5]):
        v.require(
            False,
            say(
                "your hook halves the gradient, like the example in section 2. Here each entry "
                "must be clamped to [-limit, limit]: small entries stay as they are.",
                "你的钩子把梯度减半了，就像第 2 节的例子那样。这里每个元素都要限制在 "
                "[-limit, limit] 之内：小的元素保持不变。",
            ),
        )
    else:
        v.require(
            close(out, [-2.0, 0.5, 2.0]),
            say(
                "for limit 2 the gradient [-5, 0.5, 3] should become [-2, 0.5, 2], "
                f"got {_as_list(out)}.",
                "limit 为 2 时，梯度 [-5, 0.5, 3] 应当变成 [-2, 0.5, 2]，"
                f"你得到的是 {_as_list(out)}。",
            ),
        )
    if v.problems:
        return _stop(v)
    x = mg.tensor([1.0, 1.0, 1.0], requires_grad=True)
    try:
        x.register_hook(make_hook(1.0))
        (x * mg.tensor([10.0, 0.1, -10.0])).sum().backward()
    except Exception as err:
        v.require(
            False,
            _raised(
                err,
                "a backward pass with your hook (limit 1) registered",
                "注册了你的钩子（limit 为 1）之后，反向传播",
            ),
        )
        return _stop(v)
    v.require(
        x.grad is not None and close(x.grad, [1.0, 0.1, -1.0]),
        say(
            f"registered on a leaf with incoming gradient [10, 0.1, -10] and limit 1, x.grad "
            f"should be [1, 0.1, -1], got {None if x.grad is None else x.grad.tolist()}: does "
            "the hook use its own `limit` rather than a fixed number?",
            f"钩子注册在叶子张量上，传入的梯度是 [10, 0.1, -10]，limit 为 1，x.grad 应当是 "
            f"[1, 0.1, -1]，你得到的是 {None if x.grad is None else x.grad.tolist()}："
            "钩子用的是它自己的 `limit`，而不是某个写死的数吗？",
        ),
    )
    if not v.problems:
        _unseen_clip(v, make_hook)
    v.done(
        say(
            "the hook returns a new, clamped gradient and leaves its argument untouched.",
            "钩子返回一个裁剪过的新梯度，它的参数原封未动。",
        )
    )


def _unseen_clip(v: Verdict, make_hook: Any) -> None:
    """The hook on a case the learner never saw: a 2×3 intermediate tensor, another limit."""
    rng = np.random.default_rng(909)
    upstream, limit = rng.uniform(-3, 3, (2, 3)).round(2), 0.75
    w = mg.tensor(rng.normal(size=(2, 3)).round(2).tolist(), requires_grad=True)
    try:
        h = w * 2.0
        h.register_hook(make_hook(limit))
        (h * mg.tensor(upstream.tolist())).sum().backward()
    except Exception as err:
        v.require(
            False,
            _raised(
                err,
                f"on a 2×3 intermediate tensor with limit {limit}, a backward pass with your hook",
                f"在一个 2×3 的中间张量上、limit 为 {limit} 时，带着你的钩子做反向传播",
            )
            + say(
                "; a hook must work for a gradient of any shape (it has its tensor's shape).",
                "；钩子必须适用于任何形状的梯度（梯度的形状和它的张量一样）。",
            ),
        )
        return
    want = 2.0 * np.clip(upstream, -limit, limit)
    v.require(
        w.grad is not None and close(w.grad, want),
        say(
            f"on a 2×3 intermediate tensor h = 2·w with limit {limit} and incoming gradient "
            f"{upstream.tolist()}, w.grad should be 2 × the clamped gradient = "
            f"{want.round(4).tolist()}, got {None if w.grad is None else _as_list(w.grad)}: "
            "does the hook clamp whatever gradient it receives, to its own `limit`?",
            f"在一个 2×3 的中间张量 h = 2·w 上、limit 为 {limit}、传入的梯度为 "
            f"{upstream.tolist()} 时，w.grad 应当是裁剪后梯度的 2 倍 = {want.round(4).tolist()}，"
            f"你得到的是 {None if w.grad is None else _as_list(w.grad)}："
            "钩子是把它收到的任何梯度都按它自己的 `limit` 裁剪吗？",
        ),
    )


def _tiny_model() -> mg.nn.Module:
    mg.manual_seed(3)
    return mg.nn.Sequential(mg.nn.Linear(3, 4), mg.nn.Tanh(), mg.nn.Linear(4, 2))


def _run(model: mg.nn.Module, seed: int, zero: bool = True) -> dict[str, float]:
    """One backward; returns each parameter's gradient norm (of `.grad`). With `zero=False` the
    pass runs without zero_grad, so `.grad` holds this pass's gradient plus the previous one."""
    if zero:
        model.zero_grad(set_to_none=True)
    mg.manual_seed(seed)
    model(mg.randn(5, 3)).pow(2).sum().backward()
    return {n: p.grad.norm().item() for n, p in model.named_parameters()}


def _this_pass(model: mg.nn.Module, seed: int) -> dict[str, float]:
    """The norm of one pass's own gradient (what a tensor hook on the parameter receives)."""
    saved = {n: p.grad for n, p in model.named_parameters()}
    result = _run(model, seed)
    for n, p in model.named_parameters():
        p.grad = saved[n]
    return result


def _watch_error(err: Exception) -> str:
    """The usual reasons a monitor's hook raises, in words."""
    if isinstance(err, AttributeError) and "NoneType" in str(err):
        return say(
            f"your hook raised AttributeError ({err}): it read `p.grad` while it was still None. "
            "A tensor hook (`register_hook`) runs BEFORE the gradient is accumulated into `.grad`: "
            "use `register_post_accumulate_grad_hook`, whose hook gets the parameter after "
            "`.grad` is written.",
            "你的钩子抛出了 AttributeError：它在 `p.grad` 还是 None 的时候去读了它。"
            "张量钩子（`register_hook`）是在梯度累积进 `.grad` 之前运行的：请改用 "
            "`register_post_accumulate_grad_hook`，它的钩子在 `.grad` 写好之后才拿到参数。",
        )
    if isinstance(err, KeyError):
        return say(
            f"your hook raised KeyError {err}: create `norms[name]` (an empty list) when you "
            "register the hook, before the first backward appends to it.",
            f"你的钩子抛出了 KeyError {err}：请在注册钩子时就创建 `norms[name]`（一个空列表），"
            "赶在第一次反向传播往里追加之前。",
        )
    return say(
        f"registering or running your hooks raised {type(err).__name__}: {err}",
        f"注册或运行你的钩子时抛出了 {type(err).__name__}：{err}",
    )


def check_watch_gradients(watch: Any) -> None:
    """`watch(model, norms)` appends each parameter's grad norm per backward; returns handles."""
    v = verdict("Gradient monitor")
    if not v.answered(watch, "watch_gradients"):
        return _stop(v)
    model = _tiny_model()
    names = [n for n, _ in model.named_parameters()]
    norms: dict[str, list[float]] = {}
    try:
        handles = watch(model, norms)
        # the second pass runs without zero_grad (as gradient accumulation does): `.grad` then
        # holds both passes, which the post-accumulate hook sees and a tensor hook does not
        expected = [_run(model, 1), _run(model, 2, zero=False)]
    except Exception as err:
        v.require(False, _watch_error(err))
        return _stop(v)
    if handles is None and not norms:
        v.require(
            False,
            say(
                "watch_gradients recorded nothing and returned None: is its body still `...`?",
                "watch_gradients 什么都没记录，还返回了 None：函数体是不是还是 `...`？",
            ),
        )
        return _stop(v)
    missing = [n for n in names if n not in norms]
    if not v.require(
        not missing,
        say(
            f"no entry in norms for {', '.join(missing)}: register one hook "
            "per parameter, keyed by its name from model.named_parameters() (norms starts "
            "empty here, unlike the training loop in section 6).",
            f"norms 里没有 {', '.join(missing)} 的条目：请给每个参数注册一个钩子，"
            "以它在 model.named_parameters() 中的名字为键（这里 norms 一开始是空的，"
            "不像第 6 节的训练循环那样）。",
        ),
    ):
        return _stop(v)
    filled = [n for n in names if isinstance(norms[n], list) and norms[n]]
    if len(filled) == 1 and len(norms[filled[0]]) == 2 * len(names):
        v.require(
            False,
            say(
                f"every hook appended to norms['{filled[0]}']: a lambda (or inner function) made "
                "in a loop looks up `name` when it RUNS, after the loop has ended. Bind it when "
                "the hook is made: `lambda p, name=name: ...`.",
                f"每个钩子都追加到了 norms['{filled[0]}'] 里：在循环里创建的 lambda（或内部函数）"
                "是在运行时才去查找 `name` 的，那时循环早已结束。请在创建钩子时就把它绑定好："
                "`lambda p, name=name: ...`。",
            ),
        )
        return _stop(v)
    told_before_accumulation = False
    for n in names:
        got = norms[n]
        if not v.require(
            isinstance(got, list) and len(got) == 2,
            say(
                f"norms['{n}'] should hold one number per backward pass (2 so far), got "
                f"{got!r}. Append to a list rather than overwrite.",
                f"norms['{n}'] 应当每次反向传播存一个数（目前应有 2 个），实际是 "
                f"{got!r}。请往列表里追加，而不是覆盖。",
            ),
        ):
            return _stop(v)
        if not v.require(
            all(isinstance(a, float) for a in got),
            say(
                f"norms['{n}'] holds {type(got[0]).__name__} values; append Python floats "
                "(`.item()`), which keep no tensor (and no graph) alive.",
                f"norms['{n}'] 里存的是 {type(got[0]).__name__}；请追加 Python float"
                "（`.item()`），它不会让任何张量（以及计算图）一直留在内存里。",
            ),
        ):
            return _stop(v)
        want = [e[n] for e in expected]
        if not close(got, want, rtol=1e-4) and close(got[0], want[0], rtol=1e-4):
            alone = _this_pass(_tiny_model(), 2)[n]
            if close(got[1], alone, rtol=1e-4):
                if told_before_accumulation:
                    continue
                told_before_accumulation = True
                v.require(
                    False,
                    say(
                        f"norms['{n}'] is {[round(float(a), 4) for a in got]}, expected "
                        f"{[round(a, 4) for a in want]}. The check's second backward ran without "
                        "zero_grad, so `.grad` now holds both passes; your hook recorded only "
                        "the second pass's own gradient. That is what a tensor hook "
                        "(`register_hook`) receives: it runs before the gradient is added into "
                        "`.grad`. Monitor the gradient the optimizer will use: "
                        "`register_post_accumulate_grad_hook`, whose hook reads `p.grad` after "
                        "the addition (section 3).",
                        f"norms['{n}'] 是 {[round(float(a), 4) for a in got]}，应为 "
                        f"{[round(a, 4) for a in want]}。检查的第二次反向传播之前没有 "
                        "zero_grad，所以 `.grad` 里装的是两次的和；你的钩子只记下了第二次自己"
                        "的梯度。这正是张量钩子（`register_hook`）收到的东西：它在梯度加进 "
                        "`.grad` 之前运行。要监视的是优化器将要用的那个梯度："
                        "用 `register_post_accumulate_grad_hook`，它的钩子在相加之后读取 "
                        "`p.grad`（第 3 节）。",
                    ),
                )
                continue
        v.require(
            close(got, want, rtol=1e-4),
            say(
                f"norms['{n}'] is {[round(float(a), 4) for a in got]}, expected "
                f"{[round(a, 4) for a in want]} (the norm of that parameter's gradient, "
                "p.grad.norm(), as a Python float).",
                f"norms['{n}'] 是 {[round(float(a), 4) for a in got]}，应为 "
                f"{[round(a, 4) for a in want]}（该参数梯度的范数 p.grad.norm()，"
                "以 Python float 表示）。",
            ),
        )
    if v.problems:
        return _stop(v)
    try:
        handle_list = list(handles)
    except TypeError:
        handle_list = []
    if not v.require(
        len(handle_list) == len(names) and all(hasattr(h, "remove") for h in handle_list),
        say(
            f"return a list with the {len(names)} handles that register_hook (or "
            "register_post_accumulate_grad_hook) gave you, so the caller can remove "
            "the hooks.",
            f"请返回一个列表，装着 register_hook（或 register_post_accumulate_grad_hook）"
            f"给你的那 {len(names)} 个句柄，好让调用者能移除这些钩子。",
        ),
    ):
        return _stop(v)
    for h in handle_list:
        h.remove()
    _run(model, 3)
    v.require(
        all(len(norms[n]) == 2 for n in names),
        say(
            "after removing every handle the hooks still fired on the next backward: are the "
            "handles you returned the ones the hooks were registered with?",
            "移除所有句柄之后，下一次反向传播时钩子仍然被触发了：你返回的句柄，"
            "真的是注册这些钩子时得到的那些吗？",
        ),
    )
    v.done(
        say(
            "one hook per parameter, one norm per backward, and removable.",
            "每个参数一个钩子，每次反向传播记一个范数，而且可以移除。",
        )
    )
