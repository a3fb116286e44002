"""RMSprop, Adagrad and the lr schedulers (StepLR, ExponentialLR) against torch.optim.

Snippets run on torch and on minigrad (tests/parity.py, 1e-5): the same fixed weights and data
give the same losses, parameters, versions and optimizer state step after step, the same
learning rates epoch after epoch, the same warnings and the same errors.
"""

from __future__ import annotations

import functools
import warnings
from types import ModuleType
from typing import Any

import pytest
import test_nn
from parity import Recorder, assert_same
from test_nn import fixed
from test_optim import small_model

pytest.importorskip("torch")

lib = test_nn.lib  # the fixture that runs a test once on torch and once on minigrad

RMSPROP_OPTIONS = {
    "default": {},
    "lr": {"lr": 0.05},
    "alpha": {"lr": 0.02, "alpha": 0.5},
    "eps": {"lr": 0.02, "eps": 1e-2},
    "weight decay": {"lr": 0.02, "weight_decay": 0.1},
    "momentum": {"lr": 0.02, "momentum": 0.9},
    "centered": {"lr": 0.02, "centered": True},
    "centered momentum": {"lr": 0.02, "centered": True, "momentum": 0.5},
    "centered momentum weight decay": {
        "lr": 0.02,
        "alpha": 0.9,
        "centered": True,
        "momentum": 0.5,
        "weight_decay": 0.1,
    },
    "maximize": {"lr": 0.01, "momentum": 0.9, "maximize": True},
}
ADAGRAD_OPTIONS = {
    "default": {},
    "lr": {"lr": 0.3},
    "lr decay": {"lr": 0.3, "lr_decay": 0.5},
    "weight decay": {"lr": 0.1, "weight_decay": 0.2},
    "initial accumulator": {"lr": 0.1, "initial_accumulator_value": 0.5},
    "eps": {"lr": 0.1, "eps": 1e-2},
    "everything": {
        "lr": 0.2,
        "lr_decay": 0.1,
        "weight_decay": 0.1,
        "initial_accumulator_value": 0.2,
        "eps": 1e-6,
    },
    "maximize": {"lr": 0.01, "maximize": True},
}
OPTIONS = {"RMSprop": RMSPROP_OPTIONS, "Adagrad": ADAGRAD_OPTIONS}
CASES = [(name, case) for name, options in OPTIONS.items() for case in options]


def train(
    torch: ModuleType, out: Recorder, optimizer: Any, model: Any, steps: int, dtype: Any = None
) -> None:
    """test_optim's loop: losses each step, then parameters and their versions."""
    data = fixed(torch, 5, 3, scale=2.0, dtype=dtype)
    for step in range(steps):
        optimizer.zero_grad()
        loss = (model(data) ** 2).mean()
        loss.backward()
        optimizer.step()
        out(f"loss {step}", loss)
    out("parameters", list(model.parameters()))
    out("versions", [p._version for p in model.parameters()])


def record_state(out: Recorder, optimizer: Any) -> None:
    state = optimizer.state_dict()["state"]
    out("state keys", [(i, sorted(s)) for i, s in state.items()])
    out("state", [[s[k] for k in sorted(s)] for s in state.values()])


def snip_trajectory(torch: ModuleType, out: Recorder, name: str, case: str, dtype: str) -> None:
    model = small_model(torch).to(getattr(torch, dtype))
    optimizer = getattr(torch.optim, name)(model.parameters(), **OPTIONS[name][case])
    record_state(out, optimizer)  # Adagrad's exists before the first step
    train(torch, out, optimizer, model, steps=6, dtype=getattr(torch, dtype))
    record_state(out, optimizer)


@pytest.mark.parametrize(("name", "case"), CASES)
def test_trajectory_matches_torch(name: str, case: str) -> None:
    assert_same(functools.partial(snip_trajectory, name=name, case=case, dtype="float32"))


@pytest.mark.parametrize("name", list(OPTIONS))
def test_float64_trajectory_matches_torch(name: str) -> None:
    case = "centered momentum weight decay" if name == "RMSprop" else "everything"
    assert_same(functools.partial(snip_trajectory, name=name, case=case, dtype="float64"))


def snip_groups(torch: ModuleType, out: Recorder, name: str) -> None:
    model = small_model(torch)
    second = (
        {"lr": 0.05, "momentum": 0.9, "centered": True}
        if name == "RMSprop"
        else {"lr": 0.5, "lr_decay": 0.2, "initial_accumulator_value": 1.0}
    )
    optimizer = getattr(torch.optim, name)(
        [{"params": model[0].parameters()}, {"params": model[2].parameters(), **second}], lr=0.01
    )
    out(
        "groups",
        [sorted((k, v) for k, v in g.items() if k != "params") for g in optimizer.param_groups],
    )
    train(torch, out, optimizer, model, steps=3)
    record_state(out, optimizer)
    out("repr", repr(optimizer))


@pytest.mark.parametrize("name", list(OPTIONS))
def test_param_groups_have_their_own_options(name: str) -> None:
    assert_same(functools.partial(snip_groups, name=name))


def snip_without_grad(torch: ModuleType, out: Recorder, name: str) -> None:
    used = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
    unused = torch.nn.Parameter(torch.tensor([3.0]))
    optimizer = getattr(torch.optim, name)([used, unused], lr=0.1)
    for _ in range(2):
        optimizer.zero_grad()
        (used**2).sum().backward()
        optimizer.step()
    out("values and versions", (used, unused, used._version, unused._version))
    record_state(out, optimizer)


@pytest.mark.parametrize("name", list(OPTIONS))
def test_parameters_without_grad_are_skipped(name: str) -> None:
    assert_same(functools.partial(snip_without_grad, name=name))


def snip_adagrad_added_group(torch: ModuleType, out: Recorder) -> None:
    a = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
    b = torch.nn.Parameter(torch.tensor([-1.0]))
    optimizer = torch.optim.Adagrad([a], lr=0.1, initial_accumulator_value=0.5)
    # a later group's state starts from the constructor's value, not the group's own
    optimizer.add_param_group({"params": [b], "initial_accumulator_value": 3.0})
    record_state(out, optimizer)
    ((a * b).sum() + (b**2).sum()).backward()
    optimizer.step()
    out("values", (a, b))
    record_state(out, optimizer)


def test_adagrad_state_of_an_added_group() -> None:
    assert_same(snip_adagrad_added_group)


def snip_tensor_lr(torch: ModuleType, out: Recorder, name: str) -> None:
    w = torch.nn.Parameter(torch.tensor([1.0, -2.0, 0.5]))
    optimizer = getattr(torch.optim, name)([w], lr=torch.tensor(0.05))
    for _ in range(3):
        optimizer.zero_grad()
        (w**3).sum().backward()
        optimizer.step()
    out("w", w)


@pytest.mark.parametrize("name", list(OPTIONS))
def test_tensor_lr(name: str) -> None:
    assert_same(functools.partial(snip_tensor_lr, name=name))


def snip_resume(torch: ModuleType, out: Recorder, name: str) -> None:
    model = small_model(torch)
    make = getattr(torch.optim, name)
    options = {"RMSprop": {"momentum": 0.5, "centered": True}, "Adagrad": {"lr_decay": 0.1}}[name]
    optimizer = make(model.parameters(), lr=0.05, **options)
    train(torch, out, optimizer, model, steps=2)
    saved = optimizer.state_dict()
    out("saved param_groups", [sorted(g.items()) for g in saved["param_groups"]])
    resumed = make(model.parameters(), lr=0.5)  # options come back from the state dict
    resumed.load_state_dict(saved)
    out("options restored", sorted(resumed.param_groups[0].items())[1:])
    record_state(out, resumed)
    train(torch, out, resumed, model, steps=2)
    record_state(out, resumed)


@pytest.mark.parametrize("name", list(OPTIONS))
def test_state_dict_round_trip_resumes_training(name: str) -> None:
    assert_same(functools.partial(snip_resume, name=name))


def snip_closure(torch: ModuleType, out: Recorder, name: str) -> None:
    w = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
    optimizer = getattr(torch.optim, name)([w], lr=0.1)

    def closure() -> Any:
        optimizer.zero_grad()
        loss = (w**2).sum()
        loss.backward()
        out("grad enabled in closure", torch.is_grad_enabled())
        return loss

    with torch.no_grad():
        out("returned loss", optimizer.step(closure))
    out("w", (w, w.is_leaf, w.grad_fn is None))


@pytest.mark.parametrize("name", list(OPTIONS))
def test_step_with_closure(name: str) -> None:
    assert_same(functools.partial(snip_closure, name=name))


def snip_defaults(torch: ModuleType, out: Recorder, name: str) -> None:
    p = torch.nn.Parameter(torch.ones(2))
    optimizer = getattr(torch.optim, name)([p])
    out("defaults", sorted(optimizer.defaults.items()))
    out("repr", repr(optimizer))


@pytest.mark.parametrize("name", list(OPTIONS))
def test_defaults_and_repr(name: str) -> None:
    assert_same(functools.partial(snip_defaults, name=name))


def _step(optimizer: Any, p: Any) -> None:
    p.grad = p.detach() * 2
    optimizer.step()


OPTIMIZER_ERRORS = {
    "rmsprop lr": lambda t, p: t.optim.RMSprop([p], lr=-0.1),
    "rmsprop eps": lambda t, p: t.optim.RMSprop([p], eps=-1e-8),
    "rmsprop momentum": lambda t, p: t.optim.RMSprop([p], momentum=-0.5),
    "rmsprop weight decay": lambda t, p: t.optim.RMSprop([p], weight_decay=-1),
    "rmsprop alpha": lambda t, p: t.optim.RMSprop([p], alpha=-0.9),
    "rmsprop nan lr": lambda t, p: t.optim.RMSprop([p], lr=float("nan")),
    "rmsprop tensor lr": lambda t, p: t.optim.RMSprop([p], lr=t.tensor([0.1, 0.2])),
    "rmsprop empty": lambda t, p: t.optim.RMSprop([]),
    "rmsprop single tensor": lambda t, p: t.optim.RMSprop(p),
    "rmsprop capturable on the CPU": lambda t, p: _step(t.optim.RMSprop([p], capturable=True), p),
    "adagrad lr": lambda t, p: t.optim.Adagrad([p], lr=-0.1),
    "adagrad lr decay": lambda t, p: t.optim.Adagrad([p], lr_decay=-0.1),
    "adagrad weight decay": lambda t, p: t.optim.Adagrad([p], weight_decay=-0.1),
    "adagrad initial accumulator": lambda t, p: t.optim.Adagrad([p], initial_accumulator_value=-1),
    "adagrad eps": lambda t, p: t.optim.Adagrad([p], eps=-1.0),
    "adagrad tensor lr": lambda t, p: t.optim.Adagrad([p], lr=t.ones(2)),
    "adagrad fused differentiable": lambda t, p: t.optim.Adagrad(
        [p], fused=True, differentiable=True
    ),
    "adagrad fused foreach": lambda t, p: t.optim.Adagrad([p], fused=True, foreach=True),
    "adagrad foreach keyword only": lambda t, p: t.optim.Adagrad(
        [p], 0.1, 0, 0, 0, 1e-10, None, False
    ),
    "adagrad non-leaf": lambda t, p: t.optim.Adagrad([p * 2]),
}


def snip_error(torch: ModuleType, out: Recorder, case: str) -> None:
    p = torch.nn.Parameter(torch.ones(2))
    with out.raises(case):
        OPTIMIZER_ERRORS[case](torch, p)


@pytest.mark.parametrize("case", list(OPTIMIZER_ERRORS))
def test_errors_match_torch(case: str) -> None:
    assert_same(functools.partial(snip_error, case=case))


# ---------------------------------------------------------------- lr_scheduler

SCHEDULERS = {
    "StepLR every 3": ("StepLR", {"step_size": 3, "gamma": 0.5}),
    "StepLR every epoch": ("StepLR", {"step_size": 1}),
    "ExponentialLR": ("ExponentialLR", {"gamma": 0.9}),
}


def two_group_sgd(torch: ModuleType) -> tuple[Any, Any]:
    model = small_model(torch)
    optimizer = torch.optim.SGD(
        [{"params": model[0].parameters()}, {"params": model[2].parameters(), "lr": 0.5}],
        lr=0.1,
        momentum=0.9,
    )
    return model, optimizer


def sgd_step(torch: ModuleType, model: Any, optimizer: Any) -> Any:
    optimizer.zero_grad()
    loss = (model(fixed(torch, 5, 3, scale=2.0)) ** 2).mean()
    loss.backward()
    optimizer.step()
    return loss


def snip_schedule(torch: ModuleType, out: Recorder, case: str) -> None:
    name, options = SCHEDULERS[case]
    model, optimizer = two_group_sgd(torch)
    scheduler = getattr(torch.optim.lr_scheduler, name)(optimizer, **options)
    out("after construction", (scheduler.last_epoch, scheduler.get_last_lr(), scheduler.base_lrs))
    out("initial_lr", [g["initial_lr"] for g in optimizer.param_groups])
    with out.warns("the tutorial order warns nothing"):
        for epoch in range(10):
            loss = sgd_step(torch, model, optimizer)
            scheduler.step()
            out(f"epoch {epoch}", (loss, scheduler.last_epoch, scheduler.get_last_lr()))
            out(f"group lrs {epoch}", [g["lr"] for g in optimizer.param_groups])
    out("parameters", list(model.parameters()))
    out("state_dict", list(scheduler.state_dict().items()))


@pytest.mark.parametrize("case", list(SCHEDULERS))
def test_schedule_matches_torch(case: str) -> None:
    assert_same(functools.partial(snip_schedule, case=case))


def snip_step_before_optimizer(torch: ModuleType, out: Recorder, case: str) -> None:
    name, options = SCHEDULERS[case]
    model, optimizer = two_group_sgd(torch)
    scheduler = getattr(torch.optim.lr_scheduler, name)(optimizer, **options)
    with out.warns("scheduler.step() first"):
        scheduler.step()
    with out.warns("only once"):
        scheduler.step()
        sgd_step(torch, model, optimizer)
        scheduler.step()
    out("lrs", scheduler.get_last_lr())


@pytest.mark.parametrize("case", list(SCHEDULERS))
def test_step_before_optimizer_step_warns(case: str) -> None:
    assert_same(functools.partial(snip_step_before_optimizer, case=case))


def snip_overridden_step(torch: ModuleType, out: Recorder) -> None:
    model, optimizer = two_group_sgd(torch)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2)
    optimizer.step = lambda closure=None: None  # replaced after the scheduler wrapped it
    with out.warns("overridden"):
        scheduler.step()


def test_overridden_optimizer_step_warns() -> None:
    assert_same(snip_overridden_step)


def snip_get_lr_and_epoch(torch: ModuleType, out: Recorder, case: str) -> None:
    name, options = SCHEDULERS[case]
    model, optimizer = two_group_sgd(torch)
    scheduler = getattr(torch.optim.lr_scheduler, name)(optimizer, **options)
    sgd_step(torch, model, optimizer)
    with out.warns("get_lr outside step"):
        out("get_lr", scheduler.get_lr())
    with out.warns("an epoch argument is deprecated"):
        scheduler.step(7)  # closed form from base_lrs
    out("closed form", (scheduler.last_epoch, scheduler.get_last_lr()))
    scheduler.step()
    out("and on from there", (scheduler.last_epoch, scheduler.get_last_lr()))


@pytest.mark.parametrize("case", list(SCHEDULERS))
def test_get_lr_and_step_with_epoch(case: str) -> None:
    assert_same(functools.partial(snip_get_lr_and_epoch, case=case))


def snip_scheduler_resume(torch: ModuleType, out: Recorder, case: str) -> None:
    name, options = SCHEDULERS[case]
    make = getattr(torch.optim.lr_scheduler, name)
    model, optimizer = two_group_sgd(torch)
    scheduler = make(optimizer, **options)
    for _ in range(4):
        sgd_step(torch, model, optimizer)
        scheduler.step()
    saved_optimizer, saved = optimizer.state_dict(), scheduler.state_dict()
    # resume: a new optimizer and scheduler, then the saved states
    _, optimizer2 = two_group_sgd(torch)
    scheduler2 = make(optimizer2, **options)
    optimizer2.load_state_dict(saved_optimizer)
    scheduler2.load_state_dict(saved)
    out("resumed", (scheduler2.last_epoch, scheduler2.get_last_lr()))
    for epoch in range(4):
        sgd_step(torch, model, optimizer2)
        scheduler2.step()
        out(f"epoch {epoch}", (scheduler2.last_epoch, scheduler2.get_last_lr()))
    # the older way: last_epoch given to the constructor, after loading the optimizer
    _, optimizer3 = two_group_sgd(torch)
    optimizer3.load_state_dict(saved_optimizer)
    scheduler3 = make(optimizer3, last_epoch=3, **options)
    out("from last_epoch", (scheduler3.last_epoch, scheduler3.get_last_lr()))


@pytest.mark.parametrize("case", list(SCHEDULERS))
def test_scheduler_state_dict_resumes(case: str) -> None:
    assert_same(functools.partial(snip_scheduler_resume, case=case))


def snip_scheduler_with_other_optimizers(torch: ModuleType, out: Recorder, name: str) -> None:
    model = small_model(torch)
    optimizer = getattr(torch.optim, name)(model.parameters(), lr=0.05)
    scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.8)
    for epoch in range(5):
        loss = sgd_step(torch, model, optimizer)
        scheduler.step()
        out(f"epoch {epoch}", (loss, scheduler.get_last_lr()))
    out("parameters", list(model.parameters()))


@pytest.mark.parametrize("name", ["RMSprop", "Adagrad", "Adam"])
def test_scheduler_drives_any_optimizer(name: str) -> None:
    assert_same(functools.partial(snip_scheduler_with_other_optimizers, name=name))


SCHEDULER_ERRORS = {
    "not an optimizer": lambda t, opt: t.optim.lr_scheduler.StepLR(object(), step_size=2),
    "last_epoch without initial_lr": lambda t, opt: t.optim.lr_scheduler.ExponentialLR(
        opt, gamma=0.5, last_epoch=3
    ),
    "step_size 0": lambda t, opt: t.optim.lr_scheduler.StepLR(opt, step_size=0).step(),
    "missing gamma": lambda t, opt: t.optim.lr_scheduler.ExponentialLR(opt),
}


def snip_scheduler_error(torch: ModuleType, out: Recorder, case: str) -> None:
    optimizer = torch.optim.SGD([torch.nn.Parameter(torch.ones(2))], lr=0.1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with out.raises(case):
            SCHEDULER_ERRORS[case](torch, optimizer)


@pytest.mark.parametrize("case", list(SCHEDULER_ERRORS))
def test_scheduler_errors_match_torch(case: str) -> None:
    assert_same(functools.partial(snip_scheduler_error, case=case))


def test_lr_scheduler_is_a_module_and_an_attribute(lib: ModuleType) -> None:
    import importlib

    module = importlib.import_module(lib.__name__ + ".optim.lr_scheduler")
    assert lib.optim.lr_scheduler is module
    assert {"LRScheduler", "StepLR", "ExponentialLR"} <= set(module.__all__)
    assert issubclass(module.StepLR, module.LRScheduler)
    assert issubclass(module.ExponentialLR, module.LRScheduler)


def test_from_import_of_the_scheduler() -> None:
    import minigrad
    from minigrad.optim.lr_scheduler import ExponentialLR, StepLR

    p = minigrad.nn.Parameter(minigrad.ones(1))
    optimizer = minigrad.optim.SGD([p], lr=1.0)
    assert StepLR(optimizer, step_size=2).get_last_lr() == [1.0]
    assert isinstance(ExponentialLR(optimizer, 0.5), minigrad.optim.lr_scheduler.LRScheduler)


def test_optimizer_step_is_wrapped_once(lib: ModuleType) -> None:
    p = lib.nn.Parameter(lib.ones(1))
    optimizer = lib.optim.SGD([p], lr=1.0)
    lib.optim.lr_scheduler.StepLR(optimizer, step_size=2)
    wrapped = optimizer.step
    lib.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.5)
    assert optimizer.step is wrapped and wrapped._wrapped_by_lr_sched
    assert not hasattr(optimizer, "_opt_called")
    p.grad = lib.ones(1)
    optimizer.step()
    assert optimizer._opt_called and p.tolist() == [0.0]
