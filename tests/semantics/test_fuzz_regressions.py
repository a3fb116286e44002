"""Programs the fuzzer (tests/fuzz) once found minigrad getting wrong, shrunk to a few lines and
kept, one per cause. Each ran without error in one library and differently in the other, or gave
other values, flags or node names; PyTorch's outcome is the expectation."""

from __future__ import annotations

import warnings

import pytest
from parity import assert_same

from semantics.snippets import collect


# --- views and grad mode ---------------------------------------------------------------------
def snip_view_made_under_no_grad_has_no_history(torch, out):
    x = torch.ones(3, requires_grad=True)
    with torch.no_grad():
        v = x[:2]
    out("v", (v.requires_grad, v.is_leaf, v.grad_fn, v.grad))
    with out.raises("backward from v"):
        v.sum().backward()
    with out.raises("write v under grad mode"):
        v.mul_(2)


def snip_split_outputs_read_after_base_written_under_no_grad(torch, out):
    x = torch.ones(4, requires_grad=True) * 1
    a, b = x.split(2)
    with torch.no_grad():
        x.add_(1)
    out("a", (a.requires_grad, a._version))
    with out.raises("a.grad_fn"):
        out("name", a.grad_fn.name())


def snip_view_follows_its_base_requires_grad(torch, out):
    x = torch.ones(2, 3)
    v = x[0]
    x.requires_grad_()
    out("v", (v.requires_grad, v.is_leaf, v.grad_fn))


def snip_expand_to_the_same_shape_is_a_view(torch, out):
    x = torch.ones(2, 3)
    e = x.expand(2, 3)
    out("same object", e is x)
    with out.raises("requires_grad_ on the view"):
        e.requires_grad_()
    out("x", x.requires_grad)


def snip_stale_view_regenerated_under_no_grad(torch, out):
    x = torch.ones(3, requires_grad=True)
    y = x * 2
    v = y[1:]
    y.mul_(3)
    with torch.no_grad():
        out("name", v.grad_fn.name())
    (v * v).sum().backward()
    out("x.grad", x.grad)


# --- history after the fact ------------------------------------------------------------------
def snip_leaf_that_stopped_requiring_grad_gets_none(torch, out):
    x = torch.ones(3, requires_grad=True)
    y = (x * 2).sum()
    x.requires_grad_(False)
    y.backward()
    out("x.grad", x.grad)


def snip_detach__refuses_views_and_spares_saved_leaves(torch, out):
    x = torch.ones(3, requires_grad=True)
    y = x * 1
    with out.raises("detach_ of a view"):
        y[:2].detach_()
    z = y * y
    y.detach_()
    z.sum().backward()
    out("x.grad", x.grad)


def snip_retain_grad_on_a_view_then_base_written(torch, out):
    x = torch.ones(4, requires_grad=True)
    y = x * 1
    v = y[:2]
    v.retain_grad()
    z = (v * 2).sum()
    y.mul_(2)  # v's history is stale now: storing its .grad regenerates it mid-backward
    z.backward()
    out("v", (v.grad, v.grad_fn.name()))
    out("x.grad", x.grad)
    y.sum().backward()
    out("after a backward through the new history", (v.grad, x.grad))


# --- in-place corner cases -------------------------------------------------------------------
def snip_copy_takes_a_number(torch, out):
    x = torch.zeros(3)
    out("copy_", (x.copy_(1.5), x._version))


def snip_partial_overlap_is_refused(torch, out):
    x = torch.arange(6.0)
    with out.raises("overlap"):
        x[1:].add_(x[:-1])
    out("same elements are fine", x.copy_(x))


def snip_operands_that_are_not_tensors(torch, out):
    x = torch.ones(2, requires_grad=True)
    for name, other in (("list", [1.0, 2.0]), ("string", "a"), ("None", None)):
        with out.raises(name):
            x + other
    with out.raises("mul_ with None"):
        (x * 1).mul_(None)


# --- hooks and autograd.grad ------------------------------------------------------------------
def snip_hook_on_an_output_without_gradient_sees_none(torch, out):
    x = torch.ones(2, requires_grad=True)
    a, b = (x * 1).unbind()
    seen = []
    b.register_hook(lambda g: seen.append(g))
    a.backward()
    out("b's hook saw", seen)


def snip_materialized_zeros_require_grad_under_create_graph(torch, out):
    x = torch.ones(2, requires_grad=True)
    u = torch.ones(2, requires_grad=True)
    (g,) = torch.autograd.grad(
        (x * 2).sum(), [u], allow_unused=True, materialize_grads=True, create_graph=True
    )
    out("g", (g, g.requires_grad))


def snip_autograd_grad_results_are_views_of_their_grad(torch, out):
    x = torch.ones(2, 3, requires_grad=True)
    (g,) = torch.autograd.grad(x.sum(), x)
    out("g", (g.shape, g.stride(), g._base is not None))
    with out.raises("write g"):
        g.add_(1)


def snip_create_graph_node_names(torch, out):
    x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    for name, f in (
        ("tanh", torch.tanh),
        ("sigmoid", torch.sigmoid),
        ("softmax", lambda t: t.softmax(0)),
        ("log_softmax", lambda t: t.log_softmax(0)),
        ("mean", lambda t: t.mean()),
        ("max", lambda t: t.max()),
        ("masked_fill", lambda t: t.masked_fill(t > 0, 0.0)),
        ("select", lambda t: t[1]),
    ):
        (g,) = torch.autograd.grad(f(x).sum(), x, create_graph=True)
        out(name, g.grad_fn.name())


# --- layouts and arithmetic of zero ----------------------------------------------------------
def snip_layout_of_results_from_expanded_tensors(torch, out):
    x = torch.ones(2, 3).expand(2, 2, 3)
    for name, result in (
        ("long", x.long()),
        ("int to float", torch.ones(3, dtype=torch.int64).expand(2, 3).sin()),
        ("mixed dtypes", x - torch.ones(3, dtype=torch.float64)),
        ("clone", x.clone()),
        ("transpose kept", torch.ones(2, 3).t().clone()),
    ):
        out(name, (result.stride(), result.is_contiguous()))
    with out.raises("view of a transpose"):
        torch.ones(2, 3).t().view(-1)


def snip_clamp_keeps_negative_zero(torch, out):
    x = torch.tensor([-0.0, -1.0, 2.0])
    out("sqrt of clamp", 1 / x.clamp(min=0).sqrt())
    out("relu", 1 / x.relu())
    out("sum of one -0.0", 1 / torch.tensor([-0.0]).sum())
    out("sum of nothing", 1 / torch.zeros(0).sum())


def snip_linear_with_a_frozen_weight(torch, out):
    torch.manual_seed(0)
    w = torch.ones(4, 3)
    b = torch.zeros(4, requires_grad=True)
    x = torch.ones(2, 3)
    torch.nn.functional.linear(x, w, b).sum().backward()
    out("b.grad", b.grad)


def snip_leaf_reshaped_in_place_under_no_grad(torch, out):
    x = torch.ones(2, 3, requires_grad=True)
    y = (x * 2).sum()
    with torch.no_grad():
        x.t_()
    y.backward()
    out("x.grad", (x.grad.shape, x.grad))


# --- found by the fuzzer's second round, and the list ---------------------------------
def snip_node_hooks_return_what_they_were_given(torch, out):
    for kind in ("post", "pre"):
        for name, answer in (
            ("a list", lambda gs: list(gs)),
            ("too many", lambda gs: tuple(gs) + (None,)),
            ("an int", lambda gs: 3),
            ("another dtype", lambda gs: tuple(None if g is None else g.double() for g in gs)),
            ("another size", lambda gs: tuple(None if g is None else g.sum() for g in gs)),
        ):
            x = torch.ones(2, requires_grad=True)
            y = x * 2
            if kind == "post":
                y.grad_fn.register_hook(lambda gi, go, answer=answer: answer(gi))
            else:
                y.grad_fn.register_prehook(lambda go, answer=answer: answer(go))
            with out.raises(f"{kind} hook returns {name}"):
                y.sum().backward()
    t = torch.ones(2, requires_grad=True)
    (t * 1).register_hook(lambda g: g.tolist())
    with out.raises("tensor hook returns a list"):
        ((t * 1) * 1).sum().backward()


def snip_function_gradient_for_a_number(torch, out):
    class Scale(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            return x * k

        @staticmethod
        def backward(ctx, g):
            return g * 2, g

    with out.raises("a gradient for k"):
        Scale.apply(torch.ones(2, requires_grad=True), 3.0).sum().backward()


def snip_no_grad_decorating_a_generator(torch, out):
    @torch.no_grad()
    def steps():
        for _ in range(2):
            yield torch.is_grad_enabled()

    out("inside, then outside", [(inside, torch.is_grad_enabled()) for inside in steps()])


def snip_pickle_and_deepcopy(torch, out):
    import copy
    import pickle

    y = torch.ones(2, requires_grad=True) * 2
    z = pickle.loads(pickle.dumps(y))
    out("unpickled non-leaf", (z.requires_grad, z.is_leaf))
    m = torch.nn.Linear(2, 1)
    m(torch.ones(1, 2)).sum().backward()
    out("deepcopied parameters' grads", [p.grad for p in copy.deepcopy(m).parameters()])


def snip_norms_under_create_graph_and_of_nothing(torch, out):
    x = torch.tensor([1.0, -2.0, 3.0, 0.5], requires_grad=True)
    for p in (1, float("inf")):
        (g,) = torch.autograd.grad(x.norm(p=p), x, create_graph=True)
        out(f"p={p}", (g, g.grad_fn.name(), g.grad_fn.next_functions[0][0].name()))
    with out.raises("inf norm of nothing"):
        torch.zeros(0).norm(p=float("inf"))
    with out.raises("-inf norm along an empty dim"):
        torch.zeros(2, 0).norm(p=float("-inf"), dim=1)


def snip_max_pool_gradient_under_create_graph(torch, out):
    x = torch.tensor([[[[1.0, 5.0, 2.0], [3.0, 4.0, 0.5], [7.0, 1.0, 2.0]]]], requires_grad=True)
    y = torch.nn.functional.max_pool2d(x, 2, 1)
    (g,) = torch.autograd.grad((y * y).sum(), x, create_graph=True)
    (gg,) = torch.autograd.grad((g * g).sum(), x)
    out("g", (g.grad_fn.name(), gg))


def snip_index_put_with_a_value_that_is_the_target(torch, out):
    x = torch.arange(6.0)
    with out.raises("x[i] = x"):
        x[torch.arange(6)] = x
    with out.raises("x[i] = x[0]"):
        x[torch.tensor([1, 2])] = x[0]
    x[x > 2] = x[1:2]  # one value under a mask: read first, as masked_fill_
    out("x[mask] = x[1:2]", x)
    v = torch.ones(1, 3, requires_grad=True)
    y = torch.zeros(2, 3) * 1
    y[torch.tensor([0])] = v
    out("value viewed without its leading 1s", y.grad_fn.next_functions[1][0].name())


def snip_operand_overlapping_the_target_element_by_element(torch, out):
    x = torch.arange(1.0, 7.0).reshape(2, 3)
    x[:, 0].add_(x[0, 0])  # the second element reads the first one's new value
    out("column += its first element", x)
    y = torch.arange(1.0, 7.0)
    y[:4].sub_(y[1].expand(4))
    out("slice -= an element of it", y)


def snip_sign_zero_written_through_a_view(torch, out):
    x = torch.tensor([-0.0, 1.0], dtype=torch.float64, requires_grad=True)
    b = x * 1
    b.unsqueeze(0).pow_(2)
    (g,) = torch.autograd.grad(b, x, torch.ones(2, dtype=torch.float64))
    out("1 / grad", 1 / g)


def snip_post_accumulate_hook_of_a_leaf_detached_since(torch, out):
    x = torch.tensor(-1.5, requires_grad=True)
    seen = []
    x.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad))
    y = x.abs()
    x.detach_()
    y.backward()
    out("hook saw", seen)


def snip_layouts_of_gradients_and_mixed_results(torch, out):
    a = torch.ones(2, 3, requires_grad=True)
    b = torch.ones(2, 4, requires_grad=True)
    at = a.t()
    (gat,) = torch.autograd.grad((at @ b).sum(), [at])
    out("mm gradient of a transpose", gat.stride())
    t, c = torch.ones(2, 3).t(), torch.ones(3, 2)
    out("transpose + contiguous", ((t + c).stride(), (c + t).stride(), (t > c).stride()))
    x0 = torch.tensor(2.0, requires_grad=True)
    (g,) = torch.autograd.grad((torch.zeros(2) / x0).sum(), [x0], create_graph=True)
    out("a 0-d gradient summed whole", g.grad_fn.name())


def snip_integer_masked_fill_with_a_value_needing_grad(torch, out):
    v = torch.tensor(1.5, requires_grad=True)
    with out.raises("masked_fill of an int tensor"):
        torch.tensor([1, -2]).masked_fill(torch.tensor([True, False]), v)
    with out.raises("NaN into an int tensor"):
        torch.tensor([1, -2]).masked_fill(torch.tensor([True, False]), v.log() * float("nan"))


def snip_root_of_a_leaf_reshaped_in_place(torch, out):
    x = torch.ones(2, 3, requires_grad=True)
    with torch.no_grad():
        x.t_()
    with out.raises("backward from the leaf itself"):
        x.backward(torch.ones(3, 2))


def snip_view_whose_data_was_replaced_still_reports_its_history(torch, out):
    x = torch.tensor(-1.5, requires_grad=True)
    e = x.expand(2)
    d = e.detach()
    e.data = e.detach() * 2
    with torch.no_grad():
        d.unbind()[0].add_(1.0)
    out("e", (e.is_leaf, e.grad_fn.name()))


def snip_first_gradient_of_a_leaf_reshaped_in_place(torch, out):
    x = torch.tensor(1.0, requires_grad=True)
    x.mean()
    with torch.no_grad():
        x.unsqueeze_(0)
    x.sum().backward()
    out("0-d gradient kept as it is", x.grad.shape)
    y = torch.ones(2, 3, requires_grad=True)
    y.sum().backward()
    with torch.no_grad():
        y.t_()
    with out.raises("a second gradient that does not fit"):
        y.sum().backward()


def snip_leaf_moved_into_the_graph_interior(torch, out):
    x = torch.tensor(-0.0, dtype=torch.float64, requires_grad=True)
    y = x.clone()
    x.detach_()
    x.mul_(y)
    with out.raises("backward to its old accumulator"):
        y.sum().backward()


def snip_inference_tensors_data_and_requires_grad(torch, out):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * x
    with torch.inference_mode():
        y.data = y.detach() * 2
    with out.raises("requires_grad_ on a non-leaf turned inference"):
        y.requires_grad_()
    with torch.inference_mode():
        z = torch.ones(3) * 2
        d = z.data
    with out.raises("in-place view op outside inference mode"):
        d.unsqueeze_(0)
    out("d", d.shape)


def snip_reductions_are_contiguous(torch, out):
    x = torch.ones(2, 3, 4).permute(2, 0, 1)
    out("sum, mean", (x.sum(1).stride(), x.mean(1).stride()))


def snip_squeeze_gradient_of_nothing_squeezed(torch, out):
    x = torch.tensor(-1.5, requires_grad=True)
    s = x.squeeze()
    (g,) = torch.autograd.grad(torch.minimum(s, s).sum(), [x], create_graph=True)
    out("g", (g, g._base is None))


def snip_sum_to_result_is_a_no_grad_view_of_a_sum(torch, out):
    x = torch.tensor([[1.25], [0.5], [0.0]], dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad(x.expand(2, 3, 1).cos().sum(), [x])
    (h,) = torch.autograd.grad(x.expand(3, 4).cos().sum(), [x])  # no leading dims: no view
    out("views", (g._base is not None, h._base is None, g.stride(), h.stride()))
    with out.raises("write the view under grad mode"):
        g.sub_(x)
    h.sub_(x)
    (n,) = torch.autograd.grad(x.norm(), [x])  # no view either: written like any tensor
    n.copy_(x)
    out("h, n", (h, n, n._base is None))


def snip_maximum_gradient_under_create_graph_ends_in_masked_fill(torch, out):
    x = torch.tensor(-1.5, dtype=torch.float64, requires_grad=True)
    y = x.clone()
    (g,) = torch.autograd.grad((torch.maximum(x, y) * x).sum(), [y], create_graph=True)
    out("g", (g, g.grad_fn.name()))


def snip_inference_tensor_given_normal_data_has_no_version_to_share(torch, out):
    x = torch.tensor([[-0.25, 1.5]], dtype=torch.float64, requires_grad=True)
    with torch.inference_mode():
        t = x * 1
    t.data = t.detach() * 2
    with out.raises("a view of it"):
        t.expand_as(t)
    with out.raises("saving it for backward"):
        torch.minimum(x, t)


def snip_in_place_view_op_after_data_assignment_takes_its_new_shape(torch, out):
    x = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
    t = x.abs()
    with torch.no_grad():
        t.data = t.detach() * 2
    t.unsqueeze_(0)
    t.sum().backward()
    out("x.grad", x.grad)


def snip_index_put_reads_an_aliasing_value_as_it_writes(torch, out):
    t = torch.tensor([[0, 0, 0], [-1, 0, -2]])
    t.t_()
    t.pow_(2)
    t[t > 0] = t[0]  # (a transposed target: too hard for PyTorch's overlap test)
    out("t", t)


def snip_backward_to_a_non_leaf_input_skips_the_gradients_it_does_not_need(torch, out):
    x = torch.tensor([[0.0, 0.0, 1.25]], dtype=torch.float64, requires_grad=True)
    y = x.neg()
    with torch.no_grad():
        x.t_()  # (chunk's gradient for x would no longer fit x's AccumulateGrad)
    _, b, _ = x.chunk(3)
    torch.autograd.backward([torch.maximum(y, b).sum()], inputs=[b])
    out("b.grad", b.grad)


def snip_regenerated_view_gradient_under_create_graph_is_as_strided(torch, out):
    x = torch.tensor(3.0, requires_grad=True)
    v = x.view(-1)
    with torch.no_grad():
        v.clamp_(min=0.0)
    (g,) = torch.autograd.grad(v.softmax(-1).sum(), [x], create_graph=True)
    out("g", (g, g.grad_fn.name()))


def snip_copy_slices_checks_against_the_shape_the_base_was_made_with(torch, out):
    x = torch.tensor([[-2.0, 3.0, -0.0]], requires_grad=True)
    t = x.pow(3)
    with torch.no_grad():
        t.t_()
    t[0] = 1.5
    with out.raises("CopySlices' gradient no longer fits"):
        t.sum().backward()


def snip_index_put_refuses_its_own_target_before_reading_the_indices(torch, out):
    x = torch.tensor([[-0.0, -2.0]], dtype=torch.float64)
    empty = x[1:]
    with out.raises("own target, index out of range"):
        empty[torch.tensor([-1])] = empty
    one = torch.tensor([1.0])
    one[one > 0] = one  # (a mask and one value: a masked fill, which reads the value first)
    out("one", one)


def snip_select_gradient_keeps_negative_zero(torch, out):
    x = torch.tensor([[-0.25], [-2.0], [-1.5]], dtype=torch.float64, requires_grad=True)
    y = x.select(0, -1).pow(2) * 2
    (y / y).backward(torch.ones_like(y))  # (d/dy of y/y is exactly +0.0; pow's then -0.0)
    out("x.grad", x.grad)


def snip_a_node_with_a_bad_gradient_passes_none_on(torch, out):
    """Fuzz seed 1003983: mm's second gradient no longer fits t2 (transposed in place under
    no_grad), so the engine refuses the node's outputs before any reaches a leaf: t0.grad
    stays None although its gradient, the first output, was fine."""
    t0 = torch.tensor([[0.0, 3.0, 1.0], [0.5, 0.0, 2.0]], dtype=torch.float64, requires_grad=True)
    t1 = torch.tensor([[3.0, 0.5, -2.0]], dtype=torch.float64, requires_grad=True)
    t2 = t1.pow(2)
    with torch.no_grad():
        t2.t_()
    with out.raises("mm's second gradient has the wrong shape"):
        (t0 @ t2).sum().backward()
    out("t0.grad", t0.grad)


SNIPPETS = collect(globals())


@pytest.mark.parametrize("snippet", SNIPPETS, ids=lambda s: s.__name__[5:])
def test_fuzz_finding_stays_fixed(snippet):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same(snippet)
