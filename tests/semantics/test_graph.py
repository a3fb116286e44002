"""Graph structure: leaves, requires_grad propagation, grad_fn names and edges, .grad rules."""

from __future__ import annotations

import pytest
from parity import assert_same

from semantics.snippets import collect, edges


def snip_leaf_rules(torch, out):
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    c = torch.tensor([3.0, 4.0])
    b = a * c
    out("leaf flags", (a.is_leaf, c.is_leaf, b.is_leaf, (c * 2).is_leaf, b.detach().is_leaf))
    out("requires_grad", (a.requires_grad, c.requires_grad, b.requires_grad, (c + 1).requires_grad))
    out("grad_fn", (a.grad_fn is None, c.grad_fn is None, b.grad_fn.name()))


def snip_edges_and_accumulate_grad(torch, out):
    x = torch.tensor([1.0], requires_grad=True)
    y = torch.tensor([2.0], requires_grad=True)
    z = x * y + x**2
    out("z edges", edges(z.grad_fn))
    mul = z.grad_fn.next_functions[0][0]
    out("mul edges", edges(mul))
    acc = mul.next_functions[0][0]
    out("variable is x", acc.variable is x)
    out("shared accumulator", acc is z.grad_fn.next_functions[1][0].next_functions[0][0])
    out("constant edge", edges((x * 2).grad_fn))
    out("sum of const", edges((x + torch.tensor([1.0])).grad_fn))


@pytest.mark.parametrize(
    "expr",
    [
        "x - 1",
        "1 - x",
        "x / y",
        "x ** y",
        "2 ** x",
        "-x",
        "x @ W",
        "W @ x",
        "x.sum()",
        "x.sum(0)",
        "x.mean()",
        "x.exp()",
        "x.view(3, 1)",
        "x[0]",
        "x[1:]",
        "x[[0, 2]]",
        "x.unsqueeze(0)",
        "x.t() if x.ndim == 2 else x.unsqueeze(1).t()",
        "x.clone()",
        "x.double()",
        "x.max()",
        "x.clamp(min=0)",
        "x.clamp(0, 1)",
        "x.relu()",
        "x.norm()",
        "torch.cat([x, y])",
        "torch.stack([x, y])",
        "x.expand(2, 3)",
        "x.reshape(1, 3).T",
    ],
)
def test_grad_fn_names(expr):
    def snippet(torch, out):
        x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)  # noqa: F841 - used by eval
        y = torch.tensor([1.5, 2.0, 0.5], requires_grad=True)  # noqa: F841 - used by eval
        W = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)  # noqa: N806
        if expr == "W @ x":
            W = W.t()  # noqa: N806
        r = eval(expr)
        out("name", r.grad_fn.name())
        out("edges", edges(r.grad_fn))

    assert_same(snippet)


def snip_non_leaf_grad_warns(torch, out):
    x = torch.tensor([1.0], requires_grad=True)
    y = x * 2
    z = y * 2
    z.backward()
    with out.warns("reading y.grad"):
        out("y.grad", y.grad)
    out("x.grad", x.grad)


def snip_retain_grad(torch, out):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.retain_grad()
    y.retain_grad()
    z = (y * y).sum()
    with out.warns("no warning once retained"):
        out("before", y.grad)
    z.backward(retain_graph=True)
    out("y.grad", y.grad)
    out("retains_grad", (y.retains_grad, x.retains_grad))
    z.backward()
    out("accumulates", y.grad)
    x.retain_grad()
    out("leaf retain is a no-op", x.retains_grad)
    with out.raises("constant"):
        torch.tensor([1.0]).retain_grad()


def snip_grad_assignment(torch, out):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with out.raises("int"):
        x.grad = 0
    with out.raises("shape"):
        x.grad = torch.zeros(3)
    with out.raises("dtype"):
        x.grad = torch.zeros(2, dtype=torch.float64)
    x.grad = torch.ones(2)
    out("set", x.grad)
    x.grad = None
    out("cleared", x.grad)


def snip_requires_grad_rules(torch, out):
    with out.raises("int tensor"):
        torch.tensor([1, 2], requires_grad=True)
    with out.raises("int requires_grad_"):
        torch.tensor([1, 2]).requires_grad_()
    x = torch.tensor([1.0], requires_grad=True)
    y = x * 2
    with out.raises("non-leaf off"):
        y.requires_grad = False
    y.requires_grad_(True)
    out("non-leaf on is fine", y.requires_grad)
    out(
        "dtype default",
        (
            torch.tensor([1.0]).dtype,
            torch.tensor([1]).dtype,
            torch.tensor([True]).dtype,
            torch.tensor(1.5).dtype,
        ),
    )
    out(
        "promotion",
        (
            (torch.tensor([1, 2]) * 1.5).dtype,
            (torch.tensor([1.0]) + torch.tensor(2.0, dtype=torch.float64)).dtype,
            (torch.tensor([1.0]) + torch.tensor([2.0], dtype=torch.float64)).dtype,
            (torch.tensor([1, 2]) / 2).dtype,
            (torch.tensor([1, 2]) + 2).dtype,
        ),
    )


def snip_tensor_repr(torch, out):
    out(
        "reprs",
        [
            repr(torch.tensor([1.0, 2.0], requires_grad=True)),
            repr(torch.tensor([0.5, 2.0])),
            repr(torch.tensor(3.0)),
            repr(torch.tensor([1, 2])),
            repr(torch.tensor([1.0], dtype=torch.float64)),
            repr(torch.tensor([True, False])),
        ],
    )
    x = torch.tensor([2.0], requires_grad=True)
    out("with grad_fn", repr(x * 2))


def snip_tensor_basics(torch, out):
    x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    out("shape", (tuple(x.shape), x.size(1), x.ndim, x.numel(), x.dim(), len(x)))
    out("item", torch.tensor([2.5]).item())
    out("tolist", (x.tolist(), torch.tensor(3.0).tolist()))
    with out.raises("item many"):
        x.item()
    with out.raises("numpy with grad"):
        torch.tensor([1.0], requires_grad=True).numpy()
    out("comparisons", [(x > 2).tolist(), (x == 2).dtype, (x > 2).requires_grad])


SNIPPETS = collect(globals())


@pytest.mark.parametrize("snippet", SNIPPETS, ids=[s.__name__[5:] for s in SNIPPETS])
def test_graph_semantics(snippet):
    assert_same(snippet)


@pytest.mark.parametrize("op", ["sign", "round", "floor", "ceil", "trunc"])
def test_piecewise_constant_ops(op):
    def snippet(torch, out):
        x = torch.tensor([1.5, -2.5, 0.0, 3.2], requires_grad=True)
        y = getattr(x, op)()
        out("value", (y, y.grad_fn.name()))
        y.sum().backward()
        out("zero gradient", x.grad)
        out("argsort", (x.argsort(), torch.argsort(x, descending=True)))

    assert_same(snippet)


def test_sequence_numbers():
    def snippet(torch, out):
        x = torch.tensor([1.0], requires_grad=True)
        a, b = x * 2, x * 3
        out("newer is larger", b.grad_fn._sequence_nr() > a.grad_fn._sequence_nr())
        out(
            "AccumulateGrad is UINT64_MAX",
            a.grad_fn.next_functions[0][0]._sequence_nr() == 2**64 - 1,
        )
        w = torch.tensor([2.0], requires_grad=True)  # a new leaf's AccumulateGrad uses no number
        c = a * w
        out("consecutive", c.grad_fn._sequence_nr() - b.grad_fn._sequence_nr())

    assert_same(snippet)


def test_repr_of_cpp_named_nodes():
    def snippet(torch, out):
        y = torch.tensor([1.0, 2.0], requires_grad=True) * 1
        y[0] = 5.0
        out("CopySlices", repr(y))

    assert_same(snippet)


def test_multi_output_ops():
    def snippet(torch, out):
        x = torch.arange(6.0).requires_grad_()
        a, b, c = x.split(2)
        out("one node", (a.grad_fn.name(), a.grad_fn is c.grad_fn, c.output_nr, a._is_view()))
        out("pieces", (x.chunk(4), x.split([1, 5])[1].grad_fn.name()))
        (a.sum() * 2 + c.sum()).backward()  # b gets no gradient: zeros in its place
        out("x.grad", x.grad)
        y = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        cols = y.unbind(1)
        out("unbind", (cols, cols[0].grad_fn.name()))
        (cols[0] * cols[2]).sum().backward()
        out("y.grad", y.grad)

    assert_same(snippet)
