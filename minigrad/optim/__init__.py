"""minigrad.optim: SGD, Adam, AdamW, RMSprop, Adagrad, Adadelta over the Optimizer base, and the
lr_scheduler module (torch.optim)."""

from . import lr_scheduler
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = [
    "SGD",
    "Adam",
    "AdamW",
    "RMSprop",
    "Adagrad",
    "Adadelta",
    "Optimizer",
    "lr_scheduler",
]
