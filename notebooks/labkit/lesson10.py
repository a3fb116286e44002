"""Checks for lesson 10 (custom autograd Functions).

A custom Function can be wrong in three separate places (forward values, the number of
gradients backward returns, the gradient formula); each check looks at them in that order and
names the one that failed, comparing against gradcheck or a known mask.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import minigrad as mg

from .feedback import Verdict, close, verdict
from .hints import register

register(
    "10",
    "ScaledTanh",
    "forward computes tanh(x) once and returns it times `scale`; backward needs tanh(x) and "
    "`scale` again, so forward must leave both for it.",
    "Save the tensor with `ctx.save_for_backward(...)` and keep the plain float as an attribute, "
    "`ctx.scale`; backward reads the tensor back from `ctx.saved_tensors` (a tuple: unpack it).",
    "d/dx [scale * tanh(x)] = scale * (1 - tanh(x)**2). backward returns two values: that times "
    "`grad_out` for x, and None for scale.",
)
register(
    "10",
    "Sign with a straight-through estimator",
    "forward: `mg.where(condition, 1.0, -1.0)` with the condition x >= 0 (`sign` would give 0 "
    "at 0); save x with `ctx.save_for_backward`, since backward needs it.",
    "backward: multiply the incoming gradient by a mask that is 1 where |x| <= 1 and 0 elsewhere.",
    "The comparison `x.abs() <= 1` is that mask (a bool tensor); the gradient times it is the "
    "answer, and there is one input, so backward returns one value.",
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
                "save_for_backward takes tensors only; keep a plain number on ctx as an "
                "attribute (`ctx.scale = scale`).",
            )
        else:
            v.require(False, f"the forward raised TypeError: {err}")
        return None
    except Exception as err:  # the learner's code: say what it raised
        v.require(False, f"the forward raised {type(err).__name__}: {err}")
        return None
    if y is None:
        v.require(
            False,
            f"{name}.apply(...) returned None: is the body of forward still `...`, or is its "
            "`return` missing?",
        )
        return None
    if not isinstance(y, mg.Tensor):
        v.require(
            False,
            f"forward should return one tensor, got {type(y).__name__}: return only the result.",
        )
        return None
    stashed = _stashed(y.grad_fn)
    v.require(
        not stashed,
        f"you kept tensors on ctx as attributes ({', '.join('ctx.' + k for k in stashed)}). "
        "Save tensors with `ctx.save_for_backward(...)` (section 2: attributes skip the version "
        "check and the saved-tensor hooks, and can tie ctx and its output into a cycle); "
        "plain numbers may stay attributes.",
    )
    return y


def _backward_error(err: Exception, inputs: str) -> str:
    """The usual reasons a custom backward raises, in words."""
    msg = str(err)
    if "incorrect number of gradients" in msg:
        return (
            f"backward must return one value per forward input (after ctx): {inputs}. "
            "(A backward whose body is still `...` returns a single None.)"
        )
    if isinstance(err, NotImplementedError):
        return "the Function has no backward: define `backward(ctx, grad_out)` as a staticmethod."
    if isinstance(err, TypeError) and "tuple" in msg:
        return (
            f"backward raised TypeError ({msg}): `ctx.saved_tensors` is a tuple, even for one "
            "tensor. Unpack it: `(t,) = ctx.saved_tensors`."
        )
    return f"backward raised {type(err).__name__}: {msg}"


def check_scaled_tanh(cls: Any) -> None:
    """`cls.apply(x, scale)` = scale * tanh(x), with a correct backward (None for scale)."""
    v = verdict("ScaledTanh")
    if not v.answered(cls, "ScaledTanh"):
        return _stop(v)
    if not v.require(
        _is_function(cls),
        "ScaledTanh should be a class deriving from "
        "mg.autograd.Function (with static forward/backward).",
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
        f"forward values are wrong: for x={xs} and scale=2.5 expected "
        f"{np.round(want, 4).tolist()}, got {np.round(y.tolist(), 4).tolist()}.",
    ):
        return _stop(v)
    try:
        y.sum().backward()
    except Exception as err:  # the learner's backward: say what it raised
        v.require(
            False,
            _backward_error(
                err,
                "two here, the gradient for x and None for scale (a plain number has no gradient)",
            ),
        )
        return _stop(v)
    sech2 = 1 - np.tanh(xs) ** 2
    got = x.grad.tolist() if x.grad is not None else None
    if got is not None and close(got, sech2):
        v.require(
            False,
            "the gradient is missing the factor `scale`: d/dx (scale * tanh x) = "
            "scale * (1 - tanh(x)**2). Save scale on ctx (ctx.scale = scale).",
        )
    elif got is not None and close(got, 2.5 * (1 - np.asarray(xs) ** 2)):
        v.require(
            False,
            "you used 1 - x**2; the derivative of tanh is 1 - tanh(x)**2. Save "
            "tanh(x) (or the output) for backward.",
        )
    else:
        ok = mg.autograd.gradcheck(
            lambda t: cls.apply(t, 2.5), (x.detach().requires_grad_(),), raise_exception=False
        )
        v.require(
            ok,
            f"gradcheck disagrees with your backward: for x={xs} expected gradients "
            f"{np.round(2.5 * sech2, 4).tolist()}, got "
            f"{None if got is None else np.round(got, 4).tolist()}.",
        )
    v.done("forward, backward and gradcheck agree; None for the non-tensor argument.")


def check_sign_ste(cls: Any) -> None:
    """`cls.apply(x)`: +1/-1 forward; backward passes the gradient where |x| <= 1, else 0."""
    v = verdict("Sign with a straight-through estimator")
    if not v.answered(cls, "SignSTE"):
        return _stop(v)
    if not v.require(
        _is_function(cls), "SignSTE should be a class deriving from mg.autograd.Function."
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
            "sign(0) is 0, but here x = 0 must give +1 (a binary weight is -1 or +1): "
            "use where(x >= 0, 1.0, -1.0).",
        )
        return _stop(v)
    if not v.require(
        close(y, want_y),
        f"forward should give -1 for x < 0 and +1 for x >= 0: expected {want_y}, got {y.tolist()}.",
    ):
        return _stop(v)
    try:
        (y * mg.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])).sum().backward()
    except Exception as err:  # the learner's backward: say what it raised
        v.require(False, _backward_error(err, "one here, the gradient for x"))
        return _stop(v)
    if not v.require(
        x.grad is not None,
        "x.grad is None: did backward return None (is its body still `...`)? It must "
        "return the gradient for x.",
    ):
        return _stop(v)
    got = x.grad.tolist()
    if close(got, [0.0] * 6):
        v.require(
            False,
            "every gradient is 0: that is the true derivative of sign, which is "
            "exactly what makes it useless for training. Pass the incoming "
            "gradient through where |x| <= 1.",
        )
    elif close(got, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]):
        v.require(
            False,
            "you pass the gradient through everywhere (identity STE, like RoundSTE above). "
            "Here it must be 0 where |x| > 1 (the hardtanh version), so x = -2 and x = 1.5 "
            "get 0.",
        )
    elif close(got, [0.0, 0.0, 3.0, 4.0, 5.0, 0.0]):
        v.require(
            False, "x = -1 should still pass its gradient: the condition is |x| <= 1, not |x| < 1."
        )
    elif close(got, [1.0] * 6):
        v.require(
            False,
            "you clamped the gradient itself to [-1, 1]; the condition is on the INPUT x: pass "
            "the gradient unchanged where |x| <= 1 and send 0 elsewhere.",
        )
    else:
        v.require(
            close(got, [0.0, 2.0, 3.0, 4.0, 5.0, 0.0]),
            f"with incoming gradient [1..6] expected x.grad = [0, 2, 3, 4, 5, 0], got {got}.",
        )
    v.done("sign forward, gradient passed straight through inside [-1, 1] and blocked outside.")
