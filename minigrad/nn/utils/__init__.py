"""nn.utils: gradient clipping, flattening parameters into one vector, parametrizations
(parametrize; weight_norm and spectral_norm in parametrizations) and pruning (prune)."""

from . import parametrizations, parametrize, prune  # issue 21
from .clip_grad import clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm
from .convert_parameters import parameters_to_vector, vector_to_parameters

__all__ = [
    "clip_grad_norm_",
    "clip_grad_value_",
    "clip_grads_with_norm_",
    "get_total_norm",
    "parameters_to_vector",
    "parametrizations",
    "parametrize",
    "prune",
    "vector_to_parameters",
]
