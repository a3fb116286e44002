"""In-place view ops (t_, transpose_, squeeze_, unsqueeze_), writes into expanded tensors, the
outputs of split/chunk/unbind written in place, CopySlices after backward, and `t[key] = v`."""

from __future__ import annotations

import warnings

import pytest
from parity import assert_same

from semantics.snippets import collect, edges


def snip_inplace_view_ops(torch, out):
    x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    with out.raises("leaf"):
        x.t_()
    y = x * 1
    out("t_ returns self", y.t_() is y)
    out("t_", (y.shape, y._version, y.grad_fn.name(), edges(y.grad_fn)))
    y.unsqueeze_(0)
    y.squeeze_()
    y.squeeze_(0)
    y.unsqueeze_(-1)
    y.squeeze_((2,))
    y.transpose_(0, 1)
    out("chain", (y.shape, y._version, y.grad_fn.name(), edges(y.grad_fn)))
    (y * torch.arange(6.0).reshape(2, 3)).sum().backward()
    out("x.grad", x.grad)
    with out.raises("t_ on 3-d"):
        torch.zeros(1, 2, 3).t_()
    with torch.no_grad():
        x.t_()
    out("leaf under no_grad", (x.shape, x._version))


def _refused(out, label, run):
    """Record that `run` is refused as a modified saved value (the rest of the message names
    nodes: core/saved.py prints TBackward1 as "T", PyTorch as "T1")."""
    try:
        run()
        out(label, "not refused")
    except RuntimeError as err:
        out(label, "modified by an inplace operation" in str(err))


def snip_inplace_view_op_checks_saved_values(torch, out):
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = x * 1
    z = y * y  # saves y
    y.t_()
    _refused(out, "saved y changed shape", lambda: z.sum().backward())


def snip_inplace_view_op_on_a_view(torch, out):
    x = torch.arange(12.0).reshape(3, 4).requires_grad_()
    y = x * 1
    v = y[0:2]
    v.t_()
    out("view", (v.shape, v._is_view(), v.grad_fn.name(), edges(v.grad_fn), y.grad_fn.name()))
    v.mul_(10)  # writes through the transposed view into y
    out("base", (y, y.grad_fn.name()))
    (v * torch.arange(8.0).reshape(4, 2)).sum().backward()
    out("x.grad", x.grad)


def snip_views_of_a_base_changed_by_an_inplace_view_op(torch, out):
    x = torch.arange(6.0).reshape(2, 3).requires_grad_()
    y = x * 1
    row = y[0]
    y.t_()  # row still sees the same memory
    y.mul_(2)
    out("row", (row, row.grad_fn.name()))
    row.sum().backward()
    out("x.grad", x.grad)


def snip_writes_into_expanded_tensors(torch, out):
    mask = torch.tensor([[True, False, False, True], [False, True, False, True]] * 2)[:3]
    for name, write in (
        ("fill_", lambda t: t.fill_(2.5)),
        ("zero_", lambda t: t.zero_()),
        ("masked_fill_", lambda t: t.masked_fill_(mask, -1.0)),
        ("setitem mask", lambda t: t.__setitem__(mask, 7.0)),
        ("setitem row", lambda t: t.__setitem__(1, torch.tensor([9.0, 8.0, 7.0, 6.0]))),
        ("add_", lambda t: t.add_(1)),
        ("copy_", lambda t: t.copy_(torch.zeros(3, 4))),
        ("fill_ with a tensor", lambda t: t.fill_(torch.tensor(1.0))),
        ("setitem column", lambda t: t.__setitem__((slice(None), 1), 2.0)),
    ):
        base = torch.tensor([[1.0, 2.0, 3.0, 4.0]])
        with out.raises(name):
            write(base.expand(3, 4))
        out(f"{name}: base", base)


def snip_expanded_write_gradients(torch, out):
    x = torch.tensor([[1.0, 2.0, 3.0, 4.0]], requires_grad=True)
    b = x.clone()
    t = b.expand(3, 4)
    t.fill_(2.0)
    out("history", (b.grad_fn.name(), t.grad_fn.name()))
    with out.raises("base gradient through an expanded write"):
        t.backward(torch.ones(3, 4))
    v = torch.tensor([[5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]], requires_grad=True)
    c = torch.ones(1, 4)
    e = c.expand(3, 4)
    e[[0, 2]] = v  # rows 0 and 2 share memory: the last write wins
    out("values", c)
    e.backward(torch.arange(12.0).reshape(3, 4))
    out("v.grad", v.grad)


def snip_multi_output_views(torch, out):
    x = torch.arange(20.0).reshape(5, 4).requires_grad_()
    for name, pieces in (
        ("split", lambda b: b.split(2)),
        ("split sizes", lambda b: b.split([2, 3])),
        ("chunk", lambda b: b.chunk(2)),
        ("unbind", lambda b: b.unbind(1)),
    ):
        b = x * 1
        first = pieces(b)[0]
        with out.raises(f"{name}: written in place"):
            first.mul_(2)
        with out.raises(f"{name}: t_"):
            first.t_()
        b = x * 1
        first, second = pieces(b)[:2]
        b.mul_(2)
        with out.raises(f"{name}: base written"):
            out("grad_fn", first.grad_fn.name())
        with out.raises(f"{name}: sibling after base written"):
            second.sum().backward()
    c = torch.arange(6.0).reshape(3, 2).split(1)
    c[0].mul_(2)
    out("no grad: allowed", c[0])
    with out.raises("no grad, but the other operand requires it"):
        c[1].mul_(torch.tensor(2.0, requires_grad=True))
    b = x * 1
    y = b.split(2)[0] * 2  # used before the base is written: fine
    b.mul_(2)
    y.sum().backward()
    out("x.grad", x.grad)


def snip_split_edge_cases(torch, out):
    x = torch.zeros(0, 3, requires_grad=True)
    out("chunk of an empty dim", [t.shape for t in x.chunk(2)])
    out("unbind of an empty dim", x.unbind(0))
    for name, call in (
        ("chunk 0", lambda: torch.zeros(5, 4).chunk(0)),
        ("split 0", lambda: torch.zeros(5, 4).split(0)),
        ("split -1", lambda: torch.zeros(5, 4).split(-1)),
        ("split 0-d", lambda: torch.tensor(1.0).split(1)),
        ("unbind 0-d", lambda: torch.tensor(1.0).unbind()),
    ):
        with out.raises(name):
            call()


def snip_copy_slices_after_backward(torch, out):
    x = torch.ones(3, 4, requires_grad=True)
    b = x * 1
    v = b.t()
    v.add_(1)
    v.sum().backward(retain_graph=True)
    v.sum().backward()
    out("x.grad", x.grad)
    v.add_(1)  # the new history goes through the released CopySlices
    with out.raises("released"):
        v.sum().backward()


def snip_saved_results_of_inplace_ops_on_views(torch, out):
    for name, op in (("exp_", "exp_"), ("sigmoid_", "sigmoid_"), ("relu_", "relu_")):
        x = torch.tensor([[1.0, -2.0], [3.0, 4.0]], requires_grad=True)
        b = x * 1
        v = b.t()
        getattr(v, op)()
        b.detach().mul_(2)
        _refused(out, f"{name}: base changed after", lambda v=v: v.sum().backward())
        y = x * 1
        w = y[0]
        getattr(w, op)()
        w.mul_(1)
        _refused(out, f"{name}: output changed after", lambda y=y: y.sum().backward())


def snip_setitem_semantics(torch, out):
    x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    for name, key, value in (
        ("ellipsis", Ellipsis, 2.0),
        ("full slice", slice(None), 2.0),
        ("row", 1, 2.0),
        ("row tensor", 1, torch.tensor([7.0, 8.0, 9.0])),
        ("row 0-d", 1, torch.tensor(3.0)),
        ("row list", (1, [0, 2]), 2.0),
        ("list", [0, 1], torch.zeros(2, 3)),
        ("mask", x.detach() > 2, 0.0),
        ("range", range(2), 1.0),
    ):
        y = x * 1
        y[key] = value
        out(name, (y, y.grad_fn.name()))
    z = torch.tensor(1.0, requires_grad=True) * 1
    z[...] = 2.0
    out("0-d", z.grad_fn.name())
    y = x * 1
    for name, key, value in (
        ("value too long", 1, torch.ones(4)),
        ("list value", 0, [1.0, 2.0, 3.0]),
        ("dtype", [0], torch.ones(3, dtype=torch.float64)),
        ("shape", [0, 1], torch.ones(4)),
    ):
        with out.raises(name):
            y[key] = value
    with out.raises("overflow"):
        torch.zeros(2, 3, dtype=torch.int64)[0] = float("inf")


SNIPPETS = collect(globals())


@pytest.mark.parametrize("snippet", SNIPPETS, ids=lambda s: s.__name__[5:])
def test_inplace_view_semantics(snippet):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same(snippet)
