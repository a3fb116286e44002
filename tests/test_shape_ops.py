"""The shape ops (flip, roll, diagonals, trace, repeat, repeat_interleave, hstack & co, diff,
rsqrt) on both libraries, for what the generated sweep does not look at: whether a result is a
view, its strides, the whole chain of nodes a composite op records, writes through a diagonal
view, and whole error messages. Values, gradients and grad_fn names are the sweep's
(tests/sweep/shapeops.py)."""

from __future__ import annotations

import numpy as np
import pytest
from parity import assert_same
from semantics.snippets import collect


def chain(t) -> tuple:
    """The names of the nodes behind t, depth first: (name, (inputs' chains...))."""

    def walk(fn):
        if fn is None:
            return None
        return (fn.name(), tuple(walk(n) for n, _ in fn.next_functions))

    return walk(t.grad_fn)


def layout(t) -> tuple:
    """A result as memory sees it: a view or not, and its strides."""
    return (t._base is not None, tuple(t.stride()))


def leaf(torch, *shape, transposed=False):
    """A float64 leaf requiring grad (transposed: the same shape, as a view of its transpose)."""
    n = int(np.prod(shape))
    data = np.linspace(-1.5, 2.0, n).reshape(shape[::-1] if transposed else shape)
    x = torch.tensor(data, dtype=torch.float64, requires_grad=True)
    return x, (x.t() if transposed else x)


def snip_layouts_follow_pytorch(torch, out):
    _, m = leaf(torch, 3, 4)
    _, mt = leaf(torch, 3, 4, transposed=True)
    e = torch.ones(1, 4, dtype=torch.float64).expand(3, 4)
    for name, a in (("contiguous", m), ("transposed", mt), ("expanded", e)):
        out(f"flip, {name}", layout(a.flip(0)))
        out(f"roll, {name}", layout(a.roll(1, 0)))
        out(f"roll flat, {name}", layout(a.roll(1)))
        out(f"repeat, {name}", layout(a.repeat(2, 1)))
        out(f"diagonal, {name}", layout(a.diagonal(1)))
        out(f"diag, {name}", layout(torch.diag(a, -1)))
        out(f"diag_embed, {name}", layout(torch.diag_embed(a)))
        out(f"repeat_interleave, {name}", layout(a.repeat_interleave(2, 0)))
        out(f"diff, {name}", layout(a.diff()))
        out(f"rsqrt, {name}", layout(a.abs().rsqrt()))
    # (stacked from contiguous inputs only: minigrad's cat lays non-contiguous inputs out as
    # numpy's concatenate does, where PyTorch's result is contiguous)
    out("hstack", layout(torch.hstack([m, m])))
    out("dstack", layout(torch.dstack([m, m])))


def snip_composite_ops_record_pytorchs_nodes(torch, out):
    x, m = leaf(torch, 3, 4)
    s = torch.tensor(1.5, requires_grad=True)
    v = torch.linspace(-1, 1, 4, requires_grad=True)
    out("repeat_interleave(int)", chain(m.repeat_interleave(2)))
    out("repeat_interleave(int, dim)", chain(m.repeat_interleave(3, dim=1)))
    out("repeat_interleave(tensor, dim)", chain(m.repeat_interleave(torch.tensor([1, 0, 2]), 0)))
    out("repeat_interleave(tensor)", chain(m.repeat_interleave(torch.tensor(2))))
    out("repeat_interleave of a 0-d", chain(s.repeat_interleave(2)))
    out("hstack", [chain(torch.hstack(t)) for t in ([s, s], [v, v], [m, m])])
    out("vstack", [chain(torch.vstack(t)) for t in ([s, s], [v, v], [m, m])])
    out("dstack", [chain(torch.dstack(t)) for t in ([s, s], [v, v], [m, m])])
    out("atleast_3d", [chain(t) for t in torch.atleast_3d(s, v, m)])
    out("diff, n=2", chain(m.diff(n=2)))
    out("diff, prepend and append", chain(m.diff(dim=0, prepend=m, append=m)))
    out("diff, n=0", chain(m.diff(n=0)))
    out("diff, n beyond the length", chain(m.diff(n=9)))
    out("diag of a vector, of a matrix", (chain(torch.diag(v)), chain(torch.diag(m))))
    out("trace", chain(m.trace()))
    out("the result of repeat_interleave(int) is a view", m.repeat_interleave(2, 0)._base is None)


def snip_gradients_through_diagonal_views(torch, out):
    x, m = leaf(torch, 3, 4)
    y = m * 1
    d = y.diagonal(1)
    d.mul_(3)
    out("the base sees the write", y)
    out("the view's node after the write", d.grad_fn.name())
    (y * y).sum().backward()
    out("gradient through the written view", x.grad)
    with out.raises("a view of a leaf written in place"):
        x.diagonal().zero_()
    z = m * 1
    view = z.diagonal()
    z.add_(1)
    out("a view regenerated after its base was written", (view, view.grad_fn.name()))


def snip_whole_messages(torch, out):
    m = torch.zeros(3, 4)
    calls = {
        "torch.flip(m, 0)": lambda: torch.flip(m, 0),
        "m.flip()": lambda: m.flip(),
        "m.flip(0, 0.5)": lambda: m.flip(0, 0.5),
        "m.flip(None)": lambda: m.flip(None),
        "m.roll((1,), (0.5,))": lambda: m.roll((1,), (0.5,)),
        "m.roll((), ())": lambda: m.roll((), ()),
        "scalar.roll(1, 0)": lambda: torch.tensor(1.0).roll(1, 0),
        "m.repeat(1, 2.0)": lambda: m.repeat(1, 2.0),
        "m.repeat(-1, 2)": lambda: m.repeat(-1, 2),
        "m.repeat_interleave(2.0)": lambda: m.repeat_interleave(2.0),
        "torch.repeat_interleave(m, [1])": lambda: torch.repeat_interleave(m, [1]),
        "torch.repeat_interleave(2.5)": lambda: torch.repeat_interleave(2.5),
        "float repeats": lambda: m.repeat_interleave(torch.tensor([1.0, 2.0, 0.0]), 0),
        "repeats of the wrong size": lambda: m.repeat_interleave(torch.tensor([1, 2]), 1),
        "output_size": lambda: m.repeat_interleave(torch.tensor([1, 2, 0]), 0, output_size=2),
        "diagonal(0.5)": lambda: m.diagonal(0.5),
        "diag(m, 1.0)": lambda: torch.diag(m, 1.0),
        "trace of bool": lambda: torch.ones(2, 2, dtype=torch.bool).trace(),
        "diff(n=1.5)": lambda: m.diff(n=1.5),
        "diff append float": lambda: m.diff(append=1.0),
        "diff prepend shape": lambda: m.diff(prepend=torch.zeros(2, 1)),
        "hstack(tensor)": lambda: torch.hstack(m),
        "hstack([m, 2])": lambda: torch.hstack([m, 2]),
        "rsqrt_ of an integer tensor": lambda: torch.arange(3).rsqrt_(),
    }
    for label, call in calls.items():
        with out.raises(label):
            call()


def snip_values_beside_the_sweep(torch, out):
    """Cases the sweep's random inputs do not reach: integer and bool inputs, -0.0."""
    out(
        "trace of int32 and uint8",
        [torch.ones(2, 3, dtype=d).trace() for d in (torch.int32, torch.uint8)],
    )
    out("diff of bool", torch.tensor([True, False, False, True]).diff(n=2))
    out(
        "diff of bool with a float prepend", torch.tensor([True, False]).diff(prepend=torch.ones(1))
    )
    out("rsqrt at 0, -0, -1, inf", torch.tensor([0.0, -0.0, -1.0, float("inf")]).rsqrt())
    out("repeat_interleave of repeats alone", torch.repeat_interleave(torch.tensor([2, 0, 1])))
    out("roll by more than the length", torch.arange(5).roll(-12))
    out("roll of one dim twice", torch.arange(6).reshape(2, 3).roll((1, 1), (1, 1)))
    out("atleast_2d of a list", torch.atleast_2d([torch.tensor(1.0), torch.zeros(3)]))
    out("atleast_1d of nothing", torch.atleast_1d())


def snip_view_and_reshape_infer_like_pytorch(torch, out):
    """-1 filled in, and each of PyTorch's messages for a shape that cannot be (a 0-element
    tensor makes -1 ambiguous; dims below -1 are named)."""
    shapes = [(-1, 30), (2, -1, 3), (-1,), (5, -1), (-1, 7), (-1, -1), (0, -1), (-1, 0)]
    shapes += [(-2, 3), (-1, -2), (-2, -3), (1, -1), (3, 0), (-1, 5), (0,), ()]
    for numel in (0, 1, 6, 30):
        for shape in shapes:
            x = torch.zeros(numel)
            with out.raises(f"{numel} elements viewed as {shape}"):
                out("view", tuple(x.view(*shape).shape) if shape else x.view(()).shape)
            with out.raises(f"{numel} elements reshaped to {shape}"):
                out("reshape", tuple(x.reshape(shape).shape))
    with out.raises("view with no size"):
        torch.zeros(2).view()
    with out.raises("reshape with no shape"):
        torch.zeros(2).reshape()


@pytest.mark.parametrize("snippet", collect(globals()), ids=lambda f: f.__name__)
def test_shape_ops_match_pytorch(snippet):
    assert_same(snippet)
