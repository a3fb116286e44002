"""Where a seed article is wrong, assert what PyTorch 2.13 really does (shared/seed-facts.md).

Each fact runs on real torch too: that proves the expectation is PyTorch's behaviour, not ours.
The parity tests in test_seed_snippets.py cover the same snippets as a whole; these tests name the
one fact a lesson is built on, so a failure says exactly which claim minigrad got wrong.
"""

from __future__ import annotations

import re
import warnings
from types import ModuleType
from typing import Any

import pytest
from parity import LIBS, load_lib


@pytest.fixture(params=LIBS)
def lib(request: pytest.FixtureRequest) -> ModuleType:
    return load_lib(request.param)


def raises_with(exc: type[BaseException], phrase: str) -> Any:
    return pytest.raises(exc, match=re.escape(phrase))


# ---------------------------------------------------------------- article 000


def test_000_op_results_without_grad_are_leaves(lib: ModuleType) -> None:
    assert (lib.tensor([1.0]) * 2).is_leaf is True
    assert (lib.tensor([1.0], requires_grad=True) * 2).is_leaf is False


def test_000_grad_assigned_zero_is_type_error(lib: ModuleType) -> None:
    x = lib.tensor([1.0], requires_grad=True)
    with raises_with(TypeError, "assigned grad expected to be a Tensor or None"):
        x.grad = 0
    assert x.grad is None


def test_000_zero_grad_sets_none(lib: ModuleType) -> None:
    model = lib.nn.Linear(3, 2)
    optimizer = lib.optim.SGD(model.parameters(), lr=0.1)
    for zero_grad in (model.zero_grad, optimizer.zero_grad):
        model(lib.ones(1, 3)).sum().backward()
        zero_grad()
        assert model.weight.grad is None and model.bias.grad is None
    model(lib.ones(1, 3)).sum().backward()
    model.zero_grad(set_to_none=False)
    assert model.weight.grad.tolist() == [[0.0] * 3] * 2


def _big_grads(lib: ModuleType) -> Any:
    model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Linear(4, 2))
    with lib.no_grad():
        for p in model.parameters():
            p.fill_(0.5)
    (model(lib.ones(2, 3)) ** 2).sum().backward()
    return model


def test_000_clip_in_a_loop_clips_each_tensor_alone(lib: ModuleType) -> None:
    model = _big_grads(lib)
    for p in model.parameters():
        lib.nn.utils.clip_grad_norm_(p, max_norm=1.0)
    norms = [p.grad.norm().item() for p in model.parameters()]
    assert norms == pytest.approx([1.0] * 4, rel=1e-5)
    total = sum(n * n for n in norms) ** 0.5
    assert total == pytest.approx(2.0, rel=1e-5)  # global clipping would give 1
    assert all(p.name is None for p in model.parameters())


def test_000_clip_over_all_parameters_is_global(lib: ModuleType) -> None:
    model = _big_grads(lib)
    lib.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    total = sum(p.grad.norm().item() ** 2 for p in model.parameters()) ** 0.5
    assert total == pytest.approx(1.0, rel=1e-5)


def test_000_problem1_backward_raises_before_print(lib: ModuleType) -> None:
    y = lib.tensor([1.0]) * 2
    with raises_with(RuntimeError, "element 0 of tensors does not require grad"):
        y.backward()


def test_000_non_leaf_grad_is_none_and_warns(lib: ModuleType) -> None:
    x = lib.tensor([1.0], requires_grad=True)
    y = x * 2
    (y * 2).backward()
    with pytest.warns(UserWarning, match="is not a leaf Tensor is being accessed"):
        assert y.grad is None


def test_000_graph_nodes_are_backward_functions_not_tensors(lib: ModuleType) -> None:
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    h = x * x
    y = h.exp().sum()
    assert not isinstance(y.grad_fn, lib.Tensor)
    ((exp_node, nr),) = y.grad_fn.next_functions
    assert exp_node.name() == "ExpBackward0" and nr == 0
    assert exp_node.next_functions[0][0] is h.grad_fn  # h is represented by the node that made it
    accumulate = h.grad_fn.next_functions[0][0]
    assert accumulate.variable is x and accumulate.next_functions == ()


def test_000_engine_sums_paths_in_the_input_buffer_not_in_node_grads(lib: ModuleType) -> None:
    x = lib.tensor([0.5, 1.0], requires_grad=True)
    h = x.exp()
    y = (h * 2 + h.sin()).sum()
    calls: list = []
    h.grad_fn.register_prehook(lambda grads: calls.append(grads[0].detach().clone()))
    y.backward()
    assert len(calls) == 1  # both paths' gradients, summed before the node ran
    assert calls[0].tolist() == pytest.approx((2 + h.detach().cos()).tolist())
    assert not h.retains_grad and not hasattr(h.grad_fn, "grad")


# ---------------------------------------------------------------- article 001


def _inplace_relu(lib: ModuleType, true_inplace: bool) -> Any:
    class InplaceReLU(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, input: Any) -> Any:
            ctx.mark_dirty(input)
            return input.clamp_(min=0) if true_inplace else input.clamp(min=0)

        @staticmethod
        def backward(ctx: Any, grad_output: Any) -> Any:
            return grad_output.clone()

    return InplaceReLU


def test_001_mark_dirty_without_returning_input_fails_at_apply(lib: ModuleType) -> None:
    relu = _inplace_relu(lib, true_inplace=False)
    with raises_with(
        RuntimeError,
        "Some elements marked as dirty during the forward method were not returned as output",
    ):
        relu.apply(lib.tensor([-1.0, 2.0], requires_grad=True) * 1)


def test_001_true_inplace_function_fails_on_leaf_requiring_grad(lib: ModuleType) -> None:
    relu = _inplace_relu(lib, true_inplace=True)
    with raises_with(
        RuntimeError, "a leaf Variable that requires grad has been used in an in-place operation"
    ):
        relu.apply(lib.tensor([-1.0, 2.0], requires_grad=True))
    y = lib.tensor([-1.0, 2.0], requires_grad=True) * 1
    assert relu.apply(y) is y
    assert y.tolist() == [0.0, 2.0]


def test_001_mark_non_differentiable_on_input_has_no_effect(lib: ModuleType) -> None:
    class Detach(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, input: Any) -> Any:
            ctx.mark_non_differentiable(input)
            return input.detach()

    out = Detach.apply(lib.tensor([1.0], requires_grad=True))
    assert out.requires_grad is True
    assert out.grad_fn is not None


def test_001_a_marked_input_that_forward_returns_is_non_differentiable(lib: ModuleType) -> None:
    """The mark reaches only what forward returns: the article's Detach returns a new tensor,
    so its mark is lost; an input marked and returned as it is comes out non-differentiable."""

    class ReturnsMarkedInput(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, input: Any) -> Any:
            ctx.mark_non_differentiable(input)
            return input

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            return grad

    w = lib.tensor([1.0], requires_grad=True)
    out = ReturnsMarkedInput.apply(w)
    assert out.requires_grad is False and out.grad_fn is None
    assert w.requires_grad is True  # the input itself is untouched


def test_001_add_on_leaf_requiring_grad_raises_and_version_stays(lib: ModuleType) -> None:
    x = lib.tensor([1.0], requires_grad=True)
    x * 2
    with raises_with(
        RuntimeError, "a leaf Variable that requires grad is being used in an in-place operation"
    ):
        x.add_(1)
    assert x._version == 0
    assert x.tolist() == [1.0]


def test_001_backward_on_detached_raises(lib: ModuleType) -> None:
    x = lib.tensor([1.0], requires_grad=True)
    z = (x**2).detach()
    with raises_with(RuntimeError, "element 0 of tensors does not require grad"):
        z.backward()
    assert x.grad is None


@pytest.mark.parametrize("saves_tensors", [False, True], ids=["x+1", "x*2"])
def test_001_second_backward_fails_only_when_tensors_were_saved(
    lib: ModuleType, saves_tensors: bool
) -> None:
    x = lib.tensor([1.0], requires_grad=True)
    loss = (x * 2).sum() if saves_tensors else (x + 1).sum()
    loss.backward()
    if saves_tensors:
        with raises_with(RuntimeError, "Trying to backward through the graph a second time"):
            loss.backward()
    else:
        loss.backward()
        assert x.grad.tolist() == [2.0]


def test_001_accumulate_grad_runs_once_per_pass_with_the_summed_gradient(lib: ModuleType) -> None:
    x = lib.tensor([2.0], requires_grad=True)
    y = (x * x + x * 3).sum()
    node = y.grad_fn
    while node.name() != "torch::autograd::AccumulateGrad":
        node = node.next_functions[0][0]
    calls: list = []
    node.register_prehook(lambda grads: calls.append(grads[0].tolist()))
    y.backward()
    assert calls == [[7.0]]
    (x * 3).sum().backward()  # what it adds to is the .grad of earlier passes
    assert x.grad.tolist() == [10.0]


def test_001_micro_batch_losses_add_up_to_n_times_the_mean_gradient(lib: ModuleType) -> None:
    lib.manual_seed(0)
    model = lib.nn.Linear(3, 1)
    x, y = lib.randn(8, 3), lib.randn(8, 1)
    loss_fn = lib.nn.MSELoss()
    loss_fn(model(x), y).backward()
    whole = model.weight.grad.clone()
    for divide, times in ((1, 4.0), (4, 1.0)):
        model.zero_grad()
        for xb, yb in zip(x.split(2), y.split(2)):
            (loss_fn(model(xb), yb) / divide).backward()
        ratio = (model.weight.grad / whole).flatten().tolist()
        assert ratio == pytest.approx([times] * 3, rel=1e-5)


def test_001_detach_after_the_forward_still_builds_and_saves_the_graph(lib: ModuleType) -> None:
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.Tanh(), lib.nn.Linear(8, 1))
    inputs = lib.randn(16, 4)

    def saved(run) -> list:
        shapes: list = []
        pack = lambda t: shapes.append(list(t.shape)) or t  # noqa: E731
        with lib.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            out = run()
        assert out.grad_fn is None and not out.requires_grad
        return shapes

    assert saved(lambda: model(inputs).detach()) == [[16, 4], [16, 8], [16, 8], [8, 1]]
    with lib.no_grad():
        assert saved(lambda: model(inputs)) == []


# ---------------------------------------------------------------- article 002


def _mul_then_modify(lib: ModuleType, via: str) -> tuple[Any, Any, Any]:
    a = lib.ones(2, requires_grad=True)
    b = lib.ones(2, requires_grad=True)
    c = a * b
    (a.data if via == "data" else a.detach()).sigmoid_()
    return a, b, c


def test_002_data_inplace_gives_silently_wrong_gradient(lib: ModuleType) -> None:
    a, b, c = _mul_then_modify(lib, "data")
    assert a._version == 0
    c.sum().backward()  # no error ...
    sigmoid_1 = 1 / (1 + 2.718281828459045**-1)
    assert b.grad.tolist() == pytest.approx([sigmoid_1] * 2)  # ... but dc/db should be 1


def test_002_detach_inplace_is_caught(lib: ModuleType) -> None:
    a, b, c = _mul_then_modify(lib, "detach")
    assert a._version == 1
    with raises_with(
        RuntimeError,
        "one of the variables needed for gradient computation has "
        "been modified by an inplace operation",
    ):
        c.sum().backward()


def _sigmoid_function(lib: ModuleType, error: float) -> Any:
    class Sigmoid(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            output = x.sigmoid()
            ctx.save_for_backward(output)
            return output

        @staticmethod
        def backward(ctx: Any, grad_output: Any) -> Any:
            (output,) = ctx.saved_tensors
            return grad_output * output * (1 - output) * (1 + error)

    return Sigmoid


def _double_input(lib: ModuleType) -> tuple[Any]:
    x = lib.tensor([[-1.5, 0.2], [0.7, 2.0]], dtype=lib.float64, requires_grad=True)
    return (x,)


def test_002_gradcheck_float32_warns(lib: ModuleType) -> None:
    x = lib.tensor([[-1.5, 0.2], [0.7, 2.0]], requires_grad=True)
    with pytest.warns(UserWarning, match="is not a double precision floating point"):
        lib.autograd.gradcheck(_sigmoid_function(lib, 0.0).apply, (x,), eps=1e-3)


def test_002_gradcheck_eps_is_a_step_not_a_tolerance(lib: ModuleType) -> None:
    gradcheck = lib.autograd.gradcheck
    right, wrong = _sigmoid_function(lib, 0.0).apply, _sigmoid_function(lib, 0.01).apply
    assert gradcheck(right, _double_input(lib), eps=1e-6, raise_exception=False)
    # a coarse step spoils the numerical derivative of a correct backward
    assert not gradcheck(right, _double_input(lib), eps=0.5, raise_exception=False)
    # a 1% error is caught whatever eps is, and let through only by a looser atol
    assert not gradcheck(wrong, _double_input(lib), eps=1e-3, raise_exception=False)
    assert gradcheck(wrong, _double_input(lib), atol=1e-2, raise_exception=False)


def test_002_volatile_is_gone(lib: ModuleType) -> None:
    x = lib.tensor([1.0], requires_grad=True)
    with pytest.warns(UserWarning, match="volatile was removed"):
        assert x.volatile is False


def test_002_grad_variables_keyword_is_gone(lib: ModuleType) -> None:
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    with raises_with(TypeError, "unexpected keyword argument 'grad_variables'"):
        (x * 2).backward(grad_variables=lib.ones(2))
    (x * 2).backward(gradient=lib.ones(2))
    assert x.grad.tolist() == [2.0, 2.0]


# ---------------------------------------------------------------- article 003


@pytest.mark.parametrize("shape", [(), (1,), (1, 1)], ids=str)
def test_003_one_element_tensors_can_backward(lib: ModuleType, shape: tuple[int, ...]) -> None:
    x = lib.full(shape, 1.0, requires_grad=True)
    (x * 3).backward()
    assert x.grad.shape == x.shape
    assert x.grad.sum().item() == 3.0


def test_003_more_elements_need_a_gradient(lib: ModuleType) -> None:
    with raises_with(RuntimeError, "grad can be implicitly created only for scalar outputs"):
        (lib.ones(2, requires_grad=True) * 3).backward()


def test_003_custom_relu_differs_from_relu_at_zero(lib: ModuleType) -> None:
    class CustomReLU(lib.autograd.Function):
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

    x = lib.tensor([0.0], requires_grad=True)
    CustomReLU.apply(x).backward()
    assert x.grad.tolist() == [1.0]
    x.grad = None
    lib.nn.functional.relu(x).backward()
    assert x.grad.tolist() == [0.0]


# ---------------------------------------------------------------- article 004


def test_004_autograd_grad_leaves_grad_untouched(lib: ModuleType) -> None:
    x = lib.tensor(2.0, requires_grad=True)
    y = lib.tensor(3.0, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # reading a leaf's .grad must not warn
        grads = lib.autograd.grad(x * y, (x, y))
        assert [g.item() for g in grads] == [3.0, 2.0]
        assert x.grad is None and y.grad is None
