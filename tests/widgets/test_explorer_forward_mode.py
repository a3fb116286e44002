"""The explorer in forward mode: a dual pass recorded op by op shows each new node's tangent,
the same on minigrad and torch, the tangent formulas' own arithmetic kept out of the picture,
and `forward_and_reverse` pairing it with the reverse pass of the same function."""

from __future__ import annotations

import numpy as np
import pytest
from explorer_graphs import lib as library
from explorer_graphs import libraries

from widgets import forward_and_reverse, record_forward


def _sin_times_x(x):
    return (x.sin() * x).sum()


@pytest.fixture(params=libraries())
def lib(request):
    return library(request.param)


def test_each_created_node_shows_its_tangent(lib):
    fw = lib.autograd.forward_ad
    x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
    v = lib.tensor([1.0, 0.0, 0.0])
    with fw.dual_level():
        with record_forward(names={"x": x}) as fwd:
            y = _sin_times_x(fw.make_dual(x, v))
    frames = fwd.frames("en")
    assert [f["tangent"] for f in frames] == [
        "[1., 0., 0.]",
        "[0.8776, 0., 0.]",
        "[0.9182, 0., 0.]",
        "0.9182",
    ]
    assert frames[-1]["text"].endswith("= 2.8998; its tangent 0.9182")
    assert "切向量 0.9182" in fwd.frames("zh")[-1]["text"]
    # J·v is the derivative along v: d/dx0 of sum(sin(x) * x) = cos(x0) x0 + sin(x0)
    assert float(frames[-1]["tangent"]) == pytest.approx(np.cos(0.5) * 0.5 + np.sin(0.5), abs=1e-4)
    assert y.grad_fn is not None


def test_tangent_formulas_stay_out_of_the_picture(lib):
    """The forward mode's own products (cos(x) * t ...) are recorded by autograd (a tangent can
    be differentiated) but are not the program's ops: the picture is the plain pass's."""
    fw = lib.autograd.forward_ad
    x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
    with record_forward(names={"x": x}) as plain:
        _sin_times_x(x.view(3))  # (make_dual is a view too)
    with fw.dual_level():
        with record_forward(names={"x": x}) as dual:
            _sin_times_x(fw.make_dual(x, lib.ones(3)))
    assert len(dual.records) == len(plain.records)
    assert len(dual.graph.nodes) == len(plain.graph.nodes)


def test_forward_and_reverse_give_one_directional_derivative_and_the_whole_gradient(lib):
    x, v = lib.tensor([0.5, -1.0, 2.0]), lib.tensor([1.0, 0.0, 0.0])
    modes = forward_and_reverse(_sin_times_x, [x], [v], names=["x"], lang="en")
    assert modes.forward.frames[-1]["tangent"] == "0.9182"
    leaf_steps = [f for f in modes.backward.frames if f["kind"] == "accumulate"]
    # cos(x) x + sin(x) at 0.5, -1, 2: every partial derivative in the one backward pass
    assert len(leaf_steps) == 1 and "[0.9182, -1.3818, 0.077]" in leaf_steps[0]["text"]
    text = repr(modes)
    assert "J·v" in text and "vᵀJ" in text
    assert x.grad is None and not x.requires_grad  # the caller's tensors are left alone


def test_forward_and_reverse_checks_its_arguments():
    import minigrad as mg

    with pytest.raises(ValueError, match="one tangent per input"):
        forward_and_reverse(_sin_times_x, [mg.ones(3)], [])
