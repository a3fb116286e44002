"""In-place ops, version counters, .data versus detach(), views written in place."""

from __future__ import annotations

import itertools

import pytest
from parity import assert_same

from semantics.snippets import collect, edges


def snip_leaf_inplace_refused(torch, out):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with out.raises("add_"):
        x.add_(1)
    out("version unchanged", x._version)
    with out.raises("setitem"):
        x[0] = 5.0
    with torch.no_grad():
        x.add_(1)
    out("allowed under no_grad", (x, x._version, x.requires_grad, x.is_leaf))


def snip_version_counter(torch, out):
    a = torch.ones(3)
    out("start", a._version)
    a.add_(1)
    a.mul_(2)
    a[0] = 7.0
    out("after three", a._version)
    d = a.detach()
    d.zero_()
    out("detach shares counter", (a._version, d._version, a))
    a.data.fill_(3.0)
    out(".data does not count", (a._version, a))
    v = a[1:]
    v.add_(1)
    out("view shares counter", (a._version, v._version, a))


def snip_saved_tensor_modified(torch, out):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    z = y * y
    y.add_(1)
    with out.raises("modified"):
        z.sum().backward()
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0])
    c = a * b
    b.mul_(2)
    with out.raises("constant saved"):
        c.sum().backward()
    s = a.sigmoid()
    s.mul_(2)
    with out.raises("output saved"):
        s.sum().backward()


def snip_unsaved_inplace_is_fine(torch, out):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = x * 1
    c = torch.tensor([3.0, 4.0])
    y = w * c  # only c is saved (w's gradient needs c; c needs no gradient)
    w.mul_(10)
    y.sum().backward()
    out("x.grad", x.grad)
    out("w", (w, w.grad_fn.name(), edges(w.grad_fn)))


def snip_rebase_history(torch, out):
    x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = x * 2
    y.relu_()
    out("relu_", (y.grad_fn.name(), y.is_leaf))
    y.sigmoid_()
    y.add_(1)
    out("chain", [y.grad_fn.name(), y.grad_fn.next_functions[0][0].name()])
    y.sum().backward()
    out("x.grad", x.grad)
    c = torch.zeros(3)
    c.copy_(x)
    out("copy_ into constant", (c.requires_grad, c.grad_fn.name(), c.is_leaf))


def snip_inplace_makes_constant_require_grad(torch, out):
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    a = torch.tensor([3.0, 4.0])
    a.mul_(w)
    out("a", (a.requires_grad, a.is_leaf, a.grad_fn.name()))
    a.sum().backward()
    out("w.grad", w.grad)


def snip_data_versus_detach(torch, out):
    a = torch.ones(2, 2, requires_grad=True)
    b = torch.ones(2, 2, requires_grad=True) * 2
    c = a.sigmoid() * b
    a.data.mul_(3)  # invisible to the version counter: silently wrong gradient
    c.sum().backward()
    out("silent", a.grad)
    a2 = torch.ones(2, requires_grad=True)
    c2 = a2.sigmoid()
    a2.detach().mul_(3)
    with out.raises("detach is seen"):
        c2.sum().backward()


def snip_views_written_in_place(torch, out):
    x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    y = x * 1
    v = y[1:3]
    v.mul_(10)
    out("base history", (y.grad_fn.name(), edges(y.grad_fn)))
    out("values", y)
    (y * torch.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
    out("x.grad", x.grad)
    z = x * 1
    z[0] = 0.0
    out("setitem", (z.grad_fn.name(), z))
    z.sum().backward()
    out("x.grad after setitem", x.grad)
    with out.raises("view of leaf"):
        x[1:].add_(1)


def snip_setitem_with_grad_value(torch, out):
    w = torch.tensor(5.0, requires_grad=True)
    buf = torch.zeros(3)
    buf[1] = w * 2
    out("buf", (buf, buf.requires_grad, buf.grad_fn.name()))
    buf.sum().backward()
    out("w.grad", w.grad)
    m = torch.zeros(4)
    idx = torch.tensor([0, 2])
    m[idx] = w
    out("advanced", (m, m.grad_fn.name()))


def snip_detach_(torch, out):
    x = torch.tensor([1.0], requires_grad=True)
    y = x * 2
    y.detach_()
    out("detached in place", (y.requires_grad, y.is_leaf, y.grad_fn is None))


def snip_inference_mode(torch, out):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.inference_mode():
        y = x * 2
    out("inference", (y.requires_grad, y.is_inference()))
    with out.raises("saved inference tensor"):
        (x * y).sum().backward()
    with out.raises("inplace outside"):
        y.add_(1)
    with torch.no_grad():
        z = x * 2
    out("no_grad", (z.requires_grad, z.is_inference()))


def snip_inplace_gradients_with_inf_and_nan_seeds(torch, out):
    inf, nan = float("inf"), float("nan")

    def view_mul(y):
        y[0:2].mul_(2)
        return y

    def view_set(y):
        y[0:2] = 5.0
        return y

    writes = {
        "fill_": lambda y: y.fill_(2.0),
        "zero_": lambda y: y.zero_(),
        "copy_": lambda y: y.copy_(torch.ones(3)),
        "mul_ on a view": view_mul,
        "setitem on a view": view_set,
    }
    for label, write in writes.items():
        x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        write(x * 1).backward(torch.tensor([inf, nan, -inf]))
        out(label, x.grad)


def snip_a_changed_bool_mask_is_named_like_pytorch(torch, out):
    x = torch.ones(2, requires_grad=True)
    mask = torch.tensor([True, False])
    y = torch.where(mask, x, torch.tensor(0.0))
    mask[1] = True
    with out.raises("the saved condition changed"):
        y.sum().backward()


def snip_arithmetic_written_through(torch, out):
    """`x += y` and add_/sub_/mul_ where nothing records (the optimizer's update): values,
    dtypes, versions and refusals, for each kind of target and operand."""
    targets = {
        "plain": lambda: torch.linspace(-2.0, 2.0, 6).reshape(2, 3),
        "leaf under no_grad": lambda: torch.linspace(-2.0, 2.0, 6).reshape(2, 3).requires_grad_(),
        ".data": lambda: torch.ones(2, 3, requires_grad=True).data,
        "transposed": lambda: torch.arange(6.0).reshape(3, 2).t(),
        "expanded": lambda: torch.ones(3).expand(2, 3),
        "int": lambda: torch.arange(6).reshape(2, 3),
    }
    operands = {
        "float": lambda x: 0.1,
        "int": lambda x: 3,
        "same": lambda x: torch.full((2, 3), 0.3),
        "0-d": lambda x: torch.tensor(0.3),
        "row": lambda x: torch.tensor([1.0, -0.5, 2.0]),
        "float64": lambda x: torch.full((2, 3), 0.3, dtype=torch.float64),
        "itself": lambda x: x,
        "its view": lambda x: x[0],
        "bigger": lambda x: torch.ones(4, 2, 3),
        "inf": lambda x: float("inf"),
    }
    ops = {
        "+=": lambda x, y: x.__iadd__(y),
        "sub_": lambda x, y: x.sub_(y),
        "mul_": lambda x, y: x.mul_(y),
        "add_": lambda x, y: x.add_(y),
    }
    for (tname, target), (oname, operand), (oname2, op) in itertools.product(
        targets.items(), operands.items(), ops.items()
    ):
        x = target()
        y = operand(x)
        label = f"{tname} {oname2} {oname}"
        with torch.no_grad(), out.raises(label):
            result = op(x, y)
            out(label, (result is x, x, x.dtype, x._version))


def snip_number_times_unrecorded_tensor(torch, out):
    """`lr * grad` where nothing records (minigrad multiplies without wrapping the number):
    values, dtype, layout, and what an inference tensor that requires grad records."""
    targets = {
        "plain": lambda: torch.linspace(-2.0, 2.0, 6).reshape(2, 3),
        "float64": lambda: torch.linspace(-2.0, 2.0, 6, dtype=torch.float64).reshape(2, 3),
        "transposed": lambda: torch.arange(6.0).reshape(3, 2).t(),
        "expanded": lambda: torch.tensor([1.0, -0.0, float("nan")]).expand(2, 3),
        "int": lambda: torch.arange(6).reshape(2, 3),
        "requires grad": lambda: torch.ones(2, 3, requires_grad=True),
    }
    for name, target in targets.items():
        for number in (0.1, -0.0, float("inf"), 1e39):
            with torch.no_grad():
                x = target()
            y = number * x
            node = y.grad_fn.name() if y.grad_fn is not None else None
            out(f"{name} * {number}", (y, y.dtype, y.stride(), y.requires_grad, node))
    with torch.inference_mode():
        x = torch.ones(2, requires_grad=True)
    y = x * 0.5
    out("inference tensor that requires grad", (y.requires_grad, y.grad_fn is not None))


SNIPPETS = collect(globals())


@pytest.mark.parametrize("snippet", SNIPPETS, ids=[s.__name__[5:] for s in SNIPPETS])
def test_inplace_semantics(snippet):
    assert_same(snippet)


def snip_views_follow_their_base(torch, out):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    v = y[0:2]
    y.mul_(2)  # v's history must now go through the multiplication
    out("view history", v.grad_fn.name())
    v.sum().backward()
    out("x.grad", x.grad)
    a = torch.zeros(3)
    view = a[1:]
    w = torch.tensor(2.0, requires_grad=True)
    a.mul_(w)
    out("view of a base that now requires grad", (view.requires_grad, view.is_leaf))


def test_views_follow_their_base():
    assert_same(snip_views_follow_their_base)
