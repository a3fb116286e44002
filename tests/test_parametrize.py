"""nn.utils.parametrize against PyTorch: the tutorial's parametrizations (Symmetric,
SkewSymmetric, a matrix exponential), right_inverse (one tensor or several), chaining, caching,
removal, state_dict keys, parameters, gradients, reprs and errors.

Every snippet runs on torch and on minigrad (tests/parity.py); torch's record is the
expectation. The tutorial's triu and matrix_exp are written with ops minigrad had when these
tests were written: a comparison mask for the triangles, a truncated series for exp.
"""

from __future__ import annotations

import copy
import functools
import math
import pickle
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from parity import Recorder, assert_same
from whole_messages import raises_whole

pytest.importorskip("torch")


def fixed(torch: ModuleType, *shape: int, scale: float = 1.0) -> Any:
    """Deterministic mixed-sign values: the same tensor in both libraries."""
    n = math.prod(shape)
    values = np.array([((i * 37) % 11 - 5) / 10 * scale for i in range(n)], dtype=np.float32)
    return torch.tensor(values.reshape(shape))


def linear(torch: ModuleType, n_in: int = 3, n_out: int = 3) -> Any:
    layer = torch.nn.Linear(n_in, n_out)
    with torch.no_grad():
        layer.weight.copy_(fixed(torch, n_out, n_in))
        layer.bias.copy_(fixed(torch, n_out, scale=0.5))
    return layer


def upper(torch: ModuleType, X: Any, diagonal: int = 0) -> Any:
    """X.triu(diagonal), written with ops both libraries have."""
    i = torch.arange(X.shape[-1])
    keep = (i.unsqueeze(0) - i.unsqueeze(1)) >= diagonal
    return X * keep.to(X.dtype)


def parametrizations(torch: ModuleType) -> dict[str, type]:
    """The tutorial's parametrizations (and a few for the error paths), for one library."""
    nn = torch.nn

    class Symmetric(nn.Module):
        def forward(self, X: Any) -> Any:
            return upper(torch, X) + upper(torch, X, 1).transpose(-1, -2)

        def right_inverse(self, A: Any) -> Any:
            return upper(torch, A)

    class SkewSymmetric(nn.Module):
        def forward(self, X: Any) -> Any:
            A = upper(torch, X, 1)
            return A - A.transpose(-1, -2)

    class MatrixExponential(nn.Module):
        """exp(X) ~ I + X + X^2/2 + X^3/6 (the tutorial uses torch.matrix_exp)."""

        def forward(self, X: Any) -> Any:
            X2 = X @ X
            return torch.eye(X.shape[-1]) + X + X2 / 2 + X2 @ X / 6

    class Double(nn.Module):
        def forward(self, X: Any) -> Any:
            return 2 * X

        def right_inverse(self, X: Any) -> Any:
            return X / 2

    class Split(nn.Module):
        """A tensor as the sum of two: right_inverse returns a sequence."""

        def forward(self, A: Any, B: Any) -> Any:
            return A + B

        def right_inverse(self, X: Any) -> Any:
            return X * 0.25, X * 0.75

    class NoInverse(nn.Module):
        def forward(self, X: Any) -> Any:
            return X * 3

    class FirstRow(nn.Module):
        def forward(self, X: Any) -> Any:
            return X[0]

    class ToDouble(nn.Module):
        def forward(self, X: Any) -> Any:
            return X.double()

    class Flexible(nn.Module):
        """right_inverse returns whatever `self.inverse` makes of X."""

        def __init__(self, inverse: Any) -> None:
            super().__init__()
            self.inverse = inverse

        def forward(self, *Xs: Any) -> Any:
            return Xs[0]

        def right_inverse(self, X: Any) -> Any:
            return self.inverse(X)

    class NotATensor(nn.Module):
        def forward(self, X: Any) -> Any:
            return 3

    return {
        cls.__name__: cls
        for cls in (
            Symmetric,
            SkewSymmetric,
            MatrixExponential,
            Double,
            Split,
            NoInverse,
            FirstRow,
            ToDouble,
            Flexible,
            NotATensor,
        )
    }


def record_module(out: Recorder, label: str, module: Any) -> None:
    out(f"{label} type", type(module).__name__)
    out(f"{label} repr", repr(module))
    out(f"{label} state_dict", list(module.state_dict().items()))
    out(f"{label} parameters", [name for name, _ in module.named_parameters()])
    out(f"{label} buffers", [name for name, _ in module.named_buffers()])


def snip_symmetric(torch: ModuleType, out: Recorder) -> None:
    P = torch.nn.utils.parametrize
    layer = linear(torch)
    original = layer.weight
    version = original._version
    symmetric = parametrizations(torch)["Symmetric"]()
    out("returns", P.register_parametrization(layer, "weight", symmetric) is layer)
    record_module(out, "registered", layer)
    out("original kept", layer.parametrizations.weight.original is original)
    out("original", layer.parametrizations.weight.original)
    out("original is a Parameter", type(layer.parametrizations.weight.original).__name__)
    out("versions counted", original._version - version)
    A = layer.weight
    out("weight", A)
    out("symmetric", bool((A == A.T).all()))
    out("weight grad_fn", A.grad_fn.name())
    out("is_parametrized", (P.is_parametrized(layer), P.is_parametrized(layer, "weight")))
    out("bias parametrized", P.is_parametrized(layer, "bias"))
    out("type before", P.type_before_parametrizations(layer).__name__)
    out("list type", type(layer.parametrizations.weight).__name__)
    out("dict type", type(layer.parametrizations).__name__)
    out(
        "is_tensor, ntensors",
        (layer.parametrizations.weight.is_tensor, layer.parametrizations.weight.ntensors),
    )
    y = layer(fixed(torch, 2, 3))
    out("forward", y)
    (y * fixed(torch, 2, 3)).sum().backward()
    out("grads", [(name, p.grad) for name, p in layer.named_parameters()])


def test_symmetric() -> None:
    assert_same(snip_symmetric)


def snip_chain(torch: ModuleType, out: Recorder) -> None:
    """SkewSymmetric then an exponential: the tutorial's orthogonal-ish chain."""
    P = torch.nn.utils.parametrize
    kinds = parametrizations(torch)
    layer = linear(torch)
    P.register_parametrization(layer, "weight", kinds["SkewSymmetric"]())
    P.register_parametrization(layer, "weight", kinds["MatrixExponential"]())
    record_module(out, "chained", layer)
    out("list length", len(layer.parametrizations.weight))
    out("members", [type(m).__name__ for m in layer.parametrizations.weight])
    W = layer.weight
    out("weight", W)
    out("grad_fn", W.grad_fn.name())
    out("X^T X", W.T @ W)
    W.sum().backward()
    out("grad of original", layer.parametrizations.weight.original.grad)
    P.remove_parametrizations(layer, "weight")
    record_module(out, "removed", layer)
    out("weight after", layer.weight)


def test_chain_skew_then_exponential() -> None:
    assert_same(snip_chain)


def snip_right_inverse(torch: ModuleType, out: Recorder) -> None:
    P = torch.nn.utils.parametrize
    kinds = parametrizations(torch)
    layer = linear(torch)
    P.register_parametrization(layer, "weight", kinds["Double"]())
    out("original after right_inverse", layer.parametrizations.weight.original)
    out("weight unchanged", layer.weight)
    original = layer.parametrizations.weight.original
    version = original._version
    layer.weight = fixed(torch, 3, 3, scale=3.0)
    out("assigned: original", layer.parametrizations.weight.original)
    out("same original", layer.parametrizations.weight.original is original)
    out("versions", original._version - version)
    out("weight", layer.weight)
    P.register_parametrization(layer, "weight", kinds["Symmetric"]())
    layer.weight = fixed(torch, 3, 3, scale=2.0)
    out("through the chain", layer.parametrizations.weight.original)
    out("weight symmetric", layer.weight)
    P.register_parametrization(layer, "weight", kinds["NoInverse"]())
    with raises_whole(out, "no right_inverse"):
        layer.weight = fixed(torch, 3, 3)


def test_right_inverse_and_assignment() -> None:
    assert_same(snip_right_inverse)


def snip_sequence(torch: ModuleType, out: Recorder) -> None:
    P = torch.nn.utils.parametrize
    kinds = parametrizations(torch)
    layer = linear(torch, 3, 2)
    P.register_parametrization(layer, "weight", kinds["Split"]())
    record_module(out, "split", layer)
    chain = layer.parametrizations.weight
    out("is_tensor, ntensors", (chain.is_tensor, chain.ntensors))
    out("originals", (chain.original0, chain.original1))
    out("weight", layer.weight)
    layer.weight.sum().backward()
    out("grads", (chain.original0.grad, chain.original1.grad))
    layer.weight = fixed(torch, 2, 3, scale=4.0)
    out("assigned", (chain.original0, chain.original1))
    with raises_whole(out, "leave_parametrized=False"):
        P.remove_parametrizations(layer, "weight", leave_parametrized=False)
    out("still parametrized", P.is_parametrized(layer))
    P.remove_parametrizations(layer, "weight")
    record_module(out, "removed", layer)
    out("weight requires grad", layer.weight.requires_grad)


def test_right_inverse_returning_a_sequence() -> None:
    assert_same(snip_sequence)


def snip_remove(torch: ModuleType, out: Recorder) -> None:
    P = torch.nn.utils.parametrize
    kinds = parametrizations(torch)
    for leave in (True, False):
        layer = linear(torch)
        P.register_parametrization(layer, "weight", kinds["Double"]())
        P.register_parametrization(layer, "bias", kinds["Double"]())
        original = layer.parametrizations.weight.original
        version = original._version
        P.remove_parametrizations(layer, "weight", leave_parametrized=leave)
        out(f"{leave}: same object", layer.weight is original)
        out(f"{leave}: versions", original._version - version)
        out(f"{leave}: weight", layer.weight)
        record_module(out, f"{leave}: one left", layer)
        P.remove_parametrizations(layer, "bias", leave_parametrized=leave)
        record_module(out, f"{leave}: none left", layer)
        out(f"{leave}: has parametrizations", hasattr(layer, "parametrizations"))
    layer = linear(torch)
    layer.weight.requires_grad_(False)
    P.register_parametrization(layer, "weight", kinds["Double"]())
    out("original requires grad", layer.parametrizations.weight.original.requires_grad)
    P.remove_parametrizations(layer, "weight")
    out("after removal", layer.weight.requires_grad)


def test_remove_parametrizations() -> None:
    assert_same(snip_remove)


def snip_buffers(torch: ModuleType, out: Recorder) -> None:
    P = torch.nn.utils.parametrize
    kinds = parametrizations(torch)

    class Holder(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.register_buffer("scale", fixed(torch, 3))
            self.register_buffer("shift", fixed(torch, 3, scale=2.0))
            self.weight = torch.nn.Parameter(fixed(torch, 3, scale=0.5))

    holder = Holder()
    P.register_parametrization(holder, "scale", kinds["Double"]())
    P.register_parametrization(holder, "shift", kinds["Split"]())
    record_module(out, "buffers", holder)
    out("scale", holder.scale)
    out("original requires grad", holder.parametrizations.scale.original.requires_grad)
    P.remove_parametrizations(holder, "shift")
    record_module(out, "shift removed", holder)
    out("shift is a parameter", "shift" in dict(holder.named_parameters()))


def test_buffers() -> None:
    assert_same(snip_buffers)


def snip_errors(torch: ModuleType, out: Recorder) -> None:
    P = torch.nn.utils.parametrize
    kinds = parametrizations(torch)
    for name in ("FirstRow", "ToDouble", "NotATensor"):
        layer = linear(torch, 3, 2)
        with raises_whole(out, f"{name}: first"):
            P.register_parametrization(layer, "weight", kinds[name]())
        out(f"{name}: untouched", (type(layer).__name__, list(layer.state_dict())))
        layer = linear(torch, 3, 2)
        P.register_parametrization(layer, "weight", kinds["Double"]())
        with raises_whole(out, f"{name}: chained"):
            P.register_parametrization(layer, "weight", kinds[name]())
        out(f"{name}: chain length", len(layer.parametrizations.weight))
    for name in ("FirstRow", "ToDouble"):
        layer = linear(torch, 3, 2)
        P.register_parametrization(layer, "weight", kinds[name](), unsafe=True)
        out(f"{name}: unsafe", (layer.weight.shape, layer.weight.dtype))
        out(f"{name}: unsafe flag", layer.parametrizations.weight.unsafe)
    layer = linear(torch, 3, 2)
    P.register_parametrization(layer, "weight", kinds["Double"]())
    P.register_parametrization(layer, "weight", kinds["FirstRow"](), unsafe=True)
    out("unsafe chained", (layer.weight.shape, layer.parametrizations.weight.unsafe))
    layer = linear(torch, 3, 2)
    for inverse_name, inverse in (
        ("dtype", lambda X: X.double()),
        ("int", lambda X: 3),
        ("element", lambda X: (X, 3)),
    ):
        for unsafe in (False, True):
            with raises_whole(out, f"right_inverse {inverse_name}, unsafe={unsafe}"):
                P.register_parametrization(
                    layer, "weight", kinds["Flexible"](inverse), unsafe=unsafe
                )
    out("not parametrized", type(layer).__name__)
    P.register_parametrization(layer, "weight", kinds["Double"]())
    for inverse_name, inverse in (
        ("dtype", lambda X: X.double()),
        ("shape", lambda X: X[0]),
        ("int", lambda X: 3),
        ("NotImplementedError", lambda X: (_ for _ in ()).throw(NotImplementedError)),
    ):
        with raises_whole(out, f"chained right_inverse {inverse_name}"):
            P.register_parametrization(layer, "weight", kinds["Flexible"](inverse))
    out("chain", [type(m).__name__ for m in layer.parametrizations.weight])
    P.remove_parametrizations(layer, "weight", leave_parametrized=False)
    layer.foo = 3
    for missing in ("foo", "nothing"):
        with raises_whole(out, f"no tensor {missing}"):
            P.register_parametrization(layer, missing, kinds["Double"]())
    with raises_whole(out, "remove unparametrized"):
        P.remove_parametrizations(layer, "weight")
    P.register_parametrization(layer, "weight", kinds["Double"]())
    with raises_whole(out, "remove bias"):
        P.remove_parametrizations(layer, "bias")
    with raises_whole(out, "assign a Parameter"):
        layer.weight = torch.nn.Parameter(fixed(torch, 2, 3))
    with raises_whole(out, "empty list"):
        P.ParametrizationList([], fixed(torch, 2))


def test_errors() -> None:
    assert_same(snip_errors)


ASSIGNMENTS = {  # case: (how many originals at registration, what right_inverse returns then)
    "one: dtype": (1, lambda torch, X: X.double()),
    "one: not a tensor": (1, lambda torch, X: 3.0),
    "one: new shape": (1, lambda torch, X: fixed(torch, 4)),
    "two: not a sequence": (2, lambda torch, X: 3.0),
    "two: length": (2, lambda torch, X: (X, X, X)),
    "two: element": (2, lambda torch, X: (X, 3.0)),
    "two: dtype": (2, lambda torch, X: (X, X.double())),
    "two: fine": (2, lambda torch, X: (X * 2, X * 3)),
}


def snip_assignment(torch: ModuleType, out: Recorder, case: str) -> None:
    """`module.weight = X` goes through right_inverse, whose results are checked."""
    P = torch.nn.utils.parametrize
    count, inverse = ASSIGNMENTS[case]
    layer = linear(torch, 3, 2)
    flexible = parametrizations(torch)["Flexible"](lambda X: X if count == 1 else (X, X))
    P.register_parametrization(layer, "weight", flexible)
    flexible.inverse = lambda X: inverse(torch, X)
    with raises_whole(out, "assign"):
        layer.weight = fixed(torch, 2, 3)
    out("originals", list(layer.state_dict().items()))


@pytest.mark.parametrize("case", list(ASSIGNMENTS))
def test_assignment(case: str) -> None:
    assert_same(functools.partial(snip_assignment, case=case))


def snip_cached(torch: ModuleType, out: Recorder) -> None:
    P = torch.nn.utils.parametrize
    calls = []

    class Counting(torch.nn.Module):
        def forward(self, X: Any) -> Any:
            calls.append(1)
            return X * 1

    layer = linear(torch)
    P.register_parametrization(layer, "weight", Counting())
    calls.clear()
    a, b = layer.weight, layer.weight
    out("uncached", (len(calls), a is b))
    with P.cached():
        a, b = layer.weight, layer.weight
        out("cached", (len(calls), a is b))
        with P.cached():
            out("nested", layer.weight is a)
        out("after nested", layer.weight is a)
        y = layer(fixed(torch, 2, 3)) + layer(fixed(torch, 2, 3))
        out("two forwards", len(calls))
    out("after", (layer.weight is a, len(calls)))
    y.sum().backward()
    out("grad", layer.parametrizations.weight.original.grad)


def test_cached() -> None:
    assert_same(snip_cached)


def snip_training_state_and_optim(torch: ModuleType, out: Recorder) -> None:
    P = torch.nn.utils.parametrize
    kinds = parametrizations(torch)
    layer = linear(torch).eval()
    symmetric = kinds["Symmetric"]()
    P.register_parametrization(layer, "weight", symmetric)
    out("follows module mode", symmetric.training)
    layer.train()
    out("train()", symmetric.training)
    opt = torch.optim.SGD(layer.parameters(), lr=0.1)
    for _ in range(2):
        opt.zero_grad()
        loss = (layer(fixed(torch, 4, 3)) ** 2).mean()
        loss.backward()
        opt.step()
    out("stepped original", layer.parametrizations.weight.original)
    out("still symmetric", layer.weight)
    state = layer.state_dict()
    other = linear(torch)
    P.register_parametrization(other, "weight", kinds["Symmetric"]())
    out("load", repr(other.load_state_dict(state)))
    out("loaded weight", other.weight)
    plain = linear(torch)
    with raises_whole(out, "load into a plain layer"):
        plain.load_state_dict(state)


def test_training_state_optimizer_and_state_dict() -> None:
    assert_same(snip_training_state_and_optim)


def snip_copies(torch: ModuleType, out: Recorder) -> None:
    P = torch.nn.utils.parametrize
    kinds = parametrizations(torch)
    layer = linear(torch)
    P.register_parametrization(layer, "weight", kinds["Double"]())
    twin = copy.deepcopy(layer)
    out("same class", type(twin) is type(layer))
    out("weight", twin.weight)
    out(
        "own original",
        twin.parametrizations.weight.original is layer.parametrizations.weight.original,
    )
    with raises_whole(out, "pickle"):
        pickle.dumps(layer)


def test_deepcopy_and_pickle() -> None:
    assert_same(snip_copies)


def snip_transfer(torch: ModuleType, out: Recorder) -> None:
    P = torch.nn.utils.parametrize
    kinds = parametrizations(torch)
    source = linear(torch)
    P.register_parametrization(source, "weight", kinds["Double"]())
    P.register_parametrization(source, "bias", kinds["Split"]())
    target = torch.nn.Linear(3, 3)
    out("returns target", P.transfer_parametrizations_and_params(source, target) is target)
    record_module(out, "target", target)
    out("shared module", target.parametrizations.weight[0] is source.parametrizations.weight[0])
    out(
        "shared originals",
        (
            target.parametrizations.weight.original is source.parametrizations.weight.original,
            target.parametrizations.bias.original1 is source.parametrizations.bias.original1,
        ),
    )
    out("values", (target.weight, target.bias))

    class Empty(torch.nn.Module):
        pass

    empty = Empty()
    P.transfer_parametrizations_and_params(source, empty, "weight")
    record_module(out, "created", empty)
    plain = torch.nn.Linear(3, 3)
    out("from unparametrized", P.transfer_parametrizations_and_params(plain, empty) is empty)


def test_transfer_parametrizations_and_params() -> None:
    assert_same(snip_transfer)


def snip_weight_norm(torch: ModuleType, out: Recorder, dim: Any) -> None:
    weight_norm = torch.nn.utils.parametrizations.weight_norm
    conv = torch.nn.Conv2d(2, 3, 2)
    with torch.no_grad():
        conv.weight.copy_(fixed(torch, 3, 2, 2, 2))
        conv.bias.copy_(fixed(torch, 3, scale=0.3))
    with raises_whole(out, "weight_norm"):
        out("returns", weight_norm(conv, dim=dim) is conv)
        record_module(out, "normed", conv)
        out("dim", conv.parametrizations.weight[0].dim)
        out("unsafe", conv.parametrizations.weight.unsafe)
        out("weight kept", conv.weight)
        y = conv(fixed(torch, 1, 2, 3, 3, scale=2.0))
        out("forward", y)
        (y * y).sum().backward()
        out("grads", [(name, p.grad) for name, p in conv.named_parameters()])


@pytest.mark.parametrize("dim", [0, 1, -1, -4, None, 4])
def test_weight_norm(dim: Any) -> None:
    assert_same(functools.partial(snip_weight_norm, dim=dim))


def snip_weight_norm_bias(torch: ModuleType, out: Recorder) -> None:
    weight_norm = torch.nn.utils.parametrizations.weight_norm
    layer = linear(torch, 3, 4)
    weight_norm(layer, name="bias")
    out("g, v", (layer.parametrizations.bias.original0, layer.parametrizations.bias.original1))
    with raises_whole(out, "missing"):
        weight_norm(layer, name="foo")


def test_weight_norm_of_a_vector() -> None:
    assert_same(snip_weight_norm_bias)


def snip_spectral_norm(torch: ModuleType, out: Recorder, kind: str) -> None:
    """The power iteration starts from random vectors: both libraries get the same ones."""
    spectral_norm = torch.nn.utils.parametrizations.spectral_norm
    nn = torch.nn
    module = {
        "linear": lambda: nn.Linear(3, 4),
        "conv": lambda: nn.Conv2d(2, 3, 2),
        "transposed": lambda: nn.ConvTranspose2d(2, 3, 2),
    }[kind]()
    with torch.no_grad():
        module.weight.copy_(fixed(torch, *module.weight.shape))
        module.bias.copy_(fixed(torch, *module.bias.shape, scale=0.2))
    out("returns", spectral_norm(module, n_power_iterations=2) is module)
    sn = module.parametrizations.weight[0]
    with torch.no_grad():
        sn._u.copy_(fixed(torch, *sn._u.shape, scale=0.7) + 0.05)
        sn._v.copy_(fixed(torch, *sn._v.shape, scale=0.3) - 0.05)
    record_module(out, "normed", module)
    out(
        "attributes", (sn.dim, sn.eps, sn.n_power_iterations, module.parametrizations.weight.unsafe)
    )
    x = fixed(torch, 2, 3) if kind == "linear" else fixed(torch, 1, 2, 3, 3)
    y = module(x)
    out("forward", y)
    out("grad_fn", module.weight.grad_fn.name())
    out("vectors after one use", (sn._u, sn._v))
    y.pow(2).sum().backward()
    out("grads", [(name, p.grad) for name, p in module.named_parameters()])
    module.eval()
    u = sn._u.clone()
    out("eval weight", module.weight)
    out("eval leaves the vectors", bool(torch.equal(u, sn._u)))


@pytest.mark.parametrize("kind", ["linear", "conv", "transposed"])
def test_spectral_norm(kind: str) -> None:
    assert_same(functools.partial(snip_spectral_norm, kind=kind))


def snip_spectral_norm_edges(torch: ModuleType, out: Recorder) -> None:
    spectral_norm = torch.nn.utils.parametrizations.spectral_norm
    layer = linear(torch, 3, 4)
    spectral_norm(layer, name="bias")
    record_module(out, "bias normed", layer)
    out("bias", layer.bias)
    for label, kwargs in (
        ("no such tensor", {"name": "foo"}),
        ("dim 2", {"dim": 2}),
        ("dim -3", {"dim": -3}),
        ("no iterations", {"n_power_iterations": 0}),
    ):
        with raises_whole(out, label):
            spectral_norm(linear(torch, 3, 4), **kwargs)
    layer = linear(torch, 3, 4).double()
    spectral_norm(layer)
    out("vectors follow the dtype", layer.parametrizations.weight[0]._u.dtype)


def test_spectral_norm_edges() -> None:
    assert_same(snip_spectral_norm_edges)
