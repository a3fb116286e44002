"""Checks for lesson 15 (memory): a saved-bytes counter and freezing a layer for fine-tuning.

Both checks build fresh models of their own, so nothing copied from an earlier cell can pass, and
both look at the method. The counter must be a pack/unpack pair that the forward really goes
through: the check wraps the call in an outer pair of its own, which sees nothing when the
learner's pair is the innermost one, and then backpropagates through the learner's unpack hook.
Last, on a model that saves int64 indices and a bool mask, every pack call is watched and the
learner's pack is handed one extra tensor of the check's own: the total must be the bytes that
went through that pack, so a total read off the graph, or one dtype's size for every tensor,
is named.
Freezing must switch `requires_grad` itself: a gradient stopped by `no_grad()`, `.data` or
`detach()` leaves the flag True, and the check names that trick.
"""

from __future__ import annotations

import gc
import numbers
import weakref
from collections.abc import Callable
from typing import Any

import minigrad as mg
from minigrad.core.saved import SavedTensor

from .demo import verdict_or_demo
from .feedback import Verdict, verdict
from .hints import register
from .language import say

register(
    "15",
    "Saved-bytes counter",
    "Open a `with mg.autograd.graph.saved_tensors_hooks(pack, unpack):` block and run "
    "`model(x)` inside it: every tensor the forward saves is handed to `pack`.",
    "`pack(t)` adds `t.numel() * t.dtype.itemsize` to a running total and returns "
    "`t.detach()`; `unpack` gives back what `pack` returned. A bare `total += ...` inside "
    "`pack` needs `nonlocal total` (or keep the total in a one-element list).",
    "Start the total at 0 inside `count_saved_bytes`, so that each call counts only its own "
    "forward, and return the pair `(out, total)` after the `with` block.",
    zh_title="统计保存的字节数",
    zh=(
        "打开一个 `with mg.autograd.graph.saved_tensors_hooks(pack, unpack):` 块，在块内运行 "
        "`model(x)`：前向传播保存的每个张量都会交给 `pack`。",
        "`pack(t)` 把 `t.numel() * t.dtype.itemsize` 累加到一个总数上，并返回 `t.detach()`；"
        "`unpack` 原样交还 `pack` 返回的东西。在 `pack` 里直接写 `total += ...` 需要先声明 "
        "`nonlocal total`（或者把总数放进只有一个元素的列表里）。",
        "在 `count_saved_bytes` 内部把总数初始化为 0，这样每次调用只统计它自己那次前向传播；"
        "在 `with` 块之后返回 `(out, total)` 这一对值。",
    ),
)
register(
    "15",
    "Freeze the first layer",
    "Freezing is a flag on each parameter: a parameter with requires_grad=False is a constant "
    "to autograd, so nothing is recorded for it and it never gets a .grad.",
    "`model[0]` is the first layer, and a module's `requires_grad_(False)` switches the flag of "
    "all its parameters (weight and bias) at once. Leave the other layers as they are.",
    "One call does it: requires_grad_(False) on model[0]. Not `no_grad()`, `.data`, "
    "`detach()` or `eval()`: those leave requires_grad=True on the parameters.",
    zh_title="冻结第一层",
    zh=(
        "冻结是每个参数上的一个标志：requires_grad=False 的参数对 autograd 来说就是常量，"
        "不会为它记录任何东西，它也永远不会得到 .grad。",
        "`model[0]` 就是第一层；模块的 `requires_grad_(False)` 会一次性切换它所有参数"
        "（weight 和 bias）的标志。其余各层保持原样。",
        "一次调用就够了：对 model[0] 调用 requires_grad_(False)。不要用 `no_grad()`、`.data`、"
        "`detach()` 或 `eval()`：它们都会让参数的 requires_grad 仍为 True。",
    ),
)


def _stop(v: Verdict) -> None:
    """Print what is wrong so far and end the check (later steps depend on this one)."""
    v.done("")


def _nbytes(t: Any) -> int:
    return t.numel() * t.dtype.itemsize


def _identity(t: Any) -> Any:
    return t


# --- exercise 1: a pack/unpack pair that counts bytes --------------------------------------------
def _counter_model(dtype: Any, rows: int = 9) -> tuple[mg.nn.Module, mg.Tensor]:
    """A model the learner has not seen: ReLU's and Tanh's outputs are each saved twice."""
    mg.manual_seed(16)
    model = mg.nn.Sequential(
        mg.nn.Linear(5, 12), mg.nn.ReLU(), mg.nn.Linear(12, 12), mg.nn.Tanh(), mg.nn.Linear(12, 2)
    ).to(dtype)
    return model, mg.randn(rows, 5, dtype=dtype)


def _reference(dtype: Any) -> dict[str, Any]:
    """What the check's own pack sees for its model, and the sums a wrong count may have made."""
    model, x = _counter_model(dtype)
    kept: list[mg.Tensor] = []

    def pack(t: mg.Tensor) -> mg.Tensor:
        kept.append(t)
        return t

    with mg.autograd.graph.saved_tensors_hooks(pack, _identity):
        out = model(x)
    out.pow(2).sum().backward()
    unique = {id(t): t for t in kept}  # all alive (kept), so their ids are distinct
    return {
        "bytes": sum(_nbytes(t) for t in kept),
        "elements": sum(t.numel() for t in kept),
        "count": len(kept),
        "unique": sum(_nbytes(t) for t in unique.values()),
        "needing_grad": sum(_nbytes(t) for t in kept if t.requires_grad),
        "params": sum(_nbytes(p) for p in model.parameters()),
        "grads": [p.grad for p in model.parameters()],
    }


def _run_counter(count: Callable, dtype: Any, rows: int = 9) -> tuple[Any, int, mg.nn.Module]:
    """The learner's result, and how many saved tensors the check's OUTER pair saw."""
    model, x = _counter_model(dtype, rows)
    outer: list[mg.Tensor] = []

    def outer_pack(t: mg.Tensor) -> mg.Tensor:
        outer.append(t)
        return t

    with mg.autograd.graph.saved_tensors_hooks(outer_pack, _identity):
        result = count(model, x)
    return result, len(outer), model


def _keeps_the_tensor(count: Callable) -> bool:
    """Does the learner's pack keep the tensor itself? ReLU's and Tanh's outputs are saved by
    their own nodes: holding one closes a loop (tensor -> grad_fn -> saved -> tensor), so the
    output outlives the dropped graph until the cycle collector runs (in PyTorch: for good)."""
    model, x = _counter_model(mg.float32)
    outputs: list[weakref.ref] = []
    for layer in model:
        if isinstance(layer, (mg.nn.ReLU, mg.nn.Tanh)):
            layer.register_forward_hook(lambda m, i, out: outputs.append(weakref.ref(out)))
    collecting = gc.isenabled()
    gc.disable()  # only reference counting frees the graph from here on
    try:
        count(model, x)  # the result is dropped at once: the graph should go with it
        return any(ref() is not None for ref in outputs)
    finally:
        if collecting:
            gc.enable()


class _Lookup(mg.nn.Module):
    """Embedding, a `where` keeping h or tanh(h), Linear: the forward saves int64 indices
    (8 bytes each), a bool mask (1 byte) and float32 tensors (4), as PyTorch's does."""

    def __init__(self) -> None:
        super().__init__()
        self.emb, self.lin = mg.nn.Embedding(10, 6), mg.nn.Linear(6, 3)

    def forward(self, idx: mg.Tensor) -> mg.Tensor:
        h = self.emb(idx)
        return self.lin(mg.where(h > 0, h, h.tanh()))  # (no Python number: none is packed)


# one tensor of the check's own, handed to the learner's pack before the forward's: a total
# added up in pack grows by its bytes, a total read off the graph afterwards does not
_DECOY_SHAPE = (5, 7)


def _through_your_pack(count: Callable) -> tuple[Any, list[mg.Tensor], bool]:
    """count(model, x) on a model saving int64, bool and float32 tensors, with every call to a
    pack hook watched: the learner's result, the tensors handed to their pack (the check's own
    bool mask first), and whether a pack hook ran at all."""
    mg.manual_seed(15)
    model, x = _Lookup(), mg.tensor([1, 4, 4, 7, 0, 9, 2])
    handed: list[mg.Tensor] = []
    original = SavedTensor._pack

    def watched(self: SavedTensor, tensor: mg.Tensor, pack: Callable, unpack: Callable) -> None:
        if not handed:
            decoy = mg.zeros(*_DECOY_SHAPE, dtype=mg.bool)
            handed.append(decoy)
            pack(decoy)
        handed.append(tensor)
        original(self, tensor, pack, unpack)

    SavedTensor._pack = watched  # only while the learner's function runs
    try:
        result = count(model, x)
    finally:
        SavedTensor._pack = original
    return result, handed, bool(handed)


def _mixed_problem(count: Callable) -> str | None:
    """None when the total is what went through the learner's pack (each tensor's own dtype);
    else what the total is instead."""
    try:
        (_, total), handed, packed = _through_your_pack(count)
    except Exception as err:  # the learner's code: report whatever it raised
        return _counter_error(
            err,
            say(
                "count_saved_bytes, on a model that saves int64 indices and a bool mask, ",
                "在一个会保存 int64 下标和布尔掩码的模型上调用 count_saved_bytes 时",
            ),
        )
    if not packed:
        return say(
            "on a model that saves int64 indices and a bool mask, no tensor went through a pack "
            "hook: run `model(x)` inside your `saved_tensors_hooks(pack, unpack)` block.",
            "在一个会保存 int64 下标和布尔掩码的模型上，没有任何张量经过 pack 钩子：请在你的 "
            "`saved_tensors_hooks(pack, unpack)` 块内运行 `model(x)`。",
        )
    want = sum(_nbytes(t) for t in handed)
    decoy = _nbytes(handed[0])
    if total == want:
        return None
    if total == want - decoy:
        return say(
            f"your total ({total}) did not come from your pack hook. The check handed your pack "
            f"one tensor of its own besides the forward's (a {_DECOY_SHAPE[0]}×{_DECOY_SHAPE[1]} "
            f"bool mask, {decoy} bytes), and your total did not grow by those {decoy} bytes: it "
            "was worked out some other way (read off the graph's saved tensors afterwards, "
            "say). The exercise is the hook: add `t.numel() * t.dtype.itemsize` in `pack`, for "
            "every tensor it receives.",
            f"你的 total（{total}）不是由你的 pack 钩子算出来的。检查程序除了前向传播的张量之外，"
            f"还交给你的 pack 一个它自己的张量（一个 {_DECOY_SHAPE[0]}×{_DECOY_SHAPE[1]} 的布尔"
            f"掩码，{decoy} 字节），而你的 total 并没有因此多出这 {decoy} 字节：它是用别的办法"
            "得出的（比如事后从计算图保存的张量里读出来）。本练习要的是钩子本身：在 `pack` 里"
            "对收到的每个张量累加 `t.numel() * t.dtype.itemsize`。",
        )
    elements = sum(t.numel() for t in handed)
    forward_only = elements - handed[0].numel()
    for size in (1, 2, 4, 8):
        if total not in (elements * size, forward_only * size):
            continue
        missed = total == forward_only * size
        return say(
            f"on a model that saves int64 indices (8 bytes each), a bool mask (1 byte) and "
            f"float32 tensors (4), your total is {total}: {size} bytes for every element. Each "
            f"tensor has its own dtype: use `t.dtype.itemsize` of the tensor pack receives "
            f"({want} bytes here)."
            + (
                f" Your total also left out a {decoy}-byte tensor the check handed your pack "
                "itself: add up in `pack`, for every tensor it receives."
                if missed
                else ""
            ),
            f"在一个会保存 int64 下标（每个 8 字节）、布尔掩码（1 字节）和 float32 张量（4 字节）"
            f"的模型上，你的 total 是 {total}：每个元素都按 {size} 字节算了。每个张量都有自己的 "
            f"dtype：请用 pack 收到的那个张量的 `t.dtype.itemsize`（这里共 {want} 字节）。"
            + (
                f"你的 total 还漏掉了检查程序亲手交给你的 pack 的一个 {decoy} 字节的张量："
                "请在 `pack` 里对收到的每个张量累加。"
                if missed
                else ""
            ),
        )
    return say(
        f"on a model that saves int64 indices, a bool mask and float32 tensors, your total is "
        f"{total}, but the tensors handed to your pack hook (the forward's, and one "
        f"{decoy}-byte bool mask of the check's own) hold {want} bytes: add "
        "`t.numel() * t.dtype.itemsize` in `pack` for each tensor it receives, with its own "
        "dtype, rather than working the total out elsewhere.",
        f"在一个会保存 int64 下标、布尔掩码和 float32 张量的模型上，你的 total 是 {total}，"
        f"但交给你的 pack 钩子的张量（前向传播的那些，加上检查程序自己的一个 {decoy} 字节的"
        f"布尔掩码）共有 {want} 字节：请在 `pack` 里对收到的每个张量按它自己的 dtype 累加 "
        "`t.numel() * t.dtype.itemsize`，而不是在别处推算总数。",
    )


def _counter_error(err: Exception, doing: str) -> str:
    """The usual reasons a counter raises, in words."""
    text = str(err)
    if isinstance(err, UnboundLocalError) or "referenced before assignment" in text:
        return say(
            f"{doing} raised {type(err).__name__} ({text}): `total += ...` inside `pack` makes "
            "`total` a new local name of `pack`. Declare `nonlocal total` at the top of `pack` "
            "(or keep the total in a one-element list and add to `total[0]`).",
            f"{doing}抛出了 {type(err).__name__}（{text}）：在 `pack` 里写 `total += ...` 会让 "
            "`total` 成为 `pack` 自己的一个新局部变量。请在 `pack` 开头声明 `nonlocal total`"
            "（或者把总数放进只有一个元素的列表里，累加到 `total[0]` 上）。",
        )
    if isinstance(err, AttributeError) and "has no attribute" in text:
        name = (
            text.rsplit("'", 2)[-2] if text.count("'") >= 2 else say("that attribute", "这个属性")
        )
        return say(
            f"{doing} raised AttributeError: minigrad tensors have no `{name}`. Use "
            "`t.numel() * t.dtype.itemsize`, which works in minigrad and in PyTorch.",
            f"{doing}抛出了 AttributeError：minigrad 的张量没有 `{name}`。请使用 "
            "`t.numel() * t.dtype.itemsize`，它在 minigrad 和 PyTorch 中都能用。",
        )
    if "numpy()" in text and "requires grad" in text:
        return say(
            f"{doing} raised {type(err).__name__}: `t.numpy()` refuses a tensor that requires "
            "grad (PyTorch too), and pack receives such tensors (ReLU's output, a weight). "
            "`t.detach().numpy().nbytes` counts right; `t.numel() * t.dtype.itemsize` does the "
            "same without asking for an array.",
            f"{doing}抛出了 {type(err).__name__}：`t.numpy()` 不接受需要梯度的张量（PyTorch "
            "也一样），而 pack 收到的就有这样的张量（ReLU 的输出、权重）。"
            "`t.detach().numpy().nbytes` 能数对；`t.numel() * t.dtype.itemsize` 结果相同，"
            "还不用去要一个数组。",
        )
    if "pack hook is modifying its input in place" in text:
        return say(
            f"{doing} raised: your pack hook changed the tensor in place. A pack hook only looks "
            "(and returns something to keep); it must leave its input alone.",
            f"{doing}抛出了错误：你的 pack 钩子原地修改了张量。pack 钩子只负责查看"
            "（并返回要保存的东西），不能改动它的输入。",
        )
    return say(
        f"{doing} raised {type(err).__name__}: {text}",
        f"{doing}抛出了 {type(err).__name__}：{text}",
    )


def _wrong_total(total: Any, ref: dict[str, Any]) -> str | None:
    """None when `total` is the byte count of every pack call; else what it looks like."""
    want = ref["bytes"]
    if total == want:
        return None
    if total == 0:
        return say(
            f"total is 0, although the forward saved {ref['count']} tensors: did `pack` add to "
            "the `total` of count_saved_bytes (`nonlocal total`), and did `model(x)` run inside "
            "the `with` block?",
            f"total 为 0，但前向传播保存了 {ref['count']} 个张量：`pack` 有没有累加到 "
            "count_saved_bytes 的 `total` 上（`nonlocal total`）？`model(x)` 是否在 `with` "
            "块内运行？",
        )
    if total == ref["elements"]:
        return say(
            f"total is {total}: that counts elements, not bytes. Multiply each `t.numel()` by "
            "`t.dtype.itemsize` (4 bytes for float32).",
            f"total 为 {total}：这统计的是元素个数，不是字节数。请把每个 `t.numel()` 乘以 "
            "`t.dtype.itemsize`（float32 为 4 字节）。",
        )
    if total == ref["count"]:
        return say(
            f"total is {total}: that is the number of saved tensors. Count their bytes: "
            "`t.numel() * t.dtype.itemsize` for each.",
            f"total 为 {total}：这是保存的张量的个数。要统计的是它们的字节数：对每个张量计算 "
            "`t.numel() * t.dtype.itemsize`。",
        )
    if total == ref["unique"]:
        return say(
            f"total is {total}: you counted each tensor once, but two nodes may save the same "
            "tensor (ReLU keeps its output, and the next Linear keeps it as its input): count "
            f"every call to pack ({want} bytes).",
            f"total 为 {total}：你把每个张量只算了一次，但两个节点可能保存同一个张量（ReLU "
            "保存自己的输出，下一个 Linear 又把它当作输入保存）：pack 的每一次调用都要算上"
            f"（共 {want} 字节）。",
        )
    if total == ref["params"]:
        return say(
            f"total is {total}: that is the size of the model's parameters, not what the forward "
            "saved. Count what `pack` receives.",
            f"total 为 {total}：这是模型参数的大小，不是前向传播保存的东西。请统计 `pack` "
            "收到的张量。",
        )
    if total == ref["needing_grad"]:
        return say(
            f"total is {total}: you left out saved tensors that do not require grad (the input "
            f"x). Every tensor handed to pack counts ({want} bytes).",
            f"total 为 {total}：你漏掉了不需要梯度的保存张量（输入 x）。交给 pack 的每个张量"
            f"都要算（共 {want} 字节）。",
        )
    if total == 2 * want:
        return say(
            f"total is {total}, twice the right count: did the forward run twice, or did pack "
            "add each size twice?",
            f"total 为 {total}，是正确值的两倍：是前向传播运行了两次，还是 pack 把每个大小"
            "加了两次？",
        )
    return say(
        f"total is {total}, but the forward saved {ref['count']} tensors of {want} bytes in all "
        "(t.numel() * t.dtype.itemsize for each tensor pack receives).",
        f"total 为 {total}，但前向传播保存了 {ref['count']} 个张量，共 {want} 字节（对 pack "
        "收到的每个张量计算 t.numel() * t.dtype.itemsize）。",
    )


def _unpack_error(err: Exception) -> str:
    text = str(err)
    if "unpack" in text.lower():
        return say(
            f"backpropagating through your model's output failed ({type(err).__name__}: {text}). "
            "`unpack` must give back the tensor `pack` received: keep `t.detach()` in what pack "
            "returns (not only its size), and return that tensor from unpack.",
            f"从模型的输出做反向传播失败了（{type(err).__name__}：{text}）。`unpack` 必须交还 "
            "`pack` 收到的张量：pack 返回的东西里要留着 `t.detach()`（而不只是它的大小），"
            "再由 unpack 返回这个张量。",
        )
    if "backward through the graph a second time" in text:
        return say(
            "backpropagating through your output failed: the graph was already freed. "
            "count_saved_bytes should only run the forward pass; leave backward to the caller.",
            "从你的输出做反向传播失败了：计算图已经被释放。count_saved_bytes 只应运行前向传播，"
            "反向传播留给调用者。",
        )
    return say(
        f"backpropagating through your output raised {type(err).__name__}: {text}",
        f"从你的输出做反向传播时抛出了 {type(err).__name__}：{text}",
    )


def AGAIN() -> str:  # noqa: N802 (reads as the phrase it stands for)
    """How an error on the check's second and third call is introduced."""
    return say("count_saved_bytes, called again", "再次调用 count_saved_bytes 时")


def check_count_saved_bytes(count: Any) -> None:
    """`count(model, x)` -> (model(x), bytes the forward handed to pack hooks), by hooks."""
    v = verdict("Saved-bytes counter")
    if not v.answered(count, "count_saved_bytes"):
        return _stop(v)
    if not v.require(
        callable(count),
        say(
            "count_saved_bytes should be a function count_saved_bytes(model, x).",
            "count_saved_bytes 应该是一个函数 count_saved_bytes(model, x)。",
        ),
    ):
        return _stop(v)
    ref = _reference(mg.float32)
    try:
        result, outer, model = _run_counter(count, mg.float32)
    except Exception as err:  # the learner's code: report whatever it raised
        v.require(
            False,
            _counter_error(
                err, say("count_saved_bytes(model, x)", "调用 count_saved_bytes(model, x) 时")
            ),
        )
        return _stop(v)
    if result is None:
        v.require(
            False,
            say(
                "count_saved_bytes returned None: is its body still `...`, or is the `return` "
                "missing? It should return the pair (out, total).",
                "count_saved_bytes 返回了 None：函数体是不是还是 `...`，或者漏了 `return`？"
                "它应该返回 (out, total) 这一对值。",
            ),
        )
        return _stop(v)
    if not isinstance(result, tuple) or len(result) != 2:
        only_out = isinstance(result, mg.Tensor)
        what = "only the output" if only_out else f"{type(result).__name__}"
        what_zh = "只返回了输出" if only_out else f"返回了 {type(result).__name__}"
        v.require(
            False,
            say(
                f"count_saved_bytes returned {what}: return the pair `(out, total)`, the model's "
                "output too, so that backward can run through your unpack hook.",
                f"count_saved_bytes {what_zh}：请返回 `(out, total)` 这一对值，模型的输出也要"
                "返回，这样反向传播才能经过你的 unpack 钩子。",
            ),
        )
        return _stop(v)
    out, total = result
    if isinstance(total, mg.Tensor) and isinstance(out, numbers.Real):
        v.require(
            False,
            say(
                "the pair is the wrong way round: return `(out, total)`, output first.",
                "这对值的顺序反了：请返回 `(out, total)`，输出在前。",
            ),
        )
        return _stop(v)
    if not v.require(
        isinstance(out, mg.Tensor),
        say(
            f"out should be the model's output, got {type(out).__name__}.",
            f"out 应该是模型的输出，实际得到的是 {type(out).__name__}。",
        ),
    ):
        return _stop(v)
    if not v.require(
        isinstance(total, numbers.Real) and not isinstance(total, bool),
        say(
            f"total should be a Python number of bytes, got {type(total).__name__}: `t.numel()` "
            "and `t.dtype.itemsize` are ints already.",
            f"total 应该是一个表示字节数的 Python 数，实际得到的是 {type(total).__name__}："
            "`t.numel()` 和 `t.dtype.itemsize` 本身就是 int。",
        ),
    ):
        return _stop(v)
    if outer:
        v.require(
            False,
            say(
                f"the forward's saved tensors did not go through your hooks: a pack hook of the "
                f"check's own, around your call, received {outer} of them. Run `model(x)` INSIDE "
                "`with mg.autograd.graph.saved_tensors_hooks(pack, unpack):` (the innermost pair "
                "gets every saved tensor), and count in `pack`.",
                "前向传播保存的张量没有经过你的钩子：检查程序在你的调用外面套了一个自己的 pack "
                f"钩子，它收到了其中 {outer} 个。请在 "
                "`with mg.autograd.graph.saved_tensors_hooks(pack, unpack):` 块的**内部**运行 "
                "`model(x)`（最内层的那对钩子会收到每一个保存的张量），并在 `pack` 里计数。",
            ),
        )
        return _stop(v)
    if not v.require(
        out.requires_grad,
        say(
            "out does not require grad: the forward was not recorded (did it run under no_grad?), "
            "so nothing was saved. Run it with grad mode on.",
            "out 不需要梯度：前向传播没有被记录（它是不是在 no_grad 下运行的？），所以什么也"
            "没有保存。请在梯度模式开启时运行它。",
        ),
    ):
        return _stop(v)
    problem = _wrong_total(total, ref)
    slips = {0, ref["elements"], ref["count"], ref["unique"], ref["params"], ref["needing_grad"]}
    if problem and total not in slips | {2 * ref["bytes"]}:
        try:
            (_, wider), _, _ = _run_counter(count, mg.float32, rows=13)
        except Exception:  # the learner's code: the first problem is the one to report
            wider = None
        if wider == total:
            problem = say(
                f"your function returns {total} for a batch of 9 rows and again {total} for a "
                "batch of 13, whose saved activations are bigger: the total does not come from "
                "what the forward saves (a number copied from an earlier output, or a formula "
                "of the lesson's own model?). The check runs a model of its own: add "
                "`t.numel() * t.dtype.itemsize` in `pack` for every tensor it receives.",
                f"对 9 行的批次你的函数返回 {total}，对 13 行的批次又返回 {total}，而后者保存的"
                "激活值更多：这个总数并不是从前向传播保存的东西算出来的（是从前面的输出抄来的"
                "数字，还是按本课自己那个模型写的公式？）。检查用的是它自己的模型：请在 `pack` "
                "里对收到的每个张量累加 `t.numel() * t.dtype.itemsize`。",
            )
    if problem:
        v.require(False, problem)
        return _stop(v)
    try:
        out.pow(2).sum().backward()
    except Exception as err:
        v.require(False, _unpack_error(err))
        return _stop(v)
    got = [p.grad for p in model.parameters()]
    if not v.require(
        all(g is not None and bool(mg.allclose(g, r)) for g, r in zip(got, ref["grads"])),
        say(
            "the gradients through your hooks differ from the true ones: `unpack` must give back "
            "the tensor `pack` received (`t.detach()` shares its memory), unchanged.",
            "经过你的钩子算出的梯度与正确的梯度不同：`unpack` 必须原样交还 `pack` 收到的张量"
            "（`t.detach()` 与它共享内存）。",
        ),
    ):
        return _stop(v)
    try:
        keeps = _keeps_the_tensor(count)
    except Exception as err:
        v.require(False, _counter_error(err, AGAIN()))
        return _stop(v)
    if not v.require(
        not keeps,
        say(
            "your count is right, but your pack keeps the tensor itself (or something that "
            "holds it). ReLU keeps its own output, whose grad_fn is ReLU's node: the graph then "
            "holds a loop, node -> your packed object -> tensor -> node. PyTorch never frees "
            "such a loop when the graph is dropped without a backward pass (the check dropped "
            "one and ReLU's output stayed alive). This is section 2's rule, from PyTorch's "
            "documentation: return `t.detach()` from pack, the same memory without the link "
            "to the graph.",
            "你的计数是对的，但你的 pack 保存了张量本身（或某个持有它的对象）。ReLU 保存自己的"
            "输出，而这个输出的 grad_fn 正是 ReLU 的节点：于是计算图里形成了一个环，节点 -> "
            "你打包的对象 -> 张量 -> 节点。如果计算图没有经过反向传播就被丢弃，PyTorch 永远不会"
            "释放这样的环（检查程序丢弃了一张这样的图，ReLU 的输出仍然活着）。这是第 2 节那条"
            "来自 PyTorch 文档的规则：从 pack 返回 `t.detach()`，同一块内存，但不再连着计算图。",
        ),
    ):
        return _stop(v)
    ref64 = _reference(mg.float64)
    try:
        (_, again), _, _ = _run_counter(count, mg.float32)
        (_, total64), _, _ = _run_counter(count, mg.float64)
    except Exception as err:
        v.require(False, _counter_error(err, AGAIN()))
        return _stop(v)
    if not v.require(
        again == ref["bytes"],
        say(
            f"calling it again gave {again} instead of {ref['bytes']}: start the total at 0 "
            "inside count_saved_bytes, so that each call counts only its own forward.",
            f"再次调用得到的是 {again}，而不是 {ref['bytes']}：请在 count_saved_bytes 内部把"
            "总数初始化为 0，这样每次调用只统计它自己那次前向传播。",
        ),
    ):
        return _stop(v)
    if total64 * 2 == ref64["bytes"]:
        v.require(
            False,
            say(
                f"on a float64 model your total is {total64}, half the {ref64['bytes']} bytes: "
                "4 bytes per element is hard-coded. Use `t.dtype.itemsize` (8 for float64).",
                f"在 float64 模型上你的 total 是 {total64}，只有实际 {ref64['bytes']} 字节的一半："
                "每个元素 4 字节被写死了。请使用 `t.dtype.itemsize`（float64 为 8）。",
            ),
        )
    else:
        v.require(
            total64 == ref64["bytes"],
            say(
                f"on a float64 model your total is {total64}; the forward saved "
                f"{ref64['bytes']} bytes (t.numel() * t.dtype.itemsize per tensor).",
                f"在 float64 模型上你的 total 是 {total64}；前向传播保存了 {ref64['bytes']} "
                "字节（每个张量 t.numel() * t.dtype.itemsize）。",
            ),
        )
    if not v.problems:
        mixed = _mixed_problem(count)
        if mixed:
            v.require(False, mixed)
    v.done(
        say(
            f"every saved tensor passed through your pack hook: {ref['count']} tensors, "
            f"{ref['bytes']:,} bytes (float64: {ref64['bytes']:,}), and backward ran through "
            "unpack.",
            f"每个保存的张量都经过了你的 pack 钩子：{ref['count']} 个张量，{ref['bytes']:,} 字节"
            f"（float64：{ref64['bytes']:,}），反向传播也经过了 unpack。",
        )
    )


# --- exercise 2: freezing the first layer --------------------------------------------------------
FROZEN = ("0.weight", "0.bias")


def _freeze_model() -> mg.nn.Sequential:
    mg.manual_seed(61)
    return mg.nn.Sequential(
        mg.nn.Linear(6, 16), mg.nn.ReLU(), mg.nn.Linear(16, 16), mg.nn.ReLU(), mg.nn.Linear(16, 3)
    )


def _fine_tune_step(model: mg.nn.Module) -> int:
    """One step of fine-tuning: forward (counting saved tensors), backward, SGD with momentum
    and weight decay over ALL parameters. Returns how many tensors the forward saved."""
    mg.manual_seed(7)
    x = mg.randn(10, 6)
    saved = [0]

    def pack(t: mg.Tensor) -> mg.Tensor:
        saved[0] += 1
        return t

    with mg.autograd.graph.saved_tensors_hooks(pack, _identity):
        loss = model(x).pow(2).mean()
    loss.backward()
    mg.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=0.01).step()
    return saved[0]


def _freeze_error(err: Exception) -> str:
    text = str(err)
    if isinstance(err, TypeError) and "cannot assign" in text:
        return say(
            f"freeze_first_layer raised TypeError ({text}): a module takes only an "
            "nn.Parameter in a parameter's place. Don't replace the parameters; switch the "
            "flag on the ones there are: requires_grad_(False).",
            f"freeze_first_layer 抛出了 TypeError（{text}）：模块里参数的位置只接受 "
            "nn.Parameter。不要替换参数，而是切换现有参数的标志：requires_grad_(False)。",
        )
    if "leaf variables" in text:
        return say(
            "freeze_first_layer raised RuntimeError: requires_grad_ was called on a computed "
            "tensor (such as `weight.t()` or a layer's output). Call it on the parameters "
            "themselves, or on the module model[0].",
            "freeze_first_layer 抛出了 RuntimeError：requires_grad_ 被用在了一个计算出来的张量上"
            "（比如 `weight.t()` 或某一层的输出）。请对参数本身调用它，或者对模块 model[0] "
            "调用。",
        )
    return say(
        f"freeze_first_layer raised {type(err).__name__}: {text}",
        f"freeze_first_layer 抛出了 {type(err).__name__}：{text}",
    )


def _in_eval(model: mg.nn.Module) -> str:
    """Which modules are in eval mode, in words ("" when none is)."""
    names = [name for name, m in model.named_modules() if not m.training]
    if "" in names:
        return say("the whole model", "整个模型")
    return _listing([f"model[{n}]" if n.isdigit() else n for n in names])[0]


def _listing(names: list[str]) -> tuple[str, bool]:
    """("a, b and c", plural?) for a sentence about `names` (「a、b 和 c」 in Chinese)."""
    if len(names) < 2:
        return "".join(names), False
    return say(", ", "、").join(names[:-1]) + say(" and ", " 和 ") + names[-1], True


def _still_trainable(model: mg.nn.Module, missing: list[str], partly: bool) -> str:
    """Why the first layer still trains, judged by the .grad it got."""
    grads = [dict(model.named_parameters())[n].grad for n in missing]
    names = _listing(missing)[0]
    if partly:
        return say(
            f"{names} still requires grad: freeze every parameter of the first layer, weight "
            "and bias. `model[0].requires_grad_(False)` switches both.",
            f"{names} 仍然需要梯度：第一层的每个参数（weight 和 bias）都要冻结。"
            "`model[0].requires_grad_(False)` 会同时切换这两个。",
        )
    if all(g is None for g in grads):
        return say(
            f"{names} still have requires_grad=True, although no gradient reached them: the "
            "gradient was stopped on the way (`no_grad()`, `.data` or `detach()`). Freezing is "
            "the flag itself: with it True, the parameters still look trainable to everyone "
            "(optimizers, `requires_grad` filters, a forward without your trick). Switch it "
            "off: requires_grad_(False).",
            f"{names} 的 requires_grad 仍为 True，尽管没有梯度到达它们：梯度是在半路上被拦住的"
            "（`no_grad()`、`.data` 或 `detach()`）。冻结指的就是这个标志本身：只要它还是 "
            "True，这些参数在其他代码看来都仍然可以训练（优化器、按 `requires_grad` 的筛选、"
            "不带你这个技巧的前向传播）。请把它关掉：requires_grad_(False)。",
        )
    if all(g is not None and not bool(g.abs().sum()) for g in grads):
        return say(
            f"{names} still require grad and got a .grad of zeros: a zero gradient is still a "
            "gradient. The optimizer updates every parameter that has one (weight decay moves "
            "it even when the gradient is zero), and backward still computes it. Switch the "
            "flag off instead: requires_grad_(False).",
            f"{names} 仍然需要梯度，并得到了全零的 .grad：零梯度也是梯度。优化器会更新每个"
            "有梯度的参数（即使梯度为零，权重衰减也会让它变化），反向传播也照样要计算它。"
            "请改为关掉这个标志：requires_grad_(False)。",
        )
    if _in_eval(model):
        return say(
            f"eval() freezes nothing: it changes how dropout and batch norm behave, and "
            f"{names} still require grad and got gradients. Use requires_grad_(False) on "
            "model[0].",
            f"eval() 什么也冻结不了：它改变的是 dropout 和 batch norm 的行为，{names} "
            "仍然需要梯度，也得到了梯度。请对 model[0] 使用 requires_grad_(False)。",
        )
    return say(
        f"nothing is frozen yet: {names} still require grad and got gradients (is the body "
        "still `...`?). Switch the first layer's flag: requires_grad_(False).",
        f"还什么都没有冻结：{names} 仍然需要梯度，也得到了梯度（函数体是不是还是 `...`？）。"
        "请切换第一层的标志：requires_grad_(False)。",
    )


def check_freeze_first_layer(freeze: Any, *, demo: bool = False) -> None:
    """`freeze(model)` freezes model[0] in place with requires_grad_(False)."""
    v = verdict_or_demo("Freeze the first layer", demo)
    if not v.answered(freeze, "freeze_first_layer"):
        return _stop(v)
    if not v.require(
        callable(freeze),
        say(
            "freeze_first_layer should be a function freeze_first_layer(model).",
            "freeze_first_layer 应该是一个函数 freeze_first_layer(model)。",
        ),
    ):
        return _stop(v)
    unfrozen_saved = _fine_tune_step(_freeze_model())
    model = _freeze_model()
    before = dict(model.named_parameters())
    values = {n: p.detach().clone() for n, p in before.items()}
    try:
        returned = freeze(model)
    except Exception as err:  # the learner's code: report whatever it raised
        v.require(False, _freeze_error(err))
        return _stop(v)
    after = dict(model.named_parameters())
    if isinstance(returned, mg.nn.Module) and all(returned is not m for m in model.modules()):
        v.require(
            False,
            say(
                "freeze_first_layer returned another model: freeze the one it is given, in place "
                "(the caller keeps using that one, and its optimizer holds its parameters).",
                "freeze_first_layer 返回了另一个模型：请原地冻结传进来的那个模型（调用者还会"
                "继续使用它，它的优化器也持有它的参数）。",
            ),
        )
        return _stop(v)
    if not v.require(
        list(after) == list(before),
        say(
            f"the model's parameters are now {', '.join(after) or 'none'} (they were "
            f"{', '.join(before)}): keep the layers and their parameters, and switch flags only.",
            f"模型的参数现在是 {', '.join(after) or '（无）'}（原来是 {', '.join(before)}）："
            "请保留各层和它们的参数，只切换标志。",
        ),
    ):
        return _stop(v)
    replaced, plural = _listing([n for n in after if after[n] is not before[n]])
    if not v.require(
        not replaced,
        say(
            f"{replaced} {'are new tensors' if plural else 'is a new tensor'} now: freeze the "
            "parameters that are there, in place, with requires_grad_(False). Anything that held "
            "the old ones (an optimizer made earlier, say) would not see the change.",
            f"{replaced} 现在是新的张量了：请用 requires_grad_(False) 原地冻结现有的参数。"
            "任何持有旧参数的东西（比如之前创建的优化器）都看不到这个变化。",
        ),
    ):
        return _stop(v)
    if not v.require(
        all(bool(mg.equal(after[n].detach(), values[n])) for n in after),
        say(
            "freeze_first_layer changed parameter values: freezing keeps the weights as they are.",
            "freeze_first_layer 改变了参数的值：冻结应当让权重保持原样。",
        ),
    ):
        return _stop(v)
    frozen = [n for n, p in after.items() if not p.requires_grad]
    if not v.require(
        len(frozen) < len(after),
        say(
            "every parameter is frozen now, so fine-tuning would train nothing (and backward "
            "would fail). Freeze the first layer only: model[0].",
            "现在所有参数都被冻结了，微调将什么也训练不了（反向传播也会失败）。只冻结第一层："
            "model[0]。",
        ),
    ):
        return _stop(v)
    try:
        saved = _fine_tune_step(model)
    except Exception as err:
        v.require(
            False,
            say(
                f"a fine-tuning step after your freeze raised {type(err).__name__}: {err}",
                f"冻结之后的一步微调抛出了 {type(err).__name__}：{err}",
            ),
        )
        return _stop(v)
    missing = [n for n in FROZEN if n not in frozen]
    extra = [n for n in frozen if n not in FROZEN]
    if len(missing) == len(FROZEN) and extra:
        v.require(
            False,
            say(
                f"you froze {_listing(extra)[0]}, but the first layer is model[0] (its "
                "parameters are 0.weight and 0.bias), and it still trains.",
                f"你冻结的是 {_listing(extra)[0]}，但第一层是 model[0]（它的参数是 0.weight 和 "
                "0.bias），它仍然在训练。",
            ),
        )
        return _stop(v)
    if missing:
        v.require(False, _still_trainable(model, missing, partly=len(missing) < len(FROZEN)))
        return _stop(v)
    extra_names, plural = _listing(extra)
    v.require(
        not extra,
        say(
            f"{extra_names} {'are' if plural else 'is'} frozen too: only the first layer "
            "(model[0]) should stop training; the rest is what fine-tuning trains.",
            f"{extra_names} 也被冻结了：只有第一层（model[0]）应当停止训练，其余部分正是微调"
            "要训练的。",
        ),
    )
    v.require(
        not _in_eval(model),
        say(
            f"freeze_first_layer also switched {_in_eval(model)} to eval mode. Freezing and "
            "eval() are different switches (section 6): fine-tuning still trains, so leave the "
            "layers in training mode.",
            f"freeze_first_layer 还把评估模式打开了（{_in_eval(model)}）。冻结和 eval() 是两个"
            "不同的开关（第 6 节）：微调仍然在训练，所以请让各层保持训练模式。",
        ),
    )
    stale, plural = _listing([n for n in FROZEN if after[n].grad is not None])
    v.require(
        not stale,
        say(
            f"{stale} {'have' if plural else 'has'} a .grad after backward: the optimizer updates "
            "every parameter whose .grad is not None. Leave the frozen parameters' .grad as None.",
            f"反向传播之后 {stale} 有 .grad：优化器会更新每个 .grad 不为 None 的参数。"
            "请让被冻结参数的 .grad 保持为 None。",
        ),
    )
    v.require(
        saved < unfrozen_saved,
        say(
            f"the forward still saved {saved} tensors, as many as without freezing: autograd "
            "still records the first layer.",
            f"前向传播仍然保存了 {saved} 个张量，和不冻结时一样多：autograd 仍在记录第一层。",
        ),
    )
    moved = _listing([n for n in FROZEN if not bool(mg.equal(after[n].detach(), values[n]))])[0]
    v.require(
        not moved,
        say(
            f"the optimizer step changed the frozen {moved}.",
            f"优化器的这一步改变了被冻结的 {moved}。",
        ),
    )
    still = [n for n in after if n not in frozen and bool(mg.equal(after[n].detach(), values[n]))]
    v.require(
        not still,
        say(
            f"the optimizer step left {_listing(still)[0]} unchanged: they should train.",
            f"优化器的这一步没有改变 {_listing(still)[0]}：它们应当参与训练。",
        ),
    )
    v.done(
        say(
            "model[0] is frozen: requires_grad=False, no .grad after backward, saved tensors "
            f"{unfrozen_saved} -> {saved}, and the optimizer step left it unchanged while the "
            "rest trained.",
            f"model[0] 已冻结：requires_grad=False，反向传播后没有 .grad，保存的张量从 "
            f"{unfrozen_saved} 个减少到 {saved} 个，优化器的这一步没有改变它，其余部分则得到了"
            "训练。",
        )
    )
