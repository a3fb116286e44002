"""Neural-network ops, one file each: conv, pooling, the losses, linear, normalization,
one-hot encoding. Heavy lifting is in kernels/."""

from .bce import binary_cross_entropy, binary_cross_entropy_with_logits
from .conv import conv2d
from .conv_transpose import conv_transpose2d
from .encoding import one_hot
from .linear import linear
from .loss import cross_entropy, mse_loss
from .nll import nll_loss
from .normalization import batch_norm
from .pooling import max_pool2d

__all__ = [
    "batch_norm",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "conv2d",
    "conv_transpose2d",
    "cross_entropy",
    "linear",
    "max_pool2d",
    "mse_loss",
    "nll_loss",
    "one_hot",
]
