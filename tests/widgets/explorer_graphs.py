"""Small graphs the widget tests draw, built the same way in minigrad and in torch."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

import minigrad
from widgets import record_forward

EVIL = "<img src=x onerror=alert(1)>"


def libraries() -> list:
    """minigrad always; torch as a pytest param that skips where torch is absent."""
    return [pytest.param("minigrad", id="minigrad"), pytest.param("torch", id="torch")]


def lib(name: str) -> ModuleType:
    if name == "torch":
        return pytest.importorskip("torch")
    return minigrad


def abc(torch: ModuleType) -> tuple[Any, Any, Any]:
    """y = (a * b + a * 2).sum(): a used twice, a constant, a sum; the tests' reference graph."""
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0], requires_grad=True)
    return a, b, (a * b + a * 2).sum()


def mlp(torch: ModuleType) -> Any:
    """Linear(3, 4) -> Tanh -> Linear(4, 1) with fixed parameters."""
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))
    with torch.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(torch.linspace(-0.5, 0.5, p.numel()).reshape(p.shape) * (i + 1))
    return model


def recorded_mlp(torch: ModuleType) -> tuple[record_forward, Any]:
    """The MLP's forward on one input, recorded with its modules; and the loss."""
    model = mlp(torch)
    x = torch.tensor([[1.0, 2.0, 3.0]])
    with record_forward(model, names={"x": x}) as fwd:
        loss = model(x).pow(2).mean()
    return fwd, loss
