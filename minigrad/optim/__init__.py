"""minigrad.optim: SGD, Adam, AdamW over the Optimizer base (torch.optim)."""

from .adam import Adam, AdamW
from .optimizer import Optimizer
from .sgd import SGD

__all__ = ["SGD", "Adam", "AdamW", "Optimizer"]
