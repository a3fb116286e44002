"""Lesson 05 (gradient accumulation): checking micro-batch accumulation against the big batch."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .feedback import Verdict, verdict
from .hints import register
from .language import say

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
    zh_title="微批次梯度累积",
    zh=(
        "多次反向传播的梯度会在 .grad 里累加：先把旧梯度清掉一次，再让每个微批次加上自己的一份。",
        "在循环之前（而不是循环里面）清零一次梯度。然后对 X 和 Y 的 n_micro 个切片（第 i·size 到 "
        "(i+1)·size 行，size = len(X) // n_micro）逐个计算该切片的损失，并对它调用 backward。",
        "大批次的损失是各微批次平均损失的平均值，所以每个微批次的损失在 backward() 之前要先除以 "
        "n_micro。",
    ),
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
        say(
            "`accumulated_grads` should be a function accumulated_grads(model, X, Y, n_micro), "
            f"not {type(accumulated_grads).__name__}.",
            "`accumulated_grads` 应该是一个函数（参数依次为 model、X、Y、n_micro），"
            f"而不是 {type(accumulated_grads).__name__}。",
        ),
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
                say(
                    f"with n_micro={n_micro} your function raised {type(err).__name__}: “{first}”.",
                    f"n_micro={n_micro} 时，你的函数抛出了 {type(err).__name__}：“{first}”。",
                )
                + _explain_error(err),
            )
            break
        finally:
            handle.remove()
        passes = steps.kinds().count("backward_start")
        got = _grads(model)
        if got is None:
            v.require(
                False,
                say(
                    f"with n_micro={n_micro} the parameters have no .grad afterwards: "
                    "call backward() on each micro-batch's loss.",
                    f"n_micro={n_micro} 时，运行之后参数没有 .grad：请对每个微批次的损失"
                    "调用 backward()。",
                ),
            )
            break
        if np.allclose(got, full, atol=1e-5):
            if not _method_ok(v, n_micro, len(X), passes, rows):
                break
            continue
        stale = np.full_like(full, 5.0)
        if np.allclose(got, stale):
            idle = (
                say(
                    " and no backward pass ran (is the body still `...`?)",
                    "，而且一次反向传播都没有运行（函数体还是 `...` 吗？）",
                )
                if not passes
                else ""
            )
            v.require(
                False,
                say(
                    f"the gradients are unchanged (still the old 5.0s){idle}: zero them, "
                    "then run one backward pass per micro-batch.",
                    f"梯度没有变化（还是旧的 5.0）{idle}：先清零，再对每个微批次运行一次反向传播。",
                ),
            )
        elif np.allclose(got, full * n_micro, atol=1e-4):
            v.require(
                False,
                say(
                    f"with n_micro={n_micro} the gradients are {n_micro}× too large: "
                    "each micro-batch loss is a mean over its own rows, so divide it by "
                    "the number of micro-batches before backward.",
                    f"n_micro={n_micro} 时，梯度大了 {n_micro} 倍：每个微批次的损失是对它自己"
                    "那几行求的平均，所以在 backward 之前要除以微批次的个数。",
                ),
            )
        elif np.allclose(got - stale, full, atol=1e-4) or np.allclose(
            got - stale, full * n_micro, atol=1e-4
        ):
            v.require(
                False,
                say(
                    f"with n_micro={n_micro} the old gradients (5.0 everywhere) are "
                    "still inside: zero them (model.zero_grad()) once before the loop.",
                    f"n_micro={n_micro} 时，旧梯度（处处为 5.0）还留在里面：在循环之前"
                    "清零一次（model.zero_grad()）。",
                ),
            )
        else:
            v.require(
                False,
                say(
                    f"with n_micro={n_micro} the gradients {np.round(got, 4).tolist()} "
                    f"differ from the big batch's {np.round(full, 4).tolist()}. Did you "
                    "zero the gradients inside the loop (keeping only the last "
                    "micro-batch), or skip some rows?",
                    f"n_micro={n_micro} 时，梯度 {np.round(got, 4).tolist()} 与大批次的 "
                    f"{np.round(full, 4).tolist()} 不同。是不是在循环里面清零了梯度"
                    "（结果只留下最后一个微批次的），或者漏掉了一些行？",
                ),
            )
        break
    v.done(
        say(
            "the micro-batches add up to exactly the big batch's gradient.",
            "各微批次的梯度加起来，恰好等于大批次的梯度。",
        )
    )


def _method_ok(v: Verdict, n_micro: int, n_rows: int, passes: int, rows: list[int]) -> bool:
    """The right gradient, but was it made from n_micro micro-batches, one backward each?"""
    size = n_rows // n_micro
    if passes == 1 and n_rows in rows:
        return v.require(
            False,
            say(
                f"with n_micro={n_micro} you ran one backward pass over the whole batch: the "
                "numbers are right, but the point is to never hold the whole batch at once. "
                f"Split X and Y into {n_micro} micro-batches of {size} rows, one backward pass "
                "each.",
                f"n_micro={n_micro} 时，你对整个批次只做了一次反向传播：数值是对的，但本题的"
                f"要点是永远不一次性处理整个批次。请把 X 和 Y 分成 {n_micro} 个各 {size} 行的"
                "微批次，每个做一次反向传播。",
            ),
        )
    if passes != n_micro:
        return v.require(
            False,
            say(
                f"with n_micro={n_micro} the engine ran {passes} backward pass"
                f"{'' if passes == 1 else 'es'}: run exactly one per micro-batch ({n_micro}).",
                f"n_micro={n_micro} 时，引擎运行了 {passes} 次反向传播：每个微批次应当恰好"
                f"运行一次（共 {n_micro} 次）。",
            ),
        )
    if any(r != size for r in rows):
        return v.require(
            False,
            say(
                f"with n_micro={n_micro} the model saw batches of {rows} rows: feed it each "
                f"micro-batch ({size} rows), never the whole batch.",
                f"n_micro={n_micro} 时，模型看到的批次行数是 {rows}：应当把每个微批次"
                f"（{size} 行）分别送入模型，而不是整个批次。",
            ),
        )
    return True


def _explain_error(err: Exception) -> str:
    text = str(err)
    if "backward through the graph a second time" in text:
        return say(
            " Each micro-batch needs its own forward pass (model(xb)) before its backward: "
            "a graph is used once.",
            "每个微批次在 backward 之前都需要自己的前向传播（model(xb)）：一张计算图只能用一次。",
        )
    if "implicitly created only for scalar outputs" in text:
        return say(
            " Call backward on the (scalar) loss, mse_loss(model(xb), yb), not on the outputs.",
            "请对（标量）损失 mse_loss(model(xb), yb) 调用 backward，而不是对模型输出。",
        )
    return ""
