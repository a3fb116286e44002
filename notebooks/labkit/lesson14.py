"""Checks for lesson 14 (capstone).

`train_step` is checked by replaying two steps on a tiny model against the reference loop and
against the classic broken loops (no zero_grad, no backward, no step), so the feedback can name
the missing line instead of saying the weights differ.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import minigrad as mg

from .feedback import Verdict, close, verdict


def _stop(v: Verdict) -> None:
    """Print what is wrong so far and end the check (later steps depend on this one)."""
    v.done("")


def _setup() -> tuple[mg.nn.Module, Any, Any, list[tuple[mg.Tensor, mg.Tensor]]]:
    mg.manual_seed(7)
    model = mg.nn.Linear(4, 3)
    opt = mg.optim.SGD(model.parameters(), lr=0.5)
    loss_fn = mg.nn.CrossEntropyLoss()
    batches = [(mg.randn(6, 4), mg.tensor([0, 1, 2, 0, 1, 2])) for _ in range(2)]
    return model, opt, loss_fn, batches


def _replay(step: Callable[..., Any]) -> tuple[list, list]:
    model, opt, loss_fn, batches = _setup()
    results = [step(model, opt, loss_fn, xb, yb) for xb, yb in batches]
    return [p.detach().tolist() for p in model.parameters()], results


def _reference(zero: bool = True, backward: bool = True, update: bool = True) -> Callable:
    def step(model: Any, opt: Any, loss_fn: Any, xb: mg.Tensor, yb: mg.Tensor) -> float:
        if zero:
            opt.zero_grad()
        loss = loss_fn(model(xb), yb)
        if backward:
            loss.backward()
        if update:
            opt.step()
        return loss.item()

    return step


def _same(a: list, b: list) -> bool:
    return all(close(x, y, rtol=1e-5, atol=1e-6) for x, y in zip(a, b, strict=True))


def check_train_step(train_step: Any) -> None:
    """`train_step(model, opt, loss_fn, xb, yb)`: one full optimisation step; returns the loss."""
    v = verdict("train_step")
    if not v.answered(train_step, "train_step"):
        return _stop(v)
    try:
        params, results = _replay(train_step)
    except Exception as err:
        v.require(False, f"train_step raised {type(err).__name__}: {err}")
        return _stop(v)
    want_params, want_losses = _replay(_reference())
    start_params, _ = _replay(_reference(update=False))
    if _same(params, want_params):
        pass
    elif _same(params, _replay(_reference(zero=False))[0]):
        v.require(
            False,
            "the second step used the first step's gradient plus its own: "
            "gradients accumulate in .grad until you clear them. Call "
            "opt.zero_grad() before backward.",
        )
    elif _same(params, start_params):
        v.require(
            False,
            "the parameters did not change: is loss.backward() called (so there are "
            "gradients) and then opt.step() (which applies them)?",
        )
    else:
        v.require(
            False,
            "after two steps the parameters differ from a plain zero_grad -> "
            "forward -> loss -> backward -> step loop with this optimizer.",
        )
    if not v.require(
        all(isinstance(r, float) for r in results),
        f"return the loss as a Python float (loss.item()), got "
        f"{type(results[0]).__name__}: a tensor would keep the whole graph alive.",
    ):
        return _stop(v)
    v.require(
        close(results, want_losses, rtol=1e-5),
        f"returned losses {np.round(results, 4).tolist()}, expected "
        f"{np.round(want_losses, 4).tolist()} (the loss of the batch before the update).",
    )
    v.done("zero_grad, forward, loss, backward, step; the loss comes back as a float.")


def check_accuracy(accuracy: Any) -> None:
    """`accuracy(model, x, y)`: fraction (0..1) of rows whose arg-max logit equals the label."""
    v = verdict("accuracy")
    if not v.answered(accuracy, "accuracy"):
        return _stop(v)
    mg.manual_seed(11)
    model = mg.nn.Linear(5, 4)
    x = mg.randn(40, 5)
    with mg.no_grad():
        predicted = np.asarray(model(x).tolist()).argmax(axis=1)
    labels = predicted.copy()
    labels[:10] = (labels[:10] + 1) % 4  # 30 of 40 right
    y = mg.tensor(labels.tolist())
    try:
        got = accuracy(model, x, y)
    except Exception as err:
        v.require(False, f"accuracy raised {type(err).__name__}: {err}")
        return _stop(v)
    if not v.require(
        isinstance(got, float),
        f"return a Python float, got {type(got).__name__} (use .item() or float(...)).",
    ):
        return _stop(v)
    if close(got, 75.0):
        v.require(False, "you returned a percentage (75.0); return the fraction 0.75.")
    elif close(got, 0.25):
        v.require(
            False, "you returned the error rate (0.25): count the rows where prediction == label."
        )
    else:
        v.require(
            close(got, 0.75),
            f"30 of 40 predictions are right, so expected 0.75, got {got}. "
            "Predictions are the arg-max over the class dimension (dim 1).",
        )
    v.done("the fraction of correct arg-max predictions, as a float.")
