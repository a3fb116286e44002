"""Checks for lesson 16 (memory): a saved-bytes counter and freezing a layer for fine-tuning.

Both checks build fresh models of their own, so nothing copied from an earlier cell can pass, and
both look at the method. The counter must be a pack/unpack pair that the forward really goes
through: the check wraps the call in an outer pair of its own, which sees nothing when the
learner's pair is the innermost one, and then backpropagates through the learner's unpack hook.
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

from .feedback import Verdict, verdict
from .hints import register

COUNTER = "Saved-bytes counter"
FREEZE = "Freeze the first layer"

register(
    "16",
    COUNTER,
    "Open a `with mg.autograd.graph.saved_tensors_hooks(pack, unpack):` block and run "
    "`model(x)` inside it: every tensor the forward saves is handed to `pack`.",
    "`pack(t)` adds `t.numel() * t.dtype.itemsize` to a running total and returns "
    "`t.detach()`; `unpack` gives back what `pack` returned. A bare `total += ...` inside "
    "`pack` needs `nonlocal total` (or keep the total in a one-element list).",
    "Start the total at 0 inside `count_saved_bytes`, so that each call counts only its own "
    "forward, and return the pair `(out, total)` after the `with` block.",
)
register(
    "16",
    FREEZE,
    "Freezing is a flag on each parameter: a parameter with requires_grad=False is a constant "
    "to autograd, so nothing is recorded for it and it never gets a .grad.",
    "`model[0]` is the first layer, and a module's `requires_grad_(False)` switches the flag of "
    "all its parameters (weight and bias) at once. Leave the other layers as they are.",
    "One call does it: requires_grad_(False) on model[0]. Not `no_grad()`, `.data`, "
    "`detach()` or `eval()`: those leave requires_grad=True on the parameters.",
)


def _stop(v: Verdict) -> None:
    """Print what is wrong so far and end the check (later steps depend on this one)."""
    v.done("")


def _nbytes(t: Any) -> int:
    return t.numel() * t.dtype.itemsize


def _identity(t: Any) -> Any:
    return t


# --- exercise 1: a pack/unpack pair that counts bytes --------------------------------------------
def _counter_model(dtype: Any) -> tuple[mg.nn.Module, mg.Tensor]:
    """A model the learner has not seen: ReLU's and Tanh's outputs are each saved twice."""
    mg.manual_seed(16)
    model = mg.nn.Sequential(
        mg.nn.Linear(5, 12), mg.nn.ReLU(), mg.nn.Linear(12, 12), mg.nn.Tanh(), mg.nn.Linear(12, 2)
    ).to(dtype)
    return model, mg.randn(9, 5, dtype=dtype)


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


def _run_counter(count: Callable, dtype: Any) -> tuple[Any, int, mg.nn.Module]:
    """The learner's result, and how many saved tensors the check's OUTER pair saw."""
    model, x = _counter_model(dtype)
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


def _counter_error(err: Exception, doing: str) -> str:
    """The usual reasons a counter raises, in words."""
    text = str(err)
    if isinstance(err, UnboundLocalError) or "referenced before assignment" in text:
        return (
            f"{doing} raised {type(err).__name__} ({text}): `total += ...` inside `pack` makes "
            "`total` a new local name of `pack`. Declare `nonlocal total` at the top of `pack` "
            "(or keep the total in a one-element list and add to `total[0]`)."
        )
    if isinstance(err, AttributeError) and "has no attribute" in text:
        name = text.rsplit("'", 2)[-2] if text.count("'") >= 2 else "that attribute"
        return (
            f"{doing} raised AttributeError: minigrad tensors have no `{name}`. Use "
            "`t.numel() * t.dtype.itemsize`, which works in minigrad and in PyTorch."
        )
    if "pack hook is modifying its input in place" in text:
        return (
            f"{doing} raised: your pack hook changed the tensor in place. A pack hook only looks "
            "(and returns something to keep); it must leave its input alone."
        )
    return f"{doing} raised {type(err).__name__}: {text}"


def _wrong_total(total: Any, ref: dict[str, Any]) -> str | None:
    """None when `total` is the byte count of every pack call; else what it looks like."""
    want = ref["bytes"]
    if total == want:
        return None
    if total == 0:
        return (
            f"total is 0, although the forward saved {ref['count']} tensors: did `pack` add to "
            "the `total` of count_saved_bytes (`nonlocal total`), and did `model(x)` run inside "
            "the `with` block?"
        )
    if total == ref["elements"]:
        return (
            f"total is {total}: that counts elements, not bytes. Multiply each `t.numel()` by "
            "`t.dtype.itemsize` (4 bytes for float32)."
        )
    if total == ref["count"]:
        return (
            f"total is {total}: that is the number of saved tensors. Count their bytes: "
            "`t.numel() * t.dtype.itemsize` for each."
        )
    if total == ref["unique"]:
        return (
            f"total is {total}: you counted each tensor once, but two nodes may save the same "
            "tensor (ReLU keeps its output, and the next Linear keeps it as its input): count "
            f"every call to pack ({want} bytes)."
        )
    if total == ref["params"]:
        return (
            f"total is {total}: that is the size of the model's parameters, not what the forward "
            "saved. Count what `pack` receives."
        )
    if total == ref["needing_grad"]:
        return (
            f"total is {total}: you left out saved tensors that do not require grad (the input "
            f"x). Every tensor handed to pack counts ({want} bytes)."
        )
    if total == 2 * want:
        return (
            f"total is {total}, twice the right count: did the forward run twice, or did pack "
            "add each size twice?"
        )
    return (
        f"total is {total}, but the forward saved {ref['count']} tensors of {want} bytes in all "
        "(t.numel() * t.dtype.itemsize for each tensor pack receives)."
    )


def _unpack_error(err: Exception) -> str:
    text = str(err)
    if "unpack" in text.lower():
        return (
            f"backpropagating through your model's output failed ({type(err).__name__}: {text}). "
            "`unpack` must give back the tensor `pack` received: keep `t.detach()` in what pack "
            "returns (not only its size), and return that tensor from unpack."
        )
    if "backward through the graph a second time" in text:
        return (
            "backpropagating through your output failed: the graph was already freed. "
            "count_saved_bytes should only run the forward pass; leave backward to the caller."
        )
    return f"backpropagating through your output raised {type(err).__name__}: {text}"


def check_count_saved_bytes(count: Any) -> None:
    """`count(model, x)` -> (model(x), bytes the forward handed to pack hooks), by hooks."""
    v = verdict(COUNTER)
    if not v.answered(count, "count_saved_bytes"):
        return _stop(v)
    if not v.require(
        callable(count), "count_saved_bytes should be a function count_saved_bytes(model, x)."
    ):
        return _stop(v)
    ref = _reference(mg.float32)
    try:
        result, outer, model = _run_counter(count, mg.float32)
    except Exception as err:  # the learner's code: report whatever it raised
        v.require(False, _counter_error(err, "count_saved_bytes(model, x)"))
        return _stop(v)
    if result is None:
        v.require(
            False,
            "count_saved_bytes returned None: is its body still `...`, or is the `return` "
            "missing? It should return the pair (out, total).",
        )
        return _stop(v)
    if not isinstance(result, tuple) or len(result) != 2:
        what = "only the output" if isinstance(result, mg.Tensor) else f"{type(result).__name__}"
        v.require(
            False,
            f"count_saved_bytes returned {what}: return the pair `(out, total)`, the model's "
            "output too, so that backward can run through your unpack hook.",
        )
        return _stop(v)
    out, total = result
    if isinstance(total, mg.Tensor) and isinstance(out, numbers.Real):
        v.require(False, "the pair is the wrong way round: return `(out, total)`, output first.")
        return _stop(v)
    if not v.require(
        isinstance(out, mg.Tensor), f"out should be the model's output, got {type(out).__name__}."
    ):
        return _stop(v)
    if not v.require(
        isinstance(total, numbers.Real) and not isinstance(total, bool),
        f"total should be a Python number of bytes, got {type(total).__name__}: `t.numel()` "
        "and `t.dtype.itemsize` are ints already.",
    ):
        return _stop(v)
    if outer:
        v.require(
            False,
            f"the forward's saved tensors did not go through your hooks: a pack hook of the "
            f"check's own, around your call, received {outer} of them. Run `model(x)` INSIDE "
            "`with mg.autograd.graph.saved_tensors_hooks(pack, unpack):` (the innermost pair "
            "gets every saved tensor), and count in `pack`.",
        )
        return _stop(v)
    if not v.require(
        out.requires_grad,
        "out does not require grad: the forward was not recorded (did it run under no_grad?), "
        "so nothing was saved. Run it with grad mode on.",
    ):
        return _stop(v)
    problem = _wrong_total(total, ref)
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
        "the gradients through your hooks differ from the true ones: `unpack` must give back "
        "the tensor `pack` received (`t.detach()` shares its memory), unchanged.",
    ):
        return _stop(v)
    try:
        keeps = _keeps_the_tensor(count)
    except Exception as err:
        v.require(False, _counter_error(err, "count_saved_bytes, called again"))
        return _stop(v)
    if not v.require(
        not keeps,
        "your pack keeps the tensor itself (or something that holds it). ReLU keeps its own "
        "output, whose grad_fn is ReLU's node: the graph then holds a loop, node -> your packed "
        "object -> tensor -> node. PyTorch never frees such a loop when the graph is dropped "
        "without a backward pass. Return `t.detach()` from pack: the same memory, without the "
        "link to the graph.",
    ):
        return _stop(v)
    ref64 = _reference(mg.float64)
    try:
        (_, again), _, _ = _run_counter(count, mg.float32)
        (_, total64), _, _ = _run_counter(count, mg.float64)
    except Exception as err:
        v.require(False, _counter_error(err, "count_saved_bytes, called again"))
        return _stop(v)
    if not v.require(
        again == ref["bytes"],
        f"calling it again gave {again} instead of {ref['bytes']}: start the total at 0 inside "
        "count_saved_bytes, so that each call counts only its own forward.",
    ):
        return _stop(v)
    if total64 * 2 == ref64["bytes"]:
        v.require(
            False,
            f"on a float64 model your total is {total64}, half the {ref64['bytes']} bytes: "
            "4 bytes per element is hard-coded. Use `t.dtype.itemsize` (8 for float64).",
        )
    else:
        v.require(
            total64 == ref64["bytes"],
            f"on a float64 model your total is {total64}; the forward saved "
            f"{ref64['bytes']} bytes (t.numel() * t.dtype.itemsize per tensor).",
        )
    v.done(
        f"every saved tensor passed through your pack hook: {ref['count']} tensors, "
        f"{ref['bytes']:,} bytes (float64: {ref64['bytes']:,}), and backward ran through unpack."
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
        return (
            f"freeze_first_layer raised TypeError ({text}): a module takes only an "
            "nn.Parameter in a parameter's place. Don't replace the parameters; switch the "
            "flag on the ones there are: requires_grad_(False)."
        )
    if "leaf variables" in text:
        return (
            "freeze_first_layer raised RuntimeError: requires_grad_ was called on a computed "
            "tensor (such as `weight.t()` or a layer's output). Call it on the parameters "
            "themselves, or on the module model[0]."
        )
    return f"freeze_first_layer raised {type(err).__name__}: {text}"


def _in_eval(model: mg.nn.Module) -> str:
    """Which modules are in eval mode, in words ("" when none is)."""
    names = [name for name, m in model.named_modules() if not m.training]
    if "" in names:
        return "the whole model"
    return _listing([f"model[{n}]" if n.isdigit() else n for n in names])[0]


def _listing(names: list[str]) -> tuple[str, bool]:
    """("a, b and c", plural?) for a sentence about `names`."""
    if len(names) < 2:
        return "".join(names), False
    return ", ".join(names[:-1]) + " and " + names[-1], True


def _still_trainable(model: mg.nn.Module, missing: list[str], partly: bool) -> str:
    """Why the first layer still trains, judged by the .grad it got."""
    grads = [dict(model.named_parameters())[n].grad for n in missing]
    names = _listing(missing)[0]
    if partly:
        return (
            f"{names} still requires grad: freeze every parameter of the first layer, weight "
            "and bias. `model[0].requires_grad_(False)` switches both."
        )
    if all(g is None for g in grads):
        return (
            f"{names} still have requires_grad=True, although no gradient reached them: the "
            "gradient was stopped on the way (`no_grad()`, `.data` or `detach()`). Freezing is "
            "the flag itself: with it True, the parameters still look trainable to everyone "
            "(optimizers, `requires_grad` filters, a forward without your trick). Switch it "
            "off: requires_grad_(False)."
        )
    if all(g is not None and not bool(g.abs().sum()) for g in grads):
        return (
            f"{names} still require grad and got a .grad of zeros: a zero gradient is still a "
            "gradient. The optimizer updates every parameter that has one (weight decay moves "
            "it even when the gradient is zero), and backward still computes it. Switch the "
            "flag off instead: requires_grad_(False)."
        )
    if _in_eval(model):
        return (
            f"eval() freezes nothing: it changes how dropout and batch norm behave, and "
            f"{names} still require grad and got gradients. Use requires_grad_(False) on "
            "model[0]."
        )
    return (
        f"nothing is frozen yet: {names} still require grad and got gradients (is the body "
        "still `...`?). Switch the first layer's flag: requires_grad_(False)."
    )


def check_freeze_first_layer(freeze: Any) -> None:
    """`freeze(model)` freezes model[0] in place with requires_grad_(False)."""
    v = verdict(FREEZE)
    if not v.answered(freeze, "freeze_first_layer"):
        return _stop(v)
    if not v.require(
        callable(freeze), "freeze_first_layer should be a function freeze_first_layer(model)."
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
            "freeze_first_layer returned another model: freeze the one it is given, in place "
            "(the caller keeps using that one, and its optimizer holds its parameters).",
        )
        return _stop(v)
    if not v.require(
        list(after) == list(before),
        f"the model's parameters are now {', '.join(after) or 'none'} (they were "
        f"{', '.join(before)}): keep the layers and their parameters, and switch flags only.",
    ):
        return _stop(v)
    replaced, plural = _listing([n for n in after if after[n] is not before[n]])
    if not v.require(
        not replaced,
        f"{replaced} {'are new tensors' if plural else 'is a new tensor'} now: freeze the "
        "parameters that are there, in place, with requires_grad_(False). Anything that held "
        "the old ones (an optimizer made earlier, say) would not see the change.",
    ):
        return _stop(v)
    if not v.require(
        all(bool(mg.equal(after[n].detach(), values[n])) for n in after),
        "freeze_first_layer changed parameter values: freezing keeps the weights as they are.",
    ):
        return _stop(v)
    frozen = [n for n, p in after.items() if not p.requires_grad]
    if not v.require(
        len(frozen) < len(after),
        "every parameter is frozen now, so fine-tuning would train nothing (and backward would "
        "fail). Freeze the first layer only: model[0].",
    ):
        return _stop(v)
    try:
        saved = _fine_tune_step(model)
    except Exception as err:
        v.require(False, f"a fine-tuning step after your freeze raised {type(err).__name__}: {err}")
        return _stop(v)
    missing = [n for n in FROZEN if n not in frozen]
    extra = [n for n in frozen if n not in FROZEN]
    if len(missing) == len(FROZEN) and extra:
        v.require(
            False,
            f"you froze {_listing(extra)[0]}, but the first layer is model[0] (its parameters "
            "are 0.weight and 0.bias), and it still trains.",
        )
        return _stop(v)
    if missing:
        v.require(False, _still_trainable(model, missing, partly=len(missing) < len(FROZEN)))
        return _stop(v)
    extra_names, plural = _listing(extra)
    v.require(
        not extra,
        f"{extra_names} {'are' if plural else 'is'} frozen too: only the first layer (model[0]) "
        "should stop training; the rest is what fine-tuning trains.",
    )
    v.require(
        not _in_eval(model),
        f"freeze_first_layer also switched {_in_eval(model)} to eval mode. Freezing and eval() "
        "are different switches (section 6): fine-tuning still trains, so leave the layers in "
        "training mode.",
    )
    stale, plural = _listing([n for n in FROZEN if after[n].grad is not None])
    v.require(
        not stale,
        f"{stale} {'have' if plural else 'has'} a .grad after backward: the optimizer updates "
        "every parameter whose .grad is not None. Leave the frozen parameters' .grad as None.",
    )
    v.require(
        saved < unfrozen_saved,
        f"the forward still saved {saved} tensors, as many as without freezing: autograd "
        "still records the first layer.",
    )
    moved = _listing([n for n in FROZEN if not bool(mg.equal(after[n].detach(), values[n]))])[0]
    v.require(not moved, f"the optimizer step changed the frozen {moved}.")
    still = [n for n in after if n not in frozen and bool(mg.equal(after[n].detach(), values[n]))]
    v.require(
        not still, f"the optimizer step left {_listing(still)[0]} unchanged: they should train."
    )
    v.done(
        "model[0] is frozen: requires_grad=False, no .grad after backward, saved tensors "
        f"{unfrozen_saved} -> {saved}, and the optimizer step left it unchanged while the rest "
        "trained."
    )
