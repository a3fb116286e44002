"""gradcheck / gradgradcheck: compare autograd's Jacobian with central finite differences."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from ..core import grad_mode
from ..core.tensor import Tensor
from .api import grad as autograd_grad


class GradcheckError(RuntimeError):
    pass


def _tuple(x: Any) -> tuple:
    return (x,) if isinstance(x, Tensor) else tuple(x)


def _outputs(fn: Callable, inputs: tuple) -> tuple:
    return tuple(o for o in _tuple(fn(*inputs)) if isinstance(o, Tensor))


def _numerical(fn: Callable, inputs: tuple, i: int, eps: float) -> list[np.ndarray]:
    """d(each output)/d(inputs[i]) by central differences, one column per input element."""
    x = inputs[i]
    flat = x._data.reshape(-1)
    outs = _outputs(fn, inputs)
    jac = [np.zeros((x._data.size, o._data.size)) for o in outs]
    # Grad stays on: gradgradcheck's function differentiates inside itself.
    for k in range(flat.size):
        orig = flat[k].item()
        flat[k] = orig + eps
        plus = [o._data.astype(np.float64).ravel() for o in _outputs(fn, inputs)]
        flat[k] = orig - eps
        minus = [o._data.astype(np.float64).ravel() for o in _outputs(fn, inputs)]
        flat[k] = orig
        for j, (p, m) in enumerate(zip(plus, minus)):
            jac[j][k] = (p - m) / (2 * eps)
    return jac


def _analytical(outs: tuple, inputs: tuple, wrt: list[int]) -> dict[int, list[np.ndarray]]:
    """{input index: [d output / d input, one per output]}: one backward pass per output
    element serves every input that requires grad, as PyTorch's vjp-based check does."""
    xs = [inputs[i] for i in wrt]
    jac = {i: [np.zeros((inputs[i]._data.size, o._data.size)) for o in outs] for i in wrt}
    for j, o in enumerate(outs):
        if not o.requires_grad:
            continue
        for k in range(o._data.size):
            onehot = np.zeros(o._data.size, dtype=o._data.dtype)
            onehot[k] = 1
            grads = autograd_grad(
                o, xs, Tensor._wrap(onehot.reshape(o.shape)), retain_graph=True, allow_unused=True
            )
            for i, g in zip(wrt, grads):
                if g is not None:
                    jac[i][j][:, k] = g._data.astype(np.float64).ravel()
    return jac


def gradcheck(
    func: Callable,
    inputs: Any,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    **_ignored: Any,
) -> bool:
    """True when analytical and numerical Jacobians agree within atol + rtol * |numerical|."""
    inputs = _tuple(inputs)
    for idx, t in enumerate(inputs):
        if getattr(t, "requires_grad", False) and t.dtype.name != "float64":
            warnings.warn(
                f"Input #{idx} requires gradient and is not a double precision floating "
                "point or complex. This check will likely fail if all the inputs are "
                "not of double precision floating point or complex. ",
                UserWarning,
                stacklevel=2,
            )
    wrt = [i for i, x in enumerate(inputs) if getattr(x, "requires_grad", False)]
    if not wrt:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, but none of "
            "them have requires_grad=True."
        )
    with grad_mode.enable_grad():
        outs = _outputs(func, inputs)
    analytical = _analytical(outs, inputs, wrt)
    for i in wrt:
        numerical = _numerical(func, inputs, i, eps)
        for j, (n, a) in enumerate(zip(numerical, analytical[i])):
            if not np.allclose(a, n, rtol=rtol, atol=atol):
                msg = (
                    f"Jacobian mismatch for output {j} with respect to input {i},\n"
                    f"numerical:{n}\nanalytical:{a}\n"
                )
                if raise_exception:
                    raise GradcheckError(msg)
                return False
    return True


def gradgradcheck(
    func: Callable,
    inputs: Any,
    grad_outputs: Any = None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    **_ignored: Any,
) -> bool:
    """gradcheck of the function that maps (inputs, grad_outputs) to the first gradients."""

    inputs = _tuple(inputs)
    with grad_mode.enable_grad():
        outs = _outputs(func, inputs)
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = tuple(
            Tensor._wrap(rng.standard_normal(o.shape).astype(o._data.dtype), requires_grad=True)
            for o in outs
        )
    grad_outputs = _tuple(grad_outputs)
    diff_idx = [k for k, t in enumerate(inputs) if getattr(t, "requires_grad", False)]
    n_in = len(inputs)

    def first_grads(*args: Any) -> tuple:
        xs, gos = args[:n_in], args[n_in:]
        ys = _outputs(func, xs)
        grads = autograd_grad(
            ys, [xs[k] for k in diff_idx], gos, create_graph=True, allow_unused=True
        )
        return tuple(g for g in grads if g is not None)

    return gradcheck(
        first_grads,
        inputs + grad_outputs,
        eps=eps,
        atol=atol,
        rtol=rtol,
        raise_exception=raise_exception,
    )
