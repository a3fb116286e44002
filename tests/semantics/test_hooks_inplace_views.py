"""Tensor hooks and retain_grad across in-place ops. A tensor keeps one hook dict, attached to
its grad_fn when the first hook is registered. An ordinary in-place op (add_, cos_, a write
into a view) or a regenerated view history starts a new one; the in-place view ops (t_,
transpose_, squeeze_, unsqueeze_) do not, so hooks registered after them join the earlier ones
on the old history. Also: abs_ on an empty view under create_graph."""

from __future__ import annotations

import pytest
from parity import assert_same

from semantics.snippets import collect

VIEW_OPS = {
    "t_": lambda x: x.t_(),
    "transpose_": lambda x: x.transpose_(0, 1),
    "unsqueeze_": lambda x: x.unsqueeze_(1),
    "squeeze_": lambda x: x.unsqueeze_(0).squeeze_(0).unsqueeze_(2).squeeze_(),
}


def _hook(seen, name):
    return lambda g: seen.append((name, g.clone()))


def _weighted_sum(torch, y):
    return (y * torch.arange(1.0, y.numel() + 1, dtype=y.dtype).reshape(y.shape)).sum()


def _non_leaf_and_view(torch):
    """(label, tensor) pairs: a non-leaf and a view of one, both 2 x 3."""
    x = torch.arange(6.0, dtype=torch.float64).reshape(2, 3).requires_grad_()
    return x, (("non-leaf", x * 1), ("view", (x * 1)[:, :]))


def snip_the_pytorch_notes_example(torch, out):
    # autograd notes, "Behavior of Tensor hooks when Tensor is modified in-place"
    for order in ("register, then cos_", "cos_, then register"):
        seen = []
        t = torch.tensor(1.0, requires_grad=True).sin()
        if order.startswith("register"):
            t.register_hook(_hook(seen, "hook"))
        t.cos_()
        if order.startswith("cos_"):
            t.register_hook(_hook(seen, "hook"))
        t.backward()
        out(order, seen)


def snip_hooks_before_and_after_each_view_op(torch, out):
    for name, op in VIEW_OPS.items():
        leaf, tensors = _non_leaf_and_view(torch)
        for label, y in tensors:
            seen = []
            y.register_hook(_hook(seen, "before"))
            op(y)
            y.register_hook(_hook(seen, "after"))
            _weighted_sum(torch, y).backward()
            out(f"{name} on a {label}: both see the old shape, in order", seen)
        out(f"{name}: leaf grad", leaf.grad)


def snip_first_hook_after_a_view_op(torch, out):
    for name, op in VIEW_OPS.items():
        _, tensors = _non_leaf_and_view(torch)
        for label, y in tensors:
            seen = []
            op(y)
            y.register_hook(_hook(seen, "after"))
            _weighted_sum(torch, y).backward()
            out(f"{name} on a {label}: the new shape", seen)


def snip_view_ops_and_ordinary_inplace_ops_mixed(torch, out):
    _, tensors = _non_leaf_and_view(torch)
    for label, y in tensors:
        seen = []
        y.register_hook(_hook(seen, "h1"))
        y.t_()
        y.t_()
        y.register_hook(_hook(seen, "h2 joins h1"))
        y.mul_(3)
        y.register_hook(_hook(seen, "h3 starts anew"))
        y.t_()
        y.register_hook(_hook(seen, "h4 joins h3"))
        y.unsqueeze_(0)
        handle = y.register_hook(_hook(seen, "h5 joins h3, removed"))
        handle.remove()
        _weighted_sum(torch, y * 2).backward()
        out(label, seen)


def snip_hook_replacing_the_gradient_across_a_view_op(torch, out):
    leaf, tensors = _non_leaf_and_view(torch)
    for label, y in tensors:
        seen = []
        y.register_hook(lambda g: g * 10)
        y.transpose_(0, 1)
        y.register_hook(_hook(seen, "after the replacement"))
        _weighted_sum(torch, y).backward()
        out(label, seen)
    out("leaf grad", leaf.grad)


def snip_retain_grad_and_view_ops(torch, out):
    for order in ("retain, t_", "t_, retain", "retain, t_, hook", "hook, t_, retain"):
        x = torch.arange(6.0, dtype=torch.float64).reshape(2, 3).requires_grad_()
        y = x * 1
        seen = []
        for step in order.split(", "):
            if step == "retain":
                y.retain_grad()
            elif step == "t_":
                y.t_()
            else:
                y.register_hook(_hook(seen, "hook"))
        _weighted_sum(torch, y).backward()
        out(order, (y.retains_grad, y.grad, seen))


def snip_retain_grad_left_behind_by_a_view_op(torch, out):
    # retain_grad() then t_() leaves the retain hook on the old history; the next ordinary
    # in-place op cannot move it (PyTorch fails an internal assert)
    x = torch.ones(2, 3, dtype=torch.float64, requires_grad=True)
    for label, y in (("non-leaf", x * 1), ("view", (x * 1)[:, :])):
        y.retain_grad()
        y.t_()
        with out.raises(f"{label}, then mul_"):
            y.mul_(2)
    y = x * 1
    y.t_()
    y.retain_grad()
    y.mul_(2)
    _weighted_sum(torch, y).backward()
    out("retain_grad after t_ moves with mul_", y.grad)


def snip_leaf_view_op_under_no_grad(torch, out):
    x = torch.arange(6.0, dtype=torch.float64).reshape(2, 3).requires_grad_()
    seen = []
    x.register_hook(_hook(seen, "before"))
    with torch.no_grad():
        x.t_()
    x.register_hook(_hook(seen, "after"))
    _weighted_sum(torch, x).backward()
    out("a leaf's hooks see its current shape", (seen, x.grad))


def snip_hooks_kept_by_detach_(torch, out):
    x = torch.ones(3, dtype=torch.float64, requires_grad=True)
    y = x * 1
    seen = []
    y.register_hook(_hook(seen, "h1"))
    y.detach_()
    with out.raises("no grad after detach_"):
        y.register_hook(_hook(seen, "refused"))
    y.requires_grad_()
    y.register_hook(_hook(seen, "h2"))
    (y * 2).sum().backward()
    out("the dict comes along to the new leaf", (seen, y.grad))


def snip_hooks_of_a_view_whose_base_is_written(torch, out):
    for read_grad_fn in (False, True):
        x = torch.ones(2, 3, dtype=torch.float64, requires_grad=True)
        base = x * 1
        v = base[:, 1:]
        seen = []
        v.register_hook(_hook(seen, "h1"))
        base.mul_(2)
        if read_grad_fn:
            v.grad_fn  # noqa: B018 - re-derives v's history: its hook dict starts anew
        v.register_hook(_hook(seen, "h2"))
        _weighted_sum(torch, v).backward()
        out(f"grad_fn read in between: {read_grad_fn}", (seen, x.grad))


def snip_abs_on_an_empty_view_under_create_graph(torch, out):
    for name in ("abs_", "sin_", "mul_"):
        leaf = torch.zeros(0, dtype=torch.float64, requires_grad=True)
        view = leaf.clone()[..., ::2]
        written = getattr(view, name)(*((2.0,) if name == "mul_" else ()))
        seed = torch.zeros(0, dtype=torch.float64, requires_grad=True)
        (g,) = torch.autograd.grad(written, leaf, seed, create_graph=True)
        out(f"{name}: the gradient requires grad", (g, g.requires_grad))
    x = torch.tensor([-1.0, 0.0, 2.0, float("inf"), float("nan")], dtype=torch.float64)
    x.requires_grad_()
    seed = torch.ones(5, dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad(x.abs(), x, seed, create_graph=True)
    inf = float("inf")  # reaches the sign's node, whose gradient stays 0 (not inf * 0)
    weight = torch.tensor([1.0, 1.0, inf, inf, 1.0], dtype=torch.float64)
    out("abs: first order", (g, g.requires_grad))
    second = torch.autograd.grad((g * weight).sum(), [x, seed])
    # + 0: PyTorch's zero gradient of the sign is a storage-less ZeroTensor (no tolist)
    out("abs: second order", [t + 0 for t in second])


SNIPPETS = collect(globals())


@pytest.mark.parametrize("snippet", SNIPPETS, ids=[s.__name__[5:] for s in SNIPPETS])
def test_hooks_inplace_views(snippet):
    key = "INTERNAL ASSERT FAILED" if "left_behind" in snippet.__name__ else None
    assert_same(snippet, key=key)
