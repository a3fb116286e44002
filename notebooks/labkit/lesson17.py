"""Checks for lesson 17 (capstone): four parts, each checked by the method it teaches.

1. `train(model, x, y, steps, lr)`, the repaired training script, runs on data and a model of the
   check's own. The engine's records tell what the script did: the forward's nodes and their
   shapes (a node larger than every input is a broadcast between [N, 1] and [N]), each leaf's
   AccumulateGrad write (`before` not empty: last step's gradient was still there) and one
   backward pass per step. A saved-tensor pack hook notes each saved tensor's version and values:
   a version that moved is the in-place bug (also when the learner's try/except swallows the
   error), values that changed under an unchanged version are a `.data` or numpy write. Each
   backward pass must reach every parameter through nodes that step's forward computed from x
   (not a product with gradients brought from elsewhere), and write, step by step, the loss and
   the gradients of a correct loop (a model trained by another library, with a dummy backward
   per step, shows there).
2. `SiLU`, a custom Function: gradcheck and gradgradcheck run on float64 inputs the learner never
   saw, a float32 comparison catches numerical differentiation (whose step is either too small or
   too large there), and the backward is watched (outsourced.py: a backward pass started inside
   it, a dual level, PyTorch's autograd, built-in nodes called or kept on ctx, complex numbers),
   as are calls of the forward / of the built-in silu (numerical differentiation or the library
   doing the work); each gets its own message.
3. `penalized_loss(model, loss_fn, x, y, weight)`: the model hides a straight-through Function
   whose derivative (1) is not its numerical slope (0), so finite differences give another
   penalty; the records must show a create_graph pass inside the learner's function that built
   nodes, and the check's own backward of the total must run through those nodes (a detached
   penalty adds nothing to the gradient).
4. `run_blocks(blocks, x)`: a meter of saved bytes (pack hooks, with receipts freed when the
   graph lets go) must stay under a budget at its peak, across forward AND backward; the blocks
   count their forwards (recomputation shows as a second run of each: a ✓ needs some), and the
   gradients must be those of the plain forward. Saved-tensor hooks of the learner's own are
   seen however they were put in place (a pack by any hook but the meter's).
   A penalty whose ∂loss/∂x comes from a second forward (func.grad) is right, and said to be.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

import minigrad as mg
import minigrad.autograd.graph as mg_graph
import minigrad.core.saved as saved_module
from minigrad.autograd import record_steps
from minigrad.core.observe import LISTENERS

from . import feedback, outsourced
from .feedback import NotYet, Verdict, close  # noqa: F401 (NotYet: what `needs` raises)
from .hints import register
from .language import say

register(
    "17",
    TRAIN := "the training script",
    "Run it and read the error first: which tensor was modified in place, and which node saved "
    "it? An out-of-place version of that line keeps the saved tensor intact.",
    "Print the shapes of `p` and `y` just before the loss: [N, 1] against [N] broadcasts to "
    "[N, N], every prediction against every label. Make the two shapes equal "
    "(`p.squeeze(1)` or `y.unsqueeze(1)`).",
    "What empties `.grad` between two steps? Nothing in the script: add `opt.zero_grad()` "
    "before `loss.backward()`.",
    zh_title="训练脚本",
    zh=(
        "先运行它，读一读报错：哪个张量被原地修改了？是哪个节点保存了它？把那一行改成非原地的"
        "写法，保存的张量就不会被改动。",
        "在计算损失之前打印 `p` 和 `y` 的形状：[N, 1] 和 [N] 广播成 [N, N]，每个预测都和每个"
        "标签比了一遍。让两者形状一致（`p.squeeze(1)` 或 `y.unsqueeze(1)`）。",
        "两步之间是谁把 `.grad` 清空的？脚本里没有人做这件事：在 `loss.backward()` 之前加上 "
        "`opt.zero_grad()`。",
    ),
)
register(
    "17",
    SILU := "SiLU as a Function",
    "forward: save x with `ctx.save_for_backward(x)` and return `x * x.sigmoid()`.",
    "The derivative of x·σ(x) is σ(x) + x·σ(x)·(1 − σ(x)) (product rule, and σ' = σ(1 − σ)). "
    "backward returns `grad_out` times that.",
    "Build backward from minigrad operations on the saved x (no numpy, no `.detach()`), so that "
    "part 3 can differentiate it once more: gradgradcheck checks exactly that.",
    zh_title="把 SiLU 写成 Function",
    zh=(
        "forward：用 `ctx.save_for_backward(x)` 保存 x，返回 `x * x.sigmoid()`。",
        "x·σ(x) 的导数是 σ(x) + x·σ(x)·(1 − σ(x))（乘积法则，加上 σ' = σ(1 − σ)）。backward "
        "返回 `grad_out` 乘以它。",
        "用 minigrad 的运算在保存的 x 上写出 backward（不用 numpy，也不 `.detach()`），这样第 3 "
        "部分才能再对它求一次导：gradgradcheck 检查的正是这一点。",
    ),
)
register(
    "17",
    PENALTY := "gradient penalty",
    "The penalty needs the gradient of the loss with respect to the INPUT: make a copy of x that "
    "requires grad (`x = x.detach().requires_grad_()`) before running the model.",
    "`(g,) = mg.autograd.grad(loss, x, create_graph=True)`: without create_graph, g is a plain "
    "number array and the penalty cannot be differentiated again.",
    "Return `loss + weight * g.pow(2).sum()`: one tensor, whose backward goes through both "
    "graphs (the first-order one and the one create_graph built).",
    zh_title="梯度惩罚",
    zh=(
        "惩罚项需要损失对**输入**的梯度：在运行模型之前，先得到一个需要梯度的 x"
        "（`x = x.detach().requires_grad_()`）。",
        "`(g,) = mg.autograd.grad(loss, x, create_graph=True)`：不加 create_graph，g 只是一串数，"
        "惩罚项就没法再求导了。",
        "返回 `loss + weight * g.pow(2).sum()`：一个张量，它的 backward 会同时经过两张图（一阶的"
        "那张，以及 create_graph 建出来的那张）。",
    ),
)
register(
    "17",
    BLOCKS := "checkpointed blocks",
    "Run the blocks one after another as before, but call each one through "
    "`checkpoint(block, h, use_reentrant=False)` instead of `block(h)`.",
    "Checkpoint each block separately: one checkpoint around the whole chain keeps almost "
    "nothing after the forward, but its recomputation rebuilds every activation at once, so the "
    "peak during backward is back where it was.",
    zh_title="分块检查点",
    zh=(
        "像原来一样一个接一个地运行这些块，只是把 `block(h)` 换成 "
        "`checkpoint(block, h, use_reentrant=False)`。",
        "每个块单独做检查点：把整条链包进一个检查点，前向之后几乎什么都不保存，但反向时的重算"
        "会一次性重建所有激活值，峰值又回到了原来的水平。",
    ),
)


# --- the cells after an exercise use the learner's answer: they wait for its check to pass ------

_PARTS = {1: TRAIN, 2: SILU, 3: PENALTY, 4: BLOCKS}


def needs(*parts: int) -> None:
    """Stop a cell that uses the answers to these parts until their checks have passed."""
    feedback.needs(*(_PARTS[p] for p in parts))


def _stop(v: Verdict) -> None:
    """Print what is wrong so far and end the check (later steps depend on this one)."""
    v.done("")


def _nbytes(t: Any) -> int:
    return t.numel() * t.dtype.itemsize


# --- the saved-bytes meter (lesson 15's receipts, plus the peak) ---------------------------------


class _Receipt:
    """What the graph keeps in place of a saved tensor; gives its bytes back when dropped."""

    def __init__(self, meter: SavedBytes, tensor: Any) -> None:
        self.meter, self.tensor, self.nbytes = meter, tensor.detach(), _nbytes(tensor)
        meter.held += self.nbytes
        meter.packed += 1
        meter.peak = max(meter.peak, meter.held)

    def __del__(self) -> None:
        self.meter.held -= self.nbytes


class SavedBytes:
    """`with SavedBytes() as mem:` meters the bytes the graph holds in saved tensors:
    `mem.held` now, `mem.peak` the most at any moment (forward and backward alike)."""

    def __init__(self) -> None:
        self.held = self.peak = self.packed = 0
        self._hooks = mg.autograd.graph.saved_tensors_hooks(self._pack, self._unpack)

    def _pack(self, tensor: Any) -> _Receipt:
        return _Receipt(self, tensor)

    @staticmethod
    def _unpack(receipt: _Receipt) -> Any:
        return receipt.tensor

    def __enter__(self) -> SavedBytes:
        self._hooks.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._hooks.__exit__(*exc)


@contextmanager
def _own_hooks_opened(meter: SavedBytes) -> Iterator[list[int]]:
    """Count the saved-tensor hooks the code inside opens (the learner's own hooks would take
    the saved tensors before the meter sees them): each push, through autograd.graph or
    minigrad.core.saved, and each tensor packed by a pack hook that is not the meter's (hooks
    put in place some other way, e.g. with a `push_hooks` imported before the check)."""
    opened: list[int] = []
    real = saved_module.push_hooks
    real_pack = saved_module.SavedTensor._pack

    def counted(*args: Any) -> Any:
        opened.append(1)
        return real(*args)

    def pack(self: Any, tensor: Any, pack_hook: Any, unpack_hook: Any) -> Any:
        if pack_hook != meter._pack:
            opened.append(1)
        return real_pack(self, tensor, pack_hook, unpack_hook)

    mg_graph.push_hooks = saved_module.push_hooks = counted
    saved_module.SavedTensor._pack = pack
    try:
        yield opened
    finally:
        mg_graph.push_hooks = saved_module.push_hooks = real
        saved_module.SavedTensor._pack = real_pack


# --- part 1: the training script ------------------------------------------------------------------


def _script_data() -> tuple[mg.Tensor, mg.Tensor]:
    """23 rows of 7 features the notebook never shows; rows 0-3 push the model's logit far past
    where float32's sigmoid rounds to exactly 0 or 1 (so the clamp is needed and does work)."""
    gen = np.random.default_rng(1723)
    x = gen.normal(size=(23, 7)).astype(np.float32)
    x[:4] *= 6.0
    y = (gen.random(23) < 0.5).astype(np.float32)
    y[:4] = [1.0, 0.0, 0.0, 1.0]
    return mg.tensor(x), mg.tensor(y)


def _script_model() -> mg.nn.Module:
    mg.manual_seed(1717)
    model = mg.nn.Sequential(mg.nn.Linear(7, 4), mg.nn.Tanh(), mg.nn.Linear(4, 1))
    with mg.no_grad():
        model[0].weight.mul_(2.0)
        model[2].weight.copy_(mg.tensor([[7.0, -6.0, 6.5, -5.5]]))
    return model


STEPS, LR = 5, 0.3


def _fixed(loss_kind: str) -> Callable[..., list[float]]:
    """The repaired script, with each way of writing the loss a learner may choose."""

    def train(model: Any, x: Any, y: Any, steps: int, lr: float) -> list[float]:
        opt = mg.optim.SGD(model.parameters(), lr=lr)
        losses = []
        for _ in range(steps):
            opt.zero_grad()
            logits = model(x).squeeze(1)
            if loss_kind == "logits":
                loss = mg.nn.functional.binary_cross_entropy_with_logits(logits, y)
            else:
                p = logits.sigmoid()
                if loss_kind == "clamp":
                    p = p.clamp(1e-6, 1 - 1e-6)
                    loss = -(y * p.log() + (1 - y) * (1 - p).log()).mean()
                else:
                    loss = mg.nn.functional.binary_cross_entropy(p, y)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return losses

    return train


class _ScriptRun:
    """One run of a training script on the check's data, with what the engine recorded."""

    def __init__(self, train: Callable[..., Any]) -> None:
        x, y = _script_data()
        self.n = x.shape[0]
        self.x = x
        model = _script_model()
        self.params = list(model.parameters())
        self.in_place: list[str] = []
        self.hidden_write: list[str] = []
        self.error: Exception | None = None
        self.result: Any = None

        def pack(t: Any) -> Any:
            name = t.grad_fn.name() if t.grad_fn is not None else "a leaf"
            return (t, t._version, t.detach().numpy().copy(), name)

        def unpack(packed: Any) -> Any:
            t, version, values, name = packed
            if t._version != version:
                self.in_place.append(name)
                raise RuntimeError(
                    "one of the variables needed for gradient computation has been modified by "
                    f"an inplace operation: output of {name} is at version {t._version}; "
                    f"expected version {version} instead."
                )
            now = t.detach().numpy()
            if now.shape != values.shape or not np.array_equal(now, values, equal_nan=True):
                self.hidden_write.append(name)
            return t

        with record_steps() as steps, mg.autograd.graph.saved_tensors_hooks(pack, unpack):
            try:
                self.result = train(model, x, y, STEPS, LR)
            except Exception as err:  # the learner's code: named below, in words
                self.error = err
        self.records = steps.records
        self.final = [p.detach().numpy().copy() for p in self.params]

    def broadcasts(self) -> list[str]:
        """Forward nodes whose output is bigger than every input: [N, 1] against [N] -> [N, N]."""
        found = []
        for r in self.records:
            if r["kind"] != "node_created" or r["shape"] is None:
                continue
            sizes = [int(np.prod(tuple(i.shape))) for i in r["inputs"] if i is not None]
            out = int(np.prod(r["shape"]))
            if sizes and out > max(sizes) and out >= self.n * self.n:
                inputs = " and ".join(str(list(i.shape)) for i in r["inputs"] if i is not None)
                found.append(f"{r['name']} ({inputs} -> {list(r['shape'])})")
        return found

    def accumulated(self) -> bool:
        """Did some AccumulateGrad add to a gradient that an earlier step had left in .grad?"""
        return any(
            r["kind"] == "accumulate"
            and r["before"] is not None
            and np.any(np.asarray(r["before"]) != 0)
            for r in self.records
        )

    def backwards(self) -> int:
        return sum(r["kind"] == "backward_start" for r in self.records)

    def _is_data(self, t: Any) -> bool:
        """Is `t` the check's x (itself, a view of it, or a copy of its values)?"""
        if t is None or t is self.x:
            return True
        if t.grad_fn is not None or t.requires_grad:
            return False
        data, x = t.detach().numpy(), self.x.numpy()
        return np.shares_memory(data, x) or any(
            data.shape == want.shape and np.array_equal(data, want) for want in (x, x.T)
        )

    def passes(self) -> list[dict[str, Any]]:
        """Each backward pass, with the forward made since the previous one: the root's value,
        and per parameter (by index) the gradient that reached its AccumulateGrad through that
        forward's nodes computed from x (`through`), through anything else (`other`), and in
        all (`added`). A node is computed from x if x is one of its inputs or it was made from
        such a node's output; in backward, a node none of them is counts as the forward's when
        every gradient it got came from the forward's nodes (a transpose of a weight, a bias's
        expand)."""
        index = {id(p): i for i, p in enumerate(self.params)}
        found: list[dict[str, Any]] = []
        from_x: set[int] = set()
        current: dict[str, Any] | None = None
        incoming: dict[int, list[bool]] = {}
        decided: dict[int, bool] = {}

        def ours(node: Any) -> bool:
            key = id(node)
            if key not in decided:
                got = incoming.get(key, [])
                decided[key] = key in from_x or (bool(got) and all(got))
            return decided[key]

        for r in self.records:
            kind = r["kind"]
            if kind == "node_created" and current is None:
                inputs = [i for i in r["inputs"] if i is not None]
                if any(
                    self._is_data(i) or (i.grad_fn is not None and id(i.grad_fn) in from_x)
                    for i in inputs
                ):
                    from_x.add(id(r["node"]))
            elif kind == "backward_start" and current is None:
                roots = r["roots"]
                value = (
                    float(roots[0].detach().numpy().sum())
                    if len(roots) == 1 and roots[0].numel() == 1
                    else None
                )
                current = {"root": value, "through": {}, "other": {}, "added": {}}
                incoming, decided = {}, {}
            elif kind == "edge" and current is not None:
                source, target, grad = r["source"], r["target"], r["grad"]
                came = ours(source) if source is not None else id(target) in from_x
                incoming.setdefault(id(target), []).append(came)
                variable = getattr(target, "variable", None)
                if variable is not None and id(variable) in index and grad is not None:
                    where = current["through" if came else "other"]
                    i = index[id(variable)]
                    where[i] = where.get(i, 0) + np.asarray(grad, dtype=float)
            elif kind == "accumulate" and current is not None:
                i = index.get(id(r["variable"]))
                if i is not None:
                    current["added"][i] = current["added"].get(i, 0) + np.asarray(
                        r["added"], dtype=float
                    )
            elif kind == "backward_end" and current is not None:
                found.append(current)
                current, from_x = None, set()
        return found

    def same_as(self, other: _ScriptRun) -> bool:
        return all(
            np.allclose(a, b, rtol=1e-4, atol=1e-6)
            for a, b in zip(self.final, other.final, strict=True)
        )


def _same_steps(mine: list[dict[str, Any]], ref: list[dict[str, Any]]) -> bool:
    """Step by step, the same loss at the root and the same gradients through the forward."""

    def near(a: Any, b: Any) -> bool:
        return a is not None and b is not None and np.allclose(a, b, rtol=1e-4, atol=1e-6)

    return len(mine) == len(ref) and all(
        near(m["root"], r["root"])
        and m["through"].keys() == r["through"].keys()
        and all(near(m["through"][i], r["through"][i]) for i in r["through"])
        for m, r in zip(mine, ref, strict=True)
    )


_REFERENCES: list[_ScriptRun] = []


def _references() -> list[_ScriptRun]:
    if not _REFERENCES:
        _REFERENCES.extend(_ScriptRun(_fixed(kind)) for kind in ("clamp", "bce", "logits"))
    return _REFERENCES


def _script_error(err: Exception) -> str:
    msg = str(err)
    if "does not require grad" in msg:
        return say(
            "the loss has no graph (it does not require grad): a `.detach()`, `no_grad()` or a "
            "loss computed in numpy cuts the model out of it, so backward has nothing to "
            "differentiate. Keep the computation in minigrad and only change the in-place line.",
            "损失没有计算图（它不需要梯度）：`.detach()`、`no_grad()` 或者用 numpy 算损失，都会把"
            "模型从图里切掉，backward 就没有东西可以求导了。让计算留在 minigrad 里，只改那一行"
            "原地操作。",
        )
    if isinstance(err, NameError) or "shapes cannot be multiplied" in msg:
        return say(
            f"train raised {type(err).__name__} ({msg}): use only its arguments "
            "(model, x, y, steps, lr), not the notebook's data or model.",
            f"train 抛出了 {type(err).__name__}（{msg}）：只使用它的参数"
            "（model、x、y、steps、lr），不要用笔记本里的数据或模型。",
        )
    return say(
        f"train raised {type(err).__name__}: {msg}", f"train 抛出了 {type(err).__name__}：{msg}"
    )


def check_train(train: Any) -> None:
    """The repaired script: no in-place write to a saved tensor, no broadcast in the loss, and
    `.grad` cleared every step; the same parameters as a correct loop on unseen data."""
    v = Verdict(TRAIN)
    if not v.answered(train, "train"):
        return _stop(v)
    run = _ScriptRun(train)
    if run.result is None and run.error is None and run.backwards() == 0:
        v.require(
            False,
            say(
                "train did nothing and returned None: is its body still `...`?",
                "train 什么也没做，返回了 None：函数体是不是还是 `...`？",
            ),
        )
        return _stop(v)
    if run.in_place:
        v.require(
            False,
            say(
                f"a tensor saved for backward (the output of {run.in_place[0]}) is still changed "
                "in place before backward uses it: write that line out of place "
                "(`p = p.clamp(...)`), so the saved tensor stays as it was. Writing through "
                "`.detach()` changes the same tensor and counts as well; a try/except around "
                "backward does not make the gradient right.",
                f"一个为 backward 保存的张量（{run.in_place[0]} 的输出）在 backward 用到它之前仍被"
                "原地修改：把那一行改成非原地的写法（`p = p.clamp(...)`），让保存的张量保持原样。"
                "通过 `.detach()` 写入改的是同一个张量，照样算数；在 backward 外面套 try/except "
                "也不会让梯度变对。",
            ),
        )
        return _stop(v)
    if run.hidden_write:
        v.require(
            False,
            say(
                f"a tensor saved for backward (the output of {run.hidden_write[0]}) changed its "
                "values between forward and backward, behind the version counter's back (a "
                "write through `.data` or `.detach().numpy()`): no error, but backward now "
                "computes with the changed values and the gradient is wrong. Write the line out "
                "of place.",
                f"一个为 backward 保存的张量（{run.hidden_write[0]} 的输出）在前向和反向之间"
                "被改了，而且绕过了版本计数器（通过 `.data` 或 `.detach().numpy()` 写入）："
                "不报错，但 backward 用的是改过的值，"
                "梯度是错的。请把那一行改成非原地的写法。",
            ),
        )
        return _stop(v)
    if run.error is not None:
        v.require(False, _script_error(run.error))
        return _stop(v)
    wide = run.broadcasts()
    if wide:
        v.require(
            False,
            say(
                f"the loss still broadcasts: {wide[0]}. Each prediction is compared with every "
                "label, so the model can only learn the average. Give p and y the same shape "
                "before the loss.",
                f"损失里仍然有广播：{wide[0]}。每个预测都和每个标签比了一遍，模型只能学到平均值。"
                "计算损失之前让 p 和 y 的形状一致。",
            ),
        )
    if run.accumulated():
        v.require(
            False,
            say(
                "AccumulateGrad added each new gradient to the one the previous step left in "
                "`.grad`: the optimizer then steps on the sum of all past gradients. Clear them "
                "every step (`opt.zero_grad()` before `loss.backward()`).",
                "AccumulateGrad 把每个新梯度加到了上一步留在 `.grad` 里的梯度上：优化器走的是所有"
                "历史梯度之和。每一步都要清空它们"
                "（在 `loss.backward()` 之前调用 `opt.zero_grad()`）。",
            ),
        )
    if v.problems:
        return _stop(v)
    if run.backwards() == 0:
        v.require(
            False,
            say(
                "no backward pass ran: a loss computed in numpy, or from `.detach()`ed or "
                "`.item()` values, has no graph, so the model learns nothing. Keep the loss a "
                "minigrad tensor and call `loss.backward()` every step.",
                "一次反向传播都没有运行：用 numpy 算的损失，或者从 `.detach()`、`.item()` 得到的"
                "值算出的损失，都没有计算图，模型什么也学不到。让损失保持为 minigrad 张量，每一步"
                "都调用 `loss.backward()`。",
            ),
        )
        return _stop(v)
    if run.backwards() != STEPS:
        v.require(
            False,
            say(
                f"{STEPS} steps ran {run.backwards()} backward passes: one per step, from the "
                "loss of that step.",
                f"{STEPS} 步运行了 {run.backwards()} 次反向传播："
                "应当每步一次，从这一步的损失出发。",
            ),
        )
        return _stop(v)
    results = run.result if isinstance(run.result, list | tuple) else None
    if results is None or len(results) != STEPS or not all(isinstance(r, float) for r in results):
        v.require(
            False,
            say(
                f"train should return the list of the {STEPS} losses as Python floats "
                "(`loss.item()` each step), as the script did.",
                f"train 应当像原脚本那样返回 {STEPS} 个损失组成的列表，每个都是 Python float"
                "（每步 `loss.item()`）。",
            ),
        )
        return _stop(v)
    if any(np.isnan(results)):
        v.require(
            False,
            say(
                "the loss became NaN: a probability of exactly 0 or 1 reached log(). Keep the "
                "clamp, written out of place (`p = p.clamp(1e-6, 1 - 1e-6)`).",
                "损失变成了 NaN：恰好为 0 或 1 的概率进了 log()。保留 clamp，但写成非原地的"
                "（`p = p.clamp(1e-6, 1 - 1e-6)`）。",
            ),
        )
        return _stop(v)
    start = [p.detach().numpy() for p in _script_model().parameters()]
    if all(np.array_equal(a, b) for a, b in zip(run.final, start, strict=True)):
        v.require(
            False,
            say(
                "the parameters never changed: backward wrote the gradients, but nothing applied "
                "them. Keep `opt.step()` after `loss.backward()`.",
                "参数从未改变：backward 写入了梯度，却没有谁去应用它们。"
                "在 `loss.backward()` 之后保留 `opt.step()`。",
            ),
        )
        return _stop(v)
    passes = run.passes()
    for step, seen in enumerate(passes, 1):
        missing = [i for i in range(len(run.params)) if i not in seen["through"]]
        other = [i for i, g in seen["other"].items() if np.any(np.abs(g) > 1e-7)]
        if missing or other:
            v.require(
                False,
                say(
                    f"the backward pass of step {step} reached the parameters "
                    + (
                        "without going through a forward of that step computed from x"
                        if missing
                        else "through nodes that were not computed from x in that step's "
                        "forward (a product with gradients brought from elsewhere)"
                    )
                    + ": the gradients the optimizer used were not that backward's work (another "
                    "library trained the model, or a formula). Each step: the model on x, the "
                    "loss, and `loss.backward()` through them.",
                    f"第 {step} 步的反向传播"
                    + (
                        "到达参数时没有经过这一步从 x 算出来的前向"
                        if missing
                        else "是经由并非这一步从 x 算出来的节点到达参数的（乘上了从别处拿来的梯度）"
                    )
                    + "：优化器用的梯度不是这次 backward 算出来的（模型是别的库训练的，或者用了"
                    "公式）。每一步都应当是：模型作用于 x，算损失，再对它们调用 "
                    "`loss.backward()`。",
                ),
            )
            return _stop(v)
    v.require(
        any(run.same_as(ref) for ref in _references()),
        say(
            f"after {STEPS} steps on the check's data the parameters differ from those of the "
            "script with its three bugs fixed (same SGD, same lr, same clamp): change only the "
            "three buggy lines.",
            f"在检查用的数据上跑了 {STEPS} 步之后，参数与修好三个错误的脚本（同样的 SGD、同样的 "
            "lr、同样的 clamp）得到的不一样：只改那三处有问题的地方。",
        ),
    )
    matching = [ref for ref in _references() if run.same_as(ref)]
    if matching and not any(_same_steps(passes, ref.passes()) for ref in matching):
        v.require(
            False,
            say(
                "the parameters end where a correct loop's do, but the backward passes are not "
                "each step's loss backward (compared step by step with a correct loop on the same "
                "data: the value each pass starts from, and the gradients it writes through the "
                "model): the parameters were trained some other way and the backward passes only "
                "ran beside it. Let each step's `loss.backward()` produce the gradients "
                "`opt.step()` uses.",
                "参数最终和正确的循环一样，但这些反向传播并不是每一步对损失做的 backward（在同样的"
                "数据上和正确的循环逐步比较过：每次反向传播的起点的值，以及它穿过模型写下的梯度）："
                "参数是用别的办法训练出来的，反向传播只是在旁边跑了一下。让每一步的 "
                "`loss.backward()` 算出 `opt.step()` 要用的梯度。",
            ),
        )
    v.done(
        say(
            "the saved tensors stay intact, the loss compares [N] with [N], and every step starts "
            "from an empty `.grad`; on data you never saw it trains exactly like a correct loop.",
            "保存的张量保持原样，损失比较的是 [N] 和 [N]，每一步都从空的 `.grad` 开始；在你没见过"
            "的数据上，它和正确的训练循环结果完全一致。",
        )
    )


# --- part 2: SiLU as a custom Function ------------------------------------------------------------


def _same(t: Any) -> Any:
    return t


def _noting(packed: list[Any]) -> Callable[[Any], Any]:
    """A pack hook that notes each saved tensor and keeps it as it is."""

    def pack(t: Any) -> Any:
        packed.append(t)
        return t

    return pack


def _silu_grad(x: np.ndarray) -> np.ndarray:
    s = 1 / (1 + np.exp(-x))
    return s * (1 + x * (1 - s))


def _is_function(cls: Any) -> bool:
    return isinstance(cls, type) and issubclass(cls, mg.autograd.Function)


@contextmanager
def _watched_backward(cls: type) -> Iterator[dict[str, int]]:
    """While the block runs: how often `cls.forward` and the built-in silu ran, and how many
    backward passes began, inside `cls.backward`."""
    seen: dict[str, Any] = {"forward": 0, "builtin": 0, "passes": 0, "inside": 0}
    found = seen["found"] = outsourced.Findings()
    real_forward, real_backward = cls.__dict__.get("forward"), cls.__dict__.get("backward")
    real_silu = mg.nn.functional.silu

    def forward(ctx: Any, *args: Any, **kwargs: Any) -> Any:
        if seen["inside"]:
            seen["forward"] += 1
        return real_forward.__func__(ctx, *args, **kwargs)

    def backward(ctx: Any, *args: Any) -> Any:
        seen["inside"] += 1
        inner = None
        try:
            with outsourced.watching() as inner:
                return real_backward.__func__(ctx, *args)
        finally:
            seen["inside"] -= 1
            if inner is not None:
                found.merge(inner)
                seen["passes"] += inner.passes

    def silu(*args: Any, **kwargs: Any) -> Any:
        if seen["inside"]:
            seen["builtin"] += 1
        return real_silu(*args, **kwargs)

    cls.forward, cls.backward = staticmethod(forward), staticmethod(backward)
    mg.nn.functional.silu = silu
    try:
        yield seen
    finally:
        cls.forward, cls.backward = real_forward, real_backward
        mg.nn.functional.silu = real_silu


_SILU_FORMULA = "σ(x)·(1 + x·(1 − σ(x)))"


def _silu_cases() -> list[np.ndarray]:
    gen = np.random.default_rng(1742)
    return [gen.normal(scale=3.0, size=(4, 3)), np.array([-12.0, -2.5, 0.0, 0.7, 9.0])]


def check_silu(cls: Any) -> None:
    """`cls.apply(x)` = x·sigmoid(x) with its own backward: gradcheck and gradgradcheck pass on
    unseen float64 inputs, float32 gradients are exact, and backward neither runs another backward
    pass nor calls the forward or the built-in silu."""
    v = Verdict(SILU)
    if not v.answered(cls, "SiLU"):
        return _stop(v)
    if not v.require(
        _is_function(cls),
        say(
            "SiLU should be a class deriving from mg.autograd.Function, with static forward and "
            "backward.",
            "SiLU 应当是一个继承自 mg.autograd.Function 的类，forward 和 backward 都是静态方法。",
        ),
    ):
        return _stop(v)
    if not (
        isinstance(cls.__dict__.get("forward"), staticmethod)
        and isinstance(cls.__dict__.get("backward"), staticmethod)
    ):
        v.require(
            False,
            say(
                "define both forward(ctx, x) and backward(ctx, grad_out) in the class, as "
                "@staticmethod.",
                "在类里定义 forward(ctx, x) 和 backward(ctx, grad_out)，两者都加 @staticmethod。",
            ),
        )
        return _stop(v)
    from .lesson10 import _OWN, _backward_error, _stashed

    for point in _silu_cases():
        x = mg.tensor(point, requires_grad=True)
        packed: list[Any] = []
        try:
            with mg.autograd.graph.saved_tensors_hooks(_noting(packed), _same):
                y = cls.apply(x)
        except Exception as err:  # the learner's code: say what it raised
            v.require(
                False,
                say(
                    f"the forward raised {type(err).__name__}: {err}",
                    f"forward 抛出了 {type(err).__name__}：{err}",
                ),
            )
            return _stop(v)
        if not isinstance(y, mg.Tensor):
            v.require(
                False,
                say(
                    f"SiLU.apply(x) returned {type(y).__name__}: is the body of forward still "
                    "`...`? Return x·sigmoid(x) as a tensor.",
                    f"SiLU.apply(x) 返回了 {type(y).__name__}：forward 的函数体是不是还是 `...`？"
                    "请以张量返回 x·sigmoid(x)。",
                ),
            )
            return _stop(v)
        if not v.require(
            close(y, point / (1 + np.exp(-point)), rtol=1e-7, atol=1e-10),
            say(
                "forward does not give x·sigmoid(x) on the check's inputs.",
                "在检查用的输入上，forward 的结果不是 x·sigmoid(x)。",
            ),
        ):
            return _stop(v)
        stashed = _stashed(y.grad_fn)
        if stashed:
            v.require(
                False,
                say(
                    f"you kept tensors on ctx as attributes ({', '.join(stashed)}): save them "
                    "with `ctx.save_for_backward(x)`, which the version counter and the "
                    "saved-tensor hooks of part 4 can see.",
                    f"你把张量作为属性留在了 ctx 上（{'、'.join(stashed)}）：请用 "
                    "`ctx.save_for_backward(x)` 保存，这样版本计数器和第 4 部分的保存张量钩子才"
                    "看得到它们。",
                ),
            )
            return _stop(v)
        kept = outsourced.kept_nodes(y.grad_fn, _OWN)
        if kept:
            v.require(False, outsourced.kept_message(kept))
            return _stop(v)
        g_out = mg.tensor(np.linspace(0.5, 1.5, point.size).reshape(point.shape))
        with _watched_backward(cls) as seen:
            try:
                (g,) = mg.autograd.grad(y, x, g_out)
            except Exception as err:  # the learner's code
                v.require(False, _backward_error(err, "x alone", "这里只有 x"))
                return _stop(v)
        words = outsourced.message(seen["found"], _SILU_FORMULA)
        if words is not None:
            v.require(False, words)
            return _stop(v)
        if seen["forward"] or seen["builtin"]:
            v.require(
                False,
                say(
                    "your backward runs the forward again (SiLU's own forward or "
                    "mg.nn.functional.silu): that is numerical differentiation, or the library "
                    "doing the work. Write the derivative σ(x)·(1 + x·(1 − σ(x))) instead.",
                    "你的 backward 又运行了一遍前向（SiLU 自己的 forward 或 "
                    "mg.nn.functional.silu）：这是数值求导，或者让库替你干活。请写出导数 "
                    "σ(x)·(1 + x·(1 − σ(x)))。",
                ),
            )
            return _stop(v)
        want = _silu_grad(point) * g_out.numpy()
        got = g.detach().numpy() if isinstance(g, mg.Tensor) else None
        if got is None or got.shape != want.shape:
            v.require(
                False,
                say(
                    "backward should return one tensor of x's shape.",
                    "backward 应当返回一个形状与 x 相同的张量。",
                ),
            )
            return _stop(v)
        if np.allclose(got, _silu_grad(point), rtol=1e-6):
            why = say(": multiply by grad_out (the chain rule).", "：要乘以 grad_out（链式法则）。")
        elif np.allclose(got, g_out.numpy() / (1 + np.exp(-point)), rtol=1e-6):
            why = say(
                ": that is σ(x) alone; the product rule adds x·σ(x)·(1 − σ(x)).",
                "：这只是 σ(x)；乘积法则还要加上 x·σ(x)·(1 − σ(x))。",
            )
        else:
            why = say(".", "。")
        if not np.allclose(got, want, rtol=1e-6, atol=1e-9):
            v.require(
                False,
                say(
                    f"gradcheck disagrees with your backward (x = {np.round(point, 2).tolist()})",
                    f"gradcheck 与你的 backward 不一致（x = {np.round(point, 2).tolist()}）",
                )
                + why,
            )
            return _stop(v)
        if not np.allclose(got, want, rtol=1e-12, atol=1e-15):
            v.require(
                False,
                say(
                    "your backward is close to the derivative but not exact (off by "
                    f"{np.max(np.abs(got - want) / (np.abs(want) + 1e-300)):.0e} relative in "
                    "float64, where the formula is exact to rounding, about 1e-16): a difference "
                    "quotient (f(x + h) − f(x − h)) / 2h. Write the derivative itself.",
                    "你的 backward 接近导数，但不精确（float64 下相对误差 "
                    f"{np.max(np.abs(got - want) / (np.abs(want) + 1e-300)):.0e}，而导数公式只有"
                    "约 1e-16 的舍入误差）：这是差商 (f(x + h) − f(x − h)) / 2h。请写出导数本身。",
                ),
            )
            return _stop(v)
        inputs = (mg.tensor(point, requires_grad=True),)
        with _watched_backward(cls):
            try:
                first = mg.autograd.gradcheck(cls.apply, inputs, raise_exception=False)
                second = first and mg.autograd.gradgradcheck(
                    cls.apply, inputs, raise_exception=False
                )
            except Exception:  # the learner's backward under create_graph
                second = False
        if not v.require(
            first,
            say(
                "mg.autograd.gradcheck fails on the check's inputs.",
                "mg.autograd.gradcheck 在检查用的输入上没有通过。",
            ),
        ):
            return _stop(v)
        if not second and any(t is not x and t is not y for t in packed):
            v.require(
                False,
                say(
                    "gradcheck passes but gradgradcheck fails: you saved a tensor computed inside "
                    "forward (such as sigmoid(x)). forward runs without a graph, so to the second "
                    "derivative that tensor is a constant. Save only x (or the output) and "
                    "recompute sigmoid(x) in backward.",
                    "gradcheck 通过了，gradgradcheck 却没有：你保存了一个在 forward 里算出来的张量"
                    "（比如 sigmoid(x)）。forward 运行时不建计算图，所以对二阶导数来说它是个常数。"
                    "只保存 x（或者输出），在 backward 里重新算 sigmoid(x)。",
                ),
            )
            return _stop(v)
        if not v.require(
            second,
            say(
                "gradcheck passes but gradgradcheck fails: your backward cannot be differentiated "
                "again (numpy, real torch, `.detach()`, a float copy, or a difference quotient "
                "whose rounding noise the second check sees). Build the derivative from minigrad "
                "operations on the saved x, so the gradient penalty of part 3 can go through it.",
                "gradcheck 通过了，gradgradcheck 却没有：你的 backward 没法再求导（里面用了 "
                "numpy、真正的 torch、`.detach()`、转成了 float，或者用了差商，"
                "它的舍入噪声在二阶检查里暴露出来）。请用 minigrad 的运算在保存的 x 上写出导数，"
                "这样第 3 部分的梯度惩罚才能穿过它。",
            ),
        ):
            return _stop(v)
    point32 = np.array([-7.5, -3.0, -0.4, 0.3, 2.0, 6.5], dtype=np.float32)
    x = mg.tensor(point32, requires_grad=True)
    cls.apply(x).sum().backward()
    got = x.grad.detach().numpy() if x.grad is not None else None
    v.require(
        got is not None and np.allclose(got, _silu_grad(point32.astype(float)), rtol=2e-6),
        say(
            "in float32 your backward is off by more than rounding: a difference quotient "
            "(f(x + h) − f(x − h)) / 2h is exact only in float64 with the right h. Write the "
            "derivative itself.",
            "在 float32 下你的 backward 的误差超出了舍入误差：差商 (f(x + h) − f(x − h)) / 2h "
            "只有在 float64 且 h 合适时才准。请写出导数本身。",
        ),
    )
    v.done(
        say(
            "forward and backward agree with gradcheck and gradgradcheck on inputs you never saw, "
            "in float64 and float32, and backward computes the derivative itself.",
            "在你没见过的输入上，forward 和 backward 通过了 gradcheck 和 gradgradcheck，float64 和 "
            "float32 都对，而且 backward 是自己算出导数的。",
        )
    )


# --- part 3: the gradient penalty -----------------------------------------------------------------


class _Eighths(mg.autograd.Function):
    """Rounds to eighths, with the straight-through derivative 1: finite differences see the
    flat steps (slope 0), autograd uses 1. Its backward is recorded under create_graph."""

    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        return (x * 8).round() / 8

    @staticmethod
    def backward(ctx: Any, grad: Any) -> Any:
        return grad * 1


class _PenaltyModel(mg.nn.Module):
    """The check's model: straight-through rounding, then Linear-Tanh-Linear; counts forwards."""

    def __init__(self) -> None:
        super().__init__()
        mg.manual_seed(1733)
        self.net = mg.nn.Sequential(mg.nn.Linear(5, 6), mg.nn.Tanh(), mg.nn.Linear(6, 3))
        self.forwards = 0

    def forward(self, x: Any) -> Any:
        self.forwards += 1
        return self.net(_Eighths.apply(x))


def _penalty_data() -> tuple[mg.Tensor, mg.Tensor]:
    gen = np.random.default_rng(1733)
    return mg.tensor(gen.normal(size=(9, 5)).astype(np.float32)), mg.tensor([0, 1, 2] * 3)


WEIGHT = 0.37


def _penalty_reference(kind: str = "right") -> tuple[float, list[np.ndarray]]:
    model = _PenaltyModel()
    x, y = _penalty_data()
    x = x.requires_grad_()
    loss = mg.nn.functional.cross_entropy(model(x), y)
    if kind == "params":
        grads = mg.autograd.grad(loss, list(model.parameters()), create_graph=True)
        penalty = sum(g.pow(2).sum() for g in grads)
    else:
        (g,) = mg.autograd.grad(loss, x, create_graph=True)
        penalty = g.pow(2).sum()
        if kind == "norm":
            penalty = penalty.sqrt()
    total = loss + (1.0 if kind == "unweighted" else WEIGHT) * penalty
    if kind == "loss":
        total = loss
    total.backward()
    return total.item(), [p.grad.numpy().copy() for p in model.parameters()]


def _penalty_error(err: Exception) -> str:
    msg = str(err)
    if "does not require grad" in msg:
        return say(
            f"penalized_loss raised RuntimeError ({msg}): autograd.grad can only differentiate "
            "with respect to a tensor that requires grad. Run the model on "
            "`x = x.detach().requires_grad_()`.",
            f"penalized_loss 抛出了 RuntimeError（{msg}）：autograd.grad 只能对需要梯度的张量"
            "求导。请在 `x = x.detach().requires_grad_()` 上运行模型。",
        )
    if "One of the differentiated Tensors appears to not have been used" in msg:
        return say(
            f"penalized_loss raised RuntimeError ({msg}): differentiate the loss with respect "
            "to the very x the model ran on.",
            f"penalized_loss 抛出了 RuntimeError（{msg}）：要对模型实际用到的那个 x 求导。",
        )
    return say(
        f"penalized_loss raised {type(err).__name__}: {msg}",
        f"penalized_loss 抛出了 {type(err).__name__}：{msg}",
    )


def check_penalty(penalized_loss: Any) -> None:
    """`penalized_loss(model, loss_fn, x, y, weight)` = loss + weight·‖∂loss/∂x‖², built by a
    create_graph pass whose nodes the total's own backward then runs through."""
    v = Verdict(PENALTY)
    if not v.answered(penalized_loss, "penalized_loss"):
        return _stop(v)
    model = _PenaltyModel()
    x, y = _penalty_data()
    with record_steps() as inside:
        try:
            total = penalized_loss(model, mg.nn.CrossEntropyLoss(), x, y, WEIGHT)
        except Exception as err:  # the learner's code
            v.require(False, _penalty_error(err))
            return _stop(v)
    if total is None:
        v.require(
            False,
            say(
                "penalized_loss returned None: is its body still `...`, or is the `return` "
                "missing?",
                "penalized_loss 返回了 None：函数体是不是还是 `...`，或者漏了 `return`？",
            ),
        )
        return _stop(v)
    if not isinstance(total, mg.Tensor) or total.numel() != 1:
        v.require(
            False,
            say(
                f"return the total loss as a one-element tensor (the training loop calls "
                f"backward on it), got {type(total).__name__}.",
                f"请把总损失作为只有一个元素的张量返回（训练循环要对它调用 backward），你返回的是 "
                f"{type(total).__name__}。",
            ),
        )
        return _stop(v)
    if model.forwards > 2:
        v.require(
            False,
            say(
                f"the model ran {model.forwards} times: that is finite differences (one forward "
                "per nudged input). One forward, then autograd.grad with create_graph=True.",
                f"模型运行了 {model.forwards} 次：这是有限差分（每挪动一次输入就跑一遍前向）。"
                "应当只跑一次前向，再用 create_graph=True 调用 autograd.grad。",
            ),
        )
        return _stop(v)
    starts = [r for r in inside.records if r["kind"] == "backward_start"]
    if any(p.grad is not None for p in model.parameters()):
        v.require(
            False,
            say(
                "the parameters already have a `.grad` before the training loop's backward: "
                "`loss.backward(create_graph=True)` writes them too, and the loop's backward then "
                "adds to them. Take only the input's gradient with "
                "`mg.autograd.grad(loss, x, create_graph=True)`.",
                "在训练循环调用 backward 之前，参数就已经有 `.grad` 了："
                "`loss.backward(create_graph=True)` 把它们也写上了，循环里的 backward 又会往上加。"
                "请用 `mg.autograd.grad(loss, x, create_graph=True)` 只取输入的梯度。",
            ),
        )
        return _stop(v)
    if not starts:
        v.require(
            False,
            say(
                "no backward pass ran inside penalized_loss: the gradient with respect to the "
                "input must come from autograd (`mg.autograd.grad(loss, x, create_graph=True)`), "
                "not from a formula or finite differences.",
                "penalized_loss 里没有运行任何反向传播：对输入的梯度必须来自 autograd"
                "（`mg.autograd.grad(loss, x, create_graph=True)`），而不是公式或有限差分。",
            ),
        )
        return _stop(v)
    second_order: set[int] = set()
    depth = 0
    for r in inside.records:
        if r["kind"] == "backward_start":
            depth += 1 if r["create_graph"] else 0
        elif r["kind"] == "backward_end" and depth:
            depth -= 1
        elif r["kind"] == "node_created" and depth:
            second_order.add(id(r["node"]))
    with record_steps() as outside:
        try:
            total.backward()
        except Exception as err:  # e.g. a total without a graph
            v.require(False, _penalty_error(err))
            return _stop(v)
    ran = {id(r["node"]) for r in outside.records if r["kind"] == "node_start"}
    got_value = total.item()
    want_value, want_grads = _penalty_reference()
    grads = [p.grad.numpy() if p.grad is not None else None for p in model.parameters()]
    same_grads = all(
        g is not None and np.allclose(g, w, rtol=1e-4, atol=1e-6)
        for g, w in zip(grads, want_grads, strict=True)
    )
    if not (second_order & ran):
        if not any(r["create_graph"] for r in starts):
            v.require(
                False,
                say(
                    "autograd.grad ran without create_graph=True: the input gradient came back as "
                    "plain numbers, so the penalty is a constant and adds nothing to the "
                    "parameters' gradient. Pass create_graph=True.",
                    "autograd.grad 运行时没有 create_graph=True：输入梯度成了普通的数，惩罚项就是"
                    "一个常数，对参数的梯度没有任何贡献。请传入 create_graph=True。",
                ),
            )
        else:
            v.require(
                False,
                say(
                    "the graph that create_graph built is not in the total's backward: the "
                    "penalty was detached (`.detach()`, `.item()`, numpy), so its gradient "
                    "contribution is zero. Add the penalty tensor itself to the loss.",
                    "create_graph 建出来的那张图不在总损失的 backward 里：惩罚项被断开了"
                    "（`.detach()`、`.item()`、numpy），它对梯度的贡献是零。请把惩罚项张量本身加到"
                    "损失上。",
                ),
            )
        return _stop(v)
    if close(got_value, want_value, rtol=1e-4) and same_grads and model.forwards == 1:
        v.done(
            say(
                "one forward, a create_graph pass for ∂loss/∂x, and the total's backward runs "
                "through that second-order graph: the parameters' gradients include the "
                "penalty's.",
                "一次前向，一次 create_graph 的反向求出 ∂loss/∂x，总损失的 backward 再穿过这张二阶"
                "图：参数的梯度里包含了惩罚项的贡献。",
            )
        )
        return
    if close(got_value, want_value, rtol=1e-4) and same_grads:
        # a second forward for the gradient (func.grad, or the loss computed twice): the same
        # penalty, differentiable with respect to the parameters, so right; the words say so
        v.done(
            say(
                "the penalty's ∂loss/∂x came from a second forward of the model (func.grad, or "
                "the loss computed again) with its own create_graph pass, and the total's "
                "backward runs through that second-order graph: the parameters' gradients "
                "include the penalty's. Right; `mg.autograd.grad(loss, x, create_graph=True)` on "
                "the loss you already have saves that second forward.",
                "惩罚项里的 ∂loss/∂x 来自模型的第二次前向（func.grad，或者把损失又算了一遍）和它"
                "自己的 create_graph 反向，总损失的 backward 再穿过这张二阶图：参数的梯度里包含了"
                "惩罚项的贡献。这是对的；直接对已经算好的损失调用 "
                "`mg.autograd.grad(loss, x, create_graph=True)`，可以省掉第二次前向。",
            )
        )
        return
    slips = {
        "norm": say(
            "the penalty is the norm, not its square: use `g.pow(2).sum()`",
            "惩罚项用的是范数而不是它的平方：请用 `g.pow(2).sum()`",
        ),
        "unweighted": say("the penalty is not multiplied by weight", "惩罚项没有乘以 weight"),
        "params": say(
            "that is the gradient with respect to the parameters; the penalty uses the gradient "
            "with respect to the input x",
            "这是对参数的梯度；惩罚项要用的是对输入 x 的梯度",
        ),
    }
    for kind, words in slips.items():
        if close(got_value, _penalty_reference(kind)[0], rtol=1e-4):
            v.require(False, words + say(".", "。"))
            return _stop(v)
    if model.forwards == 2 or close(got_value, _penalty_reference("loss")[0], rtol=1e-4):
        v.require(
            False,
            say(
                f"the total is {got_value:.5f}, expected {want_value:.5f}: a gradient from finite "
                "differences or a second copy of the loss does not match autograd's (the check's "
                "model has a step whose numerical slope is not its derivative).",
                f"总损失是 {got_value:.5f}，应当是 {want_value:.5f}：有限差分得到的梯度，或者再算"
                "一份损失，都和 autograd 的结果对不上（检查用的模型里有一步，它的数值斜率并不是它"
                "的导数）。",
            ),
        )
        return _stop(v)
    v.require(
        False,
        say(
            f"the total is {got_value:.5f}, expected {want_value:.5f} = loss + weight · "
            "(squared norm of ∂loss/∂x).",
            f"总损失是 {got_value:.5f}，应当是 {want_value:.5f} = loss + weight ·"
            "（∂loss/∂x 的平方范数）。",
        ),
    )
    _stop(v)


# --- part 4: checkpointed blocks under a memory budget -------------------------------------------


class _Counted(mg.nn.Module):
    """A residual MLP block that counts its forwards (recomputation shows as a second run)."""

    def __init__(self, width: int, inner: int) -> None:
        super().__init__()
        self.up, self.down = mg.nn.Linear(width, inner), mg.nn.Linear(inner, width)
        self.runs = 0

    def forward(self, h: Any) -> Any:
        self.runs += 1
        return h + self.down(mg.nn.functional.silu(self.up(h)))


def _check_blocks() -> mg.nn.ModuleList:
    mg.manual_seed(1744)
    return mg.nn.ModuleList([_Counted(12, 48) for _ in range(5)])


def _check_input() -> mg.Tensor:
    gen = np.random.default_rng(1744)
    return mg.tensor(gen.normal(size=(20, 12)).astype(np.float32))


@contextmanager
def _passes() -> Iterator[list[int]]:
    """Count the backward passes that begin inside the block, keeping no records (a record holds
    its nodes, and so their saved tensors, alive: it would distort the meter)."""
    count = [0]

    def listen(record: Any) -> None:
        if record["kind"] == "backward_start":
            count[0] += 1

    LISTENERS.append(listen)
    try:
        yield count
    finally:
        LISTENERS.remove(listen)


def measure(run_blocks: Callable[..., Any], blocks: Any, x: Any) -> dict[str, Any]:
    """Run `run_blocks(blocks, x)`, then backward of the mean square of its output, under the
    saved-bytes meter: the peak bytes held, the output, and the backward passes inside."""
    error = None
    with (
        warnings.catch_warnings(record=True) as warned,
        SavedBytes() as mem,
        _passes() as passes,
        _own_hooks_opened(mem) as opened,
    ):
        warnings.simplefilter("always")
        out = run_blocks(blocks, x)
        inside = passes[0]
        after_forward = mem.held
        if isinstance(out, mg.Tensor) and out.requires_grad:
            try:
                out.pow(2).mean().backward()
            except Exception as err:  # e.g. the learner's own unpack hook
                error = err
    return {
        "out": out,
        "peak": mem.peak,
        "after_forward": after_forward,
        "inside": inside,
        "own_hooks": len(opened),
        "error": error,
        "no_input_grad": any(
            "None of the inputs have requires_grad" in str(w.message) for w in warned
        ),
    }


def _plain(blocks: Any, h: Any) -> Any:
    for block in blocks:
        h = block(h)
    return h


def _budget() -> tuple[int, int]:
    """The plain peak, and the budget: a third of it."""
    plain = measure(_plain, _check_blocks(), _check_input())["peak"]
    return plain, plain // 3


def check_checkpointed(run_blocks: Any) -> None:
    """`run_blocks(blocks, x)`: the same output and gradients as running the blocks plainly, with
    the peak of saved bytes (forward and backward) under a third of the plain peak."""
    v = Verdict(BLOCKS)
    if not v.answered(run_blocks, "run_blocks"):
        return _stop(v)
    blocks, x = _check_blocks(), _check_input()
    try:
        got = measure(run_blocks, blocks, x)
    except Exception as err:  # the learner's code
        v.require(
            False,
            say(
                f"run_blocks raised {type(err).__name__}: {err}",
                f"run_blocks 抛出了 {type(err).__name__}：{err}",
            ),
        )
        return _stop(v)
    out = got["out"]
    if out is None:
        v.require(
            False,
            say(
                "run_blocks returned None: is its body still `...`, or is the `return` missing?",
                "run_blocks 返回了 None：函数体是不是还是 `...`，或者漏了 `return`？",
            ),
        )
        return _stop(v)
    ref_blocks = _check_blocks()
    want = _plain(ref_blocks, _check_input())
    want.pow(2).mean().backward()
    plain_peak, budget = _budget()
    if got["own_hooks"]:
        v.require(
            False,
            say(
                "run_blocks opens saved-tensor hooks of its own: they take the saved tensors "
                "before the meter sees them (and offloading or compressing is not "
                "checkpointing). Use `checkpoint(block, h, use_reentrant=False)`.",
                "run_blocks 自己打开了保存张量的钩子：它们在计量器看到之前就拿走了保存的张量"
                "（而且转存或压缩也不是检查点）。"
                "请用 `checkpoint(block, h, use_reentrant=False)`。",
            ),
        )
        return _stop(v)
    if not isinstance(out, mg.Tensor) or not close(out, want, rtol=1e-5, atol=1e-6):
        loosely = isinstance(out, mg.Tensor) and close(out, want, rtol=1e-2, atol=1e-3)
        v.require(
            False,
            say(
                "the output is off by more than rounding: a lower precision (such as `.half()`) "
                "changes the training result; checkpointing keeps it exactly."
                if loosely
                else "run_blocks should return the last block's output, the same tensor values "
                "as running every block one after another.",
                "输出的误差超出了舍入误差：降低精度（比如 `.half()`）会改变训练结果；检查点则能"
                "让结果完全不变。"
                if loosely
                else "run_blocks 应当返回最后一个块的输出，数值与依次运行全部块完全相同。",
            ),
        )
        return _stop(v)
    if got["error"] is not None:
        v.require(
            False,
            say(
                f"backward through your output raised {type(got['error']).__name__}: "
                f"{got['error']}",
                f"对你的输出做 backward 时抛出了 {type(got['error']).__name__}：{got['error']}",
            ),
        )
        return _stop(v)
    if got["inside"]:
        v.require(
            False,
            say(
                "run_blocks runs a backward pass itself: return the output and let the training "
                "step call backward once.",
                "run_blocks 自己运行了反向传播：只返回输出，让训练的那一步去调用一次 backward。",
            ),
        )
        return _stop(v)
    if not out.requires_grad and got["no_input_grad"]:
        v.require(
            False,
            say(
                "the output has no graph: with use_reentrant=True (also what you get, with a "
                "warning, when you leave use_reentrant out) and an input that does not require "
                "grad, the reentrant checkpoint runs the block under no_grad and its output "
                "cannot reach the parameters inside (PyTorch warns the same). Pass "
                "use_reentrant=False.",
                "输出没有计算图：用 use_reentrant=True（不写 use_reentrant 时也是它，外加一条警告）"
                "而且输入不需要梯度时，可重入的检查点在 no_grad 下运行这个块，它的输出连不回块里"
                "的参数（PyTorch 也会给出同样的警告）。请显式传入 use_reentrant=False。",
            ),
        )
        return _stop(v)
    if not out.requires_grad:
        v.require(
            False,
            say(
                "the output has no graph: under `no_grad()` (or detached) nothing is saved, but "
                "nothing can be trained either. Checkpointing keeps the graph and recomputes.",
                "输出没有计算图：在 `no_grad()` 下（或 detach 之后）确实什么都不保存，但也就什么都"
                "训练不了。检查点会保留计算图，靠重算补回激活值。",
            ),
        )
        return _stop(v)
    missing = [i for i, b in enumerate(blocks) if any(p.grad is None for p in b.parameters())]
    if missing:
        v.require(
            False,
            say(
                f"blocks {missing} got no gradient: the graph was cut between blocks "
                "(`.detach()`, `no_grad()`, or a reentrant checkpoint on an input that does not "
                "require grad). Use `checkpoint(block, h, use_reentrant=False)` and nothing else.",
                f"第 {missing} 个块没有得到梯度：计算图在块与块之间被切断了（`.detach()`、"
                "`no_grad()`，或者对不需要梯度的输入用了可重入的检查点）。只用 "
                "`checkpoint(block, h, use_reentrant=False)` 就好。",
            ),
        )
        return _stop(v)
    same = all(
        np.allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-4, atol=1e-7)
        for p, q in zip(blocks.parameters(), ref_blocks.parameters(), strict=True)
    )
    if not v.require(
        same,
        say(
            "the gradients differ from those of the plain forward: checkpointing must give the "
            "same training result (no lower precision, no skipped block).",
            "梯度与普通前向得到的不一样：检查点必须给出相同的训练结果（不降低精度，也不跳过块）。",
        ),
    ):
        return _stop(v)
    runs = [b.runs for b in blocks]
    peak = got["peak"]
    if peak > budget:
        if all(r == 1 for r in runs):
            words = say(
                "each block ran once, so nothing was recomputed: every activation stayed saved.",
                "每个块只运行了一次，没有任何重算：所有激活值都一直保存着。",
            )
        elif got["after_forward"] < budget:
            words = say(
                "little was held after the forward, but the peak came during backward: one "
                "checkpoint around many blocks recomputes all their activations at once. "
                "Checkpoint each block separately.",
                "前向之后保存的不多，但峰值出现在反向传播时：一个检查点包住很多块，重算时会一次性"
                "重建它们全部的激活值。请给每个块单独做检查点。",
            )
        else:
            words = say(
                "checkpoint more of the blocks (each one separately).",
                "给更多的块做检查点（每个块单独做）。",
            )
        v.require(
            False,
            say(
                f"the peak of saved bytes is {peak:,}, over the budget of {budget:,} (plain: "
                f"{plain_peak:,}): ",
                f"保存张量的峰值是 {peak:,} 字节，超出了预算 {budget:,}（不用检查点时是 "
                f"{plain_peak:,}）：",
            )
            + words,
        )
        return _stop(v)
    if sum(runs) == len(runs):
        v.require(
            False,
            say(
                f"the meter saw a peak of only {peak:,} bytes, yet each block ran once: nothing "
                "was recomputed, so the activations were kept where the meter could not see them "
                "(hooks of your own, or saving switched off). Checkpointing pays for the memory "
                "with a second forward of each block in backward: use "
                "`checkpoint(block, h, use_reentrant=False)`.",
                f"计量器看到的峰值只有 {peak:,} 字节，可每个块都只运行了一次：没有任何重算，"
                "所以激活值被存在了计量器看不到的地方（你自己的钩子，或者关掉了保存）。检查点是"
                "用反向传播时每个块再跑一遍前向来换内存的：请用 "
                "`checkpoint(block, h, use_reentrant=False)`。",
            ),
        )
        return _stop(v)
    v.done(
        say(
            f"peak {peak:,} bytes ≤ budget {budget:,} (plain {plain_peak:,}), the same gradients, "
            f"paid for with {sum(runs) - len(runs)} recomputed block forwards.",
            f"峰值 {peak:,} 字节 ≤ 预算 {budget:,}（不用检查点时 {plain_peak:,}），梯度相同，代价是"
            f"多跑了 {sum(runs) - len(runs)} 次块的前向。",
        )
    )
