"""minigrad.nn against torch.nn: registration, naming, state_dict, reprs, layers, losses, init,
functional ops and gradient clipping.

Facts run on both libraries (the `lib` fixture) so that each expectation is proven to be
PyTorch's; numeric comparisons copy torch's initial weights into minigrad and compare outputs
and gradients (tests/parity.py, 1e-5).
"""

from __future__ import annotations

import functools
import math
import re
import warnings
from collections import OrderedDict
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from parity import LIBS, Recorder, assert_same, load_lib

torch_lib = pytest.importorskip("torch")


@pytest.fixture(params=LIBS)
def lib(request: pytest.FixtureRequest) -> ModuleType:
    return load_lib(request.param)


def fixed(torch: ModuleType, *shape: int, scale: float = 1.0, dtype: Any = None) -> Any:
    """Deterministic mixed-sign values: the same tensor in both libraries."""
    n = math.prod(shape)
    values = np.array([((i * 37) % 11 - 5) / 10 * scale for i in range(n)], dtype=np.float32)
    t = torch.tensor(values.reshape(shape))
    return t if dtype is None else t.to(dtype)


def fill_fixed(torch: ModuleType, model: Any) -> Any:
    """Overwrite every parameter with `fixed` values (random init differs between libraries)."""
    with torch.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(fixed(torch, *p.shape, scale=0.5 + 0.1 * i))
    return model


# ---------------------------------------------------------------- Parameter


def test_parameter_is_a_leaf_sharing_data_and_version(lib: ModuleType) -> None:
    t = lib.tensor([1.0, 2.0])
    p = lib.nn.Parameter(t)
    assert isinstance(p, lib.Tensor) and p.is_leaf and p.requires_grad and p.grad_fn is None
    t.add_(1)
    assert p.tolist() == [2.0, 3.0] and p._version == t._version == 1
    assert type(p * 2) is lib.Tensor and type(p.detach()) is lib.Tensor
    assert repr(p) == "Parameter containing:\ntensor([2., 3.], requires_grad=True)"
    frozen = lib.nn.Parameter(lib.ones(2), requires_grad=False)
    assert repr(frozen) == "Parameter containing:\ntensor([1., 1.])"
    assert lib.nn.Parameter(lib.ones(2, requires_grad=True) * 2).is_leaf


def test_parameter_of_integers_cannot_require_grad(lib: ModuleType) -> None:
    with pytest.raises(RuntimeError, match="Only Tensors of floating point"):
        lib.nn.Parameter(lib.tensor([1, 2]))


def test_parameter_survives_deepcopy_and_pickle(lib: ModuleType) -> None:
    import copy
    import pickle

    p = lib.nn.Parameter(lib.tensor([1.0, 2.0]))
    for clone in (copy.deepcopy(p), pickle.loads(pickle.dumps(p))):
        assert type(clone) is lib.nn.Parameter and clone.requires_grad
        assert clone.tolist() == [1.0, 2.0]


# ---------------------------------------------------------------- registration and naming


class Net:
    """A model with nesting, a buffer, a non-persistent buffer, a shared layer and a None."""

    @staticmethod
    def build(torch: ModuleType) -> Any:
        class Block(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.fc = torch.nn.Linear(2, 2)
                self.register_buffer("running", torch.zeros(2))
                self.register_buffer("scratch", torch.zeros(1), persistent=False)
                self.register_parameter("unused", None)

        class Model(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.scale = torch.nn.Parameter(torch.ones(1))
                self.block = Block()
                self.layers = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU())
                self.again = self.layers  # the same module under a second name

        return Model()


def snip_names(torch: ModuleType, out: Recorder) -> None:
    model = Net.build(torch)
    out("named_parameters", [n for n, _ in model.named_parameters()])
    out("non-recursive", [n for n, _ in model.named_parameters(recurse=False)])
    out("named_buffers", [n for n, _ in model.named_buffers()])
    out("named_modules", [n for n, _ in model.named_modules()])
    out("named_children", [n for n, _ in model.named_children()])
    out("modules", [type(m).__name__ for m in model.modules()])
    out("state_dict keys", list(model.state_dict()))
    out("state_dict type", type(model.state_dict()).__name__)
    out("prefixed", list(model.block.state_dict(prefix="block.")))
    out("parameter count", sum(p.numel() for p in model.parameters()))
    out("get_submodule", type(model.get_submodule("layers.0")).__name__)
    out("attribute access", (model.block.running, model.block.unused))
    with out.raises("missing attribute"):
        model.nothing  # noqa: B018


def test_parameter_buffer_and_module_names() -> None:
    assert_same(snip_names)


REGISTRATION_ERRORS = {
    "tensor as parameter": lambda t, m: setattr(m, "weight", t.ones(2, 3)),
    "dot in name": lambda t, m: m.register_parameter("a.b", None),
    "empty name": lambda t, m: m.register_parameter("", None),
    "non-string name": lambda t, m: m.register_parameter(1, None),
    "plain tensor": lambda t, m: m.register_parameter("w2", t.ones(1)),
    "existing attribute": lambda t, m: m.register_buffer("weight", t.ones(1)),
    "int buffer": lambda t, m: m.register_buffer("b", 3),
    "module name with dot": lambda t, m: m.add_module("x.y", t.nn.ReLU()),
    "not a module": lambda t, m: m.add_module("z", 3),
    "non-bool train": lambda t, m: m.train(1),
    "unexpected kwarg": lambda t, m: t.nn.Module(foo=1),
    "base forward": lambda t, m: t.nn.Module()(1),
    "ModuleList forward": lambda t, m: t.nn.ModuleList()(1),
    "Sequential index": lambda t, m: t.nn.Sequential(t.nn.ReLU())[3],
    "to integer dtype": lambda t, m: m.to(t.int64),
}


def snip_registration_error(torch: ModuleType, out: Recorder, case: str) -> None:
    with out.raises(case):
        REGISTRATION_ERRORS[case](torch, torch.nn.Linear(3, 2))


@pytest.mark.parametrize("case", list(REGISTRATION_ERRORS))
def test_registration_errors(case: str) -> None:
    assert_same(functools.partial(snip_registration_error, case=case))


def test_non_leaf_parameter_is_rejected() -> None:
    import minigrad

    m = minigrad.nn.Linear(1, 1)
    p = minigrad.nn.Parameter(minigrad.ones(1))
    p._grad_fn = (p * 1).grad_fn  # only reachable by hand: Parameter() always makes a leaf
    with pytest.raises(ValueError, match="Cannot assign non-leaf Tensor to parameter 'w'"):
        m.register_parameter("w", p)


def test_assigning_before_init_is_an_attribute_error(lib: ModuleType) -> None:
    class Early(lib.nn.Module):
        def __init__(self, value: Any) -> None:
            self.value = value

    with pytest.raises(AttributeError, match="cannot assign parameters before Module.__init__"):
        Early(lib.nn.Parameter(lib.ones(1)))
    with pytest.raises(AttributeError, match="cannot assign module before Module.__init__"):
        Early(lib.nn.ReLU())


def test_reassignment_moves_a_name_between_kinds(lib: ModuleType) -> None:
    m = lib.nn.Linear(2, 2)
    m.bias = None  # a parameter slot may hold None
    assert [n for n, _ in m.named_parameters()] == ["weight"] and "bias" in m._parameters
    m.extra = lib.nn.ReLU()
    m.extra = lib.nn.Parameter(lib.ones(1))  # a module name reused for a parameter
    assert "extra" not in m._modules and [n for n, _ in m.named_parameters()][-1] == "extra"
    del m.extra
    assert not hasattr(m, "extra")


# ---------------------------------------------------------------- reprs


def snip_reprs(torch: ModuleType, out: Recorder) -> None:
    nn = torch.nn
    model = nn.Sequential(
        nn.Conv2d(1, 6, 5),
        nn.Conv2d(1, 6, 3, stride=2, padding=1, bias=False),
        nn.Conv2d(2, 2, 3, padding="same"),
        nn.MaxPool2d(2),
        nn.MaxPool2d(3, 1, 1),
        nn.ReLU(),
        nn.ReLU(inplace=True),
        nn.Tanh(),
        nn.Sigmoid(),
        nn.Softmax(dim=1),
        nn.Softmax(),
        nn.LogSoftmax(1),
        nn.Identity(54, unused="x"),
        nn.Flatten(),
        nn.Linear(3, 2, bias=False),
        nn.MSELoss(),
        nn.CrossEntropyLoss(),
        nn.NLLLoss(reduction="sum"),
        nn.ModuleList([nn.ReLU()]),
        nn.Sequential(),
        nn.Dropout(),
        nn.Dropout(0.2),
        nn.ModuleList(),
    )
    out("repr", repr(model))
    out("slice keeps keys", repr(model[1:3]))
    out("negative index", repr(model[-1]))
    out("Net", repr(Net.build(torch)))


def test_reprs_match_pytorch() -> None:
    assert_same(snip_reprs)


def test_extra_repr_is_the_customization_point(lib: ModuleType) -> None:
    class Scaled(lib.nn.Module):
        def extra_repr(self) -> str:
            return "factor=2\nmode=fast"

    assert repr(Scaled()) == "Scaled(\n  factor=2\n  mode=fast\n)"


# ---------------------------------------------------------------- containers


def snip_containers(torch: ModuleType, out: Recorder) -> None:
    nn = torch.nn
    seq = nn.Sequential(nn.ReLU(), nn.Tanh())
    seq.append(nn.Sigmoid())
    seq.insert(1, nn.Identity())
    out("after append/insert", [type(m).__name__ for m in seq])
    del seq[0]
    out("renumbered after del", [n for n, _ in seq.named_children()])
    seq[0] = nn.ReLU()
    out("len and types", (len(seq), [type(m).__name__ for m in seq]))
    out("forward", seq(torch.tensor([-1.0, 0.5])))
    named = nn.Sequential(OrderedDict([("first", nn.ReLU()), ("second", nn.Tanh())]))
    out("OrderedDict names", [n for n, _ in named.named_children()])
    layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(2)])
    layers += [nn.Linear(2, 1)]
    layers.extend([nn.ReLU()])
    out("ModuleList names", [n for n, _ in layers.named_parameters()])
    out("ModuleList slice", [n for n, _ in layers[1:].named_children()])


def test_sequential_and_module_list() -> None:
    assert_same(snip_containers)


# ---------------------------------------------------------------- modes, zero_grad, apply, to


def test_train_eval_propagate(lib: ModuleType) -> None:
    model = Net.build(lib)
    assert model.eval() is model
    assert not any(m.training for m in model.modules())
    model.train()
    assert all(m.training for m in model.modules())


def test_zero_grad_sets_none_or_zeroes_in_place(lib: ModuleType) -> None:
    model = lib.nn.Linear(3, 2)
    model(lib.ones(1, 3)).sum().backward()
    grad = model.weight.grad
    model.zero_grad(set_to_none=False)
    assert model.weight.grad is grad and grad.tolist() == [[0.0] * 3] * 2
    model.zero_grad()
    assert model.weight.grad is None and model.bias.grad is None


def test_requires_grad_and_apply(lib: ModuleType) -> None:
    model = Net.build(lib)
    assert model.requires_grad_(False) is model
    assert not any(p.requires_grad for p in model.parameters())
    visited: list[str] = []
    model.apply(lambda m: visited.append(type(m).__name__))
    assert visited == ["Linear", "Block", "Linear", "ReLU", "Sequential", "Model"]


def test_double_keeps_parameter_identity_and_converts_grads(lib: ModuleType) -> None:
    model = lib.nn.Linear(2, 1)
    weight = model.weight
    model(lib.ones(1, 2)).sum().backward()
    assert model.double() is model and model.weight is weight
    assert weight.dtype == lib.float64 and weight.grad.dtype == lib.float64
    assert model.float().weight.dtype == lib.float32
    assert model.to(lib.float64).bias.dtype == lib.float64
    assert model.to("cpu") is model


def test_module_to_converts_floating_buffers_only(lib: ModuleType) -> None:
    m = lib.nn.Module()
    m.register_buffer("count", lib.tensor([1]))
    m.register_buffer("mean", lib.tensor([0.5]))
    m.double()
    assert m.count.dtype == lib.int64 and m.mean.dtype == lib.float64


def snip_training_after_double(torch: ModuleType, out: Recorder) -> None:
    model = fill_fixed(torch, torch.nn.Linear(2, 1))
    first = model(torch.ones(1, 2))  # its graph (and the weight's grad accumulator) stay alive
    model.double()
    model(torch.ones(1, 2, dtype=torch.float64)).sum().backward()
    out("grad dtype follows the converted parameter", model.weight.grad)
    out("first output", first)


def test_double_while_an_old_graph_is_alive() -> None:
    assert_same(snip_training_after_double)


def test_deepcopy_gives_an_independent_model(lib: ModuleType) -> None:
    import copy

    model = Net.build(lib)
    twin = copy.deepcopy(model)
    assert [n for n, _ in twin.named_parameters()] == [n for n, _ in model.named_parameters()]
    assert all(type(p) is lib.nn.Parameter for p in twin.parameters())
    assert twin.again is twin.layers  # sharing inside the model survives the copy
    with lib.no_grad():
        twin.block.fc.weight.add_(1)
    assert twin.block.fc.weight.tolist() != model.block.fc.weight.tolist()


# ---------------------------------------------------------------- state_dict


def test_state_dict_values_are_detached(lib: ModuleType) -> None:
    model = lib.nn.Linear(3, 2)
    sd = model.state_dict()
    assert not sd["weight"].requires_grad and type(sd["weight"]) is lib.Tensor
    assert sd["weight"]._version == model.weight._version
    assert model.state_dict(keep_vars=True)["weight"] is model.weight


def snip_load_state_dict(torch: ModuleType, out: Recorder) -> None:
    source = fill_fixed(torch, Net.build(torch))
    target = Net.build(torch)
    result = target.load_state_dict(source.state_dict())
    out("result", repr(result))
    out("copied", [p for p in target.parameters()])
    out("buffer", target.block.running)
    layer = torch.nn.Linear(3, 2)
    cases = [
        ({"weight": torch.ones(2, 3)}, True),
        ({"weight": torch.ones(2, 3), "bias": torch.ones(2), "x": torch.ones(1)}, True),
        ({"weight": torch.ones(3, 3), "bias": torch.ones(4)}, True),
        ({"weight": torch.ones(2, 3), "bias": 1.0}, True),
        ({"weight": torch.ones(2, 3), "x": torch.ones(1)}, False),
    ]
    for i, (state, strict) in enumerate(cases):
        with out.raises(f"case {i}"):
            out(f"case {i} result", repr(layer.load_state_dict(state, strict=strict)))
    with out.raises("not a mapping"):
        layer.load_state_dict([1, 2])
    loaded = torch.nn.Linear(3, 2)
    weight = loaded.weight
    loaded.load_state_dict(layer.state_dict(), assign=True)
    out(
        "assign replaces the parameter",
        (loaded.weight is weight, loaded.weight.requires_grad, type(loaded.weight).__name__),
    )


def test_load_state_dict() -> None:
    assert_same(snip_load_state_dict)


def test_load_state_dict_error_lists_every_problem(lib: ModuleType) -> None:
    layer = lib.nn.Linear(3, 2)
    with pytest.raises(RuntimeError) as info:
        layer.load_state_dict({"weight": lib.ones(3, 3), "bias": lib.ones(3), "x": lib.ones(1)})
    assert str(info.value) == (
        'Error(s) in loading state_dict for Linear:\n\tUnexpected key(s) in state_dict: "x". '
        "\n\tsize mismatch for weight: copying a param with shape torch.Size([3, 3]) from "
        "checkpoint, the shape in current model is torch.Size([2, 3]).\n\tsize mismatch for "
        "bias: copying a param with shape torch.Size([3]) from checkpoint, the shape in current "
        "model is torch.Size([2])."
    )


# ---------------------------------------------------------------- layers against torch


def layer_cases(nn: Any) -> dict[str, tuple[Any, tuple[int, ...]]]:
    """name -> (factory, input shape)."""
    return {
        "Linear": (lambda: nn.Linear(4, 3), (5, 4)),
        "Linear 3-d input": (lambda: nn.Linear(4, 3), (2, 5, 4)),
        "Linear no bias": (lambda: nn.Linear(4, 3, bias=False), (5, 4)),
        "Conv2d": (lambda: nn.Conv2d(2, 3, 3), (2, 2, 6, 6)),
        "Conv2d stride padding": (lambda: nn.Conv2d(2, 3, 3, stride=2, padding=1), (1, 2, 7, 7)),
        "Conv2d same": (lambda: nn.Conv2d(2, 2, 3, padding="same", bias=False), (1, 2, 5, 5)),
        "Conv2d unbatched": (lambda: nn.Conv2d(2, 1, 2), (2, 4, 4)),
        "MaxPool2d": (lambda: nn.MaxPool2d(2), (2, 2, 6, 6)),
        "MaxPool2d stride padding": (lambda: nn.MaxPool2d(3, 2, 1), (1, 2, 7, 7)),
        "ReLU": (lambda: nn.ReLU(), (3, 4)),
        "Tanh": (lambda: nn.Tanh(), (3, 4)),
        "Sigmoid": (lambda: nn.Sigmoid(), (3, 4)),
        "Softmax": (lambda: nn.Softmax(dim=1), (3, 4)),
        "LogSoftmax": (lambda: nn.LogSoftmax(dim=0), (3, 4)),
        "Flatten": (lambda: nn.Flatten(), (2, 3, 2, 2)),
        "Flatten 1..2": (lambda: nn.Flatten(0, 1), (2, 3, 2)),
        "Identity": (lambda: nn.Identity(), (3,)),
        "Dropout eval": (lambda: nn.Dropout().eval(), (3, 4)),
        "small CNN": (
            lambda: nn.Sequential(
                nn.Conv2d(1, 2, 3, padding=1),
                nn.ReLU(),
                nn.MaxPool2d(2),
                nn.Flatten(),
                nn.Linear(8, 3),
                nn.LogSoftmax(dim=1),
            ),
            (2, 1, 4, 4),
        ),
    }


def snip_layer(torch: ModuleType, out: Recorder, case: str) -> None:
    factory, shape = layer_cases(torch.nn)[case]
    layer = fill_fixed(torch, factory())
    x = fixed(torch, *shape, scale=2.0).requires_grad_()
    y = layer(x)
    out("output", y)
    (y * fixed(torch, *y.shape)).sum().backward()
    out("input grad", x.grad)
    out("parameter grads", [(n, p.grad) for n, p in layer.named_parameters()])


@pytest.mark.parametrize("case", list(layer_cases(torch_lib.nn)))
def test_layer_matches_torch(case: str) -> None:
    assert_same(functools.partial(snip_layer, case=case))


def snip_layer_errors(torch: ModuleType, out: Recorder) -> None:
    with out.raises("Linear shape mismatch"):
        torch.nn.Linear(3, 2)(torch.ones(2, 4))
    with out.raises("Conv2d channels"):
        torch.nn.Conv2d(3, 1, 2)(torch.ones(1, 2, 4, 4))
    for kwargs in (
        {"groups": 0},
        {"groups": 2},
        {"padding": "full"},
        {"padding": "same", "stride": 2},
    ):
        with out.raises(f"Conv2d {kwargs}"):
            torch.nn.Conv2d(3, 4, 3, **kwargs)
    with out.raises("Dropout p"):
        torch.nn.Dropout(1.5)


def test_layer_errors() -> None:
    assert_same(snip_layer_errors)


def test_conv2d_gradients_match_finite_differences() -> None:
    import minigrad

    conv = minigrad.nn.Conv2d(2, 2, 3, stride=2, padding=1).double()
    x = minigrad.randn(1, 2, 5, 5, dtype=minigrad.float64, requires_grad=True)
    assert minigrad.autograd.gradcheck(
        lambda x, w, b: minigrad.nn.functional.conv2d(x, w, b, 2, 1), (x, conv.weight, conv.bias)
    )


# ---------------------------------------------------------------- losses


def snip_losses(torch: ModuleType, out: Recorder, reduction: str) -> None:
    nn = torch.nn
    logits = fixed(torch, 4, 3, scale=3.0).requires_grad_()
    target = torch.tensor([0, 2, 1, 2])
    prediction = fixed(torch, 4, 3).requires_grad_()
    for name, loss in (
        ("mse", nn.MSELoss(reduction=reduction)(prediction, logits.detach())),
        ("ce", nn.CrossEntropyLoss(reduction=reduction)(logits, target)),
        ("ce ignore", nn.CrossEntropyLoss(ignore_index=2, reduction=reduction)(logits, target)),
        ("nll", nn.NLLLoss(reduction=reduction)(logits.log_softmax(1), target)),
        (
            "ce soft",
            nn.CrossEntropyLoss(reduction=reduction)(logits, fixed(torch, 4, 3).softmax(1)),
        ),
    ):
        out(name, loss)
        logits.grad = prediction.grad = None
        (loss * fixed(torch, *loss.shape, scale=-1.0)).sum().backward()
        out(f"{name} grads", (logits.grad, prediction.grad))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_losses_match_torch(reduction: str) -> None:
    assert_same(functools.partial(snip_losses, reduction=reduction))


def snip_loss_errors(torch: ModuleType, out: Recorder) -> None:
    x = torch.ones(2, 3)
    bad = torch.nn.MSELoss(reduction="foo")  # accepted here, refused when called
    with out.raises("module"):
        bad(x, x)
    with out.raises("functional"):
        torch.nn.functional.cross_entropy(x, torch.tensor([0, 1]), reduction="foo")
    with out.raises("target out of range"):
        torch.nn.functional.nll_loss(x, torch.tensor([0, 5]))


def test_loss_errors() -> None:
    assert_same(snip_loss_errors)


def snip_target_dtype(torch: ModuleType, out: Recorder) -> None:
    for name in ("float32", "int32"):
        with out.raises(f"{name} target"):
            torch.nn.functional.cross_entropy(
                torch.ones(2, 3), torch.tensor([0, 1], dtype=getattr(torch, name))
            )


def test_class_index_target_must_be_long() -> None:
    assert_same(snip_target_dtype)


def test_unsupported_loss_options_are_refused() -> None:
    import minigrad

    F = minigrad.nn.functional
    x, t = minigrad.ones(2, 3), minigrad.tensor([0, 1])
    for call in (
        lambda: F.cross_entropy(x, t, size_average=True),
        lambda: F.mse_loss(x, x, reduce=False),
        lambda: minigrad.nn.MSELoss(size_average=False),
    ):
        with pytest.raises(NotImplementedError):
            call()


def test_cross_entropy_matches_finite_differences() -> None:
    import minigrad

    x = minigrad.randn(4, 3, dtype=minigrad.float64, requires_grad=True)
    t = minigrad.tensor([0, 2, 1, 1])
    assert minigrad.autograd.gradcheck(lambda x: minigrad.nn.functional.cross_entropy(x, t), (x,))


# ---------------------------------------------------------------- functional


def snip_functional(torch: ModuleType, out: Recorder) -> None:
    F = torch.nn.functional
    x = fixed(torch, 2, 3)
    with out.warns("implicit softmax dim"):
        out("softmax(dim=None)", F.softmax(x))
    with out.warns("implicit log_softmax dim on 3-d"):
        out("log_softmax(dim=None)", F.log_softmax(fixed(torch, 2, 2, 2)))
    out("relu inplace returns its input", F.relu(x, inplace=True) is x)
    out("sigmoid, tanh", (F.sigmoid(x), F.tanh(x)))
    out("dropout off in eval", F.dropout(x, 0.5, training=False) is x)
    out("dropout p=1", F.dropout(x, 1.0))
    out("dropout p=0", F.dropout(x, 0.0))
    with out.raises("dropout p"):
        F.dropout(x, -0.1)


def test_functional_matches_torch() -> None:
    assert_same(snip_functional)


def test_dropout_scales_kept_values_and_gradients() -> None:
    import minigrad

    minigrad.manual_seed(0)
    x = minigrad.ones(2000, requires_grad=True)
    y = minigrad.nn.functional.dropout(x, 0.25)
    kept = y._data != 0
    assert 0.70 < kept.mean() < 0.80
    assert np.allclose(y._data[kept], 1 / 0.75)
    y.sum().backward()
    assert np.allclose(x.grad._data, y._data)  # d(mask * x / (1 - p)) / dx


def test_dropout_module_follows_training_mode() -> None:
    import minigrad

    layer = minigrad.nn.Dropout(0.5)
    x = minigrad.ones(100)
    assert (layer(x)._data == 0).any()
    assert layer.eval()(x) is x


# ---------------------------------------------------------------- init


def test_linear_default_init_bounds(lib: ModuleType) -> None:
    lib.manual_seed(0)
    layer = lib.nn.Linear(64, 32)
    bound = 1 / math.sqrt(64)
    for p in (layer.weight, layer.bias):
        values = np.asarray(p.detach().tolist())
        assert np.abs(values).max() <= bound
    std = np.asarray(layer.weight.detach().tolist()).std()
    assert std == pytest.approx(bound / math.sqrt(3), rel=0.1)  # uniform, not normal


def test_conv_default_init_uses_receptive_field(lib: ModuleType) -> None:
    conv = lib.nn.Conv2d(4, 8, 3)
    assert np.abs(np.asarray(conv.weight.detach().tolist())).max() <= 1 / math.sqrt(4 * 9)


def snip_init(torch: ModuleType, out: Recorder) -> None:
    init = torch.nn.init
    w = torch.nn.Parameter(torch.zeros(3, 4))
    out("version before", w._version)
    init.constant_(w, 0.5)
    out("constant_", (w, w._version, w.requires_grad, w.is_leaf))
    init.ones_(w)
    init.zeros_(w)
    out("zeros_ after ones_", (w, w._version))
    init.uniform_(w, -0.1, 0.1)
    init.normal_(w, 0.0, 0.01)
    init.kaiming_uniform_(w, a=math.sqrt(5))
    init.xavier_uniform_(w)
    out("version after 7 fills", w._version)
    gains = [
        init.calculate_gain(n)
        for n in ("linear", "conv2d", "sigmoid", "tanh", "relu", "selu", "leaky_relu")
    ]
    out("gains", gains + [init.calculate_gain("leaky_relu", 0.2)])
    for call in (
        lambda: init.calculate_gain("swish"),
        lambda: init.xavier_uniform_(torch.ones(3)),
        lambda: init.kaiming_uniform_(w, mode="fan_avg"),
    ):
        with out.raises("error"):
            call()
    with out.warns("zero-element tensor"):
        init.kaiming_uniform_(torch.zeros(0, 3))


def test_init_functions() -> None:
    assert_same(snip_init)


def test_init_bounds() -> None:
    import minigrad

    init = minigrad.nn.init
    w = minigrad.zeros(50, 30)
    init.xavier_uniform_(w, gain=2.0)
    assert np.abs(w._data).max() <= 2.0 * math.sqrt(6 / 80)
    init.kaiming_uniform_(w, nonlinearity="relu")
    assert np.abs(w._data).max() <= math.sqrt(2.0) * math.sqrt(3 / 30)
    init.kaiming_normal_(w, mode="fan_out", nonlinearity="relu")
    assert w._data.std() == pytest.approx(math.sqrt(2.0 / 50), rel=0.1)
    init.xavier_normal_(w)
    assert w._data.std() == pytest.approx(math.sqrt(2.0 / 80), rel=0.1)


# ---------------------------------------------------------------- gradient clipping


def _model_with_grads(torch: ModuleType, scale: float) -> Any:
    model = fill_fixed(
        torch, torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
    )
    (model(fixed(torch, 5, 3, scale=scale)) ** 2).sum().backward()
    return model


def snip_clip_norm(torch: ModuleType, out: Recorder, norm_type: float, max_norm: float) -> None:
    model = _model_with_grads(torch, 3.0)
    versions = [p.grad._version for p in model.parameters()]
    total = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm, norm_type=norm_type)
    out("total", (total, total.requires_grad))
    out("clipped grads", [p.grad for p in model.parameters()])
    out(
        "grads written in place",
        [p.grad._version - v for p, v in zip(model.parameters(), versions, strict=True)],
    )
    first = next(model.parameters())
    out("single tensor", torch.nn.utils.clip_grad_norm_(first, 0.01, norm_type))
    out("single tensor grad", first.grad)


@pytest.mark.parametrize("norm_type", [2.0, 1.0, float("inf"), 3])
@pytest.mark.parametrize("max_norm", [1.0, 1e6])
def test_clip_grad_norm_matches_torch(norm_type: float, max_norm: float) -> None:
    assert_same(functools.partial(snip_clip_norm, norm_type=norm_type, max_norm=max_norm))


def snip_clip_edge_cases(torch: ModuleType, out: Recorder) -> None:
    clip = torch.nn.utils.clip_grad_norm_
    model = torch.nn.Linear(2, 1)
    with out.warns("empty generator"):
        out("no parameters", clip((p for p in []), 1.0))
    out("no grads", clip(model.parameters(), 1.0))
    model.weight.grad = torch.tensor([[float("inf"), 1.0]])
    with out.raises("non-finite"):
        clip(model.parameters(), 1.0, error_if_nonfinite=True)
    model.weight.grad = fixed(torch, 1, 2, scale=10.0)
    model.bias.grad = torch.tensor([4.0])
    torch.nn.utils.clip_grad_value_(model.parameters(), 0.3)
    out("clip_grad_value_", (model.weight.grad, model.bias.grad))
    vec = torch.nn.utils.parameters_to_vector(model.parameters())
    out("parameters_to_vector", (tuple(vec.shape), vec.requires_grad))
    torch.nn.utils.vector_to_parameters(torch.arange(3.0), model.parameters())
    out("vector_to_parameters", [p for p in model.parameters()])


def test_clip_edge_cases_and_vector_helpers() -> None:
    assert_same(snip_clip_edge_cases)


def test_clip_coefficient_formula() -> None:
    """coef = max_norm / (total + 1e-6), clamped to 1: clipped norm lands just under max_norm."""
    import minigrad

    p = minigrad.nn.Parameter(minigrad.zeros(2))
    p.grad = minigrad.tensor([3.0, 4.0])
    total = minigrad.nn.utils.clip_grad_norm_([p], max_norm=1.0)
    assert total.shape == () and total.item() == 5.0
    assert p.grad.tolist() == pytest.approx([3 / (5 + 1e-6), 4 / (5 + 1e-6)], rel=1e-6)


def test_module_warns_on_no_warnings_in_plain_use() -> None:
    import minigrad

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = minigrad.nn.Sequential(minigrad.nn.Linear(2, 2), minigrad.nn.ReLU())
        model(minigrad.ones(1, 2)).sum().backward()
        assert re.match(r"Sequential\(\n  \(0\): Linear", repr(model))


# ---------------------------------------------------------------- core bugs met on the way


def test_equal_and_allclose_compare_parameters() -> None:
    import minigrad

    a = minigrad.nn.Linear(2, 2)
    b = minigrad.nn.Linear(2, 2)
    b.load_state_dict(a.state_dict())
    assert minigrad.equal(a.weight, b.weight) is True
    assert minigrad.allclose(a.bias, b.bias) is True


def test_module_list_repr_groups_repeats_as_torchs() -> None:
    """A ModuleList prints a run of neighbours that print alike once ("(0-2): 3 x Linear"), as
    PyTorch's does: a GPT's blocks, nested and after another child, and the empty list."""
    seen = []
    for lib in (torch_lib, load_lib("minigrad")):
        nn = lib.nn
        blocks = [nn.Sequential(nn.Linear(4, 4), nn.ReLU()) for _ in range(2)]
        net = nn.Sequential(
            nn.ModuleList([nn.Linear(2, 2) for _ in range(3)] + [nn.ReLU(), nn.Linear(2, 2)]),
            nn.ModuleList([*blocks, nn.Sequential(nn.Linear(4, 4))]),
            nn.ModuleList(),
            nn.ModuleList([nn.Tanh()]),
        )
        seen.append(repr(net))
    assert seen[0] == seen[1]
