"""minigrad.autograd: the engine and its public API, named as in torch.autograd."""

from . import functional, graph, observe
from .anomaly import detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from .api import backward, grad
from .function import Function, FunctionCtx, once_differentiable
from .grad_mode import enable_grad, inference_mode, no_grad, set_grad_enabled
from .gradcheck import gradcheck, gradgradcheck
from .observe import record_steps


def Variable(data, requires_grad: bool = False, volatile: bool = False):  # noqa: N802
    """Deprecated alias kept for old code: returns a plain Tensor, as PyTorch does."""
    import warnings

    from ..tensor import Tensor

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
