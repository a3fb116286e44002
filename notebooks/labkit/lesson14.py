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
from minigrad.autograd import record_steps

from .feedback import Verdict, close, verdict
from .hints import register

register(
    "14",
    "train_step",
    "Five moves, in order: clear the old gradients, run the model, compute the loss, "
    "backpropagate, update. Use only the arguments (model, opt, loss_fn, xb, yb).",
    "`opt.zero_grad()` comes before `loss.backward()`, and `opt.step()` after it: the optimizer "
    "applies the gradients that backward just wrote.",
    "Return `loss.item()`, the loss of this batch before the update, as a Python float.",
)
register(
    "14",
    "accuracy",
    "Run the model inside `with mg.no_grad():`: evaluation needs no graph.",
    "The prediction for a row is the index of its largest logit, `argmax` over dim 1 (the "
    "classes); compare it with y.",
    "The accuracy is the mean of that comparison. A bool tensor has no mean: convert it "
    "(`.float()`) or compare numpy arrays, and return a Python float.",
)


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


class _Replay:
    """Two steps of `step` on a fresh tiny model, with what the method check needs to know:
    how often the optimizer stepped, how many backward passes ran, and whether the parameters'
    version counters saw the updates (a `.data` write is invisible to them)."""

    def __init__(self, step: Callable[..., Any]) -> None:
        model, opt, loss_fn, batches = _setup()
        self.steps = 0
        step_once = opt.step

        def counted_step(*args: Any, **kwargs: Any) -> Any:
            self.steps += 1
            return step_once(*args, **kwargs)

        opt.step = counted_step
        start = [p._version for p in model.parameters()]
        with record_steps() as recorded:
            self.results = [step(model, opt, loss_fn, xb, yb) for xb, yb in batches]
        self.backwards = sum(r["kind"] == "backward_start" for r in recorded.records)
        self.bumps = [p._version - v for p, v in zip(model.parameters(), start, strict=True)]
        self.params = [p.detach().tolist() for p in model.parameters()]


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


def _step_error(err: Exception) -> str:
    """The usual reasons a training step raises, in words."""
    msg = str(err)
    if "backward through the graph a second time" in msg:
        return (
            "backward ran twice through the same graph: call `loss.backward()` once per step "
            "(each step builds a new graph with its own forward)."
        )
    if "does not require grad" in msg:
        return (
            "the loss has no graph (it does not require grad): the forward must run with "
            "autograd on, not under `no_grad()`, and without `.detach()`."
        )
    if isinstance(err, NameError) or "shapes cannot be multiplied" in msg or "size of" in msg:
        return (
            f"train_step raised {type(err).__name__} ({msg}): use only its arguments "
            "(model, opt, loss_fn, xb, yb), not the notebook's data or models."
        )
    return f"train_step raised {type(err).__name__}: {msg}"


def check_train_step(train_step: Any) -> None:
    """`train_step(model, opt, loss_fn, xb, yb)`: one full optimisation step; returns the loss."""
    v = verdict("train_step")
    if not v.answered(train_step, "train_step"):
        return _stop(v)
    try:
        run = _Replay(train_step)
    except Exception as err:  # the learner's code: say what went wrong, in words
        v.require(False, _step_error(err))
        return _stop(v)
    want = _Replay(_reference())
    start = _Replay(_reference(update=False))
    if all(r is None for r in run.results) and run.backwards == 0 and run.steps == 0:
        v.require(
            False,
            "train_step did nothing and returned None: is its body still `...`?",
        )
        return _stop(v)
    moved = not _same(run.params, start.params)
    if moved and run.steps == 0:
        v.require(
            False,
            "the parameters changed but `opt.step()` was never called: let the optimizer "
            "update them (it knows the learning rate, momentum and so on)"
            + (
                "; and a write through `.data` is invisible to the version counter, which is "
                "exactly how autograd errors get hidden (lesson 08)."
                if not any(run.bumps)
                else "."
            ),
        )
    elif run.backwards > 2:
        v.require(
            False,
            f"backward ran {run.backwards} times in two steps: once per step is enough (with "
            "retain_graph a second backward adds the same gradient again).",
        )
    elif _same(run.params, want.params):
        pass
    elif _same(run.params, _Replay(_reference(zero=False)).params):
        v.require(
            False,
            "the second step used the first step's gradient plus its own: "
            "gradients accumulate in .grad until you clear them. Call "
            "opt.zero_grad() before backward.",
        )
    elif not moved and run.backwards == 2 and run.steps == 2:
        v.require(
            False,
            "backward and step both ran, yet the parameters did not move: the gradients were "
            "cleared between them. Call `opt.zero_grad()` BEFORE `loss.backward()`, not between "
            "backward and step.",
        )
    elif not moved:
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
        all(isinstance(r, float) for r in run.results),
        f"return the loss as a Python float (loss.item()), got "
        f"{type(run.results[0]).__name__}: a tensor would keep the whole graph alive.",
    ):
        return _stop(v)
    v.require(
        close(run.results, want.results, rtol=1e-5),
        f"returned losses {np.round(run.results, 4).tolist()}, expected "
        f"{np.round(want.results, 4).tolist()} (the loss of the batch before the update).",
    )
    v.done("zero_grad, forward, loss, backward, step; the loss comes back as a float.")


class _Watched(mg.nn.Linear):
    """A Linear that notes whether autograd was recording each time it ran."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.grad_mode: list[bool] = []

    def forward(self, x: mg.Tensor) -> mg.Tensor:
        self.grad_mode.append(mg.is_grad_enabled())
        return super().forward(x)


def _accuracy_error(err: Exception) -> str:
    msg = str(err)
    if "could not infer output dtype" in msg:
        return (
            "`.mean()` of a bool tensor fails: turn the comparison into numbers first "
            "(`.float()`), or compare numpy arrays."
        )
    if "must match the size" in msg:
        return (
            f"accuracy raised RuntimeError ({msg}): the predictions and the labels have "
            "different shapes. Take the arg-max over dim 1 (the classes): one prediction per row."
        )
    if isinstance(err, NameError) or "shapes cannot be multiplied" in msg:
        return (
            f"accuracy raised {type(err).__name__} ({msg}): use only its arguments "
            "(model, x, y), not the notebook's data or models."
        )
    return f"accuracy raised {type(err).__name__}: {msg}"


def check_accuracy(accuracy: Any) -> None:
    """`accuracy(model, x, y)`: fraction (0..1) of rows whose arg-max logit equals the label."""
    v = verdict("accuracy")
    if not v.answered(accuracy, "accuracy"):
        return _stop(v)
    mg.manual_seed(11)
    model = _Watched(5, 4)
    x = mg.randn(40, 5)
    with mg.no_grad():
        predicted = np.asarray(model(x).tolist()).argmax(axis=1)
    model.grad_mode.clear()
    labels = predicted.copy()
    labels[:10] = (labels[:10] + 1) % 4  # 30 of 40 right
    y = mg.tensor(labels.tolist())
    try:
        got = accuracy(model, x, y)
    except Exception as err:  # the learner's code: say what went wrong, in words
        v.require(False, _accuracy_error(err))
        return _stop(v)
    if got is None:
        v.require(
            False, "accuracy returned None: is its body still `...`, or is the `return` missing?"
        )
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
    v.require(
        not any(model.grad_mode),
        "the model ran with autograd recording: evaluation needs no graph, so run it inside "
        "`with mg.no_grad():` (`model.eval()` changes layers such as dropout, not autograd).",
    )
    v.done("the fraction of correct arg-max predictions, as a float, computed without a graph.")
