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


def _stop(v: Verdict) -> None:
    """Print what is wrong so far and end the check (later steps depend on this one)."""
    v.done("")


def _is_function(cls: Any) -> bool:
    return isinstance(cls, type) and issubclass(cls, mg.autograd.Function)


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
    try:
        y = cls.apply(x, 2.5)
    except Exception as err:
        v.require(False, f"the forward raised {type(err).__name__}: {err}")
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
    except RuntimeError as err:
        if "incorrect number of gradients" in str(err):
            v.require(
                False,
                "backward must return one value per forward input (after ctx): "
                "two here, the gradient for x and None for scale (a plain number "
                "has no gradient).",
            )
        else:
            v.require(False, f"backward raised {type(err).__name__}: {err}")
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
    try:
        y = cls.apply(x)
        (y * mg.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])).sum().backward()
    except Exception as err:
        v.require(False, f"apply/backward raised {type(err).__name__}: {err}")
        return _stop(v)
    want_y = [-1.0, -1.0, -1.0, 1.0, 1.0, 1.0]
    if not v.require(
        close(y, want_y),
        f"forward should give -1 for x < 0 and +1 for x >= 0: expected {want_y}, got {y.tolist()}.",
    ):
        return _stop(v)
    if not v.require(
        x.grad is not None,
        "x.grad is None: did the forward return a tensor that "
        "is connected to this Function (returned by forward)?",
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
            "you pass the gradient through everywhere (identity STE). Here it "
            "must be 0 where |x| > 1 (the hardtanh version), so x = -2 and x = 1.5 "
            "get 0.",
        )
    elif close(got, [0.0, 0.0, 3.0, 4.0, 5.0, 0.0]):
        v.require(
            False, "x = -1 should still pass its gradient: the condition is |x| <= 1, not |x| < 1."
        )
    else:
        v.require(
            close(got, [0.0, 2.0, 3.0, 4.0, 5.0, 0.0]),
            f"with incoming gradient [1..6] expected x.grad = [0, 2, 3, 4, 5, 0], got {got}.",
        )
    v.done("sign forward, gradient passed straight through inside [-1, 1] and blocked outside.")
