"""torch.distributions: the distributions course code samples from and scores with."""

# ruff: noqa: F401 - this module re-exports the public names

from . import constraints, kl
from .bernoulli import Bernoulli
from .categorical import Categorical
from .distribution import Distribution
from .kl import kl_divergence, register_kl
from .multinomial import Multinomial
from .normal import Normal
from .uniform import Uniform

__all__ = [
    "Bernoulli",
    "Categorical",
    "Distribution",
    "Multinomial",
    "Normal",
    "Uniform",
    "constraints",
    "kl_divergence",
    "register_kl",
]
