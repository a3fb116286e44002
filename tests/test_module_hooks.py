"""Module hooks fire in PyTorch's order, with PyTorch's arguments, and can replace values.

Every snippet runs on torch and on minigrad (tests/parity.py); torch's record is the expectation.
"""

from __future__ import annotations

import functools
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from parity import Recorder, assert_same


def net_with_fixed_weights(torch: ModuleType) -> Any:
    """Linear(3, 4) -> ReLU -> Linear(4, 2) with the same weights in both libraries."""
    net = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    with torch.no_grad():
        for p in net.parameters():
            values = np.linspace(-1, 1, p.numel(), dtype=np.float32).reshape(tuple(p.shape))
            p.copy_(torch.tensor(values))
    return net


def grads(values: tuple) -> list:
    return [None if g is None else g for g in values]


def snip_firing_order(torch: ModuleType, out: Recorder, input_grad: bool) -> None:
    net = net_with_fixed_weights(torch)
    for name, module in net.named_modules():
        tag = name or "net"
        module.register_forward_pre_hook(lambda m, args, tag=tag: out("forward pre", tag))
        module.register_forward_hook(lambda m, args, result, tag=tag: out("forward", (tag, result)))
        module.register_full_backward_pre_hook(
            lambda m, grad_output, tag=tag: out("backward pre", (tag, grads(grad_output)))
        )
        module.register_full_backward_hook(
            lambda m, gi, go, tag=tag: out("backward", (tag, grads(gi), grads(go)))
        )
    x = torch.tensor([[1.0, -2.0, 3.0]], requires_grad=input_grad)
    if input_grad:
        x.register_hook(lambda g: out("x tensor hook", g))
    y = net(x)
    out("output grad_fn", y.grad_fn.name())
    with out.warns("backward warnings"):
        y.sum().backward()
    out("parameter grads", [p.grad for p in net.parameters()])


@pytest.mark.parametrize("input_grad", [True, False])
def test_firing_order_and_arguments(input_grad: bool) -> None:
    assert_same(functools.partial(snip_firing_order, input_grad=input_grad))


def snip_replacing_values(torch: ModuleType, out: Recorder) -> None:
    layer = net_with_fixed_weights(torch)[0]
    layer.register_forward_pre_hook(lambda m, args: args[0] * 2)  # a bare value: new args[0]
    layer.register_forward_hook(lambda m, args, result: result + 1)
    layer.register_full_backward_pre_hook(lambda m, go: (go[0] * 3,))
    layer.register_full_backward_hook(lambda m, gi, go: (gi[0] * 10,))
    x = torch.tensor([[1.0, -2.0, 3.0]], requires_grad=True)
    y = layer(x)
    out("output", y)
    y.sum().backward()
    out("x.grad (pre-hook x3, hook x10)", x.grad)
    out("weight.grad (sees the x3 only)", layer.weight.grad)


def test_hooks_can_replace_inputs_outputs_and_gradients() -> None:
    assert_same(snip_replacing_values)


def snip_non_tensor_arguments(torch: ModuleType, out: Recorder) -> None:
    class Scale(torch.nn.Module):
        def forward(self, a: Any, factor: float, b: Any) -> Any:
            return a * factor + b, a - b

    m = Scale()
    m.register_full_backward_hook(lambda mod, gi, go: out("hook", (grads(gi), grads(go))))
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0])
    first, second = m(a, 3.0, b)
    out("second output requires grad", second.requires_grad)
    (first.sum() + second.sum() * 2).backward()
    out("a.grad", a.grad)


def test_grad_input_has_none_for_non_tensors_and_constant_inputs() -> None:
    assert_same(snip_non_tensor_arguments)


def snip_bad_hook_results(torch: ModuleType, out: Recorder, which: str) -> None:
    layer = net_with_fixed_weights(torch)[0]
    x = torch.tensor([[1.0, -2.0, 3.0]], requires_grad=which != "no input grad")
    if which == "pre":
        layer.register_full_backward_pre_hook(lambda m, go: (go[0], go[0]))
    elif which == "full":
        layer.register_full_backward_hook(lambda m, gi, go: (gi[0], gi[0]))
    else:
        layer.register_full_backward_hook(lambda m, gi, go: (go[0],))
    with out.warns("warnings"), out.raises("backward"):
        layer(x).sum().backward()


@pytest.mark.parametrize("which", ["pre", "full", "no input grad"])
def test_hook_returning_wrong_values_raises(which: str) -> None:
    assert_same(functools.partial(snip_bad_hook_results, which=which))


def snip_handles_and_prepend(torch: ModuleType, out: Recorder) -> None:
    layer = torch.nn.ReLU()
    calls: list[str] = []
    first = layer.register_forward_hook(lambda m, a, r: calls.append("first"))
    layer.register_forward_hook(lambda m, a, r: calls.append("second"))
    layer.register_forward_hook(lambda m, a, r: calls.append("prepended"), prepend=True)
    layer(torch.ones(1))
    out("with prepend", list(calls))
    first.remove()
    first.remove()  # removing twice is harmless
    calls.clear()
    layer(torch.ones(1))
    out("after remove", list(calls))


def test_handles_remove_and_prepend_orders_first() -> None:
    assert_same(snip_handles_and_prepend)


def snip_kwargs_hooks(torch: ModuleType, out: Recorder) -> None:
    class AddBias(torch.nn.Module):
        def forward(self, x: Any, bias: float = 0.0) -> Any:
            return x + bias

    m = AddBias()

    def pre(mod: Any, args: tuple, kwargs: dict) -> tuple:
        out("pre sees kwargs", sorted(kwargs))
        return args, {"bias": kwargs["bias"] * 10}

    m.register_forward_pre_hook(pre, with_kwargs=True)
    m.register_forward_hook(
        lambda mod, args, kwargs, result: out("kwargs", kwargs["bias"]), with_kwargs=True
    )
    out("result", m(torch.ones(2), bias=1.0))
    m.register_forward_pre_hook(lambda mod, args, kwargs: "bad", with_kwargs=True)
    with out.raises("bad pre-hook result"):
        m(torch.ones(2), bias=1.0)


def test_with_kwargs_hooks() -> None:
    assert_same(snip_kwargs_hooks)


def snip_always_call(torch: ModuleType, out: Recorder) -> None:
    class Broken(torch.nn.Module):
        def forward(self, x: Any) -> Any:
            raise ValueError("forward failed")

    m = Broken()
    m.register_forward_hook(
        lambda mod, args, result: out("always_call hook", result), always_call=True
    )
    m.register_forward_hook(lambda mod, args, result: out("ordinary hook", result))
    with out.raises("call"):
        m(torch.ones(1))


def test_always_call_hook_runs_when_forward_raises() -> None:
    assert_same(snip_always_call)


def test_hook_node_keeps_no_module_tensors_alive() -> None:
    """The identity node saves nothing: the hooks' wrapping costs no activation memory."""
    import minigrad

    layer = minigrad.nn.Linear(2, 2)
    layer.register_full_backward_hook(lambda m, gi, go: None)
    y = layer(minigrad.ones(1, 2, requires_grad=True))
    assert y.grad_fn.name() == "BackwardHookFunctionBackward"
    assert y.grad_fn.saved_tensors == ()


def test_hooked_module_gradients_match_finite_differences() -> None:
    """The identity nodes the hooks add must not change any gradient."""
    import minigrad

    layer = minigrad.nn.Linear(3, 2).double()
    layer.register_full_backward_pre_hook(lambda m, grad_output: None)
    layer.register_full_backward_hook(lambda m, grad_input, grad_output: None)
    x = minigrad.randn(4, 3, dtype=minigrad.float64, requires_grad=True)
    assert minigrad.autograd.gradcheck(lambda x, w: layer(x).tanh() * w.sum(), (x, layer.weight))
