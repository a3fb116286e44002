"""torch.optim.lr_scheduler: every PyTorch 2.13 learning-rate scheduler.

The base class and shared helpers live in lr_base.py; the schedulers by family in lr_decay.py,
lr_cosine.py, lr_cyclic.py, lr_plateau.py and lr_combined.py. This module gathers them under
PyTorch's module name.
"""

from __future__ import annotations

# EPOCH_DEPRECATION_WARNING and the old base name _LRScheduler stay importable from here
from .lr_base import EPOCH_DEPRECATION_WARNING, LRScheduler, _LRScheduler  # noqa: F401
from .lr_combined import ChainedScheduler, SequentialLR
from .lr_cosine import CosineAnnealingLR, CosineAnnealingWarmRestarts
from .lr_cyclic import CyclicLR, OneCycleLR
from .lr_decay import (
    ConstantLR,
    ExponentialLR,
    LambdaLR,
    LinearLR,
    MultiplicativeLR,
    MultiStepLR,
    PolynomialLR,
    StepLR,
)
from .lr_plateau import ReduceLROnPlateau

__all__ = [
    "LambdaLR",
    "MultiplicativeLR",
    "StepLR",
    "MultiStepLR",
    "ConstantLR",
    "LinearLR",
    "ExponentialLR",
    "SequentialLR",
    "CosineAnnealingLR",
    "ChainedScheduler",
    "ReduceLROnPlateau",
    "CyclicLR",
    "CosineAnnealingWarmRestarts",
    "OneCycleLR",
    "PolynomialLR",
    "LRScheduler",
]
