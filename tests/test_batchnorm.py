"""F.batch_norm and nn.BatchNorm1d/2d against PyTorch: outputs, running statistics (biased
variance to normalise, unbiased to track, momentum=None as a cumulative average), gradients of
input, weight and bias to second order, train/eval, state_dict and PyTorch's errors.

Each snippet runs on both libraries (tests/parity.py); the third order, which PyTorch reaches
through its saved batch statistics, is checked against finite differences.
"""

from __future__ import annotations

import functools
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from parity import Recorder, assert_same

torch_lib = pytest.importorskip("torch")


def values(torch: ModuleType, *shape: int, seed: int = 0, low: float = -2.0, high: float = 2.0):
    """Fixed float64 values, the same tensor in both libraries."""
    rng = np.random.default_rng(seed)
    return torch.tensor(rng.uniform(low, high, shape), dtype=torch.float64)


def snip_functional(
    torch: ModuleType, out: Recorder, shape: tuple, training: bool, affine: bool, stats: bool
) -> None:
    """Output, running statistics afterwards, first- and second-order gradients."""
    c = shape[1]
    x = values(torch, *shape).requires_grad_()
    w = values(torch, c, seed=1).requires_grad_() if affine else None
    b = values(torch, c, seed=2).requires_grad_() if affine else None
    rm = values(torch, c, seed=3) if stats else None
    rv = values(torch, c, seed=4, low=0.5) if stats else None
    y = torch.nn.functional.batch_norm(x, rm, rv, w, b, training, 0.3, 1e-3)
    out("output", y)
    out("grad_fn", y.grad_fn.name())
    out("running statistics", (rm, rv))
    leaves = [t for t in (x, w, b) if t is not None]
    seed = values(torch, *shape, seed=5).requires_grad_()
    grads = torch.autograd.grad(y, leaves, seed, create_graph=True)
    out("gradients", list(grads))
    out("their grad_fn", [g.grad_fn.name() if g.grad_fn else None for g in grads])
    total = sum((g * values(torch, *g.shape, seed=6 + i)).sum() for i, g in enumerate(grads))
    second = torch.autograd.grad(total, [*leaves, seed], allow_unused=True)
    out("second order", [s if s is not None else "None" for s in second])


CASES = [
    ((4, 3), True, True, True),
    ((4, 3), False, True, True),
    ((2, 3, 5), True, True, True),
    ((2, 3, 5), False, True, True),
    ((2, 3, 4, 4), True, True, True),
    ((2, 3, 4, 4), False, True, True),
    ((4, 3), True, False, True),
    ((4, 3), True, True, False),
    ((2, 3, 4, 4), False, False, True),
]


@pytest.mark.parametrize("shape,training,affine,stats", CASES)
def test_functional_matches_torch(shape: tuple, training: bool, affine: bool, stats: bool) -> None:
    assert_same(
        functools.partial(
            snip_functional, shape=shape, training=training, affine=affine, stats=stats
        )
    )


@pytest.mark.parametrize("training", [True, False])
def test_third_order_matches_finite_differences(training: bool) -> None:
    import minigrad

    F = minigrad.nn.functional
    rm, rv = values(minigrad, 3, seed=3), values(minigrad, 3, seed=4, low=0.5)
    inputs = (
        values(minigrad, 4, 3).requires_grad_(),
        values(minigrad, 3, seed=1).requires_grad_(),
        values(minigrad, 3, seed=2).requires_grad_(),
    )

    def second(x: Any, w: Any, b: Any) -> Any:
        y = F.batch_norm(x, rm.clone(), rv.clone(), w, b, training, 0.1, 1e-3)
        g = minigrad.autograd.grad((y * y).sum(), (x, w), create_graph=True)
        return (g[0] * g[0]).sum() + (g[1] * g[1]).sum()

    assert minigrad.autograd.gradgradcheck(second, inputs)


def snip_inplace_after(torch: ModuleType, out: Recorder) -> None:
    """Input, weight and running statistics are saved (written in place, backward refuses);
    the training update itself moves no version counter."""
    for which in ("running_mean", "input", "weight", "bias"):
        x = values(torch, 4, 3).requires_grad_()
        w, b = values(torch, 3, seed=1).requires_grad_(), values(torch, 3, seed=2).requires_grad_()
        rm, rv = values(torch, 3, seed=3), values(torch, 3, seed=4, low=0.5)
        args = {"input": x.clone(), "weight": w.clone(), "bias": b.clone(), "running_mean": rm}
        y = torch.nn.functional.batch_norm(
            args["input"], rm, rv, args["weight"], args["bias"], True
        )
        out(f"{which}: version after the op", rm._version)
        args[which].add_(1)
        with out.raises(f"{which} written in place, then backward"):
            y.sum().backward()


def test_saved_tensors_are_version_checked() -> None:
    assert_same(snip_inplace_after)


def snip_errors(torch: ModuleType, out: Recorder) -> None:
    F = torch.nn.functional
    x, s3 = values(torch, 4, 3), values(torch, 3, low=0.5)
    cases = {
        "one value per channel": lambda: F.batch_norm(values(torch, 1, 3), s3, s3, training=True),
        "0-d in training": lambda: F.batch_norm(values(torch), None, None, training=True),
        "eps 0 in training": lambda: F.batch_norm(x, None, None, training=True, eps=0.0),
        "negative eps": lambda: F.batch_norm(x, s3, s3, eps=-1.0),
        "stats of 4": lambda: F.batch_norm(x, values(torch, 4), values(torch, 4)),
        "weight of 4": lambda: F.batch_norm(x, s3, s3, values(torch, 4)),
        "no stats in eval": lambda: F.batch_norm(x, None, None),
        "mean without var": lambda: F.batch_norm(x, s3, None, training=True),
        "long input": lambda: F.batch_norm(torch.ones(4, 3, dtype=torch.long), s3, s3),
        "float64 stats, float32 input": lambda: F.batch_norm(x.float(), s3, s3),
        "float32 stats, float64 input": lambda: F.batch_norm(x, s3.float(), s3.float()),
        "float32 weight, float64 input": lambda: F.batch_norm(x, s3, s3, s3.float()),
        "1-d input": lambda: F.batch_norm(values(torch, 4), None, None, training=True),
        "momentum None": lambda: F.batch_norm(x, s3, s3, training=True, momentum=None),
    }
    for label, call in cases.items():
        with out.raises(label):
            call()
    empty = values(torch, 0, 3).requires_grad_()
    y = F.batch_norm(empty, s3, s3, values(torch, 3, seed=1), values(torch, 3, seed=2), True)
    out("empty input: a copy, times weight[0], plus bias[0]", (y, y.grad_fn.name()))


def test_errors_match_torch() -> None:
    assert_same(snip_errors)


def snip_module(torch: ModuleType, out: Recorder, cls: str, shape: tuple, **kw: Any) -> None:
    """Several training steps, then eval; the buffers and the output each time."""
    layer = getattr(torch.nn, cls)(shape[1], **kw).double()
    out("repr", repr(layer))
    out("state_dict keys", list(layer.state_dict()))
    for step in range(3):
        x = values(torch, *shape, seed=step, low=-1.0 - step, high=2.0 + step).requires_grad_()
        y = layer(x)
        (y * values(torch, *shape, seed=10 + step)).sum().backward()
        out(f"step {step}", (y, x.grad))
        out(f"step {step} buffers", [(n, t) for n, t in layer.named_buffers()])
    out("parameter grads", [(n, p.grad) for n, p in layer.named_parameters()])
    layer.eval()
    x = values(torch, *shape, seed=20)
    out("eval output", layer(x))
    out("eval leaves the buffers", [(n, t) for n, t in layer.named_buffers()])


MODULES = {
    "1d": ("BatchNorm1d", (4, 3), {}),
    "1d-3d-input": ("BatchNorm1d", (2, 3, 5), {}),
    "2d": ("BatchNorm2d", (2, 3, 4, 4), {}),
    "cumulative": ("BatchNorm1d", (4, 3), {"momentum": None}),
    "no-affine": ("BatchNorm2d", (2, 3, 2, 2), {"affine": False}),
    "no-bias": ("BatchNorm1d", (4, 3), {"bias": False}),
    "untracked": ("BatchNorm1d", (4, 3), {"track_running_stats": False}),
    "eps-momentum": ("BatchNorm1d", (5, 2), {"eps": 0.1, "momentum": 0.5}),
}


@pytest.mark.parametrize("case", list(MODULES))
def test_module_matches_torch(case: str) -> None:
    cls, shape, kw = MODULES[case]
    assert_same(functools.partial(snip_module, cls=cls, shape=shape, **kw))


def snip_module_errors(torch: ModuleType, out: Recorder) -> None:
    with out.raises("BatchNorm1d on 1-d"):
        torch.nn.BatchNorm1d(3)(torch.ones(3))
    with out.raises("BatchNorm1d on 4-d"):
        torch.nn.BatchNorm1d(3)(torch.ones(2, 3, 2, 2))
    with out.raises("BatchNorm2d on 3-d"):
        torch.nn.BatchNorm2d(3)(torch.ones(2, 3, 2))
    with out.raises("one value per channel"):
        torch.nn.BatchNorm1d(3)(torch.ones(1, 3))
    with out.raises("wrong channel count"):
        torch.nn.BatchNorm1d(3)(torch.ones(4, 5))
    layer = torch.nn.BatchNorm1d(3).eval()
    out("one sample in eval", layer(torch.ones(1, 3)))


def test_module_errors_match_torch() -> None:
    assert_same(snip_module_errors)


def test_state_dict_round_trips_through_torch() -> None:
    """A trained torch layer's state loads into minigrad's (and back): same keys, the step
    count as int64, the same eval output."""
    import minigrad

    t_layer = torch_lib.nn.BatchNorm2d(3)
    for step in range(2):
        t_layer(torch_lib.randn(4, 3, 2, 2) * (step + 1) + step)
    m_layer = minigrad.nn.BatchNorm2d(3)
    state = t_layer.state_dict()
    m_layer.load_state_dict({k: minigrad.tensor(v.numpy()) for k, v in state.items()})
    assert m_layer.num_batches_tracked.dtype == minigrad.int64
    assert int(m_layer.num_batches_tracked) == 2
    x = np.random.default_rng(0).standard_normal((2, 3, 2, 2)).astype(np.float32)
    t_out = t_layer.eval()(torch_lib.tensor(x)).detach().numpy()
    m_out = m_layer.eval()(minigrad.tensor(x)).detach().numpy()
    np.testing.assert_allclose(m_out, t_out, rtol=1e-5, atol=1e-6)
    back = torch_lib.nn.BatchNorm2d(3)
    back.load_state_dict({k: torch_lib.tensor(v.numpy()) for k, v in m_layer.state_dict().items()})
    for (name, a), (_, b) in zip(back.state_dict().items(), t_layer.state_dict().items()):
        assert torch_lib.equal(a, b), name
