"""nn.utils.prune against PyTorch: masks of the deterministic methods, iterative pruning through
a PruningContainer, global pruning, the module's parameters, buffers, forward pre-hooks,
state_dict keys, outputs, gradients, removal and errors; the random methods by what they
must prune (how many entries, whole channels).

Every snippet runs on torch and on minigrad (tests/parity.py); torch's record is the
expectation. Magnitudes (and channel norms) are all distinct: among equal ones PyTorch prunes
whatever topk returns.
"""

from __future__ import annotations

import functools
import importlib
import math
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from parity import Recorder, assert_same
from whole_messages import raises_whole

pytest.importorskip("torch")

INF = float("inf")


def prune_of(torch: ModuleType) -> ModuleType:
    """torch.nn.utils.prune (PyTorch does not import it with torch.nn.utils)."""
    return importlib.import_module(f"{torch.__name__}.nn.utils.prune")


def distinct(torch: ModuleType, *shape: int, seed: int = 0) -> Any:
    """Mixed signs, every magnitude different: the same tensor in both libraries."""
    rng = np.random.RandomState(seed)
    n = math.prod(shape)
    magnitudes = (rng.permutation(n) + 1 + 100 * seed) / 10
    values = (magnitudes * rng.choice([-1.0, 1.0], n)).astype(np.float32)
    return torch.tensor(values.reshape(shape))


def filled(torch: ModuleType, module: Any) -> Any:
    """`module` with distinct values in every parameter (distinct across parameters too)."""
    with torch.no_grad():
        for seed, p in enumerate(module.parameters(), start=1):
            p.copy_(distinct(torch, *p.shape, seed=seed))
    return module


def small_net(torch: ModuleType) -> Any:
    """The tutorial's LeNet, shrunk: conv, pool, conv, linear."""
    nn = torch.nn

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv1 = nn.Conv2d(1, 3, 3)
            self.conv2 = nn.Conv2d(3, 4, 2)
            self.fc = nn.Linear(4, 5)

        def forward(self, x: Any) -> Any:
            x = torch.nn.functional.max_pool2d(torch.relu(self.conv1(x)), 2)
            return self.fc(torch.relu(self.conv2(x)).flatten(1))

    return filled(torch, Net())


def hooks(module: Any) -> list:
    """The pruning methods among the module's forward pre-hooks, in order."""
    return [
        (type(h).__name__, getattr(h, "_tensor_name", None))
        for h in module._forward_pre_hooks.values()
    ]


def container_members(module: Any) -> list:
    return [
        [type(m).__name__ for m in h] if type(h).__name__ == "PruningContainer" else []
        for h in module._forward_pre_hooks.values()
    ]


def record_module(out: Recorder, label: str, module: Any) -> None:
    out(f"{label} state_dict", list(module.state_dict().items()))
    out(f"{label} parameters", [name for name, _ in module.named_parameters()])
    out(f"{label} buffers", [name for name, _ in module.named_buffers()])
    out(f"{label} hooks", hooks(module))
    out(f"{label} repr", repr(module))


def snip_l1_unstructured(torch: ModuleType, out: Recorder, amount: Any) -> None:
    prune = prune_of(torch)
    layer = filled(torch, torch.nn.Linear(5, 4))
    out("returns the module", prune.l1_unstructured(layer, "weight", amount=amount) is layer)
    record_module(out, "pruned", layer)
    out("mask", layer.weight_mask)
    out("weight", layer.weight)
    out("weight kind", (type(layer.weight).__name__, "weight" in layer.__dict__))
    out("weight grad_fn", layer.weight.grad_fn.name())
    out("is_pruned", prune.is_pruned(layer))
    y = layer(distinct(torch, 2, 5, seed=7))
    out("forward", y)
    (y * distinct(torch, 2, 4, seed=8)).sum().backward()
    out("grads", [(name, p.grad) for name, p in layer.named_parameters()])
    with torch.no_grad():
        layer.weight_orig.mul_(2)
    out("weight before forward", layer.weight)
    layer(distinct(torch, 1, 5, seed=9))
    out("weight after forward", layer.weight)


@pytest.mark.parametrize("amount", [0.3, 5, 0, 0.0, 1.0, 20])
def test_l1_unstructured(amount: Any) -> None:
    assert_same(functools.partial(snip_l1_unstructured, amount=amount))


def snip_iterative(torch: ModuleType, out: Recorder) -> None:
    """Each new method prunes among what is left; the hook becomes a PruningContainer."""
    prune = prune_of(torch)
    layer = filled(torch, torch.nn.Linear(6, 5))
    steps = [
        lambda: prune.l1_unstructured(layer, "weight", amount=0.5),
        lambda: prune.l1_unstructured(layer, "weight", amount=4),
        lambda: prune.ln_structured(layer, "weight", amount=0.4, n=2, dim=0),
        lambda: prune.ln_structured(layer, "weight", amount=1, n=1, dim=1),
        lambda: prune.custom_from_mask(layer, "weight", mask=distinct(torch, 5, 6, seed=5) > -1),
        lambda: prune.identity(layer, "weight"),
        lambda: prune.l1_unstructured(layer, "bias", amount=2),
    ]
    for i, step in enumerate(steps):
        step()
        out(f"step {i}: mask", layer.weight_mask)
        out(f"step {i}: hooks", (hooks(layer), container_members(layer)))
    record_module(out, "pruned", layer)
    y = layer(distinct(torch, 3, 6, seed=9))
    y.sum().backward()
    out("grads", [(name, p.grad) for name, p in layer.named_parameters()])
    prune.remove(layer, "weight")
    record_module(out, "weight removed", layer)
    out("weight", (layer.weight, type(layer.weight).__name__, layer.weight.requires_grad))
    prune.remove(layer, "bias")
    record_module(out, "all removed", layer)
    out("is_pruned", prune.is_pruned(layer))


def test_iterative_pruning_combines_masks() -> None:
    assert_same(snip_iterative)


def snip_ln_structured(torch: ModuleType, out: Recorder, n: Any, dim: int) -> None:
    prune = prune_of(torch)
    conv = filled(torch, torch.nn.Conv2d(3, 4, 2))
    prune.ln_structured(conv, "weight", amount=0.5, n=n, dim=dim)
    out("mask", conv.weight_mask)
    prune.ln_structured(conv, "weight", amount=1, n=n, dim=dim)
    out("again", conv.weight_mask)
    out("forward", conv(distinct(torch, 1, 3, 3, 3, seed=9)))


@pytest.mark.parametrize("n", [1, 2, INF, -INF])
@pytest.mark.parametrize("dim", [0, 1, 3, -1])
def test_ln_structured(n: Any, dim: int) -> None:
    assert_same(functools.partial(snip_ln_structured, n=n, dim=dim))


def snip_frobenius(torch: ModuleType, out: Recorder, dim: int) -> None:
    """n='fro' is a vector norm here: one dimension besides `dim` (PyTorch refuses more)."""
    prune = prune_of(torch)
    layer = filled(torch, torch.nn.Linear(5, 4))
    prune.ln_structured(layer, "weight", amount=2, n="fro", dim=dim)
    out("mask", layer.weight_mask)


@pytest.mark.parametrize("dim", [0, 1])
def test_ln_structured_frobenius(dim: int) -> None:
    assert_same(functools.partial(snip_frobenius, dim=dim))


def snip_global(torch: ModuleType, out: Recorder, with_scores: bool) -> None:
    prune = prune_of(torch)
    net = small_net(torch)
    targets = [(net.conv1, "weight"), (net.conv2, "weight"), (net.fc, "weight"), (net.fc, "bias")]
    scores = {(net.fc, "weight"): distinct(torch, 5, 4, seed=20)} if with_scores else None
    for label, amount in (("first", 0.2), ("second", 9)):
        prune.global_unstructured(
            targets, pruning_method=prune.L1Unstructured, importance_scores=scores, amount=amount
        )
        out(f"{label}: masks", [getattr(m, name + "_mask") for m, name in targets])
        out(f"{label}: hooks", [(hooks(m), container_members(m)) for m, _ in targets])
    out("state_dict keys", list(net.state_dict()))
    out("is_pruned", prune.is_pruned(net))
    y = net(distinct(torch, 2, 1, 6, 6, seed=30))
    out("forward", y)
    y.sum().backward()
    out("grads", [(name, p.grad) for name, p in net.named_parameters()])


@pytest.mark.parametrize("with_scores", [False, True])
def test_global_unstructured(with_scores: bool) -> None:
    assert_same(functools.partial(snip_global, with_scores=with_scores))


def snip_tutorial_walkthrough(torch: ModuleType, out: Recorder) -> None:
    """The tutorial's steps on one module: random, then L1 on the bias, then structured."""
    prune = prune_of(torch)
    module = small_net(torch).conv1
    prune.random_unstructured(module, name="weight", amount=0.3)
    out("random: pruned count", int((module.weight_mask == 0).sum()))
    out(
        "random: pruned entries are zero", bool((module.weight[module.weight_mask == 0] == 0).all())
    )
    prune.l1_unstructured(module, name="bias", amount=3)
    out("bias mask", module.bias_mask)
    prune.ln_structured(module, name="weight", amount=0.5, n=2, dim=0)
    per_channel = (module.weight_mask.sum(dim=(1, 2, 3)) == 0).tolist()
    out("channels fully pruned", sum(per_channel))
    out("keys", (list(module.state_dict()), hooks(module), container_members(module)))
    prune.random_structured(module, "weight", amount=1, dim=-1)
    columns = module.weight_mask.sum(dim=(0, 1, 2))
    out("random structured columns pruned", int((columns == 0).sum()))
    for name in ("weight", "bias"):
        prune.remove(module, name)
    out("removed", (list(module.state_dict()), hooks(module)))


def test_tutorial_walkthrough() -> None:
    assert_same(snip_tutorial_walkthrough)


def snip_custom_method(torch: ModuleType, out: Recorder) -> None:
    """The tutorial's FooBarPruningMethod: every other entry of what is left."""
    prune = prune_of(torch)

    class FooBarPruningMethod(prune.BasePruningMethod):
        PRUNING_TYPE = "unstructured"

        def compute_mask(self, t: Any, default_mask: Any) -> Any:
            mask = default_mask.clone()
            mask.view(-1)[::2] = 0
            return mask

    def foobar_unstructured(module: Any, name: str) -> Any:
        FooBarPruningMethod.apply(module, name)
        return module

    layer = filled(torch, torch.nn.Linear(3, 4))
    foobar_unstructured(layer, name="bias")
    out("bias mask", layer.bias_mask)
    foobar_unstructured(layer, name="bias")
    out("bias mask again", layer.bias_mask)
    record_module(out, "module", layer)

    class Odd(prune.BasePruningMethod):
        PRUNING_TYPE = "diagonal"

        def compute_mask(self, t: Any, default_mask: Any) -> Any:
            return default_mask

    Odd.apply(layer, "weight")
    out("a new kind alone", layer.weight_mask)
    with raises_whole(out, "combined"):
        Odd.apply(layer, "weight")


def test_custom_pruning_method() -> None:
    assert_same(snip_custom_method)


def snip_methods(torch: ModuleType, out: Recorder) -> None:
    """The methods on their own: compute_mask, prune, a container, their attributes."""
    prune = prune_of(torch)
    t = distinct(torch, 3, 4)
    default = (distinct(torch, 3, 4, seed=3) > -10).to(torch.float32)
    methods = {
        "identity": prune.Identity(),
        "l1": prune.L1Unstructured(amount=5),
        "ln": prune.LnStructured(amount=1, n=1, dim=1),
        "custom": prune.CustomFromMask(mask=distinct(torch, 3, 4, seed=4) > 0),
    }
    for name, method in methods.items():
        out(f"{name}: type", getattr(type(method), "PRUNING_TYPE", None))
        out(f"{name}: attributes", sorted(vars(method)))
        out(f"{name}: compute_mask", method.compute_mask(t, default_mask=default))
        out(f"{name}: prune", method.prune(t))
        out(f"{name}: prune with default", method.prune(t, default_mask=default))
    out("prune by scores", methods["l1"].prune(t, importance_scores=-t.abs()))
    first, second = prune.L1Unstructured(amount=3), prune.L1Unstructured(amount=0.5)
    first._tensor_name = second._tensor_name = "w"
    container = prune.PruningContainer(first)
    container.add_pruning_method(second)
    out("container", (len(container), container[1] is second, list(container) == [first, second]))
    out("container mask", container.compute_mask(t, default_mask=default))
    out("container type", getattr(type(container), "PRUNING_TYPE", None))
    with raises_whole(out, "empty container"):
        prune.PruningContainer().add_pruning_method(first)


def test_methods_on_their_own() -> None:
    assert_same(snip_methods)


def snip_hooks_and_state(torch: ModuleType, out: Recorder) -> None:
    prune = prune_of(torch)
    layer = filled(torch, torch.nn.Linear(4, 3)).double()
    layer.register_forward_pre_hook(lambda m, args: None)
    prune.l1_unstructured(layer, "weight", amount=3)
    prune.l1_unstructured(layer, "bias", amount=1)
    prune.l1_unstructured(layer, "weight", amount=2)
    out("hooks in order", hooks(layer))
    out("mask dtype", (layer.weight_mask.dtype, layer.weight.dtype))
    state = layer.state_dict()
    out("keys", list(state))
    twin = filled(torch, torch.nn.Linear(4, 3)).double()
    prune.identity(twin, "weight")
    prune.identity(twin, "bias")
    out("load into pruned", repr(twin.load_state_dict(state)))
    out("before forward", twin.weight)
    twin(distinct(torch, 1, 4).double())
    out("after forward", twin.weight)
    with raises_whole(out, "load into plain"):
        torch.nn.Linear(4, 3).double().load_state_dict(state)
    prune.remove(layer, "weight")
    out("after remove", (hooks(layer), list(layer.state_dict())))


def test_hooks_and_state_dict() -> None:
    assert_same(snip_hooks_and_state)


def snip_random_counts(torch: ModuleType, out: Recorder) -> None:
    """Random methods: which entries differ by library, how many does not."""
    prune = prune_of(torch)
    conv = filled(torch, torch.nn.Conv2d(2, 5, 3))
    prune.random_unstructured(conv, "weight", amount=0.25)
    out("entries", int((conv.weight_mask == 0).sum()))
    prune.random_unstructured(conv, "weight", amount=7)
    out("entries again", int((conv.weight_mask == 0).sum()))
    out("zero where masked", bool((conv.weight[conv.weight_mask == 0] == 0).all()))
    conv = filled(torch, torch.nn.Conv2d(2, 5, 3))
    prune.random_structured(conv, "weight", amount=2, dim=0)
    out("channels", (conv.weight_mask.sum(dim=(1, 2, 3)) == 0).sum().item())
    prune.random_structured(conv, "weight", amount=0.5, dim=0)
    out("channels again", (conv.weight_mask.sum(dim=(1, 2, 3)) == 0).sum().item())
    out("only whole channels", sorted(set(conv.weight_mask.sum(dim=(1, 2, 3)).tolist())))
    out("hooks", container_members(conv))


def test_random_methods_prune_the_right_counts() -> None:
    assert_same(snip_random_counts)


ERRORS = {
    "amount type": lambda prune, m, torch: prune.l1_unstructured(m, "weight", amount="a"),
    "amount None": lambda prune, m, torch: prune.random_unstructured(m, "weight", amount=None),
    "amount negative": lambda prune, m, torch: prune.l1_unstructured(m, "weight", amount=-1),
    "fraction above 1": lambda prune, m, torch: prune.l1_unstructured(m, "weight", amount=1.5),
    "fraction below 0": lambda prune, m, torch: prune.l1_unstructured(m, "weight", amount=-0.1),
    "fraction 2.0": lambda prune, m, torch: prune.l1_unstructured(m, "weight", amount=2.0),
    "too many": lambda prune, m, torch: prune.l1_unstructured(m, "weight", amount=13),
    "too many channels": lambda prune, m, torch: prune.ln_structured(
        m, "weight", amount=4, n=2, dim=0
    ),
    "random too many": lambda prune, m, torch: prune.random_structured(
        m, "weight", amount=5, dim=1
    ),
    "structured 1-D": lambda prune, m, torch: prune.ln_structured(m, "bias", amount=1, n=2, dim=0),
    "bad dim": lambda prune, m, torch: prune.ln_structured(m, "weight", amount=1, n=2, dim=2),
    "random bad dim": lambda prune, m, torch: prune.random_structured(m, "weight", 1, dim=5),
    "no such tensor": lambda prune, m, torch: prune.l1_unstructured(m, "foo", amount=1),
    "scores shape": lambda prune, m, torch: prune.l1_unstructured(
        m, "weight", amount=1, importance_scores=torch.ones(2)
    ),
    "mask shape": lambda prune, m, torch: prune.custom_from_mask(m, "weight", torch.ones(2)),
    "remove unpruned": lambda prune, m, torch: prune.remove(m, "weight"),
    "global not iterable": lambda prune, m, torch: prune.global_unstructured(
        3, pruning_method=prune.L1Unstructured, amount=1
    ),
    "global scores": lambda prune, m, torch: prune.global_unstructured(
        [(m, "weight")], pruning_method=prune.L1Unstructured, importance_scores=3, amount=1
    ),
    "global structured": lambda prune, m, torch: prune.global_unstructured(
        [(m, "weight")], pruning_method=prune.LnStructured, amount=1, n=1, dim=0
    ),
    "global too many": lambda prune, m, torch: prune.global_unstructured(
        [(m, "weight"), (m, "bias")], pruning_method=prune.L1Unstructured, amount=16
    ),
    "abstract": lambda prune, m, torch: prune.BasePruningMethod(),
    "unnamed apply_mask": lambda prune, m, torch: prune.L1Unstructured(0.3).apply_mask(m),
    "container of a number": lambda prune, m, torch: prune.PruningContainer(3),
}


def snip_error(torch: ModuleType, out: Recorder, case: str) -> None:
    """The error, and the module untouched by the failed call."""
    prune = prune_of(torch)
    layer = filled(torch, torch.nn.Linear(4, 3))
    with raises_whole(out, "error"):
        ERRORS[case](prune, layer, torch)
    out("untouched", (sorted(layer.state_dict()), hooks(layer)))  # see test_failure_keeps_order


@pytest.mark.parametrize("case", list(ERRORS))
def test_errors(case: str) -> None:
    assert_same(functools.partial(snip_error, case=case))


def snip_container_errors(torch: ModuleType, out: Recorder) -> None:
    prune = prune_of(torch)
    first, other = prune.L1Unstructured(amount=1), prune.L1Unstructured(amount=1)
    first._tensor_name, other._tensor_name = "weight", "bias"
    container = prune.PruningContainer(first)
    with raises_whole(out, "not a method"):
        container.add_pruning_method(3)
    with raises_whole(out, "another tensor"):
        container.add_pruning_method(other)
    container.add_pruning_method(None)
    out("length", len(container))
    layer = filled(torch, torch.nn.Linear(4, 3))
    with raises_whole(out, "remove through an unused method"):
        first.remove(layer)


def test_container_errors() -> None:
    assert_same(snip_container_errors)


def test_failure_keeps_order() -> None:
    """A pruning call that fails leaves the module exactly as it was (deliberately unlike
    PyTorch, which re-registers the tensor last, or drops an earlier pruning hook)."""
    import minigrad
    from minigrad.nn.utils import prune

    layer = filled(minigrad, minigrad.nn.Linear(4, 3))
    with pytest.raises(ValueError, match="should be smaller than"):
        prune.l1_unstructured(layer, "weight", amount=13)
    assert list(layer.state_dict()) == ["weight", "bias"]
    prune.l1_unstructured(layer, "weight", amount=2)
    before = dict(layer._forward_pre_hooks)
    for bad in (
        lambda: prune.l1_unstructured(layer, "weight", amount=-1),
        lambda: prune.ln_structured(layer, "weight", amount=1, n=1, dim=5),
    ):
        with pytest.raises((ValueError, IndexError)):
            bad()
        assert layer._forward_pre_hooks == before
        assert list(layer.state_dict()) == ["bias", "weight_orig", "weight_mask"]


def test_ties() -> None:
    """Among equal magnitudes L1 prunes the first in flattened order; among equal norms
    LnStructured keeps the first channel (PyTorch: whatever topk returns)."""
    import minigrad
    from minigrad.nn.utils import prune

    t = minigrad.tensor([[1.0, -1.0, 2.0], [1.0, 3.0, -2.0]])
    mask = prune.L1Unstructured(amount=2).compute_mask(t, minigrad.ones_like(t))
    assert mask.tolist() == [[0.0, 0.0, 1.0], [1.0, 1.0, 1.0]]
    rows = minigrad.tensor([[1.0, 2.0], [2.0, 1.0], [-1.0, 2.0]])
    mask = prune.LnStructured(amount=1, n=1, dim=0).compute_mask(rows, minigrad.ones_like(rows))
    assert mask.tolist() == [[1.0, 1.0], [1.0, 1.0], [0.0, 0.0]]
