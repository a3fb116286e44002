"""Every autograd snippet of the five seed articles, run on PyTorch and on minigrad.

Each snippet is rewritten (not copied) as ``snippet(torch, out)``: it does what the article's code
does and records what the article prints. ``assert_same`` then demands that minigrad behaves like
PyTorch 2.13, including where the article is wrong (see shared/seed-facts.md); the facts
themselves are asserted one by one in test_seed_facts.py.

Random values: minigrad's RNG does not reproduce torch's stream, so snippets that draw random
numbers record only what does not depend on them (shapes, gradients equal to fixed inputs,
identities checked inside the snippet). Models are small ``nn.Linear``/``Sequential`` whose
parameters are overwritten with fixed values.

Skipped, with the reason:
* 000 "backward 的流程": pseudocode over an undefined ``topological_order``; not runnable.
* 001 §1 architecture diagram, §2.1 ``Function`` template (``...`` bodies), §2.3 second Sigmoid
  (a plain class repeating §2.2), §3.1 call chain, §3.2 ``Engine::execute`` and §3.3
  ``AccumulateGrad`` (C++ pseudocode; the accumulation itself is tested via the three-path
  diagram), §4.1 ``topological_nr`` (C++), §8.1 profiler (CUDA activities, prints timings),
  §8.2 overhead table (no code, unsourced numbers).
* 003 ``docker run``, ``nvidia-smi``, the AMP ``GradScaler``/``autocast`` block (CUDA only),
  ``docker -v`` mounts, TensorBoard/W&B: not autograd, need a GPU or other tools.
  ``torch.utils.checkpoint`` is only named in prose; it gets a small snippet here.
* 004 ships its prose without its code blocks; the snippets below rebuild each described example.
"""

from __future__ import annotations

import functools
import warnings
from types import ModuleType
from typing import Any

import pytest
from parity import Recorder, assert_same

# ---------------------------------------------------------------- helpers shared by snippets


def fixed(torch: ModuleType, *shape: int, scale: float = 1.0) -> Any:
    """A deterministic float32 tensor of mixed signs (stands in for torch.rand/randn)."""
    n = 1
    for size in shape:
        n *= size
    values = [((i * 37) % 11 - 5) / 10 * scale for i in range(n)]
    return torch.tensor(values).reshape(*shape)


def fixed_linear(torch: ModuleType, n_in: int, n_out: int, scale: float = 1.0) -> Any:
    """``nn.Linear`` with fixed parameters, so both libraries start from the same model."""
    layer = torch.nn.Linear(n_in, n_out)
    with torch.no_grad():
        layer.weight.copy_(fixed(torch, n_out, n_in, scale=scale))
        layer.bias.copy_(fixed(torch, n_out, scale=scale / 2))
    return layer


def node_label(node: Any) -> str | None:
    """Name of a graph node: 'MulBackward0', 'AccumulateGrad' or None for a missing edge."""
    if node is None:
        return None
    if hasattr(node, "variable"):
        return "AccumulateGrad"
    return node.name()


def next_labels(node: Any) -> list[str | None]:
    return [node_label(n) for n, _ in node.next_functions]


# ---------------------------------------------------------------- article 000


def snip_000_graph(torch: ModuleType, out: Recorder) -> None:
    x = torch.tensor([1.0], requires_grad=True)
    y = torch.tensor([2.0], requires_grad=True)
    z = x * y + x**2
    out("z", z)
    out("z.grad_fn", z.grad_fn.name())
    out("z inputs", next_labels(z.grad_fn))
    out("z.requires_grad", z.requires_grad)


def snip_000_leaf(torch: ModuleType, out: Recorder) -> None:
    a = torch.tensor([1.0], requires_grad=True)
    b = a * 2
    c = b * 2
    out("is_leaf a b c", (a.is_leaf, b.is_leaf, c.is_leaf))
    out("grad_fn None a b", (a.grad_fn is None, b.grad_fn is None))
    k = torch.tensor([1.0]) * 2  # the article's definition misses this leaf
    out("constant result is_leaf", k.is_leaf)


def snip_000_requires_grad(torch: ModuleType, out: Recorder) -> None:
    x = torch.tensor([1.0])
    out("default", (x.requires_grad, x.is_leaf))
    x = torch.tensor([1.0], requires_grad=True)
    out("keyword", x.requires_grad)
    x = torch.tensor([1.0])
    out("requires_grad_ returns self", x.requires_grad_(True) is x)
    out("after requires_grad_", (x.requires_grad, x.is_leaf))


def snip_000_tracking(torch: ModuleType, out: Recorder) -> None:
    x = torch.tensor([1.0], requires_grad=True)
    y = torch.tensor([2.0], requires_grad=True)
    z = x * y + x**2
    z.backward()
    out("x.grad", x.grad)  # y + 2x
    out("y.grad", y.grad)  # x


def snip_000_no_grad(torch: ModuleType, out: Recorder, requires_grad: bool) -> None:
    x = torch.tensor([1.0], requires_grad=requires_grad)
    with torch.no_grad():
        out("grad enabled inside", torch.is_grad_enabled())
        y = x * 2
    out("grad enabled after", torch.is_grad_enabled())
    out("no_grad result", (y, y.requires_grad, y.is_leaf, y.grad_fn is None))
    y = x.detach()
    out("detach result", (y, y.requires_grad, y.is_leaf))
    y.add_(1)  # detach shares memory and version counter with x
    out("x after detached add_", (x, x._version))


def snip_000_backward_basic(torch: ModuleType, out: Recorder) -> None:
    x = torch.tensor([2.0], requires_grad=True)
    y = x**2
    y.backward()
    out("d(x^2)", x.grad)
    x = torch.tensor([2.0], requires_grad=True)
    y = x**2
    z = y**2
    z.backward()
    out("d(x^4)", x.grad)


def snip_000_non_scalar(torch: ModuleType, out: Recorder) -> None:
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 2
    y.backward(torch.ones_like(y))
    out("x.grad", x.grad)
    y = x * 2
    with out.raises("no gradient"):
        y.backward()
    out("x.grad unchanged", x.grad)


def snip_000_accumulate(torch: ModuleType, out: Recorder) -> None:
    x = torch.tensor([1.0], requires_grad=True)
    y1 = x * 2
    y1.backward()
    out("after y1", x.grad)
    y2 = x * 3
    y2.backward()
    out("after y2", x.grad)


def snip_000_zero_grad(torch: ModuleType, out: Recorder) -> None:
    model = fixed_linear(torch, 3, 2)
    model(torch.ones(1, 3)).sum().backward()
    out("weight.grad", model.weight.grad)
    model.zero_grad()
    out("after zero_grad", (model.weight.grad, model.bias.grad))
    x = torch.tensor([1.0], requires_grad=True)
    (x * 2).backward()
    x.grad = None
    out("x.grad = None", x.grad)
    with out.raises("x.grad = 0"):
        x.grad = 0
    out("x.grad after failed assignment", x.grad)
    x.grad = torch.zeros_like(x)
    out("x.grad = zeros_like", x.grad)


def snip_000_training_loop(torch: ModuleType, out: Recorder) -> None:
    model = torch.nn.Sequential(
        fixed_linear(torch, 3, 4), torch.nn.ReLU(), fixed_linear(torch, 4, 1)
    )
    criterion = torch.nn.MSELoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    dataloader = [
        (fixed(torch, 2, 3), torch.tensor([[1.0], [-1.0]])),
        (fixed(torch, 2, 3, scale=-2.0), torch.tensor([[0.5], [2.0]])),
    ]
    for step, (data, target) in enumerate(dataloader):
        optimizer.zero_grad()
        out(f"grad after zero_grad {step}", model[0].weight.grad)
        output = model(data)
        loss = criterion(output, target)
        loss.backward()
        optimizer.step()
        out(f"loss {step}", loss)
    out("parameters", list(model.parameters()))


def snip_000_retain_graph(torch: ModuleType, out: Recorder) -> None:
    x = torch.tensor([1.0], requires_grad=True)
    y = x**2
    z = y**2
    z.backward(retain_graph=True)
    out("first", x.grad)
    z.backward()
    out("second", x.grad)
    with out.raises("third, graph freed"):
        z.backward()


def snip_000_tensor_hook(torch: ModuleType, out: Recorder) -> None:
    x = torch.tensor([1.0], requires_grad=True)
    y = x * 2
    hook_handle = y.register_hook(lambda grad: out("hook sees", grad))
    y.backward()
    hook_handle.remove()
    (x * 2).backward()
    out("x.grad", x.grad)
    y = x * 2
    y.register_hook(lambda grad: out("after remove", grad))
    hook_handle = y.register_hook(lambda grad: out("removed hook ran", True))
    hook_handle.remove()
    y.backward()


def snip_000_clip_per_parameter(torch: ModuleType, out: Recorder) -> None:
    model = torch.nn.Sequential(fixed_linear(torch, 3, 4), fixed_linear(torch, 4, 2))
    (model(torch.ones(2, 3)) ** 2).sum().backward()
    out("norms before", [p.grad.norm() for p in model.parameters()])
    for p in model.parameters():
        out("returned total", torch.nn.utils.clip_grad_norm_(p, max_norm=1.0))
    for p in model.parameters():
        if p.grad is not None:
            out("p.name", p.name)
            out("grad_norm", p.grad.norm())


def snip_000_module_hooks(torch: ModuleType, out: Recorder, input_grad: bool) -> None:
    def forward_hook(module: Any, input: Any, output: Any) -> None:
        out("forward module", module.__class__.__name__)
        out("forward input shapes", [tuple(i.shape) for i in input])
        out("forward output shape", tuple(output.shape))

    def backward_hook(module: Any, grad_input: Any, grad_output: Any) -> None:
        out("backward module", module.__class__.__name__)
        out("grad_input", [None if g is None else tuple(g.shape) for g in grad_input])
        out("grad_output", grad_output)

    torch.manual_seed(0)
    layer = torch.nn.Linear(10, 5)
    layer.register_forward_hook(forward_hook)
    layer.register_full_backward_hook(backward_hook)
    y = layer(torch.ones(2, 10, requires_grad=input_grad))
    with warnings.catch_warnings():  # torch notes that no input requires grad; not our topic
        warnings.simplefilter("ignore")
        y.sum().backward()


def snip_000_step_function(torch: ModuleType, out: Recorder) -> None:
    class StepFunction(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return (x > 0).float()

        @staticmethod
        def backward(ctx: Any, grad_output: Any) -> Any:
            (x,) = ctx.saved_tensors
            return grad_output * 0

    x = torch.tensor([1.0, -1.0, 2.0], requires_grad=True)
    y = StepFunction.apply(x)
    out("y", (y, y.requires_grad, y.grad_fn.name()))
    y.sum().backward()
    out("x.grad", x.grad)


def snip_000_problem1_no_requires_grad(torch: ModuleType, out: Recorder) -> None:
    x = torch.tensor([1.0])
    y = x * 2
    with out.raises("y.backward()"):
        y.backward()
    out("x.grad", x.grad)
    x = torch.tensor([1.0], requires_grad=True)
    (x * 2).backward()
    out("fixed", x.grad)


def snip_000_problem2_non_leaf_grad(torch: ModuleType, out: Recorder) -> None:
    x = torch.tensor([1.0], requires_grad=True)
    y = x * 2
    z = y * 2
    with out.warns("reading y.grad warns"):
        out("y.grad before", y.grad)
    y.retain_grad()
    z.backward()
    with out.warns("no warning after retain_grad"):
        out("y.grad after", y.grad)
    out("retains_grad", y.retains_grad)
    y = x * 2
    y = y.detach().requires_grad_()
    out("detached copy", (y.is_leaf, y.requires_grad, y.grad_fn is None))


def snip_000_problem3_inplace(torch: ModuleType, out: Recorder) -> None:
    x = torch.tensor([1.0], requires_grad=True)
    leaf = x
    x = x + 1
    out("x + 1", (x, x.is_leaf))
    x.data += 1
    out("after x.data += 1", (x, x._version, leaf))
    x.sum().backward()
    out("leaf.grad", leaf.grad)


def snip_000_problem4_exploding(torch: ModuleType, out: Recorder) -> None:
    model = torch.nn.Sequential(
        fixed_linear(torch, 3, 4, scale=4.0), torch.nn.Tanh(), fixed_linear(torch, 4, 2, scale=4.0)
    )
    (model(fixed(torch, 5, 3, scale=3.0)) ** 2).sum().backward()
    out("norms before", [(name, p.grad.norm()) for name, p in model.named_parameters()])
    out("total norm", torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0))
    for name, param in model.named_parameters():
        if param.grad is not None:
            grad_norm = param.grad.norm()
            out(f"{name} too large", bool(grad_norm > 10))
            out(f"{name} norm", grad_norm)


def test_000_graph() -> None:
    assert_same(snip_000_graph)


def test_000_leaf() -> None:
    assert_same(snip_000_leaf)


def test_000_requires_grad() -> None:
    assert_same(snip_000_requires_grad)


def test_000_tracking() -> None:
    assert_same(snip_000_tracking)


@pytest.mark.parametrize("requires_grad", [False, True])
def test_000_no_grad_and_detach(requires_grad: bool) -> None:
    assert_same(functools.partial(snip_000_no_grad, requires_grad=requires_grad))


def test_000_backward_basic() -> None:
    assert_same(snip_000_backward_basic)


def test_000_non_scalar_backward() -> None:
    assert_same(snip_000_non_scalar)


def test_000_grad_accumulates() -> None:
    assert_same(snip_000_accumulate)


def test_000_zero_grad_and_grad_assignment() -> None:
    assert_same(snip_000_zero_grad, key="assigned grad expected to be a Tensor or None")


def test_000_training_loop() -> None:
    assert_same(snip_000_training_loop)


def test_000_retain_graph() -> None:
    assert_same(snip_000_retain_graph)


def test_000_tensor_hook() -> None:
    assert_same(snip_000_tensor_hook)


def test_000_clip_grad_norm_per_parameter() -> None:
    assert_same(snip_000_clip_per_parameter)


@pytest.mark.parametrize("input_grad", [False, True])
def test_000_forward_and_backward_module_hooks(input_grad: bool) -> None:
    assert_same(functools.partial(snip_000_module_hooks, input_grad=input_grad))


def test_000_step_function() -> None:
    assert_same(snip_000_step_function)


def test_000_problem1_grad_is_none() -> None:
    assert_same(snip_000_problem1_no_requires_grad)


def test_000_problem2_non_leaf_grad() -> None:
    assert_same(snip_000_problem2_non_leaf_grad)


def test_000_problem3_inplace() -> None:
    assert_same(snip_000_problem3_inplace)


def test_000_problem4_exploding_gradients() -> None:
    assert_same(snip_000_problem4_exploding)


# ---------------------------------------------------------------- article 001


def snip_001_sigmoid_function(torch: ModuleType, out: Recorder) -> None:
    class Sigmoid(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, input: Any) -> Any:
            output = input.sigmoid()
            ctx.save_for_backward(output)
            return output

        @staticmethod
        def backward(ctx: Any, grad_output: Any) -> Any:
            (output,) = ctx.saved_tensors
            return grad_output * output * (1 - output)

    x = torch.tensor([-2.0, 0.0, 1.5], requires_grad=True)
    y = Sigmoid.apply(x)
    y.sum().backward()
    out("custom", (y, x.grad, y.grad_fn.name()))
    x2 = torch.tensor([-2.0, 0.0, 1.5], requires_grad=True)
    x2.sigmoid().sum().backward()
    out("built-in", x2.grad)


def snip_001_inplace_relu(torch: ModuleType, out: Recorder, kind: str, true_inplace: bool) -> None:
    class InplaceReLU(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, input: Any) -> Any:
            ctx.mark_dirty(input)
            return input.clamp_(min=0) if true_inplace else input.clamp(min=0)

        @staticmethod
        def backward(ctx: Any, grad_output: Any) -> Any:
            return grad_output.clone()

    x = torch.tensor([-1.0, 2.0], requires_grad=kind != "constant")
    inp = x * 1 if kind == "non-leaf" else x
    r = InplaceReLU.apply(inp)
    out("returned the input", r is inp)
    out("result", (r, r.requires_grad))
    if r.requires_grad:
        out("grad_fn", r.grad_fn.name())
        r.sum().backward()
        out("x.grad", x.grad)


def snip_001_detach_function(torch: ModuleType, out: Recorder) -> None:
    class Detach(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, input: Any) -> Any:
            ctx.mark_non_differentiable(input)
            return input.detach()

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    d = Detach.apply(x)
    out("output", (d, d.requires_grad, d.grad_fn is None, d.grad_fn.name()))
    with out.raises("backward without a backward method"):
        d.sum().backward()


def snip_001_three_paths(torch: ModuleType, out: Recorder) -> None:
    x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    paths = [x.relu().sum(), x.sigmoid().sum(), x.softmax(0)[0]]
    separate = [torch.autograd.grad(p, x, retain_graph=True)[0] for p in paths]
    (paths[0] + paths[1] + paths[2]).backward()
    out("accumulated", x.grad)
    out("separate", separate)
    total = separate[0] + separate[1] + separate[2]
    out("sum of paths", bool((total - x.grad).abs().max().item() < 1e-6))


def _two_layer(torch: ModuleType) -> tuple[Any, ...]:
    w1 = fixed(torch, 3, 4).requires_grad_()
    b1 = fixed(torch, 4, scale=0.5).requires_grad_()
    w2 = fixed(torch, 4, 2, scale=-1.0).requires_grad_()
    b2 = fixed(torch, 2, scale=0.3).requires_grad_()
    return w1, b1, w2, b2


def snip_001_selective_grad(torch: ModuleType, out: Recorder) -> None:
    w1, b1, w2, b2 = _two_layer(torch)
    x = fixed(torch, 5, 3, scale=2.0)
    loss = (((x @ w1 + b1).relu() @ w2 + b2) ** 2).sum()
    grads = torch.autograd.grad(outputs=loss, inputs=[w1, b1, w2, b2], retain_graph=True)
    out("grads", grads)
    out("grad left .grad alone", [p.grad is None for p in (w1, b1, w2, b2)])
    loss.backward()
    out("backward grads", [w1.grad, b1.grad, w2.grad, b2.grad])


def snip_001_micro_batches(torch: ModuleType, out: Recorder) -> None:
    model = fixed_linear(torch, 3, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for i, batch in enumerate([fixed(torch, 2, 3), fixed(torch, 4, 3, scale=-1.0)]):
        loss = (model(batch) ** 2).mean()
        loss.backward()
        out(f"accumulated after batch {i}", model.weight.grad)
    optimizer.step()
    optimizer.zero_grad()
    out("after step", (model.weight, model.bias, model.weight.grad))


def snip_001_inference(torch: ModuleType, out: Recorder) -> None:
    model = fixed_linear(torch, 3, 2)
    inputs = fixed(torch, 4, 3)
    with torch.no_grad():
        predictions = model(inputs)
    out("no_grad", (predictions, predictions.requires_grad, predictions.grad_fn is None))
    predictions = model(inputs).detach()
    out("detach", (predictions.requires_grad, predictions.is_leaf))
    out("tracked", model(inputs).requires_grad)


def snip_001_inplace_on_leaf(torch: ModuleType, out: Recorder) -> None:
    x = torch.tensor([1.0], requires_grad=True)
    y = x * 2
    out("y", y)
    x.add_(1)
    out("not reached", x)


def snip_001_my_inplace(torch: ModuleType, out: Recorder, kind: str) -> None:
    class MyInplace(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, input: Any) -> Any:
            ctx.mark_dirty(input)
            input.add_(1)
            return input

        @staticmethod
        def backward(ctx: Any, grad_output: Any) -> Any:
            return grad_output

    x = torch.tensor([1.0, 2.0], requires_grad=kind != "constant")
    inp = x * 1 if kind == "non-leaf" else x
    with out.raises("apply"):
        r = MyInplace.apply(inp)
        out("result", (r is inp, r, r.requires_grad, inp._version))
        if r.requires_grad:
            r.sum().backward()
            out("x.grad", x.grad)
    out("x after", x)


def snip_001_version_counter(torch: ModuleType, out: Recorder) -> None:
    x = torch.tensor([1.0], requires_grad=True)
    out("fresh", x._version)
    y = x * 2
    out("after x * 2", (x._version, y._version))
    with out.raises("x.add_(1)"):
        x.add_(1)
    out("after refused add_", (x, x._version))
    with torch.no_grad():
        x.add_(1)
    out("after add_ under no_grad", (x, x._version))
    t = torch.tensor([1.0])
    t.add_(1)
    t.mul_(3)
    out("plain tensor", (t, t._version))


def snip_001_custom_linear(
    torch: ModuleType, out: Recorder, with_bias: bool, input_grad: bool
) -> None:
    class CustomLinear(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, input: Any, weight: Any, bias: Any = None) -> Any:
            ctx.save_for_backward(input, weight, bias)
            output = input.mm(weight.t())
            if bias is not None:
                output += bias.unsqueeze(0).expand_as(output)
            return output

        @staticmethod
        def backward(ctx: Any, grad_output: Any) -> Any:
            input, weight, bias = ctx.saved_tensors
            out("needs_input_grad", ctx.needs_input_grad)
            grad_input = grad_weight = grad_bias = None
            if ctx.needs_input_grad[0]:
                grad_input = grad_output.mm(weight)
            if ctx.needs_input_grad[1]:
                grad_weight = grad_output.t().mm(input)
            if bias is not None and ctx.needs_input_grad[2]:
                grad_bias = grad_output.sum(0)
            return grad_input, grad_weight, grad_bias

    def make() -> tuple[Any, Any, Any]:
        x = fixed(torch, 2, 3).requires_grad_(input_grad)
        weight = fixed(torch, 4, 3, scale=-0.5).requires_grad_()
        bias = fixed(torch, 4, scale=0.2).requires_grad_() if with_bias else None
        return x, weight, bias

    linear = CustomLinear.apply
    x, weight, bias = make()
    output = linear(x, weight, bias) if with_bias else linear(x, weight)
    (output * output).sum().backward()
    out("custom", (output, x.grad, weight.grad, None if bias is None else bias.grad))
    x, weight, bias = make()
    ref = x.mm(weight.t()) + bias if with_bias else x.mm(weight.t())
    (ref * ref).sum().backward()
    out("built-in", (ref, x.grad, weight.grad, None if bias is None else bias.grad))


def snip_001_functional_grad(torch: ModuleType, out: Recorder) -> None:
    x = torch.tensor([1.0], requires_grad=True)
    y = torch.tensor([2.0], requires_grad=True)

    def func(x: Any, y: Any) -> Any:
        return x**2 + y**2

    out("grad_x", torch.autograd.grad(outputs=func(x, y), inputs=x))
    out("grad_xy", torch.autograd.grad(outputs=func(x, y), inputs=[x, y]))
    out(".grad untouched", (x.grad, y.grad))


def snip_001_higher_order(torch: ModuleType, out: Recorder) -> None:
    x = torch.tensor([2.0], requires_grad=True)
    y = x**3
    grad1 = torch.autograd.grad(y, x, create_graph=True)[0]
    out("grad1", (grad1, grad1.requires_grad, grad1.item()))
    grad2 = torch.autograd.grad(grad1, x)[0]
    out("grad2", (grad2, grad2.requires_grad, grad2.item()))


def snip_001_gradcheck(torch: ModuleType, out: Recorder) -> None:
    def my_func(x: Any) -> Any:
        return x**2 + x.sin()

    torch.manual_seed(0)
    x = torch.randn(3, 3, requires_grad=True, dtype=torch.double)  # any values pass
    out("x", (x.dtype, tuple(x.shape), x.requires_grad))
    out("gradcheck", torch.autograd.gradcheck(my_func, x))


def snip_001_missing_requires_grad(torch: ModuleType, out: Recorder) -> None:
    x = torch.tensor([1.0])
    y = x**2
    with out.raises("backward"):
        y.backward()
    x = torch.tensor([1.0], requires_grad=True)
    (x**2).backward()
    out("fixed", x.grad)


def snip_001_detach_then_backward(torch: ModuleType, out: Recorder) -> None:
    x = torch.tensor([1.0], requires_grad=True)
    y = x**2
    z = y.detach()
    out("z", (z.requires_grad, z.grad_fn is None))
    with out.raises("z.backward()"):
        z.backward()
    out("x.grad", x.grad)
    z = y + 0
    z.backward()
    out("with y + 0", (z.requires_grad, x.grad))


def snip_001_second_backward(torch: ModuleType, out: Recorder, op: str) -> None:
    x = torch.tensor([1.0], requires_grad=True)
    y = torch.tensor([3.0], requires_grad=True)
    loss = OPS[op](x, y).sum()
    loss.backward()
    with out.raises("second backward"):
        loss.backward()
    out("x.grad", x.grad)
    loss = OPS[op](x, y).sum()
    loss.backward(retain_graph=True)
    loss.backward()
    out("with retain_graph", x.grad)


OPS = {
    "x + 1": lambda x, y: x + 1,
    "x - 1": lambda x, y: x - 1,
    "-x": lambda x, y: -x,
    "x + y": lambda x, y: x + y,
    "x.mean()": lambda x, y: x.mean(),
    "x.reshape(1)": lambda x, y: x.reshape(1),
    "x * 2": lambda x, y: x * 2,
    "x / 2": lambda x, y: x / 2,
    "x ** 2": lambda x, y: x**2,
    "x * y": lambda x, y: x * y,
    "x.exp()": lambda x, y: x.exp(),
    "x.sin()": lambda x, y: x.sin(),
    "x.relu()": lambda x, y: x.relu(),
    "x.sigmoid()": lambda x, y: x.sigmoid(),
}


def snip_001_anomaly_clean(torch: ModuleType, out: Recorder) -> None:
    model = fixed_linear(torch, 3, 2)
    with torch.autograd.set_detect_anomaly(True):
        loss = model(fixed(torch, 4, 3)).sum()
        loss.backward()
    for name, param in model.named_parameters():
        if param.grad is not None:
            out(f"{name} max/min", (param.grad.max(), param.grad.min()))
            out(f"{name} has nan", torch.isnan(param.grad).any().item())


def snip_001_anomaly_nan(torch: ModuleType, out: Recorder) -> None:
    x = torch.tensor([-1.0], requires_grad=True)
    x.sqrt().backward()
    out("without anomaly mode", x.grad)
    x = torch.tensor([-1.0], requires_grad=True)
    with torch.autograd.set_detect_anomaly(True):
        y = x.sqrt()
        with out.warns("anomaly warning"), out.raises("anomaly error"):
            y.backward()
    out("grad not written", x.grad)


def test_001_sigmoid_function() -> None:
    assert_same(snip_001_sigmoid_function)


@pytest.mark.parametrize("true_inplace", [False, True], ids=["clamp", "clamp_"])
@pytest.mark.parametrize("kind", ["leaf", "non-leaf", "constant"])
def test_001_inplace_relu_mark_dirty(kind: str, true_inplace: bool) -> None:
    assert_same(functools.partial(snip_001_inplace_relu, kind=kind, true_inplace=true_inplace))


def test_001_detach_function_mark_non_differentiable() -> None:
    assert_same(snip_001_detach_function, key="must implement either the backward or vjp")


def test_001_accumulation_over_three_paths() -> None:
    assert_same(snip_001_three_paths)


def test_001_selective_grad() -> None:
    assert_same(snip_001_selective_grad)


def test_001_micro_batch_accumulation() -> None:
    assert_same(snip_001_micro_batches)


def test_001_no_grad_inference() -> None:
    assert_same(snip_001_inference)


def test_001_inplace_on_leaf() -> None:
    assert_same(snip_001_inplace_on_leaf)


@pytest.mark.parametrize("kind", ["leaf", "non-leaf", "constant"])
def test_001_my_inplace_mark_dirty(kind: str) -> None:
    assert_same(functools.partial(snip_001_my_inplace, kind=kind))


def test_001_version_counter() -> None:
    assert_same(snip_001_version_counter)


@pytest.mark.parametrize("input_grad", [True, False])
@pytest.mark.parametrize("with_bias", [True, False])
def test_001_custom_linear(with_bias: bool, input_grad: bool) -> None:
    assert_same(
        functools.partial(snip_001_custom_linear, with_bias=with_bias, input_grad=input_grad)
    )


def test_001_functional_grad() -> None:
    assert_same(snip_001_functional_grad)


def test_001_higher_order() -> None:
    assert_same(snip_001_higher_order)


def test_001_gradcheck() -> None:
    assert_same(snip_001_gradcheck)


def test_001_missing_requires_grad() -> None:
    assert_same(snip_001_missing_requires_grad)


def test_001_detach_then_backward() -> None:
    assert_same(snip_001_detach_then_backward)


@pytest.mark.parametrize("op", list(OPS))
def test_001_second_backward(op: str) -> None:
    assert_same(functools.partial(snip_001_second_backward, op=op))


def test_001_anomaly_mode_clean_run() -> None:
    assert_same(snip_001_anomaly_clean)


def test_001_anomaly_mode_finds_nan() -> None:
    assert_same(snip_001_anomaly_nan)


# ---------------------------------------------------------------- article 002


def snip_002_data_vs_detach(torch: ModuleType, out: Recorder) -> None:
    a = torch.ones(3, 4, requires_grad=True)
    b = torch.ones(3, 4, requires_grad=True)
    c = a * b
    out("a.data", a.data)
    out("a.data.requires_grad", a.data.requires_grad)
    d = a.data.sigmoid_()
    out("a after a.data.sigmoid_()", a)
    out("d.requires_grad", d.requires_grad)
    out("a.requires_grad", a.requires_grad)
    out("a._version", a._version)
    tensor = a.detach()
    out("tensor.requires_grad", tensor.requires_grad)
    mean = tensor.mean()
    std = tensor.std()
    maximum = tensor.max()
    out("stats", (mean, std, maximum))
    tensor[0] = 1
    out("a after tensor[0] = 1", (a, a._version))
    c.sum().backward()


def snip_002_grad_of_intermediate(torch: ModuleType, out: Recorder) -> None:
    torch.manual_seed(0)
    x = torch.ones(3, requires_grad=True)
    w = torch.rand(3, requires_grad=True)
    y = w * x
    z = y.sum()
    out("dz/dy", torch.autograd.grad(z, y))
    out("leaves untouched", (x.grad, w.grad))


def snip_002_hook_on_intermediate(torch: ModuleType, out: Recorder) -> None:
    def variable_hook(grad: Any) -> None:
        out("y grad", grad)

    torch.manual_seed(0)
    x = torch.ones(3, requires_grad=True)
    w = torch.rand(3, requires_grad=True)
    y = w * x
    hook_handle = y.register_hook(variable_hook)
    z = y.sum()
    z.backward()
    hook_handle.remove()
    out("w.grad", w.grad)
    out("x.grad equals w", x.grad.tolist() == w.tolist())


def snip_002_backward_from_z(torch: ModuleType, out: Recorder) -> None:
    out("arange dtype", torch.arange(0, 3).dtype)
    x = torch.arange(0, 3).float()
    x.requires_grad_()
    y = x**2 + x * 2
    z = y.sum()
    z.backward()
    out("x.grad", x.grad)


def snip_002_backward_from_y(torch: ModuleType, out: Recorder) -> None:
    x = torch.arange(0, 3).float()
    x.requires_grad_()
    y = x**2 + x * 2
    y_gradient = torch.Tensor([1, 1, 1])
    out("y_gradient", y_gradient)
    y.backward(y_gradient)
    out("x.grad", x.grad)
    y = x**2 + x * 2
    with out.raises("old keyword grad_variables"):
        y.backward(grad_variables=y_gradient)
    y.backward(gradient=y_gradient)
    out("x.grad after keyword gradient", x.grad)


def snip_002_multiply_add(torch: ModuleType, out: Recorder) -> None:
    class MultiplyAdd(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, w: Any, x: Any, b: Any) -> Any:
            ctx.save_for_backward(w, x)
            return w * x + b

        @staticmethod
        def backward(ctx: Any, grad_output: Any) -> Any:
            w, x = ctx.saved_tensors
            return grad_output * x, grad_output * w, grad_output * 1

    torch.manual_seed(0)
    x = torch.ones(1)
    w = torch.rand(1, requires_grad=True)
    b = torch.rand(1, requires_grad=True)
    z = MultiplyAdd.apply(w, x, b)
    out("z = w * x + b", z.tolist() == (w * x + b).tolist())
    out("z", (tuple(z.shape), z.requires_grad, z.grad_fn.name()))
    z.backward()
    out("grads", (x.grad, w.grad, b.grad))


def snip_002_gradcheck_sigmoid(torch: ModuleType, out: Recorder) -> None:
    class Sigmoid(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            output = 1 / (1 + torch.exp(-x))
            ctx.save_for_backward(output)
            return output

        @staticmethod
        def backward(ctx: Any, grad_output: Any) -> Any:
            (output,) = ctx.saved_tensors
            return output * (1 - output) * grad_output

    # fixed values instead of randn(3, 4): whether float32 passes may depend on them
    test_input = torch.tensor(
        [[-1.5, -1.25, -1.0, -0.75], [-0.5, -0.25, 0.0, 0.25], [0.5, 0.75, 1.0, 1.25]]
    )
    test_input.requires_grad_()
    with out.warns("float32 input"):
        out("float32, eps=1e-3", torch.autograd.gradcheck(Sigmoid.apply, (test_input,), eps=1e-3))
    double = test_input.detach().double().requires_grad_()
    with out.warns("float64 input"):
        out("float64", torch.autograd.gradcheck(Sigmoid.apply, (double,)))


def snip_002_graph_summary(torch: ModuleType, out: Recorder) -> None:
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    c = torch.tensor([3.0, 4.0])
    y = x * 2 + c
    out("leaf grad_fn", (x.grad_fn is None, c.grad_fn is None))
    out("requires_grad spreads", (y.requires_grad, c.requires_grad))
    out("y.grad_fn", y.grad_fn.name())
    out("y inputs", next_labels(y.grad_fn))
    mul = y.grad_fn.next_functions[0][0]
    out("mul inputs", next_labels(mul))
    out("AccumulateGrad.variable is x", mul.next_functions[0][0].variable is x)
    with out.warns("volatile"):
        out("x.volatile", x.volatile)


def test_002_data_vs_detach() -> None:
    assert_same(snip_002_data_vs_detach)


def test_002_autograd_grad_of_intermediate() -> None:
    assert_same(snip_002_grad_of_intermediate)


def test_002_hook_on_intermediate() -> None:
    assert_same(snip_002_hook_on_intermediate)


def test_002_backward_from_z() -> None:
    assert_same(snip_002_backward_from_z)


def test_002_backward_from_y_with_gradient() -> None:
    assert_same(snip_002_backward_from_y, key="unexpected keyword argument 'grad_variables'")


def test_002_multiply_add_function() -> None:
    assert_same(snip_002_multiply_add)


def test_002_gradcheck_sigmoid() -> None:
    assert_same(snip_002_gradcheck_sigmoid)


def test_002_graph_summary() -> None:
    assert_same(snip_002_graph_summary)


# ---------------------------------------------------------------- article 003


def snip_003_scalar_graph(torch: ModuleType, out: Recorder) -> None:
    x = torch.tensor(3.0, requires_grad=True)
    w = torch.tensor(2.0, requires_grad=True)
    b = torch.tensor(1.0, requires_grad=True)
    y = w * x + b
    loss = y**2
    out("loss", (loss, loss.grad_fn.name()))
    out("chain", next_labels(loss.grad_fn))
    loss.backward()
    out("grads", (x.grad, w.grad, b.grad))


def snip_003_backward_shapes(torch: ModuleType, out: Recorder, shape: tuple[int, ...]) -> None:
    x = torch.full(shape, 3.0, requires_grad=True)
    y = x * 2
    out("numel", y.numel())
    y.backward()
    out("x.grad", x.grad)


def snip_003_control_flow(torch: ModuleType, out: Recorder, sign: float) -> None:
    def forward(x: Any) -> Any:
        if x.sum() > 0:
            return x * 2
        return x * 0.5

    x = (torch.tensor([1.0, 2.0]) * sign).requires_grad_()
    y = forward(x)
    out("branch", y.grad_fn.name())
    y.sum().backward()
    out("grad", x.grad)


def snip_003_optimizer_step(torch: ModuleType, out: Recorder, name: str) -> None:
    model = fixed_linear(torch, 3, 2)
    if name == "SGD":
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    else:
        optimizer = torch.optim.Adam(model.parameters(), lr=0.1)
    data = fixed(torch, 4, 3)
    for step in range(3):
        optimizer.zero_grad()
        out(f"grad after zero_grad {step}", model.weight.grad)
        loss = (model(data) ** 2).mean()
        loss.backward()
        optimizer.step()
        out(f"loss {step}", loss)
    out("parameters", (model.weight, model.bias))


def snip_003_inference(torch: ModuleType, out: Recorder) -> None:
    model = fixed_linear(torch, 3, 2)
    with torch.no_grad():
        output = model(fixed(torch, 1, 3))
    out("output", (output, output.requires_grad))
    out("grad mode restored", torch.is_grad_enabled())


def snip_003_custom_relu(torch: ModuleType, out: Recorder) -> None:
    class CustomReLU(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, input: Any) -> Any:
            ctx.save_for_backward(input)
            return input.clamp(min=0)

        @staticmethod
        def backward(ctx: Any, grad_output: Any) -> Any:
            (input,) = ctx.saved_tensors
            grad_input = grad_output.clone()
            grad_input[input < 0] = 0
            return grad_input

    x = torch.tensor([-1.0, 0.0, 2.0], requires_grad=True)
    y = CustomReLU.apply(x)
    y.sum().backward()
    out("custom", (y, x.grad))
    x2 = torch.tensor([-1.0, 0.0, 2.0], requires_grad=True)
    y2 = torch.nn.functional.relu(x2)
    y2.sum().backward()
    out("built-in", (y2, x2.grad))


def snip_003_inspect_fc_grad(torch: ModuleType, out: Recorder) -> None:
    class Net(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = fixed_linear(torch, 3, 2)

        def forward(self, x: Any) -> Any:
            return self.fc(x)

    model = Net()
    out("parameter names", [name for name, _ in model.named_parameters()])
    output = model(fixed(torch, 4, 3))
    loss = torch.nn.functional.mse_loss(output, torch.ones(4, 2))
    loss.backward()
    out("fc.weight.grad.norm()", model.fc.weight.grad.norm())


def snip_003_clip_grad_norm(torch: ModuleType, out: Recorder) -> None:
    model = torch.nn.Sequential(
        fixed_linear(torch, 3, 4), torch.nn.ReLU(), fixed_linear(torch, 4, 1)
    )
    (model(fixed(torch, 6, 3, scale=3.0)) ** 2).sum().backward()
    before = [p.grad.clone() for p in model.parameters()]
    total = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    out("total norm before clipping", total)
    after = list(model.parameters())
    out("grads", [p.grad for p in after])
    ratios = [(p.grad / g).mean().item() for p, g in zip(after, before, strict=True)]
    out("one common factor", max(ratios) - min(ratios) < 1e-5)
    squares = sum((p.grad**2).sum().item() for p in after)
    out("new total norm", squares**0.5)


def snip_003_checkpoint(torch: ModuleType, out: Recorder) -> None:
    checkpoint = torch.utils.checkpoint.checkpoint
    calls = []

    def block(t: Any) -> Any:
        calls.append(1)
        return (t.sin() * 2).tanh()

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = checkpoint(block, x, use_reentrant=False)
    out("forward calls", len(calls))
    y.sum().backward()
    out("calls after backward", len(calls))
    out("x.grad", x.grad)
    x2 = torch.tensor([1.0, 2.0], requires_grad=True)
    block(x2).sum().backward()
    out("without checkpoint", x2.grad)


def test_003_scalar_graph() -> None:
    assert_same(snip_003_scalar_graph)


@pytest.mark.parametrize("shape", [(), (1,), (1, 1), (2,)], ids=str)
def test_003_which_outputs_can_backward(shape: tuple[int, ...]) -> None:
    assert_same(functools.partial(snip_003_backward_shapes, shape=shape))


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_003_python_control_flow(sign: float) -> None:
    assert_same(functools.partial(snip_003_control_flow, sign=sign))


@pytest.mark.parametrize("name", ["SGD", "Adam"])
def test_003_optimizer_step(name: str) -> None:
    assert_same(functools.partial(snip_003_optimizer_step, name=name))


def test_003_no_grad_inference() -> None:
    assert_same(snip_003_inference)


def test_003_custom_relu() -> None:
    assert_same(snip_003_custom_relu)


def test_003_inspect_fc_grad_norm() -> None:
    assert_same(snip_003_inspect_fc_grad)


def test_003_clip_grad_norm() -> None:
    assert_same(snip_003_clip_grad_norm)


def test_003_checkpoint() -> None:
    assert_same(snip_003_checkpoint)


# ---------------------------------------------------------------- article 004 (rebuilt)


def snip_004_create(torch: ModuleType, out: Recorder) -> None:
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    out("x", (x, x.requires_grad, x.is_leaf, x.grad, x.grad_fn is None))


def snip_004_variable(torch: ModuleType, out: Recorder) -> None:
    v = torch.autograd.Variable(torch.tensor([1.0, 2.0]), requires_grad=True)
    out("is a Tensor", isinstance(v, torch.Tensor))
    out("v", (v, v.requires_grad, v.is_leaf))
    (v * v).sum().backward()
    out("v.grad", v.grad)


def snip_004_polynomial(torch: ModuleType, out: Recorder) -> None:
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x**2 + 2 * x
    y.backward(torch.ones_like(y))
    out("x.grad = 2x + 2", x.grad)


def snip_004_add_graph(torch: ModuleType, out: Recorder) -> None:
    a = torch.tensor([2.0], requires_grad=True)
    b = torch.tensor([3.0], requires_grad=True)
    c = a + b
    out("c", (c, c.grad_fn.name(), next_labels(c.grad_fn)))
    c.backward()
    out("grads", (a.grad, b.grad))


def snip_004_simple_network(torch: ModuleType, out: Recorder) -> None:
    x = torch.tensor(2.0, requires_grad=True)
    w = torch.tensor(3.0, requires_grad=True)
    b = torch.tensor(1.0, requires_grad=True)
    loss = (w * x + b - 10) ** 2
    loss.backward()
    out("loss", loss)
    out("grads w x b", (w.grad, x.grad, b.grad))


def snip_004_linear_regression(torch: ModuleType, out: Recorder) -> None:
    inputs = torch.tensor([[1.0], [2.0], [3.0], [4.0]])
    targets = 2 * inputs + 1
    w = torch.zeros(1, 1, requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    lr = 0.05
    for step in range(20):
        prediction = inputs @ w + b
        loss = ((prediction - targets) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w -= lr * w.grad
            b -= lr * b.grad
        w.grad.zero_()
        b.grad.zero_()
        if step in (0, 19):
            out(f"loss {step}", loss)
    out("w b", (w, b, w.is_leaf, w._version))


def snip_004_higher_order(torch: ModuleType, out: Recorder) -> None:
    x = torch.tensor(2.0, requires_grad=True)
    y = x**3
    first = torch.autograd.grad(y, x, create_graph=True)[0]
    second = torch.autograd.grad(first, x, create_graph=True)[0]
    third = torch.autograd.grad(second, x)[0]
    out("derivatives", (first, second, third))


def snip_004_autograd_grad(torch: ModuleType, out: Recorder) -> None:
    x = torch.tensor(2.0, requires_grad=True)
    y = torch.tensor(3.0, requires_grad=True)
    z = x * y + y**2
    out("dz/dx, dz/dy", torch.autograd.grad(z, (x, y)))
    out(".grad untouched", (x.grad, y.grad))


def snip_004_hooks(torch: ModuleType, out: Recorder) -> None:
    layer = fixed_linear(torch, 3, 2)
    handle = layer.register_forward_hook(lambda m, i, o: out("forward output", o))
    x = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
    h = layer(x)
    handle.remove()
    h.register_hook(lambda g: g * 2)
    h.register_hook(lambda g: out("second hook sees the doubled grad", g))
    h.sum().backward()
    out("x.grad", x.grad)
    x.grad = None
    y = x * 3
    y.register_hook(lambda g: g.clamp(-1, 1))
    (y * 5).sum().backward()
    out("clipped in a hook", x.grad)


def snip_004_accumulation_pitfall(torch: ModuleType, out: Recorder) -> None:
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    for step in range(2):
        (x**2).sum().backward()
        out(f"step {step}", x.grad)
    x.grad.zero_()
    out("zero_()", x.grad)
    x.grad = None
    (x**2).sum().backward()
    out("fresh", x.grad)


def snip_004_stop_tracking(torch: ModuleType, out: Recorder) -> None:
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x.detach()
    out("detach", (y.requires_grad, y.is_leaf))
    with torch.no_grad():
        z = x * 2
    out("no_grad", (z.requires_grad, z.grad_fn is None))
    with torch.set_grad_enabled(False):
        out("set_grad_enabled(False)", ((x * 2).requires_grad, torch.is_grad_enabled()))
    with torch.no_grad(), torch.enable_grad():
        out("enable_grad inside no_grad", (x * 2).requires_grad)
    with torch.inference_mode():
        out("inference_mode", (x * 2).requires_grad)
    out("restored", torch.is_grad_enabled())


def test_004_create_tensor_requiring_grad() -> None:
    assert_same(snip_004_create)


def test_004_variable_is_a_tensor() -> None:
    assert_same(snip_004_variable)


def test_004_polynomial_gradient() -> None:
    assert_same(snip_004_polynomial)


def test_004_add_graph() -> None:
    assert_same(snip_004_add_graph)


def test_004_simple_network() -> None:
    assert_same(snip_004_simple_network)


def test_004_linear_regression() -> None:
    assert_same(snip_004_linear_regression)


def test_004_higher_order() -> None:
    assert_same(snip_004_higher_order)


def test_004_autograd_grad() -> None:
    assert_same(snip_004_autograd_grad)


def test_004_forward_and_tensor_hooks() -> None:
    assert_same(snip_004_hooks)


def test_004_accumulation_pitfall() -> None:
    assert_same(snip_004_accumulation_pitfall)


def test_004_stop_tracking() -> None:
    assert_same(snip_004_stop_tracking)
