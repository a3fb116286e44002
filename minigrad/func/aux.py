"""`has_aux=True`: the function returns (output, aux); aux rides along undifferentiated."""

from __future__ import annotations

from typing import Any

from ..core.tensor import Tensor
from . import pytree
from .levels import release


def split(result: Any, has_aux: bool, where: str) -> tuple[Any, Any]:
    """(output, aux); aux is None without has_aux."""
    if not has_aux:
        return result, None
    if not (isinstance(result, tuple) and len(result) == 2):
        raise RuntimeError(
            f"{where}: output of function f should be a tuple: (output, aux) if has_aux is True"
        )
    return result


def release_tree(tree: Any, own: list) -> Any:
    """aux (tensors only) released from this transform's inputs (see levels.release)."""

    def one(leaf: Any) -> Any:
        if not isinstance(leaf, Tensor):
            raise RuntimeError(f"Expected tensors, got unsupported type {type(leaf)}")
        return release(leaf, own)

    return pytree.tree_map(one, tree)
