"""Checks for lesson 10 (custom autograd Functions).

A custom Function can be wrong in three separate places (forward values, the number of
gradients backward returns, the gradient formula); each check looks at them in that order and
names the one that failed, comparing against gradcheck or a known mask.

The method is checked too: backward runs with a gradient from above that is not all ones (so a
backward ignoring grad_out shows), watched by outsourced.py, which shows a backward that lets
something else differentiate for it (a nested backward pass, a graph recorded under enable_grad,
built-in nodes called by hand or kept on ctx, a dual level, PyTorch's autograd, complex numbers
for a complex step, a differentiating library), each with its own message; then on inputs
the learner never saw, with a negative scale, against exact float64 derivatives (a hard-coded
2.5 and finite differences, ~1e-11 off at best, show there).
"""

from __future__ import annotations

from typing import Any

import numpy as np

import minigrad as mg

from . import outsourced
from .feedback import Verdict, close, verdict
from .hints import register
from .language import say

register(
    "10",
    "ScaledTanh",
    "forward computes tanh(x) once and returns it times `scale`; backward needs tanh(x) and "
    "`scale` again, so forward must leave both for it.",
    "Save the tensor with `ctx.save_for_backward(...)` and keep the plain float as an attribute, "
    "`ctx.scale`; backward reads the tensor back from `ctx.saved_tensors` (a tuple: unpack it).",
    "d/dx [scale * tanh(x)] = scale * (1 - tanh(x)**2). backward returns two values: that times "
    "`grad_out` for x, and None for scale.",
    zh_title="缩放的 tanh（ScaledTanh）",
    zh=(
        "forward 只算一次 tanh(x)，返回它乘以 `scale` 的结果；backward 还要用到 tanh(x) 和 "
        "`scale`，所以 forward 得把两者都留给它。",
        "用 `ctx.save_for_backward(...)` 保存张量，普通的 float 则作为属性 `ctx.scale` 保留；"
        "backward 从 `ctx.saved_tensors` 里取回张量（它是一个元组：记得解包）。",
        "d/dx [scale * tanh(x)] = scale * (1 - tanh(x)**2)。backward 返回两个值：x 的梯度是它"
        "乘以 `grad_out`，scale 的梯度是 None。",
    ),
)
register(
    "10",
    "Sign with a straight-through estimator",
    "forward: `mg.where(condition, 1.0, -1.0)` with the condition x >= 0 (`sign` would give 0 "
    "at 0); save x with `ctx.save_for_backward`, since backward needs it.",
    "backward: multiply the incoming gradient by a mask that is 1 where |x| <= 1 and 0 elsewhere.",
    "The comparison `x.abs() <= 1` is that mask (a bool tensor); the gradient times it is the "
    "answer, and there is one input, so backward returns one value.",
    zh_title="带直通估计器的符号函数",
    zh=(
        "forward：用 `mg.where(condition, 1.0, -1.0)`，条件是 x >= 0（`sign` 在 0 处会给出 0）；"
        "backward 要用到 x，所以用 `ctx.save_for_backward` 把它保存下来。",
        "backward：把传入的梯度乘以一个掩码，这个掩码在 |x| <= 1 处为 1，其他地方为 0。",
        "比较运算 `x.abs() <= 1` 就是这个掩码（一个布尔张量）；梯度乘以它就是答案。"
        "输入只有一个，所以 backward 只返回一个值。",
    ),
)


def _stop(v: Verdict) -> None:
    """Print what is wrong so far and end the check (later steps depend on this one)."""
    v.done("")


def _is_function(cls: Any) -> bool:
    return isinstance(cls, type) and issubclass(cls, mg.autograd.Function)


class _Plain(mg.autograd.Function):
    """A Function that keeps nothing on ctx: its node's attributes are the library's own."""

    @staticmethod
    def forward(ctx: Any, x: mg.Tensor) -> mg.Tensor:
        return x * 1

    @staticmethod
    def backward(ctx: Any, grad: mg.Tensor) -> mg.Tensor:
        return grad


_OWN = set(vars(_Plain.apply(mg.ones(1, requires_grad=True)).grad_fn))


def _stashed(node: Any) -> list[str]:
    """Names of the ctx attributes the learner set to tensors (instead of save_for_backward)."""

    def holds_tensor(value: Any) -> bool:
        if isinstance(value, list | tuple):
            return any(isinstance(item, mg.Tensor) for item in value)
        return isinstance(value, mg.Tensor)

    return sorted(k for k, val in vars(node).items() if k not in _OWN and holds_tensor(val))


def _forward(v: Verdict, cls: type, name: str, *args: Any) -> mg.Tensor | None:
    """`cls.apply(*args)`, or None after saying precisely why it gave no usable tensor."""
    try:
        y = cls.apply(*args)
    except TypeError as err:
        if "save_for_backward can only save" in str(err):
            v.require(
                False,
                say(
                    "save_for_backward takes tensors only; keep a plain number on ctx as an "
                    "attribute (`ctx.scale = scale`).",
                    "save_for_backward 只接受张量；普通的数请作为属性留在 ctx 上"
                    "（`ctx.scale = scale`）。",
                ),
            )
        else:
            v.require(
                False,
                say(f"the forward raised TypeError: {err}", f"forward 抛出了 TypeError：{err}"),
            )
        return None
    except Exception as err:  # the learner's code: say what it raised
        v.require(
            False,
            say(
                f"the forward raised {type(err).__name__}: {err}",
                f"forward 抛出了 {type(err).__name__}：{err}",
            ),
        )
        return None
    if y is None:
        v.require(
            False,
            say(
                f"{name}.apply(...) returned None: is the body of forward still `...`, or is its "
                "`return` missing?",
                f"{name}.apply(...) 返回了 None：forward 的函数体是不是还是 `...`，"
                "或者漏了 `return`？",
            ),
        )
        return None
    if not isinstance(y, mg.Tensor):
        v.require(
            False,
            say(
                f"forward should return one tensor, got {type(y).__name__}: "
                "return only the result.",
                f"forward 应当返回一个张量，你返回的是 {type(y).__name__}：只返回结果即可。",
            ),
        )
        return None
    stashed = _stashed(y.grad_fn)
    v.require(
        not stashed,
        say(
            f"you kept tensors on ctx as attributes ({', '.join('ctx.' + k for k in stashed)}). "
            "Save tensors with `ctx.save_for_backward(...)` (section 2: attributes skip the "
            "version check and the saved-tensor hooks, and can tie ctx and its output into a "
            "cycle); plain numbers may stay attributes.",
            f"你把张量作为属性留在了 ctx 上（{'、'.join(map('ctx.{}'.format, stashed))}）。"
            "张量请用 `ctx.save_for_backward(...)` 保存（见第 2 节：属性会绕过版本检查和"
            "保存张量的钩子，还可能让 ctx 和它的输出形成引用环）；普通的数可以继续作为属性。",
        ),
    )
    kept = outsourced.kept_nodes(y.grad_fn, _OWN)
    if not v.require(not kept, outsourced.kept_message(kept)):
        return None
    return y


def _backward_error(err: Exception, inputs: str, inputs_zh: str) -> str:
    """The usual reasons a custom backward raises, in words."""
    msg = str(err)
    if "not a Variable" in msg:
        return say(
            "backward returned a gradient for `scale`, a plain float (position 2 counts the "
            "forward's arguments after ctx). PyTorch refuses that exactly as minigrad did: "
            f"RuntimeError: {msg}. A number is not a tensor autograd tracks, so nothing could "
            "receive that gradient: return None in its place.",
            "backward 为 `scale` 返回了梯度，而它只是一个普通的 float（position 2 指 forward 中 "
            "ctx 之后的第 2 个参数）。PyTorch 和 minigrad 一样会拒绝："
            f"RuntimeError：{msg}（意思是：第 2 个位置返回的梯度不是 None，但 forward 对应的输入"
            "并不是张量）。普通的数不是 autograd 跟踪的张量，这个梯度无处可去：在这个位置返回 "
            "None。",
        )
    if "incorrect number of gradients" in msg:
        return say(
            f"backward must return one value per forward input (after ctx): {inputs}. "
            "(A backward whose body is still `...` returns a single None.)",
            f"backward 必须为 forward 的每个输入（ctx 之后的参数）各返回一个值，{inputs_zh}。"
            "（函数体还是 `...` 的 backward 只返回一个 None。）",
        )
    if isinstance(err, NotImplementedError):
        return say(
            "the Function has no backward: define `backward(ctx, grad_out)` as a staticmethod.",
            "这个 Function 没有 backward：请把 `backward(ctx, grad_out)` 定义为 staticmethod。",
        )
    if isinstance(err, TypeError) and "tuple" in msg:
        return say(
            f"backward raised TypeError ({msg}): `ctx.saved_tensors` is a tuple, even for one "
            "tensor. Unpack it: `(t,) = ctx.saved_tensors`.",
            "backward 抛出了 TypeError：`ctx.saved_tensors` 是一个元组，哪怕里面只有一个张量。"
            "请解包：`(t,) = ctx.saved_tensors`。",
        )
    return say(
        f"backward raised {type(err).__name__}: {msg}",
        f"backward 抛出了 {type(err).__name__}：{msg}",
    )


def _tanh_formula() -> str:
    return say("scale * (1 - tanh(x)**2)", "scale * (1 - tanh(x)**2)")


def _ste_formula() -> str:
    return say("grad_out where |x| <= 1, else 0", "在 |x| <= 1 处取 grad_out，其他地方取 0")


def _run_backward(v: Verdict, y: mg.Tensor, x: mg.Tensor, weights: list) -> Any:
    """Backward from `y` with `weights` arriving from above, the learner's backward watched
    (outsourced.py: nothing else may differentiate for it); x.grad as a list (None if it
    stayed None), or False after saying what went wrong."""
    cls = type(y.grad_fn)._forward_cls
    try:
        loss = (y * mg.tensor(weights, dtype=y.dtype)).sum()
        with outsourced.watched(cls) as seen:
            loss.backward()
    except Exception as err:  # the learner's backward: say what it raised
        v.require(
            False,
            _backward_error(
                err,
                "two here, the gradient for x and None for scale (a plain number has no gradient)",
                "这里是两个：x 的梯度，以及 scale 对应的 None（普通的数没有梯度）",
            ),
        )
        return False
    if not v.require(seen.first() is None, outsourced.message(seen, _tanh_formula())):
        return False
    return x.grad.tolist() if x.grad is not None else None


def _hidden_scaled_tanh(v: Verdict, cls: Any) -> None:
    """New inputs and a negative scale, with exact float64 derivatives to compare with: a
    backward that hard-codes the example's numbers, or that estimates the derivative with
    finite differences (off by about 1e-11 at best), shows here."""
    xs = [-3.1, -0.9, 0.33, 1.2, 4.0, -0.05]
    scale = -0.7
    x = mg.tensor(xs, dtype=mg.float64, requires_grad=True)
    y = cls.apply(x, scale)
    weights = [1.5, -0.5, 0.25, 2.0, -1.0, 3.0]
    want_y = scale * np.tanh(xs)
    if not v.require(
        close(y, want_y, atol=1e-9),
        say(
            f"with other inputs (x={xs}, scale={scale}) the forward gives "
            f"{np.round(y.tolist(), 4).tolist()} instead of {np.round(want_y, 4).tolist()}: "
            "use the arguments, not the numbers of the first test.",
            f"换一组输入（x={xs}，scale={scale}）时，forward 给出 "
            f"{np.round(y.tolist(), 4).tolist()}，应为 {np.round(want_y, 4).tolist()}："
            "请使用传入的参数，而不是第一次测试里的数。",
        ),
    ):
        return
    got = _run_backward(v, y, x, weights)
    if got is False:
        return
    want = scale * (1 - np.tanh(xs) ** 2) * weights
    if got is not None and close(got, want / scale * 2.5):
        v.require(
            False,
            say(
                "your backward multiplies by 2.5, the scale of the first test, whatever scale "
                f"forward got (here {scale}): keep it on ctx (`ctx.scale = scale`) and use that.",
                f"不管 forward 收到的 scale 是多少（这里是 {scale}），你的 backward 都乘以第一次"
                "测试的 2.5：请把它留在 ctx 上（`ctx.scale = scale`）并使用它。",
            ),
        )
        return
    if got is not None and close(got, want, rtol=1e-6, atol=1e-8):
        err = float(np.max(np.abs(np.asarray(got) - want)))
        v.require(
            err <= 1e-13,
            say(
                f"your gradients are off by up to {err:.1e} in float64, where the derivative "
                "formula is exact to about 1e-16: the error of a finite-difference estimate. "
                "Write the derivative itself, scale * (1 - tanh(x)**2), from what forward "
                "saved.",
                f"在 float64 下你的梯度最多偏差 {err:.1e}，而按导数公式计算可以精确到 1e-16 "
                "左右：这是有限差分估计的误差。请直接写出导数 scale * (1 - tanh(x)**2)，"
                "用 forward 保存下来的东西来算。",
            ),
        )
        return
    v.require(
        False,
        say(
            f"with other inputs (x={xs}, scale={scale}, gradient {weights} from above) expected "
            f"x.grad = {np.round(want, 4).tolist()}, got "
            f"{None if got is None else np.round(got, 4).tolist()}.",
            f"换一组输入（x={xs}，scale={scale}，上游梯度 {weights}）时，x.grad 应为 "
            f"{np.round(want, 4).tolist()}，你得到的是 "
            f"{None if got is None else np.round(got, 4).tolist()}。",
        ),
    )


def check_scaled_tanh(cls: Any) -> None:
    """`cls.apply(x, scale)` = scale * tanh(x), with a correct backward (None for scale)."""
    v = verdict("ScaledTanh")
    if not v.answered(cls, "ScaledTanh"):
        return _stop(v)
    if not v.require(
        _is_function(cls),
        say(
            "ScaledTanh should be a class deriving from "
            "mg.autograd.Function (with static forward/backward).",
            "ScaledTanh 应当是一个继承自 mg.autograd.Function 的类"
            "（forward/backward 都是静态方法）。",
        ),
    ):
        return _stop(v)
    xs = [-1.5, -0.2, 0.0, 0.7, 2.0]
    x = mg.tensor(xs, dtype=mg.float64, requires_grad=True)
    y = _forward(v, cls, "ScaledTanh", x, 2.5)
    if y is None:
        return _stop(v)
    want = 2.5 * np.tanh(xs)
    if not v.require(
        close(y, want, atol=1e-9),
        say(
            f"forward values are wrong: for x={xs} and scale=2.5 expected "
            f"{np.round(want, 4).tolist()}, got {np.round(y.tolist(), 4).tolist()}.",
            f"forward 的值不对：x={xs}、scale=2.5 时应为 "
            f"{np.round(want, 4).tolist()}，你得到的是 {np.round(y.tolist(), 4).tolist()}。",
        ),
    ):
        return _stop(v)
    weights = [0.5, -1.0, 2.0, 1.5, -0.25]  # the gradient arriving from above: not all ones
    got = _run_backward(v, y, x, weights)
    if got is False:
        return _stop(v)
    sech2 = 1 - np.tanh(xs) ** 2
    if got is not None and not close(got, 2.5 * sech2 * weights) and close(got, 2.5 * sech2):
        v.require(
            False,
            say(
                "your backward ignores `grad_out`: the check sent the gradient "
                f"{weights} from above and got back the local derivative alone. Backward "
                "returns grad_out times the local derivative (the chain rule).",
                "你的 backward 没有用到 `grad_out`：检查从上游送来的梯度是 "
                f"{weights}，得到的却只是局部导数本身。backward 应当返回 grad_out 乘以局部导数"
                "（链式法则）。",
            ),
        )
        return _stop(v)
    got = None if got is None else (np.asarray(got) / weights).tolist()  # per unit grad_out
    if got is not None and close(got, sech2):
        v.require(
            False,
            say(
                "the gradient is missing the factor `scale`: d/dx (scale * tanh x) = "
                "scale * (1 - tanh(x)**2). Save scale on ctx (ctx.scale = scale).",
                "梯度少了因子 `scale`：d/dx (scale * tanh x) = scale * (1 - tanh(x)**2)。"
                "请把 scale 留在 ctx 上（ctx.scale = scale）。",
            ),
        )
    elif got is not None and close(got, 2.5 * (1 - np.asarray(xs) ** 2)):
        v.require(
            False,
            say(
                "you used 1 - x**2; the derivative of tanh is 1 - tanh(x)**2. Save "
                "tanh(x) (or the output) for backward.",
                "你用的是 1 - x**2；tanh 的导数是 1 - tanh(x)**2。"
                "请为 backward 保存 tanh(x)（或输出）。",
            ),
        )
    elif got is not None and close(got, 2.5 * sech2, rtol=1e-6, atol=1e-8):
        _hidden_scaled_tanh(v, cls)
    if not v.problems:
        ok = mg.autograd.gradcheck(
            lambda t: cls.apply(t, 2.5), (x.detach().requires_grad_(),), raise_exception=False
        )
        v.require(
            ok,
            say(
                f"gradcheck disagrees with your backward: for x={xs} expected gradients "
                f"{np.round(2.5 * sech2, 4).tolist()}, got "
                f"{None if got is None else np.round(got, 4).tolist()}.",
                f"gradcheck 与你的 backward 结果不一致：x={xs} 时梯度应为 "
                f"{np.round(2.5 * sech2, 4).tolist()}，你得到的是 "
                f"{None if got is None else np.round(got, 4).tolist()}。",
            ),
        )
    if not v.problems and (got is None or not close(got, 2.5 * sech2, rtol=1e-6, atol=1e-8)):
        v.require(
            False,
            say(
                f"with the gradient {weights} arriving from above, x.grad / grad_out should be "
                f"{np.round(2.5 * sech2, 4).tolist()}, got "
                f"{None if got is None else np.round(got, 4).tolist()}.",
                f"上游送来的梯度为 {weights} 时，x.grad / grad_out 应为 "
                f"{np.round(2.5 * sech2, 4).tolist()}，你得到的是 "
                f"{None if got is None else np.round(got, 4).tolist()}。",
            ),
        )
    v.done(
        say(
            "forward, backward and gradcheck agree; None for the non-tensor argument.",
            "forward、backward 与 gradcheck 三者一致；非张量参数对应 None。",
        )
    )


def _hidden_sign_ste(v: Verdict, cls: Any) -> None:
    """Inputs and an incoming gradient the learner never saw (both corners, -0.0, values just
    inside and outside): a function that returns the example's numbers shows here."""
    xs = [1.0, -0.3, 2.5, -1.7, 0.99, -0.0, 1.01, -1.0]
    incoming = [0.5, -2.0, 1.5, 3.0, -1.0, 2.5, 4.0, -0.75]
    x = mg.tensor(xs, requires_grad=True)
    want_y = [1.0, -1.0, 1.0, -1.0, 1.0, 1.0, 1.0, -1.0]
    want = [0.5, -2.0, 0.0, 0.0, -1.0, 2.5, 0.0, -0.75]
    try:
        y = cls.apply(x)
        (y * mg.tensor(incoming)).sum().backward()
        got_y, got = y.tolist(), None if x.grad is None else x.grad.tolist()
    except Exception as err:  # the learner's code: say what it raised
        v.require(
            False,
            say(
                f"with other inputs (x={xs}) your Function raised {type(err).__name__}: {err}",
                f"换一组输入（x={xs}）时，你的 Function 抛出了 {type(err).__name__}：{err}",
            ),
        )
        return
    v.require(
        close(got_y, want_y) and got is not None and close(got, want),
        say(
            f"with inputs you have not seen (x={xs}, gradient {incoming} from above) expected "
            f"forward {want_y} and x.grad {want}, got {got_y} and {got}: compute both from "
            "x and grad_out, not from the numbers of the first test.",
            f"换一组你没见过的输入（x={xs}，上游梯度 {incoming}）时，forward 应为 {want_y}，"
            f"x.grad 应为 {want}，你得到的是 {got_y} 和 {got}：请用 x 和 grad_out 来算，"
            "而不是照搬第一次测试的数。",
        ),
    )


def check_sign_ste(cls: Any) -> None:
    """`cls.apply(x)`: +1/-1 forward; backward passes the gradient where |x| <= 1, else 0."""
    v = verdict("Sign with a straight-through estimator")
    if not v.answered(cls, "SignSTE"):
        return _stop(v)
    if not v.require(
        _is_function(cls),
        say(
            "SignSTE should be a class deriving from mg.autograd.Function.",
            "SignSTE 应当是一个继承自 mg.autograd.Function 的类。",
        ),
    ):
        return _stop(v)
    xs = [-2.0, -1.0, -0.5, 0.0, 0.3, 1.5]
    x = mg.tensor(xs, requires_grad=True)
    y = _forward(v, cls, "SignSTE", x)
    if y is None:
        return _stop(v)
    want_y = [-1.0, -1.0, -1.0, 1.0, 1.0, 1.0]
    if close(y, [-1.0, -1.0, -1.0, 0.0, 1.0, 1.0]):
        v.require(
            False,
            say(
                "sign(0) is 0, but here x = 0 must give +1 (a binary weight is -1 or +1): "
                "use where(x >= 0, 1.0, -1.0).",
                "sign(0) 是 0，但这里 x = 0 必须给出 +1（二值权重只能是 -1 或 +1）："
                "请用 where(x >= 0, 1.0, -1.0)。",
            ),
        )
        return _stop(v)
    if not v.require(
        close(y, want_y),
        say(
            f"forward should give -1 for x < 0 and +1 for x >= 0: expected {want_y}, "
            f"got {y.tolist()}.",
            f"forward 应当在 x < 0 时给出 -1，在 x >= 0 时给出 +1：应为 {want_y}，"
            f"你得到的是 {y.tolist()}。",
        ),
    ):
        return _stop(v)
    loss = (y * mg.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])).sum()
    try:
        with outsourced.watched(cls) as seen:
            loss.backward()
    except Exception as err:  # the learner's backward: say what it raised
        v.require(
            False, _backward_error(err, "one here, the gradient for x", "这里只有一个：x 的梯度")
        )
        return _stop(v)
    if not v.require(seen.first() is None, outsourced.message(seen, _ste_formula())):
        return _stop(v)
    if not v.require(
        x.grad is not None,
        say(
            "x.grad is None: did backward return None (is its body still `...`)? It must "
            "return the gradient for x.",
            "x.grad 是 None：backward 是不是返回了 None（函数体还是 `...` 吗）？"
            "它必须返回 x 的梯度。",
        ),
    ):
        return _stop(v)
    got = x.grad.tolist()
    if close(got, [0.0] * 6):
        v.require(
            False,
            say(
                "every gradient is 0: that is the true derivative of sign, which is "
                "exactly what makes it useless for training. Pass the incoming "
                "gradient through where |x| <= 1.",
                "所有梯度都是 0：这是 sign 真正的导数，而这恰恰让它无法用于训练。"
                "请在 |x| <= 1 处让传入的梯度直接通过。",
            ),
        )
    elif close(got, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]):
        v.require(
            False,
            say(
                "you pass the gradient through everywhere (identity STE, like RoundSTE above). "
                "Here it must be 0 where |x| > 1 (the hardtanh version), so x = -2 and x = 1.5 "
                "get 0.",
                "你让梯度在所有地方都直接通过（恒等 STE，就像前面的 RoundSTE）。这里在 |x| > 1 "
                "处梯度必须为 0（hardtanh 版本），所以 x = -2 和 x = 1.5 处应得到 0。",
            ),
        )
    elif close(got, [0.0, 1.0, 3.0, 4.0, 5.0, 0.0], rtol=1e-3, atol=1e-3):
        v.require(
            False,
            say(
                "x = -1 got half its gradient (1 of 2), and everything else is right: that is "
                "what a central finite difference of hardtanh gives at its corner. Write the "
                "mask itself, |x| <= 1, and multiply grad_out by it.",
                "x = -1 处只得到了一半的梯度（2 里的 1），其余都对：这正是对 hardtanh 做中心有限"
                "差分在拐角处给出的值。请直接写出掩码 |x| <= 1，再用它乘以 grad_out。",
            ),
        )
    elif close(got, [0.0, 0.0, 3.0, 4.0, 5.0, 0.0]):
        v.require(
            False,
            say(
                "x = -1 should still pass its gradient: the condition is |x| <= 1, not |x| < 1.",
                "x = -1 处的梯度也应当通过：条件是 |x| <= 1，而不是 |x| < 1。",
            ),
        )
    elif close(got, [1.0] * 6):
        v.require(
            False,
            say(
                "you clamped the gradient itself to [-1, 1]; the condition is on the INPUT x: "
                "pass the gradient unchanged where |x| <= 1 and send 0 elsewhere.",
                "你把梯度本身限制在了 [-1, 1] 之内；条件是针对输入 x 的："
                "在 |x| <= 1 处让梯度原样通过，其他地方传 0。",
            ),
        )
    elif v.require(
        close(got, [0.0, 2.0, 3.0, 4.0, 5.0, 0.0]),
        say(
            f"with incoming gradient [1..6] expected x.grad = [0, 2, 3, 4, 5, 0], got {got}.",
            f"传入的梯度为 [1..6] 时，x.grad 应为 [0, 2, 3, 4, 5, 0]，你得到的是 {got}。",
        ),
    ):
        _hidden_sign_ste(v, cls)
    v.done(
        say(
            "sign forward, gradient passed straight through inside [-1, 1] and blocked outside.",
            "forward 是符号函数；梯度在 [-1, 1] 之内直接通过，在之外被挡住。",
        )
    )
