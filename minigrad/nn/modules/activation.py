"""Activation modules: thin wrappers over nn.functional."""

from __future__ import annotations

from ...core.tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = ["LogSoftmax", "ReLU", "Sigmoid", "Softmax", "Tanh"]


class ReLU(Module):
    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Tanh(Module):
    def forward(self, input: Tensor) -> Tensor:
        return input.tanh()


class Sigmoid(Module):
    def forward(self, input: Tensor) -> Tensor:
        return input.sigmoid()


class _AlongDim(Module):
    """Softmax-like along `dim` (None: PyTorch's deprecated implicit choice, with its warning)."""

    _fn = staticmethod(F.softmax)  # set by each subclass

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return self._fn(input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmax(_AlongDim):
    _fn = staticmethod(F.softmax)


class LogSoftmax(_AlongDim):
    _fn = staticmethod(F.log_softmax)
