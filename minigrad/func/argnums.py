"""`argnums`: which positional arguments a transform differentiates, checked as PyTorch
checks it; the chosen arguments (each a tree of tensors) are swapped for fresh ones."""

from __future__ import annotations

from typing import Any

from ..core.tensor import Tensor
from . import pytree
from .levels import fresh


def check(argnums: Any, num_args: int) -> tuple[int, ...]:
    """argnums as non-negative indices into args (an int is a 1-tuple)."""
    if isinstance(argnums, int):
        chosen = (argnums,)
    elif isinstance(argnums, tuple):
        if not argnums:
            raise RuntimeError("argnums must be non-empty")
        for a in argnums:
            if not isinstance(a, int):
                raise RuntimeError(f"argnum must be int, got: {type(a)}")
        if len(set(argnums)) != len(argnums):
            raise RuntimeError(f"argnums elements must be unique, got {argnums}")
        chosen = argnums
    else:
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    for a in chosen:
        if not -num_args <= a < num_args:
            raise RuntimeError(f"Got argnum={a}, but only {num_args} positional inputs")
    return tuple(a % num_args for a in chosen)


def tensor_leaves(tree: Any) -> tuple[list[Tensor], pytree.TreeSpec]:
    """The tensors of a differentiated argument; anything else is PyTorch's ValueError."""
    return pytree.tensor_leaves(
        tree, lambda kind: ValueError(f"Thing passed to transform API must be Tensor, got {kind}")
    )


def with_fresh(args: tuple, argnums: Any) -> tuple[tuple, Any, list[Tensor]]:
    """(args with the chosen ones made fresh, the chosen fresh ones - a tree for an int
    argnums, a tuple of trees for a tuple -, the new leaves made)."""
    positions = check(argnums, len(args))
    own: list[Tensor] = []
    args = list(args)
    for p in positions:
        leaves, spec = tensor_leaves(args[p])
        args[p] = pytree.unflatten([fresh(x, own) for x in leaves], spec)
    chosen = tuple(args[p] for p in positions)
    return tuple(args), chosen if isinstance(argnums, tuple) else chosen[0], own
