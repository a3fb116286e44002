"""torch.autograd.forward_ad's own rules, each snippet run on torch and on minigrad: levels
(one at a time), make_dual's and unpack_dual's checks and errors, what a dual tensor prints,
tangents gone once the level closes, non-differentiable outputs, an op without a formula,
the tangent a saved output keeps for forward over reverse, and clamp's ties."""

from __future__ import annotations

import pytest
from parity import assert_same

from .snippets import collect


def snip_levels_one_at_a_time(torch, out):
    fw = torch.autograd.forward_ad
    with out.raises("make_dual outside a level"):
        fw.make_dual(torch.ones(2), torch.ones(2))
    with out.raises("exit with no level"):
        fw.exit_dual_level()
    out("the level's number", fw.enter_dual_level())
    with out.raises("a second level inside"):
        fw.enter_dual_level()
    fw.exit_dual_level(level=0)
    with out.raises("exiting it twice"):
        fw.exit_dual_level(level=0)
    with fw.dual_level() as level:
        out("dual_level gives", level)
        with out.raises("a nested dual_level"):
            with fw.dual_level():
                pass


def snip_make_dual_checks(torch, out):
    fw = torch.autograd.forward_ad
    x = torch.tensor([1.0, 2.0])
    with fw.dual_level():
        for label, tangent in (
            ("an int tangent", torch.tensor([1, 2])),
            ("a tangent of another shape", torch.ones(2, 1)),
            ("a float64 tangent", torch.ones(2, dtype=torch.float64)),
        ):
            with out.raises(label):
                out(label, fw.unpack_dual(fw.make_dual(x, tangent)).tangent)
        with out.raises("an int primal"):
            fw.make_dual(torch.tensor([1, 2]), torch.ones(2))
        with out.raises("a wrong level"):
            fw.make_dual(x, torch.ones(2), level=3)
        with out.raises("an expanded primal"):
            fw.make_dual(torch.ones(4).expand(3, 4), torch.ones(3, 4))
        dual = fw.make_dual(x, torch.ones(2))
        out("the dual is a view of the primal", dual._base is x)
        with out.raises("a dual of a dual"):
            fw.make_dual(dual, torch.ones(2))
        transposed = torch.ones(4, 3).t()
        tangent = fw.unpack_dual(fw.make_dual(transposed, torch.ones(3, 4))).tangent
        out("a tangent copied into a transposed primal's layout", tangent.stride())


def snip_unpack_dual(torch, out):
    fw = torch.autograd.forward_ad
    x = torch.tensor([1.0, 2.0])
    with fw.dual_level():
        plain = fw.unpack_dual(x)
        out("fields", list(type(plain)._fields))
        out("a plain tensor", (plain.primal, plain.tangent))
        dual = fw.make_dual(x, torch.tensor([0.5, 0.25]))
        primal, tangent = fw.unpack_dual(dual)
        out("primal and tangent", (primal, tangent))
        out("the primal carries no tangent", fw.unpack_dual(primal).tangent)
        out("the primal is a view", primal._base is not None)
        y = dual.sin() * 2
        out("after sin() * 2", fw.unpack_dual(y))
    out("once the level is closed", fw.unpack_dual(y).tangent)
    with out.raises("not a tensor"):
        fw.unpack_dual(3)


def snip_what_a_dual_prints(torch, out):
    fw = torch.autograd.forward_ad
    with fw.dual_level():
        out("a vector", repr(fw.make_dual(torch.tensor([1.0, 2.0]), torch.ones(2))))
        out("a number", repr(fw.make_dual(torch.tensor(3.0), torch.tensor(1.0))))
        x64 = torch.tensor([1.0, 2.0], dtype=torch.float64)
        out("float64", repr(fw.make_dual(x64, torch.ones(2, dtype=torch.float64))))


def snip_outputs_without_tangents(torch, out):
    fw = torch.autograd.forward_ad
    with fw.dual_level():
        d = fw.make_dual(torch.tensor([1.0, 3.0, 2.0]), torch.ones(3))
        out("argmax", fw.unpack_dual(d.argmax()).tangent)
        out("a comparison", fw.unpack_dual(d > 1).tangent)
        out("an integer cast", fw.unpack_dual(d.to(torch.int64)).tangent)
        out("a plain tensor times a dual", fw.unpack_dual(torch.ones(3) * d).tangent)
        out("a plain tensor alone", fw.unpack_dual(torch.ones(3) * 2).tangent)


def snip_forward_over_reverse(torch, out):
    """The gradient of a create_graph backward carries a tangent: a Hessian-vector product."""
    fw = torch.autograd.forward_ad
    x = torch.tensor([0.3, -1.2, 2.0], dtype=torch.float64, requires_grad=True)
    v = torch.tensor([1.0, 0.5, -2.0], dtype=torch.float64)
    with fw.dual_level():
        d = fw.make_dual(x, v)
        y = (d.exp() * d.tanh()).sum() + (d * d).sigmoid().sum()  # exp, tanh, sigmoid save outputs
        (g,) = torch.autograd.grad(y, x, create_graph=True)
        out("gradient", g)
        out("its tangent, H v", fw.unpack_dual(g).tangent.detach())


def snip_clamp_ties(torch, out):
    """clamp with one tensor bound takes the bound's tangent at a tie, clamp_min x's."""
    fw = torch.autograd.forward_ad
    x = torch.tensor([0.0, 1.0, 1.0, 2.0, float("nan"), 1.0])
    bound = torch.tensor([0.0, 1.0, 2.0, 1.0, 1.0, float("nan")])
    with fw.dual_level():
        d = fw.make_dual(x, torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0]))
        b = fw.make_dual(bound, torch.tensor([10.0, 20.0, 30.0, 40.0, 50.0, 60.0]))
        for label, y in (
            ("clamp(min=)", torch.clamp(d, min=b)),
            ("clamp(max=)", torch.clamp(d, max=b)),
            ("clamp_min", torch.clamp_min(d, b)),
            ("clamp_max", torch.clamp_max(d, b)),
            ("clamp(min, max)", torch.clamp(d, b, b + 0.5)),
        ):
            out(label, fw.unpack_dual(y).tangent)


@pytest.mark.parametrize("snippet", collect(globals()), ids=lambda f: f.__name__)
def test_forward_ad_matches_pytorch(snippet):
    assert_same(snippet)
