"""Lesson 05 (gradient accumulation): checking micro-batch accumulation against the big batch."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .feedback import verdict


def _setup(stale: bool) -> tuple[Any, Any, Any]:
    """A fixed linear model and batch; `stale` leaves old gradients in .grad, as after a step."""
    import minigrad as mg

    model = mg.nn.Linear(3, 1)
    rng = np.random.default_rng(7)
    with mg.no_grad():
        model.weight.copy_(mg.tensor([[0.5, -1.0, 2.0]]))
        model.bias.copy_(mg.tensor([0.25]))
    X = mg.tensor(rng.normal(size=(12, 3)).tolist())
    Y = mg.tensor(rng.normal(size=(12, 1)).tolist())
    if stale:
        model.weight.grad = mg.full((1, 3), 5.0)
        model.bias.grad = mg.full((1,), 5.0)
    return model, X, Y


def _grads(model: Any) -> np.ndarray | None:
    if model.weight.grad is None or model.bias.grad is None:
        return None
    return np.concatenate([model.weight.grad.numpy().ravel(), model.bias.grad.numpy().ravel()])


def reference_grads() -> np.ndarray:
    """The gradient of the mean loss over the whole batch, in one backward pass."""
    import minigrad as mg

    model, X, Y = _setup(stale=False)
    mg.nn.functional.mse_loss(model(X), Y).backward()
    grads = _grads(model)
    assert grads is not None
    return grads


def check_accumulated_grads(accumulated_grads: Callable[..., Any]) -> None:
    """Run the learner's function with stale gradients present and compare with the big batch."""
    v = verdict("micro-batch accumulation")
    if not v.answered(accumulated_grads, "`accumulated_grads`"):
        v.done("")
        return
    full = reference_grads()
    for n_micro in (3, 4):
        model, X, Y = _setup(stale=True)
        try:
            accumulated_grads(model, X, Y, n_micro)
        except Exception as err:  # the learner's error is feedback, not a crash of the check
            v.require(
                False, f"with n_micro={n_micro} your function raised {type(err).__name__}: {err}"
            )
            break
        got = _grads(model)
        if got is None:
            v.require(
                False,
                f"with n_micro={n_micro} the parameters have no .grad afterwards: "
                "call backward() on each micro-batch's loss.",
            )
            break
        if np.allclose(got, full, atol=1e-5):
            continue
        stale = np.full_like(full, 5.0)
        if np.allclose(got, stale):
            v.require(
                False,
                "the gradients are unchanged (still the old 5.0s): zero them, "
                "then run one backward pass per micro-batch.",
            )
        elif np.allclose(got, full * n_micro, atol=1e-4):
            v.require(
                False,
                f"with n_micro={n_micro} the gradients are {n_micro}× too large: "
                "each micro-batch loss is a mean over its own rows, so divide it by "
                "the number of micro-batches before backward.",
            )
        elif np.allclose(got - stale, full, atol=1e-4) or np.allclose(
            got - stale, full * n_micro, atol=1e-4
        ):
            v.require(
                False,
                f"with n_micro={n_micro} the old gradients (5.0 everywhere) are "
                "still inside: zero them (model.zero_grad()) once before the loop.",
            )
        else:
            v.require(
                False,
                f"with n_micro={n_micro} the gradients {np.round(got, 4).tolist()} "
                f"differ from the big batch's {np.round(full, 4).tolist()}. Did you "
                "zero the gradients inside the loop (keeping only the last "
                "micro-batch), or skip some rows?",
            )
        break
    v.done("the micro-batches add up to exactly the big batch's gradient.")
