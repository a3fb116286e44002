"""torch.func: function transforms (grad, vjp, jvp, jacobians, hessian, vmap) and
functional_call. Reverse transforms differentiate fresh copies of their inputs (levels.py) so
they nest; forward ones use the real forward mode (autograd/forward_ad.py); vmap runs the
function once per sample."""

from .functional_call import functional_call
from .grad import grad, grad_and_value
from .jacobians import hessian, jacfwd, jacrev
from .jvp import jvp, linearize
from .vjp import vjp
from .vmap import vmap

__all__ = [
    "functional_call",
    "grad",
    "grad_and_value",
    "hessian",
    "jacfwd",
    "jacrev",
    "jvp",
    "linearize",
    "vjp",
    "vmap",
]
