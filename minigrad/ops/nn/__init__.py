"""Neural-network ops, one file each: conv, pooling (max, average, adaptive, 1d), the losses,
linear, normalization (batch, layer, group), one-hot encoding, embedding, padding and the
activations. Heavy lifting is in kernels/."""

from .activations import (
    elu,
    elu_result,
    gelu,
    hardsigmoid,
    hardswish,
    hardtanh,
    leaky_relu,
    leaky_relu_result,
    logsigmoid,
    mish,
    silu,
    softplus,
)
from .adaptive_max_pool import adaptive_max_pool2d
from .avg_pool import adaptive_avg_pool2d, avg_pool2d
from .bce import binary_cross_entropy, binary_cross_entropy_with_logits
from .conv import conv2d
from .conv_transpose import conv_transpose2d
from .embedding import embedding, embedding_renorm_
from .encoding import one_hot
from .group_norm import group_norm
from .layer_norm import layer_norm
from .linear import linear
from .loss import cross_entropy, mse_loss
from .nll import nll_loss
from .normalization import batch_norm
from .pad import pad
from .pool1d import avg_pool1d, max_pool1d
from .pooling import max_pool2d

__all__ = [
    "adaptive_avg_pool2d",
    "adaptive_max_pool2d",
    "avg_pool1d",
    "avg_pool2d",
    "batch_norm",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "conv2d",
    "conv_transpose2d",
    "cross_entropy",
    "elu",
    "elu_result",
    "embedding",
    "embedding_renorm_",
    "gelu",
    "group_norm",
    "hardsigmoid",
    "hardswish",
    "hardtanh",
    "layer_norm",
    "leaky_relu",
    "leaky_relu_result",
    "linear",
    "logsigmoid",
    "max_pool1d",
    "max_pool2d",
    "mish",
    "mse_loss",
    "nll_loss",
    "one_hot",
    "pad",
    "silu",
    "softplus",
]

# --- nn pieces the courses use: conv1d, attention, normalize, cosine_similarity ------
from .attention import scaled_dot_product_attention
from .conv1d import conv1d
from .unit_vectors import cosine_similarity, normalize

__all__ += ["conv1d", "cosine_similarity", "normalize", "scaled_dot_product_attention"]
