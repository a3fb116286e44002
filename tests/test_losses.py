"""Losses and small nn.functional pieces against PyTorch: binary cross-entropy (with and without
logits), one_hot, cross_entropy's label smoothing, class weights and (N, C, d1, ...) inputs,
empty batches, mse_loss's weights, and the graphs dropout and linear record.

Each snippet runs on both libraries (tests/parity.py): values, gradients to second order,
grad_fn names and PyTorch's errors.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from parity import Recorder, assert_same

torch_lib = pytest.importorskip("torch")


def values(torch: ModuleType, *shape: int, seed: int = 0, low: float = -2.0, high: float = 2.0):
    rng = np.random.default_rng(seed)
    return torch.tensor(rng.uniform(low, high, shape), dtype=torch.float64)


def classes(torch: ModuleType, *shape: int, n: int = 5, seed: int = 0) -> Any:
    return torch.tensor(np.random.default_rng(seed).integers(0, n, shape))


def two_orders(torch: ModuleType, out: Recorder, loss: Any, leaves: list) -> None:
    """The loss, its grad_fn, first-order gradients (create_graph) and second-order ones."""
    out("loss", loss)
    out("grad_fn", loss.grad_fn.name())
    seed = values(torch, *loss.shape, seed=7).requires_grad_()
    grads = torch.autograd.grad(loss, leaves, seed, create_graph=True, allow_unused=True)
    out("gradients", [g if g is not None else "None" for g in grads])
    used = [g for g in grads if g is not None and g.requires_grad]
    if used:
        total = sum((g * values(torch, *g.shape, seed=8 + i)).sum() for i, g in enumerate(used))
        second = torch.autograd.grad(total, [*leaves, seed], allow_unused=True)
        out("second order", [s if s is not None else "None" for s in second])


def check(snippet: Callable, **kw: Any) -> None:
    assert_same(functools.partial(snippet, **kw) if kw else snippet)


# ---------------------------------------------------------------- binary cross-entropy


def snip_bce(torch: ModuleType, out: Recorder, reduction: str, weighted: bool, edge: str) -> None:
    x = values(torch, 3, 4, low=0.05, high=0.95)
    if edge:  # exact 0 and 1: each log clamped at -100, the slope's denominator at 1e-12
        x[0, :2], x[1, :2] = 0.0, 1.0
    x.requires_grad_()
    t = values(torch, 3, 4, seed=1, low=0.0, high=1.0).requires_grad_()
    w = values(torch, 4, seed=2, low=0.5) if weighted else None
    loss = torch.nn.functional.binary_cross_entropy(x, t, w, reduction=reduction)
    two_orders(torch, out, loss, [x, t])


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("edge", ["", "zeros and ones"])
def test_binary_cross_entropy(reduction: str, weighted: bool, edge: str) -> None:
    check(snip_bce, reduction=reduction, weighted=weighted, edge=edge)


def snip_bce_logits(torch: ModuleType, out: Recorder, reduction: str, weighted: bool) -> None:
    x = values(torch, 3, 4, low=-4.0, high=4.0)
    x[0, 0], x[0, 1] = 120.0, -120.0  # far out: stable, no inf
    x.requires_grad_()
    t = values(torch, 3, 4, seed=1, low=0.0, high=1.0).requires_grad_()
    w = values(torch, 3, 1, seed=2, low=0.5) if weighted else None
    pos = values(torch, 4, seed=3, low=0.5) if weighted else None
    F = torch.nn.functional
    loss = F.binary_cross_entropy_with_logits(x, t, w, reduction=reduction, pos_weight=pos)
    two_orders(torch, out, loss, [x, t])


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
def test_binary_cross_entropy_with_logits(reduction: str, weighted: bool) -> None:
    check(snip_bce_logits, reduction=reduction, weighted=weighted)


def snip_bce_errors(torch: ModuleType, out: Recorder) -> None:
    F = torch.nn.functional
    p, t = values(torch, 3, 4, low=0.0, high=1.0), values(torch, 3, 4, seed=1, low=0.0, high=1.0)
    cases = {
        "input above 1": lambda: F.binary_cross_entropy(p + 1, t),
        "target below 0": lambda: F.binary_cross_entropy(p, t - 1),
        "nan input": lambda: F.binary_cross_entropy(p * float("nan"), t),
        "target of another shape": lambda: F.binary_cross_entropy(p, t[0]),
        "weight that does not broadcast": lambda: F.binary_cross_entropy(p, t, t[:, 0]),
        "weight that grows the loss": lambda: F.binary_cross_entropy(p, t, t.expand(2, 3, 4)),
        "float32 target": lambda: F.binary_cross_entropy(p, t.float()),
        "long input": lambda: F.binary_cross_entropy(p.long(), t.long()),
        "weight requiring grad": lambda: F.binary_cross_entropy(p, t, t.clone().requires_grad_()),
        "unknown reduction": lambda: F.binary_cross_entropy(p, t, reduction="avg"),
        "logits: target of another shape": lambda: F.binary_cross_entropy_with_logits(p, t[0]),
        "logits: long target": lambda: F.binary_cross_entropy_with_logits(p, t.long()),
        "logits: long input": lambda: F.binary_cross_entropy_with_logits(p.long(), t),
        "logits: pos_weight of 5": lambda: F.binary_cross_entropy_with_logits(
            p, t, pos_weight=values(torch, 5)
        ),
        "logits: pos_weight requiring grad": lambda: F.binary_cross_entropy_with_logits(
            p, t, pos_weight=values(torch, 4).requires_grad_()
        ),
    }
    for label, call in cases.items():
        with out.raises(label):
            call()
    out("empty mean is nan", F.binary_cross_entropy(p[:0], t[:0]))
    out("logits: empty sum is 0", F.binary_cross_entropy_with_logits(p[:0], t[:0], reduction="sum"))
    out("logits: float32 input, float64 target", F.binary_cross_entropy_with_logits(p.float(), t))
    out("logits: float64 input, float32 target", F.binary_cross_entropy_with_logits(p, t.float()))
    with torch.no_grad():
        out("no_grad: a weight requiring grad is fine", F.binary_cross_entropy(p, t, t.clone()))


def test_binary_cross_entropy_errors() -> None:
    check(snip_bce_errors)


def snip_bce_modules(torch: ModuleType, out: Recorder) -> None:
    nn = torch.nn
    x = values(torch, 3, 4, low=0.05, high=0.95)
    t = values(torch, 3, 4, seed=1, low=0.0, high=1.0)
    w, pos = values(torch, 4, seed=2, low=0.5), values(torch, 4, seed=3, low=0.5)
    out("BCELoss", nn.BCELoss(w, reduction="sum")(x, t))
    layer = nn.BCEWithLogitsLoss(w, pos_weight=pos)
    out("BCEWithLogitsLoss", layer(x, t))
    out("its buffers", list(layer.state_dict()))
    out("repr", (repr(nn.BCELoss()), repr(layer)))


def test_bce_modules() -> None:
    check(snip_bce_modules)


# ---------------------------------------------------------------- one_hot


def snip_one_hot(torch: ModuleType, out: Recorder) -> None:
    F = torch.nn.functional
    idx = torch.tensor([[0, 3], [2, 1]])
    out("inferred", F.one_hot(idx))
    out("given", F.one_hot(idx, 6))
    out("transposed input", F.one_hot(idx.t(), num_classes=4))
    out("0-d", F.one_hot(torch.tensor(2), 3))
    out("empty with num_classes", F.one_hot(torch.zeros(2, 0, dtype=torch.long), 3))
    cases = {
        "empty, inferred": lambda: F.one_hot(torch.zeros(0, dtype=torch.long)),
        "class too large": lambda: F.one_hot(idx, 3),
        "negative class": lambda: F.one_hot(torch.tensor([0, -1])),
        "int32 input": lambda: F.one_hot(idx.int()),
        "float input": lambda: F.one_hot(idx.float()),
        "float num_classes": lambda: F.one_hot(idx, 4.0),
    }
    for label, call in cases.items():
        with out.raises(label):
            call()


def test_one_hot() -> None:
    check(snip_one_hot)


# ---------------------------------------------------------------- cross_entropy and nll_loss


def snip_cross_entropy(torch: ModuleType, out: Recorder, shape: tuple, target: str, **kw) -> None:
    F = torch.nn.functional
    x = values(torch, *shape).requires_grad_()
    c = shape[1] if len(shape) > 1 else shape[0]
    if kw.pop("weighted", False):
        kw["weight"] = values(torch, c, seed=4, low=0.5)
    if target == "probabilities":
        t = values(torch, *shape, seed=1, low=0.0, high=1.0)
    else:
        t = classes(torch, *((shape[0],) + shape[2:] if len(shape) > 1 else ()), n=c, seed=1)
        if target == "some ignored":
            t.view(-1)[::3] = kw.get("ignore_index", -100)
    two_orders(torch, out, F.cross_entropy(x, t, **kw), [x])


CE = {
    "smoothing": ((4, 5), "classes", {"label_smoothing": 0.2}),
    "smoothing, weights, ignored": (
        (6, 5),
        "some ignored",
        {"label_smoothing": 0.1, "weighted": True, "ignore_index": 2},
    ),
    "smoothing, none": ((4, 5), "some ignored", {"label_smoothing": 0.3, "reduction": "none"}),
    "smoothing, (N, C, L)": ((2, 5, 3), "classes", {"label_smoothing": 0.2, "reduction": "sum"}),
    "smoothing, 1-d": ((5,), "classes", {"label_smoothing": 0.2}),
    "weights": ((4, 5), "some ignored", {"weighted": True}),
    "weights, none": ((4, 5), "classes", {"weighted": True, "reduction": "none"}),
    "(N, C, L)": ((2, 5, 3), "classes", {}),
    "(N, C, H, W), weights": ((2, 5, 3, 2), "some ignored", {"weighted": True}),
    "(N, C, H, W), none": ((2, 5, 3, 2), "classes", {"reduction": "none"}),
    "(N, C, L, M, K), none": ((2, 4, 2, 2, 2), "classes", {"reduction": "none"}),
    "probabilities, weights, smoothing": (
        (4, 5),
        "probabilities",
        {"weighted": True, "label_smoothing": 0.2},
    ),
    "probabilities, (N, C, L)": ((2, 5, 3), "probabilities", {"reduction": "none"}),
    "empty batch": ((0, 5), "classes", {}),
    "empty batch, smoothing": ((0, 5), "classes", {"label_smoothing": 0.1}),
    "empty batch, probabilities": ((0, 5), "probabilities", {}),
    "empty spatial": ((2, 5, 0), "classes", {"reduction": "none"}),
}


@pytest.mark.parametrize("case", list(CE))
def test_cross_entropy(case: str) -> None:
    shape, target, kw = CE[case]
    check(snip_cross_entropy, shape=shape, target=target, **kw)


def snip_nll(torch: ModuleType, out: Recorder) -> None:
    F = torch.nn.functional
    x = values(torch, 2, 5, 3, 4).requires_grad_()
    t = classes(torch, 2, 3, 4, seed=1)
    two_orders(torch, out, F.nll_loss(x, t, values(torch, 5, seed=2, low=0.5)), [x])
    y = values(torch, 3, 5).requires_grad_()
    all_ignored = F.nll_loss(y, torch.tensor([-100, -100, -100]))
    two_orders(torch, out, all_ignored, [y])
    empty = values(torch, 0, 5).requires_grad_()
    two_orders(torch, out, F.nll_loss(empty, torch.zeros(0, dtype=torch.long)), [empty])
    z = values(torch, 5).requires_grad_()
    out("1-d input, (1,) target, none", F.nll_loss(z, torch.tensor([3]), reduction="none"))


def test_nll_loss() -> None:
    check(snip_nll)


def snip_nll_saved(torch: ModuleType, out: Recorder) -> None:
    """What the node saves, as grad_fn._saved_* shows it (and the explorer draws it)."""
    F = torch.nn.functional
    x, t = values(torch, 3, 5).requires_grad_(), torch.tensor([1, 2, -100])
    for reduction in ("mean", "sum", "none"):
        for weight in (None, values(torch, 5).abs()):
            node = F.nll_loss(x, t, weight, reduction=reduction).grad_fn
            saved = ("total_weight", "reduction", "ignore_index", "weight")
            out(
                f"{reduction}, weight {weight is not None}",
                [getattr(node, f"_saved_{k}") for k in saved],
            )
    node = F.cross_entropy(
        values(torch, 2, 5, 3, 3).requires_grad_(), classes(torch, 2, 3, 3)
    ).grad_fn
    out("2-d, through cross_entropy", (node.name(), node._saved_total_weight))


def test_nll_saves_what_torch_saves() -> None:
    check(snip_nll_saved)


def snip_class_errors(torch: ModuleType, out: Recorder) -> None:
    F = torch.nn.functional
    x, t = values(torch, 3, 5), torch.tensor([1, 2, 3])
    cases = {
        "weight of 4": lambda: F.cross_entropy(x, t, values(torch, 4)),
        "float32 weight": lambda: F.nll_loss(x, t, values(torch, 5).float()),
        "weight requiring grad": lambda: F.cross_entropy(x, t, values(torch, 5).requires_grad_()),
        "smoothing above 1": lambda: F.cross_entropy(x, t, label_smoothing=1.5),
        "ignore_index with probabilities": lambda: F.cross_entropy(x, x.softmax(1), ignore_index=0),
        "long probabilities": lambda: F.cross_entropy(x, t.expand(5, 3).t().contiguous()),
        "probabilities, weight of 4": lambda: F.cross_entropy(x, x.softmax(1), values(torch, 4)),
        "0-d input": lambda: F.nll_loss(values(torch), t),
        "0-d target": lambda: F.nll_loss(x, torch.tensor(1)),
        "1-d input, target of 2": lambda: F.nll_loss(values(torch, 5), torch.tensor([1, 2])),
        "2-d target": lambda: F.nll_loss(x, t[:, None]),
        "(N, C, L), wrong target": lambda: F.nll_loss(values(torch, 2, 5, 4), classes(torch, 2, 3)),
        "(N, C, H, W), 1-d target": lambda: F.nll_loss(values(torch, 2, 5, 3, 4), t[:2]),
        "(N, C, H, W), swapped target": lambda: F.nll_loss(
            values(torch, 2, 5, 3, 4), classes(torch, 2, 4, 3)
        ),
        "(N, C, L), target out of range": lambda: F.nll_loss(
            values(torch, 2, 5, 4), classes(torch, 2, 4) + 5
        ),
        "int32 target": lambda: F.nll_loss(x, t.int()),
    }
    for label, call in cases.items():
        with out.raises(label):
            call()
    p = values(torch, 3, 5).requires_grad_()
    out("probabilities: the weight gets a gradient", F.cross_entropy(x, p.softmax(1), p[0]))


def test_class_target_errors() -> None:
    check(snip_class_errors)


# ---------------------------------------------------------------- mse_loss


def snip_mse(torch: ModuleType, out: Recorder) -> None:
    F = torch.nn.functional
    e = values(torch, 0).requires_grad_()
    two_orders(torch, out, F.mse_loss(e, values(torch, 0, seed=1)), [e])
    x, t = values(torch, 3, 4).requires_grad_(), values(torch, 3, 4, seed=1).requires_grad_()
    w = values(torch, 3, 4, seed=2, low=0.5).requires_grad_()
    for reduction in ("mean", "sum", "none"):
        two_orders(torch, out, F.mse_loss(x, t, reduction=reduction, weight=w), [x, t, w])
    # an infinite difference: PyTorch's input and target gradients are separate terms of the
    # second order, so they add up to inf - inf = nan
    a = values(torch, 3, 1)
    a[2, 0] = float("inf")
    a.requires_grad_()
    b = values(torch, 1, 4, seed=3).requires_grad_()
    with out.warns("broadcast warning"):
        loss = F.mse_loss(a, b, reduction="none")
    two_orders(torch, out, loss, [a, b])
    with out.raises("weight of another shape"):
        F.mse_loss(x, t, weight=w[0])
    with out.raises("weight, unknown reduction"):
        F.mse_loss(x, t, weight=w, reduction="avg")


def test_mse_loss() -> None:
    check(snip_mse)


# ---------------------------------------------------------------- dropout and linear graphs


def snip_dropout(torch: ModuleType, out: Recorder) -> None:
    F = torch.nn.functional
    x = values(torch, 3, 4).requires_grad_()
    xt = values(torch, 4, 3).requires_grad_().t()
    out("p=0 returns its input", (F.dropout(x, 0.0) is x, F.dropout(xt, 0.0).grad_fn.name()))
    out("eval returns its input", F.dropout(x, 0.5, training=False) is x)
    out("empty returns its input", F.dropout(x[:0], 0.5).grad_fn.name())
    y = F.dropout(xt, 1.0)
    out("p=1: times a 0-d zero", (y, y.grad_fn.name(), y.grad_fn.next_functions[1][0]))
    y.sum().backward()
    out("p=1 gradient", x.grad)
    z = x.clone()
    out("p=0, in place, returns its input", F.dropout(z, 0.0, inplace=True) is z)
    out("p=1, in place", (F.dropout(z, 1.0, inplace=True) is z, z.grad_fn.name()))
    with torch.autograd.detect_anomaly():
        w = x.detach().clone().requires_grad_()
        F.dropout(w, 0.0).backward(torch.full((3, 4), float("nan"), dtype=torch.float64))
        out("p=0 under anomaly mode: no node of its own", w.grad)


def test_dropout_records_what_torch_records() -> None:
    check(snip_dropout)


def chain(t: Any) -> list:
    """grad_fn names down the first input's edges."""
    names, node = [], t.grad_fn
    while node is not None:
        names.append(node.name().replace("torch::autograd::", ""))
        node = node.next_functions[0][0] if node.next_functions else None
    return names


def snip_linear(torch: ModuleType, out: Recorder) -> None:
    F = torch.nn.functional
    w, b = values(torch, 5, 4).requires_grad_(), values(torch, 5, seed=1).requires_grad_()
    inputs = {
        "3-d": values(torch, 2, 3, 4),
        "1-d": values(torch, 4),
        "4-d": values(torch, 2, 2, 3, 4),
        "3-d, permuted": values(torch, 4, 3, 2).permute(2, 1, 0),
        "3-d, sliced": values(torch, 2, 3, 8)[..., ::2],
    }
    for label, x in inputs.items():
        x.requires_grad_() if x.is_leaf else None
        y = F.linear(x, w, b)
        y.sum().backward()
        out(label, (y, chain(y)))
    for label, bias in (("0-d bias", values(torch)), ("(3, 5) bias", values(torch, 3, 5))):
        y = F.linear(values(torch, 2, 3, 4), w, bias.requires_grad_())
        out(label, (y, chain(y)))
    with out.raises("0-d input"):
        F.linear(values(torch), w, b)


def test_linear_records_what_torch_records() -> None:
    check(snip_linear)
