"""torch.func.grad and grad_and_value: the gradient of a scalar function as a function."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from ..core import grad_mode
from ..core.tensor import Tensor
from . import aux, pytree
from .argnums import with_fresh
from .levels import release
from .pullback import keeps_graph, pullback

_WHERE = "grad_and_value(f)(*args)"


def grad_and_value(func: Callable, argnums: int | tuple = 0, has_aux: bool = False) -> Callable:
    """A function returning (gradient, value) - ((gradient, (value, aux)) with has_aux);
    the gradient has the structure of the argument(s) `argnums` selects."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> tuple:
        create_graph = keeps_graph(grad_mode.is_grad_enabled())
        with grad_mode.enable_grad():
            args, chosen, own = with_fresh(args, argnums)
            output, extra = aux.split(func(*args, **kwargs), has_aux, _WHERE)
            if not isinstance(output, Tensor):
                raise RuntimeError(
                    f"{_WHERE}: Expected f(*args) to return a Tensor, got {type(output)}"
                )
            if output.dim() != 0:
                raise RuntimeError(
                    f"{_WHERE}: Expected f(*args) to return a scalar Tensor, got tensor with "
                    f"{output.dim()} dims. Maybe you wanted to use the vjp or jacrev APIs instead?"
                )
            leaves, spec = pytree.flatten(chosen)
            grads = pullback([output], leaves, [None], create_graph)
        gradient = pytree.unflatten([release(g, own) for g in grads], spec)
        value = release(output, own)
        if has_aux:
            return gradient, (value, aux.release_tree(extra, own))
        return gradient, value

    return wrapper


def grad(func: Callable, argnums: int | tuple = 0, has_aux: bool = False) -> Callable:
    """A function returning the gradient of func (with aux: (gradient, aux))."""
    both = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        gradient, value = both(*args, **kwargs)
        return (gradient, value[1]) if has_aux else gradient

    return wrapper
