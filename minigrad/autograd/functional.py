"""torch.autograd.functional: Jacobians, Hessians and vector products of whole functions."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..core import grad_mode
from ..core.tensor import Tensor
from ..creation import zeros_like
from ..ops.shape import stack
from .api import grad as autograd_grad


def _as_tuple(x: Any) -> tuple[tuple, bool]:
    if isinstance(x, Tensor):
        return (x,), False
    return tuple(x), True


def _prepare(inputs: tuple, create_graph: bool) -> tuple:
    # Fresh leaves (or, for create_graph, differentiable aliases): the caller's graph is untouched.
    return tuple(
        x.view_as(x) if create_graph and x.requires_grad else x.detach().requires_grad_(True)
        for x in inputs
    )


def _zeros(like) -> Any:
    return Tensor._wrap(np.zeros(like.shape, dtype=like._data.dtype))


def _grads(out, inputs: tuple, v, create_graph: bool) -> tuple:
    if not out.requires_grad:
        return tuple(_zeros(x) for x in inputs)
    gs = autograd_grad(
        out, inputs, v, retain_graph=True, create_graph=create_graph, allow_unused=True
    )
    return tuple(_zeros(x) if g is None else g for g, x in zip(gs, inputs))


def vjp(
    func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False
) -> tuple:
    """(func(inputs), v^T J)."""
    xs, is_tuple = _as_tuple(inputs)
    with grad_mode.enable_grad():
        xs = _prepare(xs, create_graph)
        outs, out_tuple = _as_tuple(func(*xs))
        vs = _as_tuple(v)[0] if v is not None else (None,) * len(outs)
        gs = [_zeros(x) for x in xs]
        for o, vv in zip(outs, vs):
            for k, g in enumerate(_grads(o, xs, vv, create_graph)):
                gs[k] = gs[k] + g
    outs = tuple(o if create_graph else o.detach() for o in outs)
    gs = tuple(g if create_graph else g.detach() for g in gs)
    return (outs if out_tuple else outs[0]), (gs if is_tuple else gs[0])


def jacobian(
    func: Callable,
    inputs: Any,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    strategy: str = "reverse-mode",
) -> Any:
    """J[i][j] = d outputs[i] / d inputs[j], shaped output.shape + input.shape."""

    xs, is_tuple = _as_tuple(inputs)
    with grad_mode.enable_grad():
        xs = _prepare(xs, create_graph)
        outs, out_tuple = _as_tuple(func(*xs))
        table = []
        for o in outs:
            flat = o.reshape(-1)
            rows = [_grads(flat[k], xs, None, create_graph) for k in range(flat.shape[0])]
            per_input = []
            for j, x in enumerate(xs):
                if rows:
                    jac = stack([r[j] for r in rows]).reshape(tuple(o.shape) + tuple(x.shape))
                else:
                    jac = _zeros(x).reshape(tuple(o.shape) + tuple(x.shape))
                per_input.append(jac if create_graph else jac.detach())
            table.append(tuple(per_input) if is_tuple else per_input[0])
    return tuple(table) if out_tuple else table[0]


def hessian(
    func: Callable,
    inputs: Any,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    outer_jacobian_strategy: str = "reverse-mode",
) -> Any:
    """The Jacobian of the gradient of a scalar function."""
    xs, is_tuple = _as_tuple(inputs)

    def gradient(*args: Any) -> Any:
        out = func(*args)
        if out.numel() != 1:
            raise RuntimeError(
                "The function given to hessian should return a single element Tensor"
            )
        return jacobian(
            lambda *a: func(*a).reshape(()), args if is_tuple else args[0], create_graph=True
        )

    return jacobian(gradient, xs if is_tuple else xs[0], create_graph=create_graph)


def jvp(
    func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False
) -> tuple:
    """(func(inputs), J v), by the double-vjp trick."""

    xs, is_tuple = _as_tuple(inputs)
    vs = _as_tuple(v)[0] if v is not None else None
    with grad_mode.enable_grad():
        xs = _prepare(xs, True)
        outs, out_tuple = _as_tuple(func(*xs))
        us = tuple(zeros_like(o).requires_grad_(True) for o in outs)
        gs = autograd_grad(outs, xs, us, create_graph=True, allow_unused=True)
        pairs = [(g, vv) for g, vv in zip(gs, vs or (None,) * len(xs)) if g is not None]
        jv = autograd_grad(
            [g for g, _ in pairs],
            us,
            [vv for _, vv in pairs],
            create_graph=create_graph,
            allow_unused=True,
        )
    jv = tuple(
        _zeros(o) if j is None else (j if create_graph else j.detach()) for j, o in zip(jv, outs)
    )
    outs = tuple(o.detach() for o in outs)
    return (outs if out_tuple else outs[0]), (jv if out_tuple else jv[0])


def vhp(
    func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False
) -> tuple:
    """(func(inputs), v^T H)."""
    xs, is_tuple = _as_tuple(inputs)
    with grad_mode.enable_grad():
        xs = _prepare(xs, True)
        out = func(*xs)
        gs = _grads(out, xs, None, True)
        vs = _as_tuple(v)[0]
        total = sum(((g * vv).sum() for g, vv in zip(gs, vs)), start=gs[0].sum() * 0)
        hv = _grads(total, xs, None, create_graph)
    hv = tuple(h if create_graph else h.detach() for h in hv)
    return out.detach(), (hv if is_tuple else hv[0])


hvp = vhp  # the Hessian of a scalar function is symmetric, so v^T H == H v
