"""minigrad.optim against torch.optim: the same start and gradients give the same trajectory.

Each snippet builds a small model with fixed weights in the library it is given, trains a few
steps and records parameters, state and versions; tests/parity.py compares with torch (1e-5).
"""

from __future__ import annotations

import functools
from types import ModuleType
from typing import Any

import pytest
import test_nn
from parity import Recorder, assert_same
from test_nn import fill_fixed, fixed

pytest.importorskip("torch")

lib = test_nn.lib  # the fixture that runs a test once on torch and once on minigrad


def small_model(torch: ModuleType) -> Any:
    return fill_fixed(
        torch, torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
    )


def train(torch: ModuleType, out: Recorder, optimizer: Any, model: Any, steps: int) -> None:
    data = fixed(torch, 5, 3, scale=2.0)
    for step in range(steps):
        optimizer.zero_grad()
        loss = (model(data) ** 2).mean()
        loss.backward()
        optimizer.step()
        out(f"loss {step}", loss)
    out("parameters", list(model.parameters()))
    out("versions", [p._version for p in model.parameters()])


SGD_OPTIONS = {
    "plain": {"lr": 0.1},
    "momentum": {"lr": 0.1, "momentum": 0.9},
    "dampening": {"lr": 0.1, "momentum": 0.9, "dampening": 0.5},
    "nesterov": {"lr": 0.05, "momentum": 0.8, "nesterov": True},
    "weight decay": {"lr": 0.1, "momentum": 0.5, "weight_decay": 0.1},
    "maximize": {"lr": 0.01, "momentum": 0.9, "maximize": True},
}
ADAM_OPTIONS = {
    "default": {},
    "lr": {"lr": 0.1},
    "betas": {"lr": 0.05, "betas": (0.5, 0.9)},
    "low beta1": {"lr": 0.05, "betas": (0.3, 0.99)},
    "weight decay": {"lr": 0.05, "weight_decay": 0.1},
    "amsgrad": {"lr": 0.1, "amsgrad": True},
    "maximize": {"lr": 0.01, "maximize": True, "eps": 1e-3},
}


def snip_trajectory(torch: ModuleType, out: Recorder, name: str, options: dict) -> None:
    model = small_model(torch)
    optimizer = getattr(torch.optim, name)(model.parameters(), **options)
    train(torch, out, optimizer, model, steps=4)
    out("state keys", [sorted(s) for s in optimizer.state_dict()["state"].values()])
    out("state", [[s[k] for k in sorted(s)] for s in optimizer.state_dict()["state"].values()])


@pytest.mark.parametrize("options", list(SGD_OPTIONS))
def test_sgd_matches_torch(options: str) -> None:
    assert_same(functools.partial(snip_trajectory, name="SGD", options=SGD_OPTIONS[options]))


@pytest.mark.parametrize("options", list(ADAM_OPTIONS))
@pytest.mark.parametrize("name", ["Adam", "AdamW"])
def test_adam_matches_torch(name: str, options: str) -> None:
    assert_same(functools.partial(snip_trajectory, name=name, options=ADAM_OPTIONS[options]))


def snip_groups(torch: ModuleType, out: Recorder) -> None:
    model = small_model(torch)
    optimizer = torch.optim.SGD(
        [
            {"params": model[0].parameters()},
            {"params": model[2].parameters(), "lr": 0.5, "momentum": 0.9},
        ],
        lr=0.1,
    )
    out(
        "group options",
        [(g["lr"], g["momentum"], len(g["params"])) for g in optimizer.param_groups],
    )
    train(torch, out, optimizer, model, steps=2)
    out("repr", repr(optimizer))


def test_param_groups_have_their_own_options() -> None:
    assert_same(snip_groups)


def snip_params_without_grad(torch: ModuleType, out: Recorder) -> None:
    used = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
    unused = torch.nn.Parameter(torch.tensor([3.0]))
    optimizer = torch.optim.SGD([used, unused], lr=0.1, momentum=0.9)
    (used**2).sum().backward()
    optimizer.step()
    out("values", (used, unused, unused._version))
    out("state only for the used one", list(optimizer.state_dict()["state"]))
    optimizer.zero_grad(set_to_none=False)
    out("zeroed, not dropped", (used.grad, unused.grad))
    optimizer.zero_grad()
    out("dropped", used.grad)


def test_parameters_without_grad_are_skipped() -> None:
    assert_same(snip_params_without_grad)


def snip_closure(torch: ModuleType, out: Recorder) -> None:
    w = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
    optimizer = torch.optim.SGD([w], lr=0.1)

    def closure() -> Any:
        optimizer.zero_grad()
        loss = (w**2).sum()
        loss.backward()
        out("grad enabled in closure", torch.is_grad_enabled())
        return loss

    with torch.no_grad():
        out("returned loss", optimizer.step(closure))
    out("w", w)


def test_step_with_closure() -> None:
    assert_same(snip_closure)


def snip_resume(torch: ModuleType, out: Recorder, name: str) -> None:
    model = small_model(torch)
    make = getattr(torch.optim, name)
    optimizer = make(model.parameters(), lr=0.05)
    train(torch, out, optimizer, model, steps=2)
    saved = optimizer.state_dict()
    out("saved param_groups", [sorted(g.items()) for g in saved["param_groups"]])
    resumed = make(model.parameters(), lr=0.5)  # options come back from the state dict
    resumed.load_state_dict(saved)
    out("lr restored", resumed.param_groups[0]["lr"])
    train(torch, out, resumed, model, steps=2)


@pytest.mark.parametrize("name", ["SGD", "Adam"])
def test_state_dict_round_trip_resumes_training(name: str) -> None:
    assert_same(functools.partial(snip_resume, name=name))


OPTIMIZER_ERRORS = {
    "empty list": lambda t, p: t.optim.SGD([], lr=0.1),
    "negative lr": lambda t, p: t.optim.SGD([p], lr=-1),
    "single tensor": lambda t, p: t.optim.SGD(p, lr=1),
    "negative momentum": lambda t, p: t.optim.SGD([p], lr=1, momentum=-1),
    "negative weight decay": lambda t, p: t.optim.SGD([p], lr=1, weight_decay=-1),
    "nesterov without momentum": lambda t, p: t.optim.SGD([p], lr=1, nesterov=True),
    "non-leaf": lambda t, p: t.optim.SGD([p * 2], lr=1),
    "not a tensor": lambda t, p: t.optim.SGD([1.0], lr=1),
    "a set": lambda t, p: t.optim.SGD({p}, lr=1),
    "overlapping groups": lambda t, p: t.optim.SGD([{"params": [p]}, {"params": [p]}], lr=1),
    "adam beta": lambda t, p: t.optim.Adam([p], betas=(1.0, 0.9)),
    "adam beta2": lambda t, p: t.optim.Adam([p], betas=(0.9, -0.1)),
    "adam integer betas": lambda t, p: t.optim.Adam([p], betas=(0, 0.9)),
    "adam eps": lambda t, p: t.optim.Adam([p], eps=-1),
    "adam lr": lambda t, p: t.optim.Adam([p], lr=-0.5),
    "load other group count": lambda t, p: t.optim.SGD([p], lr=1).load_state_dict(
        {"state": {}, "param_groups": []}
    ),
    "load other group size": lambda t, p: t.optim.SGD([p], lr=1).load_state_dict(
        {"state": {}, "param_groups": [{"params": [0, 1]}]}
    ),
}


def snip_error(torch: ModuleType, out: Recorder, case: str) -> None:
    p = torch.nn.Parameter(torch.ones(2))
    with out.raises(case):
        OPTIMIZER_ERRORS[case](torch, p)


@pytest.mark.parametrize("case", list(OPTIMIZER_ERRORS))
def test_errors_match_torch(case: str) -> None:
    assert_same(functools.partial(snip_error, case=case))


def test_duplicate_parameters_warn(lib: ModuleType) -> None:
    p = lib.nn.Parameter(lib.ones(1))
    with pytest.warns(UserWarning, match="parameter group with duplicate parameters"):
        lib.optim.SGD([p, p], lr=1)


def test_defaults_and_reprs(lib: ModuleType) -> None:
    p = lib.nn.Parameter(lib.ones(2))
    sgd = lib.optim.SGD([p])
    assert sgd.defaults["lr"] == 1e-3 and sgd.param_groups[0]["params"] == [p]
    assert repr(sgd).startswith("SGD (\nParameter Group 0\n    dampening: 0\n")
    adam = lib.optim.Adam([p])
    assert "    betas: (0.9, 0.999)\n" in repr(adam)
    assert lib.optim.AdamW([p]).defaults["weight_decay"] == 0.01


def test_add_param_group_fills_defaults(lib: ModuleType) -> None:
    a, b = lib.nn.Parameter(lib.ones(1)), lib.nn.Parameter(lib.ones(1))
    optimizer = lib.optim.SGD([a], lr=0.1, momentum=0.9)
    optimizer.add_param_group({"params": b, "lr": 0.01})
    assert optimizer.param_groups[1]["params"] == [b]
    assert optimizer.param_groups[1]["lr"] == 0.01
    assert optimizer.param_groups[1]["momentum"] == 0.9


def test_named_parameters_are_accepted(lib: ModuleType) -> None:
    model = lib.nn.Linear(2, 1)
    optimizer = lib.optim.SGD(model.named_parameters(), lr=0.1)
    assert optimizer.param_groups[0]["param_names"] == ["weight", "bias"]
    assert optimizer.param_groups[0]["params"] == [model.weight, model.bias]


def test_step_is_in_place_and_leaves_no_graph(lib: ModuleType) -> None:
    model = lib.nn.Linear(2, 1)
    weight = model.weight
    optimizer = lib.optim.Adam(model.parameters(), lr=0.1)
    model(lib.ones(1, 2)).sum().backward()
    optimizer.step()
    assert model.weight is weight and weight.is_leaf and weight.grad_fn is None
    exp_avg = optimizer.state[weight]["exp_avg"]
    assert not exp_avg.requires_grad and optimizer.state[weight]["step"].item() == 1.0
