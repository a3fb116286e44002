"""Every torch.optim.lr_scheduler scheduler against PyTorch's, step by step.

The same schedule runs on a torch optimizer and on a minigrad one (SGD with momentum, Adam; two
parameter groups with different lrs). The lr sequences (and the momentum / Adam betas that
OneCycleLR and CyclicLR cycle) must be *bitwise* equal: the schedulers do PyTorch's arithmetic.
Then: state_dict keys, values and round trips, `step(epoch)`, warnings and errors (type and
message, through tests/parity.py).
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np
import pytest
import test_nn
from parity import Recorder, assert_same, load_lib

pytest.importorskip("torch")

lib = test_nn.lib  # the fixture that runs a test once on torch and once on minigrad

Build = Callable[[Any, Any], Any]  # (lr_scheduler module, optimizer) -> scheduler


def make_optimizer(torch: ModuleType, name: str) -> Any:
    """Two groups with different lrs, so that per-group lists are exercised."""
    a = torch.nn.Parameter(torch.ones(2))
    b = torch.nn.Parameter(torch.full((3,), 0.5))
    groups = [{"params": [a]}, {"params": [b], "lr": 0.5}]
    if name == "SGD":
        return torch.optim.SGD(groups, lr=0.1, momentum=0.9)
    if name == "Adam":
        return torch.optim.Adam(groups, lr=0.1)
    return getattr(torch.optim, name)(groups, lr=0.1)


def optimizer_step(torch: ModuleType, optimizer: Any) -> None:
    for group in optimizer.param_groups:
        for p in group["params"]:
            p.grad = torch.full(tuple(p.shape), 0.25)
    optimizer.step()


def snapshot(scheduler: Any) -> tuple:
    """What a schedule shows after a step: epoch, last lrs, group lrs, momentum and betas."""
    groups = scheduler.optimizer.param_groups
    return (
        getattr(scheduler, "last_epoch", None),
        list(scheduler.get_last_lr()),
        [g["lr"] for g in groups],
        [g.get("momentum") for g in groups],
        [tuple(g["betas"]) if "betas" in g else None for g in groups],
    )


class Halving:
    """A callable object: LambdaLR's state_dict keeps its attributes."""

    def __init__(self, base: float = 0.5) -> None:
        self.base = base

    def __call__(self, epoch: int) -> float:
        return self.base ** (epoch // 3)


def cyclic_scale(x: float) -> float:
    return 1 / (1 + 0.1 * x)


CASES: dict[str, tuple[str, Build, int]] = {
    "StepLR": ("SGD", lambda L, o: L.StepLR(o, step_size=3, gamma=0.5), 20),
    "ExponentialLR": ("Adam", lambda L, o: L.ExponentialLR(o, gamma=0.9), 20),
    "LambdaLR": ("SGD", lambda L, o: L.LambdaLR(o, lambda e: 0.95**e), 50),
    "LambdaLR per group": (
        "Adam",
        lambda L, o: L.LambdaLR(o, [lambda e: 1 / (e + 1), Halving()]),
        30,
    ),
    "MultiplicativeLR": ("SGD", lambda L, o: L.MultiplicativeLR(o, lambda e: 0.9), 30),
    "MultiplicativeLR per group": (
        "Adam",
        lambda L, o: L.MultiplicativeLR(o, (lambda e: 0.99, lambda e: 1 - 0.01 * e)),
        30,
    ),
    "MultiStepLR": ("SGD", lambda L, o: L.MultiStepLR(o, [3, 7, 7, 12], gamma=0.5), 20),
    "ConstantLR": ("SGD", lambda L, o: L.ConstantLR(o, factor=0.5, total_iters=4), 10),
    "ConstantLR default": ("Adam", lambda L, o: L.ConstantLR(o), 10),
    "LinearLR warmup": ("SGD", lambda L, o: L.LinearLR(o, start_factor=0.25, total_iters=8), 15),
    "LinearLR decay": (
        "Adam",
        lambda L, o: L.LinearLR(o, start_factor=1.0, end_factor=0.1, total_iters=10),
        15,
    ),
    "PolynomialLR": ("SGD", lambda L, o: L.PolynomialLR(o, total_iters=10, power=2.0), 15),
    "PolynomialLR default": ("Adam", lambda L, o: L.PolynomialLR(o), 10),
    "CosineAnnealingLR": ("SGD", lambda L, o: L.CosineAnnealingLR(o, T_max=10, eta_min=1e-3), 60),
    "CosineAnnealingLR odd": ("Adam", lambda L, o: L.CosineAnnealingLR(o, T_max=7), 60),
    "CosineAnnealingWarmRestarts": (
        "SGD",
        lambda L, o: L.CosineAnnealingWarmRestarts(o, T_0=5),
        50,
    ),
    "CosineAnnealingWarmRestarts T_mult": (
        "Adam",
        lambda L, o: L.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.01),
        50,
    ),
    "OneCycleLR cos": ("SGD", lambda L, o: L.OneCycleLR(o, max_lr=[1.0, 2.0], total_steps=60), 60),
    "OneCycleLR linear": (
        "SGD",
        lambda L, o: L.OneCycleLR(
            o, max_lr=1.0, epochs=6, steps_per_epoch=10, anneal_strategy="linear", pct_start=0.25
        ),
        60,
    ),
    "OneCycleLR three_phase Adam": (
        "Adam",
        lambda L, o: L.OneCycleLR(
            o, max_lr=0.1, total_steps=55, three_phase=True, base_momentum=[0.8, 0.7]
        ),
        55,
    ),
    "OneCycleLR no momentum": (
        "Adam",
        lambda L, o: L.OneCycleLR(
            o, max_lr=0.1, total_steps=50, cycle_momentum=False, div_factor=10.0
        ),
        50,
    ),
    "CyclicLR triangular": (
        "SGD",
        lambda L, o: L.CyclicLR(o, base_lr=0.01, max_lr=[0.1, 0.2], step_size_up=4),
        50,
    ),
    "CyclicLR triangular2": (
        "SGD",
        lambda L, o: L.CyclicLR(
            o, base_lr=0.01, max_lr=0.1, step_size_up=3, step_size_down=5, mode="triangular2"
        ),
        50,
    ),
    "CyclicLR exp_range Adam": (
        "Adam",
        lambda L, o: L.CyclicLR(
            o, base_lr=[0.001, 0.002], max_lr=0.01, step_size_up=5, mode="exp_range", gamma=0.97
        ),
        50,
    ),
    "CyclicLR scale_fn iterations": (
        "SGD",
        lambda L, o: L.CyclicLR(
            o,
            base_lr=0.01,
            max_lr=0.1,
            step_size_up=4,
            scale_fn=cyclic_scale,
            scale_mode="iterations",
            cycle_momentum=False,
        ),
        50,
    ),
    "SequentialLR warmup then cosine": (
        "SGD",
        lambda L, o: L.SequentialLR(
            o, [L.LinearLR(o, start_factor=0.1, total_iters=5), L.CosineAnnealingLR(o, 20)], [5]
        ),
        50,
    ),
    "SequentialLR three": (
        "Adam",
        lambda L, o: L.SequentialLR(
            o,
            [L.ConstantLR(o, 0.5, 3), L.ExponentialLR(o, 0.9), L.StepLR(o, 4)],
            milestones=[4, 10],
        ),
        30,
    ),
    "ChainedScheduler": (
        "SGD",
        lambda L, o: L.ChainedScheduler([L.ConstantLR(o, 0.1, 4), L.ExponentialLR(o, 0.9)]),
        20,
    ),
    "ChainedScheduler with optimizer": (
        "Adam",
        lambda L, o: L.ChainedScheduler(
            [L.LinearLR(o, 0.5, total_iters=6), L.CosineAnnealingLR(o, 12)], optimizer=o
        ),
        40,
    ),
}


def run(torch: ModuleType, case: str, steps: int | None = None) -> tuple[list, Any, Any]:
    """The schedule of `case` after every step (the tutorial order warns nothing)."""
    opt_name, build, n = CASES[case]
    optimizer = make_optimizer(torch, opt_name)
    scheduler = build(torch.optim.lr_scheduler, optimizer)
    seen = [snapshot(scheduler)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(n if steps is None else steps):
            optimizer_step(torch, optimizer)
            scheduler.step()
            seen.append(snapshot(scheduler))
    return seen, optimizer, scheduler


def params_of(optimizer: Any) -> list[list[float]]:
    return [p.tolist() for g in optimizer.param_groups for p in g["params"]]


@pytest.mark.parametrize("case", list(CASES))
def test_schedule_is_bitwise_torchs(case: str) -> None:
    expected, t_opt, _ = run(load_lib("torch"), case)
    actual, m_opt, _ = run(load_lib("minigrad"), case)
    assert len(actual) == len(expected)
    for step, (exp, act) in enumerate(zip(expected, actual, strict=True)):
        assert act == exp, f"step {step}: {act} != torch's {exp}"
    np.testing.assert_allclose(
        np.concatenate([np.ravel(p) for p in params_of(m_opt)]),
        np.concatenate([np.ravel(p) for p in params_of(t_opt)]),
        rtol=1e-5,
        atol=1e-6,
    )


def plain(state: Any) -> Any:
    """A state_dict as comparable data (floats compared exactly)."""
    if isinstance(state, dict):
        return {k: plain(v) for k, v in state.items()}
    if isinstance(state, (list, tuple)):
        return type(state)(plain(v) for v in state)
    return state


@pytest.mark.parametrize("case", list(CASES))
def test_state_dict_is_torchs(case: str) -> None:
    _, _, t_sched = run(load_lib("torch"), case, steps=7)
    _, _, m_sched = run(load_lib("minigrad"), case, steps=7)
    expected, actual = t_sched.state_dict(), m_sched.state_dict()
    assert list(actual) == list(expected)
    assert plain(actual) == plain(expected)


def resumed(torch: ModuleType, case: str) -> list:
    """Half the schedule, then a new optimizer and scheduler loaded from the saved states."""
    opt_name, build, n = CASES[case]
    _, optimizer, scheduler = run(torch, case, steps=n // 2)
    saved_optimizer, saved = optimizer.state_dict(), scheduler.state_dict()
    optimizer2 = make_optimizer(torch, opt_name)
    scheduler2 = build(torch.optim.lr_scheduler, optimizer2)
    optimizer2.load_state_dict(saved_optimizer)
    scheduler2.load_state_dict(saved)
    seen = [snapshot(scheduler2)]
    for _ in range(n - n // 2):
        optimizer_step(torch, optimizer2)
        scheduler2.step()
        seen.append(snapshot(scheduler2))
    return seen


@pytest.mark.parametrize("case", list(CASES))
def test_state_dict_round_trip_resumes_the_schedule(case: str) -> None:
    expected = resumed(load_lib("torch"), case)
    assert resumed(load_lib("minigrad"), case) == expected
    whole, _, _ = run(load_lib("minigrad"), case)
    # lrs carry on where they stopped (momentum too, as the optimizer state holds it)
    assert [s[1] for s in expected] == [s[1] for s in whole[len(whole) - len(expected) :]]


RESUMABLE: dict[str, Callable[[Any, Any, int], Any]] = {
    "StepLR": lambda L, o, e: L.StepLR(o, 3, 0.5, last_epoch=e),
    "MultiStepLR": lambda L, o, e: L.MultiStepLR(o, [2, 5, 9], last_epoch=e),
    "ConstantLR": lambda L, o, e: L.ConstantLR(o, 0.5, 6, last_epoch=e),
    "LinearLR": lambda L, o, e: L.LinearLR(o, 0.2, 1.0, 8, last_epoch=e),
    "ExponentialLR": lambda L, o, e: L.ExponentialLR(o, 0.9, last_epoch=e),
    "PolynomialLR": lambda L, o, e: L.PolynomialLR(o, 10, 2.0, last_epoch=e),
    "CosineAnnealingLR": lambda L, o, e: L.CosineAnnealingLR(o, 7, 0.01, last_epoch=e),
    "WarmRestarts": lambda L, o, e: L.CosineAnnealingWarmRestarts(o, 3, 2, last_epoch=e),
    "LambdaLR": lambda L, o, e: L.LambdaLR(o, lambda k: 0.9**k, last_epoch=e),
    "MultiplicativeLR": lambda L, o, e: L.MultiplicativeLR(o, lambda k: 0.9, last_epoch=e),
    "OneCycleLR": lambda L, o, e: L.OneCycleLR(o, 1.0, total_steps=30, last_epoch=e),
    "CyclicLR": lambda L, o, e: L.CyclicLR(o, 0.01, 0.1, step_size_up=3, last_epoch=e),
}


def resumed_by_last_epoch(torch: ModuleType, case: str, opt_name: str) -> list:
    """The older way to resume: load the optimizer, then pass last_epoch to the constructor."""
    build = RESUMABLE[case]
    optimizer = make_optimizer(torch, opt_name)
    scheduler = build(torch.optim.lr_scheduler, optimizer, -1)
    for _ in range(5):
        optimizer_step(torch, optimizer)
        scheduler.step()
    optimizer2 = make_optimizer(torch, opt_name)
    optimizer2.load_state_dict(optimizer.state_dict())
    scheduler2 = build(torch.optim.lr_scheduler, optimizer2, 4)
    seen = [snapshot(scheduler2)]
    for _ in range(8):
        optimizer_step(torch, optimizer2)
        scheduler2.step()
        seen.append(snapshot(scheduler2))
    return seen


@pytest.mark.parametrize("opt_name", ["SGD", "Adam"])
@pytest.mark.parametrize("case", list(RESUMABLE))
def test_resume_with_last_epoch(case: str, opt_name: str) -> None:
    expected = resumed_by_last_epoch(load_lib("torch"), case, opt_name)
    assert resumed_by_last_epoch(load_lib("minigrad"), case, opt_name) == expected


def tensor_lr_schedule(torch: ModuleType, case: str) -> list:
    """A tensor lr is filled in place; get_last_lr() gives copies."""
    p = torch.nn.Parameter(torch.ones(2))
    optimizer = torch.optim.SGD([p], lr=torch.tensor(0.1), momentum=0.9)
    scheduler = RESUMABLE[case](torch.optim.lr_scheduler, optimizer, -1)
    lr = optimizer.param_groups[0]["lr"]
    seen = []
    for _ in range(8):
        optimizer_step(torch, optimizer)
        scheduler.step()
        last = scheduler.get_last_lr()[0]
        seen.append((float(last), float(lr), last is lr, optimizer.param_groups[0]["lr"] is lr))
    return seen + [p.tolist()]


@pytest.mark.parametrize("case", ["StepLR", "CosineAnnealingLR", "LambdaLR", "OneCycleLR"])
def test_tensor_lr(case: str) -> None:
    expected = tensor_lr_schedule(load_lib("torch"), case)
    assert tensor_lr_schedule(load_lib("minigrad"), case) == expected


def test_lambda_state_keeps_callable_objects_and_drops_functions(lib: ModuleType) -> None:
    optimizer = make_optimizer(lib, "SGD")
    scheduler = lib.optim.lr_scheduler.LambdaLR(optimizer, [lambda e: 1.0, Halving(0.25)])
    state = scheduler.state_dict()
    assert state["lr_lambdas"] == [None, {"base": 0.25}] and list(state)[-1] == "lr_lambdas"
    other = lib.optim.lr_scheduler.LambdaLR(make_optimizer(lib, "SGD"), [abs, Halving(0.9)])
    other.load_state_dict(state)
    assert other.lr_lambdas[1].base == 0.25 and other.lr_lambdas[0] is abs
    assert state["lr_lambdas"] == [None, {"base": 0.25}]  # the caller's dict is left whole


# ---------------------------------------------------------------- step(epoch), fractional epochs

EPOCH_CASES = {
    "StepLR": lambda L, o: L.StepLR(o, 3, 0.5),
    "MultiStepLR": lambda L, o: L.MultiStepLR(o, [2, 5, 5]),
    "ConstantLR": lambda L, o: L.ConstantLR(o, 0.5, 4),
    "LinearLR": lambda L, o: L.LinearLR(o, 0.2, 0.9, 6),
    "ExponentialLR": lambda L, o: L.ExponentialLR(o, 0.8),
    "PolynomialLR": lambda L, o: L.PolynomialLR(o, 8, 1.5),
    "CosineAnnealingLR": lambda L, o: L.CosineAnnealingLR(o, 6, 0.01),
    "LambdaLR (no closed form)": lambda L, o: L.LambdaLR(o, lambda e: 0.9**e),
    "MultiplicativeLR (no closed form)": lambda L, o: L.MultiplicativeLR(o, lambda e: 0.9),
    "OneCycleLR (no closed form)": lambda L, o: L.OneCycleLR(o, 1.0, total_steps=20),
    "CyclicLR (no closed form)": lambda L, o: L.CyclicLR(o, 0.01, 0.1, step_size_up=3),
}


def snip_step_with_epoch(torch: ModuleType, out: Recorder, case: str) -> None:
    optimizer = make_optimizer(torch, "SGD")
    scheduler = EPOCH_CASES[case](torch.optim.lr_scheduler, optimizer)
    optimizer_step(torch, optimizer)
    for epoch in (3, 7, 1, 12, 0):
        with out.warns(f"step({epoch}) is deprecated"):
            scheduler.step(epoch)
        out(f"epoch {epoch}", snapshot(scheduler))
    for i in range(3):
        scheduler.step()
        out(f"then on {i}", snapshot(scheduler))


@pytest.mark.parametrize("case", list(EPOCH_CASES))
def test_step_with_epoch_warns_and_uses_the_closed_form(case: str) -> None:
    assert_same(functools.partial(snip_step_with_epoch, case=case))
    assert exact_epochs(load_lib("minigrad"), case) == exact_epochs(load_lib("torch"), case)


def exact_epochs(torch: ModuleType, case: str) -> list:
    """The lrs after step(epoch) for epochs in any order, to compare bit for bit."""
    optimizer = make_optimizer(torch, "SGD")
    scheduler = EPOCH_CASES[case](torch.optim.lr_scheduler, optimizer)
    optimizer_step(torch, optimizer)
    seen = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for epoch in (3, 7, 1, 12, 0, 5, 5):
            scheduler.step(epoch)
            seen.append(snapshot(scheduler))
    return seen


def warm_restarts_by_batch(torch: ModuleType, t_mult: int) -> list:
    optimizer = make_optimizer(torch, "SGD")
    L = torch.optim.lr_scheduler
    scheduler = L.CosineAnnealingWarmRestarts(optimizer, T_0=2, T_mult=t_mult, eta_min=0.001)
    seen = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # step(epoch) of this scheduler warns nothing
        for epoch in range(12):
            for batch in range(5):
                optimizer_step(torch, optimizer)
                scheduler.step(epoch + batch / 5)
                seen.append((*snapshot(scheduler), scheduler.T_cur, scheduler.T_i))
        for epoch in (30.5, 3, 0, 17.25):
            scheduler.step(epoch)
            seen.append((*snapshot(scheduler), scheduler.T_cur, scheduler.T_i))
        scheduler.step()
        seen.append((*snapshot(scheduler), scheduler.T_cur, scheduler.T_i))
    return seen


@pytest.mark.parametrize("t_mult", [1, 2, 3])
def test_warm_restarts_take_fractional_epochs(t_mult: int) -> None:
    expected = warm_restarts_by_batch(load_lib("torch"), t_mult)
    assert warm_restarts_by_batch(load_lib("minigrad"), t_mult) == expected


# ---------------------------------------------------------------- ReduceLROnPlateau

METRICS = [1.0, 0.9, 0.9, 0.91, 0.9, 0.95, 0.89999, 0.8, 0.8, 0.8, 0.8, 0.81, 0.8] * 3
PLATEAU_CASES = {
    "default": {},
    "patience 1": {"patience": 1},
    "abs threshold": {"patience": 1, "threshold": 0.05, "threshold_mode": "abs"},
    "max rel": {"mode": "max", "patience": 2, "factor": 0.5},
    "max abs": {"mode": "max", "patience": 0, "threshold": 0.01, "threshold_mode": "abs"},
    "cooldown": {"patience": 0, "cooldown": 2, "factor": 0.5},
    "min_lr per group": {"patience": 0, "factor": 0.5, "min_lr": [0.02, 0.2]},
    "min_lr": {"patience": 0, "factor": 0.3, "min_lr": 0.01},
    "eps": {"patience": 0, "factor": 0.9, "eps": 0.02},
}


def plateau(torch: ModuleType, case: str, tensor_metric: bool = False) -> list:
    optimizer = make_optimizer(torch, "SGD")
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, **PLATEAU_CASES[case])
    seen = [snapshot(scheduler)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for i, metric in enumerate(METRICS):
            optimizer_step(torch, optimizer)
            scheduler.step(torch.tensor(metric) if tensor_metric else metric)
            fields = ("best", "num_bad_epochs", "cooldown_counter", "in_cooldown")
            seen.append((*snapshot(scheduler), *(getattr(scheduler, f) for f in fields)))
            if i == len(METRICS) // 2:  # a reloaded scheduler carries on
                state = scheduler.state_dict()
                fresh = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer)
                fresh.load_state_dict(state)
                scheduler = fresh
                seen.append(list(state.items()))
    return seen


@pytest.mark.parametrize("case", list(PLATEAU_CASES))
def test_reduce_lr_on_plateau_is_torchs(case: str) -> None:
    expected = plateau(load_lib("torch"), case)
    assert plateau(load_lib("minigrad"), case) == expected


def test_plateau_takes_a_tensor_metric() -> None:
    # float32 tensors round the metrics, so compare torch and minigrad both given tensors
    expected = plateau(load_lib("torch"), "patience 1", tensor_metric=True)
    assert plateau(load_lib("minigrad"), "patience 1", tensor_metric=True) == expected


def snip_plateau_epoch_and_new_group(torch: ModuleType, out: Recorder) -> None:
    optimizer = make_optimizer(torch, "SGD")
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, patience=0)
    with out.warns("the epoch argument is deprecated"):
        scheduler.step(1.0, epoch=5)
    out("last_epoch", scheduler.last_epoch)
    optimizer.add_param_group({"params": [torch.nn.Parameter(torch.ones(1))], "lr": 1.0})
    scheduler.step(2.0)
    out("a scalar min_lr grows with the groups", (scheduler.min_lrs, scheduler.get_last_lr()))
    listed = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, patience=0, min_lr=[0, 0, 0])
    listed.step(1.0)
    optimizer.add_param_group({"params": [torch.nn.Parameter(torch.ones(1))]})
    with out.raises("a min_lr list must match the groups"):
        listed.step(2.0)


def test_plateau_epoch_warning_and_added_groups() -> None:
    assert_same(snip_plateau_epoch_and_new_group)


# ---------------------------------------------------------------- warnings

ORDER_CASES = {
    name: CASES[name]
    for name in (
        "LambdaLR",
        "MultiplicativeLR",
        "MultiStepLR",
        "ConstantLR",
        "LinearLR warmup",
        "PolynomialLR",
        "CosineAnnealingLR",
        "CosineAnnealingWarmRestarts",
        "OneCycleLR cos",
        "CyclicLR triangular",
        "SequentialLR warmup then cosine",
        "ChainedScheduler",
    )
}


def snip_step_before_optimizer(torch: ModuleType, out: Recorder, case: str) -> None:
    opt_name, build, _ = ORDER_CASES[case]
    optimizer = make_optimizer(torch, opt_name)
    with out.warns("construction warns nothing"):
        scheduler = build(torch.optim.lr_scheduler, optimizer)
    with out.warns("scheduler.step() first"):
        scheduler.step()
    with out.warns("only once"):
        scheduler.step()
        optimizer_step(torch, optimizer)
        scheduler.step()
    if not hasattr(scheduler, "_schedulers"):  # SequentialLR and ChainedScheduler have none
        with out.warns("get_lr outside step"):
            scheduler.get_lr()


@pytest.mark.parametrize("case", list(ORDER_CASES))
def test_step_before_optimizer_step_warns(case: str) -> None:
    assert_same(functools.partial(snip_step_before_optimizer, case=case))


# ---------------------------------------------------------------- errors


def _other(torch: ModuleType) -> Any:
    return make_optimizer(torch, "SGD")


def _past_the_end(L: Any, o: Any) -> None:
    scheduler = L.OneCycleLR(o, 1.0, total_steps=3)
    for _ in range(4):
        scheduler.step()


ERRORS: dict[str, Callable[[ModuleType, Any, Any], Any]] = {
    "LambdaLR lambda count": lambda t, L, o: L.LambdaLR(o, [lambda e: 1.0]),
    "LambdaLR not callable": lambda t, L, o: L.LambdaLR(o, 0.5),
    "MultiplicativeLR lambda count": lambda t, L, o: L.MultiplicativeLR(o, [abs] * 3),
    "MultiplicativeLR not callable": lambda t, L, o: L.MultiplicativeLR(o, [abs, 0.5]),
    "MultiStepLR not an optimizer": lambda t, L, o: L.MultiStepLR(object(), [1]),
    "ConstantLR factor > 1": lambda t, L, o: L.ConstantLR(o, factor=1.5),
    "ConstantLR factor < 0": lambda t, L, o: L.ConstantLR(o, factor=-0.1),
    "LinearLR start 0": lambda t, L, o: L.LinearLR(o, start_factor=0),
    "LinearLR start > 1": lambda t, L, o: L.LinearLR(o, start_factor=1.5),
    "LinearLR end > 1": lambda t, L, o: L.LinearLR(o, end_factor=1.5),
    "LinearLR resumed without initial_lr": lambda t, L, o: L.LinearLR(o, last_epoch=2),
    "WarmRestarts T_0 0": lambda t, L, o: L.CosineAnnealingWarmRestarts(o, 0),
    "WarmRestarts T_0 float": lambda t, L, o: L.CosineAnnealingWarmRestarts(o, 2.5),
    "WarmRestarts T_mult 0": lambda t, L, o: L.CosineAnnealingWarmRestarts(o, 2, T_mult=0),
    "WarmRestarts T_mult float": lambda t, L, o: L.CosineAnnealingWarmRestarts(o, 2, 1.5),
    "WarmRestarts eta_min": lambda t, L, o: L.CosineAnnealingWarmRestarts(o, 2, eta_min="0"),
    "WarmRestarts negative epoch": lambda t, L, o: L.CosineAnnealingWarmRestarts(o, 2).step(-1),
    "OneCycleLR no length": lambda t, L, o: L.OneCycleLR(o, 1.0),
    "OneCycleLR epochs only": lambda t, L, o: L.OneCycleLR(o, 1.0, epochs=3),
    "OneCycleLR total_steps 0": lambda t, L, o: L.OneCycleLR(o, 1.0, total_steps=0),
    "OneCycleLR total_steps float": lambda t, L, o: L.OneCycleLR(o, 1.0, total_steps=5.0),
    "OneCycleLR epochs 0": lambda t, L, o: L.OneCycleLR(o, 1.0, epochs=0, steps_per_epoch=2),
    "OneCycleLR steps_per_epoch": lambda t, L, o: L.OneCycleLR(
        o, 1.0, epochs=2, steps_per_epoch=-1
    ),
    "OneCycleLR pct_start > 1": lambda t, L, o: L.OneCycleLR(o, 1.0, 10, pct_start=1.5),
    "OneCycleLR pct_start int": lambda t, L, o: L.OneCycleLR(o, 1.0, 10, pct_start=1),
    "OneCycleLR anneal": lambda t, L, o: L.OneCycleLR(o, 1.0, 10, anneal_strategy="cosine"),
    "OneCycleLR max_lr count": lambda t, L, o: L.OneCycleLR(o, [1.0], 10),
    "OneCycleLR momentum count": lambda t, L, o: L.OneCycleLR(o, 1.0, 10, max_momentum=[0.9]),
    "OneCycleLR no momentum": lambda t, L, o: L.OneCycleLR(make_optimizer(t, "Adagrad"), 1.0, 10),
    "OneCycleLR not an optimizer": lambda t, L, o: L.OneCycleLR(None, 1.0, 10),
    "OneCycleLR past the end": lambda t, L, o: _past_the_end(L, o),
    "CyclicLR mode": lambda t, L, o: L.CyclicLR(o, 0.1, 1.0, mode="sawtooth"),
    "CyclicLR base_lr count": lambda t, L, o: L.CyclicLR(o, [0.1, 0.2, 0.3], 1.0),
    "CyclicLR max_lr count": lambda t, L, o: L.CyclicLR(o, 0.1, (1.0,)),
    "CyclicLR no momentum": lambda t, L, o: L.CyclicLR(make_optimizer(t, "Adagrad"), 0.1, 1.0),
    "CyclicLR not an optimizer": lambda t, L, o: L.CyclicLR("sgd", 0.1, 1.0),
    "Plateau factor": lambda t, L, o: L.ReduceLROnPlateau(o, factor=1.0),
    "Plateau mode": lambda t, L, o: L.ReduceLROnPlateau(o, mode="avg"),
    "Plateau threshold_mode": lambda t, L, o: L.ReduceLROnPlateau(o, threshold_mode="pct"),
    "Plateau min_lr count": lambda t, L, o: L.ReduceLROnPlateau(o, min_lr=[0.1]),
    "Plateau not an optimizer": lambda t, L, o: L.ReduceLROnPlateau(object()),
    "Plateau metric": lambda t, L, o: L.ReduceLROnPlateau(o).step("low"),
    "SequentialLR empty": lambda t, L, o: L.SequentialLR(o, [], []),
    "SequentialLR milestones": lambda t, L, o: L.SequentialLR(o, [L.StepLR(o, 2)], [3]),
    "SequentialLR other optimizer": lambda t, L, o: L.SequentialLR(
        o, [L.StepLR(o, 2), L.StepLR(_other(t), 2)], [3]
    ),
    "SequentialLR plateau": lambda t, L, o: L.SequentialLR(
        o, [L.StepLR(o, 2), L.ReduceLROnPlateau(o)], [3]
    ),
    "SequentialLR not a scheduler": lambda t, L, o: L.SequentialLR(o, [L.StepLR(o, 2), 3], [1]),
    "SequentialLR epoch": lambda t, L, o: L.SequentialLR(o, [L.StepLR(o, 2)], []).step(3),
    "ChainedScheduler empty": lambda t, L, o: L.ChainedScheduler([]),
    "ChainedScheduler plateau": lambda t, L, o: L.ChainedScheduler([L.ReduceLROnPlateau(o)]),
    "ChainedScheduler other optimizer": lambda t, L, o: L.ChainedScheduler(
        [L.StepLR(o, 2), L.StepLR(_other(t), 2)]
    ),
    "ChainedScheduler not a scheduler": lambda t, L, o: L.ChainedScheduler([L.StepLR(o, 2), 1]),
}


def snip_error(torch: ModuleType, out: Recorder, case: str) -> None:
    optimizer = make_optimizer(torch, "SGD")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with out.raises(case):
            ERRORS[case](torch, torch.optim.lr_scheduler, optimizer)


@pytest.mark.parametrize("case", list(ERRORS))
def test_errors_match_torch(case: str) -> None:
    assert_same(functools.partial(snip_error, case=case))


# ---------------------------------------------------------------- the module


def test_every_torch_scheduler_is_here(lib: ModuleType) -> None:
    module = lib.optim.lr_scheduler
    expected = set(load_lib("torch").optim.lr_scheduler.__all__)
    assert set(module.__all__) == expected
    for name in expected - {"LRScheduler"}:
        assert issubclass(getattr(module, name), module.LRScheduler), name
    assert issubclass(module._LRScheduler, module.LRScheduler)


def test_initial_lr_and_base_lrs(lib: ModuleType) -> None:
    optimizer = make_optimizer(lib, "SGD")
    L = lib.optim.lr_scheduler
    cyclic = L.CyclicLR(optimizer, base_lr=[0.01, 0.02], max_lr=0.1, step_size_up=2)
    group = optimizer.param_groups[1]
    assert cyclic.base_lrs == [0.01, 0.02] and group["lr"] == 0.02
    assert (group["momentum"], group["max_momentum"], group["base_momentum"]) == (0.9, 0.9, 0.8)
    adam = make_optimizer(lib, "Adam")
    L.OneCycleLR(adam, max_lr=1.0, total_steps=10)
    group = adam.param_groups[0]
    assert group["betas"] == (0.95, 0.999) and group["initial_lr"] == 1.0 / 25
    assert math.isclose(group["min_lr"], 1.0 / 25 / 1e4) and group["max_lr"] == 1.0
