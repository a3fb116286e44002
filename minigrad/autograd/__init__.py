"""minigrad.autograd: the engine and its public API, named as in torch.autograd.

The floor below (minigrad/core) says what tensors and nodes are; this package runs them
backward. `Tensor.backward` needs the engine, so it is attached here.
"""

import warnings

from ..core import observe
from ..core.anomaly import detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from ..core.grad_mode import enable_grad, inference_mode, no_grad, set_grad_enabled
from ..core.observe import record_steps
from ..core.tensor import Tensor
from . import forward_ad, functional, graph
from .api import backward, grad, tensor_backward
from .function import Function, FunctionCtx, once_differentiable
from .gradcheck import gradcheck, gradgradcheck

Tensor.backward = tensor_backward


def Variable(data, requires_grad: bool = False, volatile: bool = False):  # noqa: N802
    """Deprecated alias kept for old code: returns a plain Tensor, as PyTorch does."""
    if volatile:
        warnings.warn(
            "volatile was removed (Variable.volatile is always False)", UserWarning, stacklevel=2
        )
    t = data if isinstance(data, Tensor) else Tensor(data)
    if requires_grad:
        t.requires_grad_(True)
    return t


__all__ = [
    "Function",
    "FunctionCtx",
    "Variable",
    "backward",
    "detect_anomaly",
    "enable_grad",
    "forward_ad",
    "functional",
    "grad",
    "gradcheck",
    "gradgradcheck",
    "graph",
    "inference_mode",
    "is_anomaly_enabled",
    "no_grad",
    "observe",
    "once_differentiable",
    "record_steps",
    "set_detect_anomaly",
    "set_grad_enabled",
]
