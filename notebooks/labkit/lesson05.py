"""Lesson 05 (gradient accumulation): checking micro-batch accumulation against the big batch."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .feedback import Verdict, verdict
from .hints import register

register(
    "05",
    "micro-batch accumulation",
    "Gradients add up in .grad across backward passes: clear the old ones once, then let every "
    "micro-batch add its share.",
    "Zero the gradients once, before the loop (not inside it). Then for each of the n_micro "
    "slices of X and Y (rows i·size to (i+1)·size, size = len(X) // n_micro) compute that "
    "slice's loss and call backward on it.",
    "The big batch's loss is the mean of the micro-batch means, so divide each micro-batch's "
    "loss by n_micro before its backward().",
)


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
    grads = [model.weight.grad.numpy().ravel(), model.bias.grad.numpy().ravel()]
    return np.concatenate(grads).astype(float)


def reference_grads() -> np.ndarray:
    """The gradient of the mean loss over the whole batch, in one backward pass."""
    import minigrad as mg

    model, X, Y = _setup(stale=False)
    mg.nn.functional.mse_loss(model(X), Y).backward()
    grads = _grads(model)
    assert grads is not None
    return grads


def check_accumulated_grads(accumulated_grads: Callable[..., Any]) -> None:
    """Run the learner's function with stale gradients present and compare with the big batch.

    The right numbers are not enough: one backward pass over the whole batch gives them too. The
    engine's records count the backward passes and a forward pre-hook sees each batch's rows.
    """
    import minigrad as mg

    v = verdict("micro-batch accumulation")
    if not v.answered(accumulated_grads, "`accumulated_grads`"):
        v.done("")
        return
    if not v.require(
        callable(accumulated_grads),
        "`accumulated_grads` should be a function accumulated_grads(model, X, Y, n_micro), "
        f"not {type(accumulated_grads).__name__}.",
    ):
        v.done("")
        return
    full = reference_grads()
    for n_micro in (3, 4):
        model, X, Y = _setup(stale=True)
        rows: list[int] = []  # the batch size of every forward pass through the model
        handle = model.register_forward_pre_hook(
            lambda _, args, seen=rows: seen.append(len(args[0]) if args else 0)
        )
        try:
            with mg.autograd.record_steps() as steps:
                accumulated_grads(model, X, Y, n_micro)
        except Exception as err:  # the learner's error is feedback, not a crash of the check
            first = str(err).split(". ")[0].rstrip(".")
            v.require(
                False,
                f"with n_micro={n_micro} your function raised {type(err).__name__}: "
                f"“{first}”." + _explain_error(err),
            )
            break
        finally:
            handle.remove()
        passes = steps.kinds().count("backward_start")
        got = _grads(model)
        if got is None:
            v.require(
                False,
                f"with n_micro={n_micro} the parameters have no .grad afterwards: "
                "call backward() on each micro-batch's loss.",
            )
            break
        if np.allclose(got, full, atol=1e-5):
            if not _method_ok(v, n_micro, len(X), passes, rows):
                break
            continue
        stale = np.full_like(full, 5.0)
        if np.allclose(got, stale):
            idle = " and no backward pass ran (is the body still `...`?)" if not passes else ""
            v.require(
                False,
                f"the gradients are unchanged (still the old 5.0s){idle}: zero them, "
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


def _method_ok(v: Verdict, n_micro: int, n_rows: int, passes: int, rows: list[int]) -> bool:
    """The right gradient, but was it made from n_micro micro-batches, one backward each?"""
    size = n_rows // n_micro
    if passes == 1 and n_rows in rows:
        return v.require(
            False,
            f"with n_micro={n_micro} you ran one backward pass over the whole batch: the "
            "numbers are right, but the point is to never hold the whole batch at once. Split "
            f"X and Y into {n_micro} micro-batches of {size} rows, one backward pass each.",
        )
    if passes != n_micro:
        return v.require(
            False,
            f"with n_micro={n_micro} the engine ran {passes} backward pass"
            f"{'' if passes == 1 else 'es'}: run exactly one per micro-batch ({n_micro}).",
        )
    if any(r != size for r in rows):
        return v.require(
            False,
            f"with n_micro={n_micro} the model saw batches of {rows} rows: feed it each "
            f"micro-batch ({size} rows), never the whole batch.",
        )
    return True


def _explain_error(err: Exception) -> str:
    text = str(err)
    if "backward through the graph a second time" in text:
        return (
            " Each micro-batch needs its own forward pass (model(xb)) before its backward: "
            "a graph is used once."
        )
    if "implicitly created only for scalar outputs" in text:
        return " Call backward on the (scalar) loss, mse_loss(model(xb), yb), not on the outputs."
    return ""
