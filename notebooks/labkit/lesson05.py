"""Lesson 05 (gradient accumulation): checking micro-batch accumulation against the big batch."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .calls import calls_to
from .demo import verdict_or_demo
from .feedback import Verdict
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


def check_accumulated_grads(accumulated_grads: Callable[..., Any], *, demo: bool = False) -> None:
    """Run the learner's function with stale gradients present and compare with the big batch.

    The right numbers are not enough: one backward pass over the whole batch gives them too. The
    engine's records count the backward passes, show the rows of each forward pass through the
    model (a forward hook would miss `model.forward(X)`), and which forward each pass went back
    through.
    """
    import minigrad as mg

    v = verdict_or_demo("micro-batch accumulation", demo)
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
        try:
            with mg.autograd.record_steps() as steps, calls_to(_ready_made()) as borrowed:
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
        if borrowed.switched_off:
            v.require(False, borrowed.switched_off_message())
            break
        if borrowed:
            v.require(
                False,
                say(
                    f"your function calls {borrowed[0]}, the check's own reference: the exercise "
                    "is to accumulate the micro-batches yourself.",
                    f"你的函数调用了 {borrowed[0]}，这是检查函数自己的参考实现：这道题要你自己"
                    "累积各个微批次。",
                ),
            )
            break
        passes = steps.kinds().count("backward_start")
        rows, per_pass = _rows_seen(steps.records, model)
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
            if not _method_ok(v, n_micro, len(X), passes, rows, per_pass):
                break
            if not _passes_carry_it(v, n_micro, steps.records, model, Y):
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
            "the micro-batches add up to the big batch's gradient (up to rounding).",
            "各微批次的梯度加起来，等于大批次的梯度（在舍入误差以内）。",
        )
    )


def _ready_made() -> dict[str, Callable[..., Any]]:
    return {"labkit.lesson05.reference_grads": reference_grads, "labkit.lesson05._setup": _setup}


def _rows_seen(records: list[dict[str, Any]], model: Any) -> tuple[list[int], list[list[int]]]:
    """The rows of every forward pass through the model, and of those each backward pass went
    back through. A forward pass is the op that adds the model's bias (Linear's addmm, or a
    hand-written `x @ w.T + b`), seen in the engine's records: `model.forward(X)` and hooks
    removed cannot hide it."""
    made: list[tuple[Any, int]] = []  # (node, rows)
    per_pass: list[list[int]] = []
    depth = 0
    for r in records:
        kind = r["kind"]
        if kind == "node_created" and any(t is model.bias for t in r["inputs"]):
            made.append((r["node"], r["shape"][0] if r["shape"] else 1))
        elif kind == "backward_start":
            depth += 1
            if depth == 1:
                per_pass.append([])
        elif kind == "node_start" and depth:
            per_pass[-1].extend(rows for node, rows in made if node is r["node"])
        elif kind in ("backward_end", "error") and depth:
            depth -= 1
    return [rows for _, rows in made], per_pass


def _method_ok(
    v: Verdict,
    n_micro: int,
    n_rows: int,
    passes: int,
    rows: list[int],
    per_pass: list[list[int]],
) -> bool:
    """The right gradient, but was it made from n_micro micro-batches, one backward each,
    each pass going back through the forward pass of its own micro-batch?"""
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
                f"要点是不把整个批次一次性放进来。请把 X 和 Y 分成 {n_micro} 个各 {size} 行的"
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
    if rows == [n_rows]:
        return v.require(
            False,
            say(
                f"with n_micro={n_micro} the whole batch went through the model in one forward "
                f"pass ({n_rows} rows) and its loss was shared out over {passes} backward "
                "passes: the numbers are right, but the point of micro-batches is that the "
                f"whole batch is never held at once. Feed the model one micro-batch ({size} "
                "rows) per forward pass.",
                f"n_micro={n_micro} 时，整个批次在一次前向计算中通过了模型（{n_rows} 行），"
                f"它的损失再分摊到 {passes} 次反向传播上：数值是对的，但微批次的意义在于"
                f"从不一次性处理整个批次。请每次前向计算只送入一个微批次（{size} 行）。",
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
    for number, through in enumerate(per_pass, 1):
        if through != [size]:
            return v.require(
                False,
                say(
                    f"with n_micro={n_micro} backward pass {number} went back through "
                    + (
                        f"the model's forward on {through} rows"
                        if through
                        else "no forward pass of the model at all (a pass to make up the count?)"
                    )
                    + f": each pass must start from one micro-batch's loss ({size} rows) and "
                    "carry that micro-batch's share of the gradient.",
                    f"n_micro={n_micro} 时，第 {number} 次反向传播"
                    + (
                        f"回溯经过的是模型对 {through} 行的前向计算"
                        if through
                        else "根本没有经过模型的前向计算（是为了凑次数吗？）"
                    )
                    + f"：每次反向传播都应当从一个微批次（{size} 行）的损失出发，"
                    "带回这个微批次那一份梯度。",
                ),
            )
    return True


def _from_y(t: Any, Y: np.ndarray) -> bool:
    """A tensor of targets: no grad, and every value one of Y's (a micro-batch yb, however it
    was sliced, indexed or cast)."""
    if not hasattr(t, "detach") or getattr(t, "requires_grad", False) or t.numel() == 0:
        return False
    values = np.asarray(t.detach().tolist(), dtype=float).ravel()
    return bool(np.isclose(values[:, None], Y.ravel()[None, :], atol=1e-6).any(axis=1).all())


def _passes_carry_it(
    v: Verdict, n_micro: int, records: list[dict[str, Any]], model: Any, Y: Any
) -> bool:
    """Each pass starts from a micro-batch's loss (a scalar the targets yb went into) and
    carries a gradient, and what the passes added up is what .grad holds: not numbers typed
    into .grad beside passes of zero, or passes seeded with a gradient worked out by hand."""
    targets = np.asarray(Y.tolist(), dtype=float)
    params = list(model.parameters())
    with_y: set[int] = set()  # nodes made with a target tensor among their inputs
    starts: list[dict[str, Any]] = []
    added: list[list[np.ndarray]] = []  # per pass, what it gave for the parameters
    totals = [np.zeros(tuple(p.shape)) for p in params]  # what all the passes gave, summed
    inputs: list[list[Any]] = []
    depth = 0
    for r in records:
        kind = r["kind"]
        if kind == "node_created" and any(
            _from_y(t, targets) for t in r["inputs"] if t is not None
        ):
            with_y.add(id(r["node"]))
        elif kind == "backward_start":
            depth += 1
            inputs.append(list(r["inputs"] or []))
            if depth == 1:
                starts.append(r)
                added.append([])
        elif kind == "accumulate" and depth and any(r["variable"] is p for p in params):
            added[-1].append(np.asarray(r["added"], dtype=float))
            totals[_index(params, r["variable"])] += np.asarray(r["added"], dtype=float).reshape(
                tuple(r["variable"].shape)
            )
        elif kind in ("backward_end", "error") and depth:
            depth -= 1
            asked = inputs.pop()
            for t, g in zip(asked, r.get("results") or [], strict=False):  # autograd.grad
                if g is not None and any(t is p for p in params):
                    added[-1].append(np.asarray(g, dtype=float))
                    totals[_index(params, t)] += np.asarray(g, dtype=float).reshape(tuple(t.shape))

    def reaches_y(node: Any) -> bool:
        stack, seen = [node], set()
        while stack:
            n = stack.pop()
            if n is None or id(n) in seen:
                continue
            seen.add(id(n))
            if id(n) in with_y:
                return True
            stack.extend(m for m, _ in getattr(n, "next_functions", ()))
        return False

    for number, start in enumerate(starts, 1):
        roots = start["roots"]
        if not all(t.numel() == 1 for t in roots) or not any(
            reaches_y(node) for node in start["root_nodes"]
        ):
            return v.require(
                False,
                say(
                    f"with n_micro={n_micro} backward pass {number} did not start from a "
                    "micro-batch's loss: its root is not a number computed from the targets yb "
                    "(a gradient of the output worked out by hand and fed in as a seed, or "
                    "multiplied in?). Start each pass from loss = mse(model(xb), yb) / n_micro.",
                    f"n_micro={n_micro} 时，第 {number} 次反向传播不是从某个微批次的损失出发的："
                    "它的起点不是由目标值 yb 算出来的一个数（是不是把手推的输出梯度当作起点"
                    "传进去，或者乘了进去？）。每次反向传播都应当从 "
                    "loss = mse(model(xb), yb) / n_micro 出发。",
                ),
            )
        if all(not np.any(a) for a in added[number - 1]):
            return v.require(
                False,
                say(
                    f"with n_micro={n_micro} backward pass {number} carried no gradient at all "
                    "(everything it added was 0: a loss multiplied by 0?): the gradients in "
                    ".grad were put there some other way. Let each micro-batch's pass add its "
                    "share.",
                    f"n_micro={n_micro} 时，第 {number} 次反向传播根本没有带回梯度"
                    "（它加上的全是 0：损失乘了 0？）：.grad 里的梯度是用别的办法放进去的。"
                    "请让每个微批次的反向传播加上它自己那一份。",
                ),
            )
    for p, total in zip(params, totals, strict=True):
        if p.grad is None or not np.allclose(
            np.asarray(p.grad.tolist(), dtype=float), total, atol=1e-5
        ):
            return v.require(
                False,
                say(
                    f"with n_micro={n_micro} the numbers are right, but .grad does not hold what "
                    "the backward passes added up: it was written by hand (p.grad = ..., "
                    "p.grad.copy_(...)). Leave .grad to the passes.",
                    f"n_micro={n_micro} 时数值是对的，但 .grad 里的并不是各次反向传播累加出来的："
                    "它是手动写进去的（p.grad = ...、p.grad.copy_(...)）。"
                    "请让反向传播去填写 .grad。",
                ),
            )
    return True


def _index(params: list[Any], t: Any) -> int:
    return next(i for i, p in enumerate(params) if p is t)


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
