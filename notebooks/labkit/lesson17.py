"""Checks for lesson 17 (capstone).

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
from .language import say

register(
    "17",
    "train_step",
    "Five moves, in order: clear the old gradients, run the model, compute the loss, "
    "backpropagate, update. Use only the arguments (model, opt, loss_fn, xb, yb).",
    "`opt.zero_grad()` comes before `loss.backward()`, and `opt.step()` after it: the optimizer "
    "applies the gradients that backward just wrote.",
    "Return `loss.item()`, the loss of this batch before the update, as a Python float.",
    zh_title="训练一步（train_step）",
    zh=(
        "五个动作，按顺序：清除旧梯度、运行模型、计算损失、反向传播、更新参数。只使用函数的参数"
        "（model, opt, loss_fn, xb, yb）。",
        "`opt.zero_grad()` 在 `loss.backward()` 之前，`opt.step()` 在它之后：优化器应用的正是"
        " backward 刚写入的梯度。",
        "返回 `loss.item()`，即这个批次在更新之前的损失，类型是 Python float。",
    ),
)
register(
    "17",
    "accuracy",
    "Run the model inside `with mg.no_grad():`: evaluation needs no graph.",
    "The prediction for a row is the index of its largest logit, `argmax` over dim 1 (the "
    "classes); compare it with y.",
    "The accuracy is the mean of that comparison. A bool tensor has no mean: convert it "
    "(`.float()`) or compare numpy arrays, and return a Python float.",
    zh_title="准确率（accuracy）",
    zh=(
        "在 `with mg.no_grad():` 中运行模型：评估不需要计算图。",
        "每一行的预测是最大 logit 的下标，即在第 1 维（类别维）上取 `argmax`；再与 y 比较。",
        "准确率就是这个比较结果的平均值。布尔张量没有 mean：先转换（`.float()`），"
        "或者比较 numpy 数组，最后返回 Python float。",
    ),
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
        return say(
            "backward ran twice through the same graph: call `loss.backward()` once per step "
            "(each step builds a new graph with its own forward).",
            "backward 在同一个计算图上运行了两次：每一步只调用一次 `loss.backward()`"
            "（每一步的前向传播都会构建一个新的计算图）。",
        )
    if "does not require grad" in msg:
        return say(
            "the loss has no graph (it does not require grad): the forward must run with "
            "autograd on, not under `no_grad()`, and without `.detach()`.",
            "损失没有计算图（它不需要梯度）：前向传播必须在 autograd 开启时运行，"
            "不能放在 `no_grad()` 里，也不能 `.detach()`。",
        )
    if isinstance(err, NameError) or "shapes cannot be multiplied" in msg or "size of" in msg:
        return say(
            f"train_step raised {type(err).__name__} ({msg}): use only its arguments "
            "(model, opt, loss_fn, xb, yb), not the notebook's data or models.",
            f"train_step 抛出了 {type(err).__name__}（{msg}）：只使用它的参数"
            "（model, opt, loss_fn, xb, yb），不要用笔记本里的数据或模型。",
        )
    return say(
        f"train_step raised {type(err).__name__}: {msg}",
        f"train_step 抛出了 {type(err).__name__}：{msg}",
    )


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
            say(
                "train_step did nothing and returned None: is its body still `...`?",
                "train_step 什么也没做，返回了 None：函数体是不是还是 `...`？",
            ),
        )
        return _stop(v)
    moved = not _same(run.params, start.params)
    if moved and run.steps == 0:
        v.require(
            False,
            say(
                "the parameters changed but `opt.step()` was never called: let the optimizer "
                "update them (it knows the learning rate, momentum and so on)",
                "参数变了，但 `opt.step()` 从未被调用：让优化器去更新参数"
                "（它知道学习率、动量等设置）",
            )
            + (
                say(
                    "; and a write through `.data` is invisible to the version counter, which is "
                    "exactly how autograd errors get hidden (lesson 08).",
                    "；而且通过 `.data` 的写入对版本计数器不可见，autograd 的错误正是这样被"
                    "掩盖的（第 08 课）。",
                )
                if not any(run.bumps)
                else say(".", "。")
            ),
        )
    elif run.backwards > 2:
        v.require(
            False,
            say(
                f"backward ran {run.backwards} times in two steps: once per step is enough (with "
                "retain_graph a second backward adds the same gradient again).",
                f"两步之内 backward 运行了 {run.backwards} 次：每步一次就够了"
                "（用了 retain_graph 的话，第二次 backward 会把同样的梯度再加一遍）。",
            ),
        )
    elif _same(run.params, want.params):
        pass
    elif _same(run.params, _Replay(_reference(zero=False)).params):
        v.require(
            False,
            say(
                "the second step used the first step's gradient plus its own: "
                "gradients accumulate in .grad until you clear them. Call "
                "opt.zero_grad() before backward.",
                "第二步用的是第一步的梯度加上它自己的梯度：在你清除之前，梯度会一直在 .grad 中"
                "累积。请在 backward 之前调用 opt.zero_grad()。",
            ),
        )
    elif not moved and run.backwards == 2 and run.steps == 2:
        v.require(
            False,
            say(
                "backward and step both ran, yet the parameters did not move: the gradients were "
                "cleared between them. Call `opt.zero_grad()` BEFORE `loss.backward()`, not "
                "between backward and step.",
                "backward 和 step 都运行了，参数却没有变：梯度在两者之间被清除了。请在 "
                "`loss.backward()` 之前调用 `opt.zero_grad()`，而不是放在 backward 和 step 之间。",
            ),
        )
    elif not moved:
        v.require(
            False,
            say(
                "the parameters did not change: is loss.backward() called (so there are "
                "gradients) and then opt.step() (which applies them)?",
                "参数没有变化：是否调用了 loss.backward()（这样才有梯度），"
                "然后调用了 opt.step()（由它应用梯度）？",
            ),
        )
    else:
        v.require(
            False,
            say(
                "after two steps the parameters differ from a plain zero_grad -> "
                "forward -> loss -> backward -> step loop with this optimizer.",
                "两步之后，参数与用这个优化器按 zero_grad -> 前向 -> 损失 -> backward -> step "
                "的普通循环得到的结果不同。",
            ),
        )
    if not v.require(
        all(isinstance(r, float) for r in run.results),
        say(
            f"return the loss as a Python float (loss.item()), got "
            f"{type(run.results[0]).__name__}: a tensor would keep the whole graph alive.",
            f"请以 Python float 返回损失（loss.item()），而不是 "
            f"{type(run.results[0]).__name__}：返回张量会让整个计算图一直存活。",
        ),
    ):
        return _stop(v)
    v.require(
        close(run.results, want.results, rtol=1e-5),
        say(
            f"returned losses {np.round(run.results, 4).tolist()}, expected "
            f"{np.round(want.results, 4).tolist()} (the loss of the batch before the update).",
            f"返回的损失是 {np.round(run.results, 4).tolist()}，应当是 "
            f"{np.round(want.results, 4).tolist()}（批次在更新之前的损失）。",
        ),
    )
    v.done(
        say(
            "zero_grad, forward, loss, backward, step; the loss comes back as a float.",
            "zero_grad、前向、损失、backward、step；损失以 float 返回。",
        )
    )


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
        return say(
            "`.mean()` of a bool tensor fails: turn the comparison into numbers first "
            "(`.float()`), or compare numpy arrays.",
            "布尔张量的 `.mean()` 会失败：先把比较结果变成数值（`.float()`），"
            "或者比较 numpy 数组。",
        )
    if "must match the size" in msg:
        return say(
            f"accuracy raised RuntimeError ({msg}): the predictions and the labels have "
            "different shapes. Take the arg-max over dim 1 (the classes): one prediction per row.",
            f"accuracy 抛出了 RuntimeError（{msg}）：预测和标签的形状不同。"
            "请在第 1 维（dim 1，类别维）上取 arg-max：每行一个预测。",
        )
    if isinstance(err, NameError) or "shapes cannot be multiplied" in msg:
        return say(
            f"accuracy raised {type(err).__name__} ({msg}): use only its arguments "
            "(model, x, y), not the notebook's data or models.",
            f"accuracy 抛出了 {type(err).__name__}（{msg}）：只使用它的参数"
            "（model, x, y），不要用笔记本里的数据或模型。",
        )
    return say(
        f"accuracy raised {type(err).__name__}: {msg}",
        f"accuracy 抛出了 {type(err).__name__}：{msg}",
    )


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
            False,
            say(
                "accuracy returned None: is its body still `...`, or is the `return` missing?",
                "accuracy 返回了 None：函数体是不是还是 `...`，或者漏了 `return`？",
            ),
        )
        return _stop(v)
    if not v.require(
        isinstance(got, float),
        say(
            f"return a Python float, got {type(got).__name__} (use .item() or float(...)).",
            f"请返回 Python float，而不是 {type(got).__name__}（用 .item() 或 float(...)）。",
        ),
    ):
        return _stop(v)
    if close(got, 75.0):
        v.require(
            False,
            say(
                "you returned a percentage (75.0); return the fraction 0.75.",
                "你返回的是百分数（75.0）；请返回比例 0.75。",
            ),
        )
    elif close(got, 0.25):
        v.require(
            False,
            say(
                "you returned the error rate (0.25): count the rows where prediction == label.",
                "你返回的是错误率（0.25）：应当统计 prediction == label 的行。",
            ),
        )
    else:
        v.require(
            close(got, 0.75),
            say(
                f"30 of 40 predictions are right, so expected 0.75, got {got}. "
                "Predictions are the arg-max over the class dimension (dim 1).",
                f"40 个预测中有 30 个正确，所以应当是 0.75，得到的却是 {got}。"
                "预测是在类别维（dim 1）上取 arg-max。",
            ),
        )
    v.require(
        not any(model.grad_mode),
        say(
            "the model ran with autograd recording: evaluation needs no graph, so run it inside "
            "`with mg.no_grad():` (`model.eval()` changes layers such as dropout, not autograd).",
            "模型运行时 autograd 在记录：评估不需要计算图，所以请在 `with mg.no_grad():` 中运行"
            "（`model.eval()` 改变的是 dropout 之类的层，而不是 autograd）。",
        ),
    )
    v.done(
        say(
            "the fraction of correct arg-max predictions, as a float, computed without a graph.",
            "arg-max 预测正确的比例，以 float 返回，计算时没有构建计算图。",
        )
    )
