"""Nested Python containers of tensors (PyTorch's "pytrees"): the transforms take and return
tuples, lists and dicts of tensors, so they flatten them to a list of leaves, work on the
leaves, and rebuild the same structure. `TreeSpec` prints as PyTorch's does, because its
error messages show it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.tensor import Tensor

_CONTAINERS = (tuple, list, dict)


class TreeSpec:
    """The shape of a container tree: its type, its dict keys (context) and its children;
    a leaf is `LEAF`."""

    def __init__(self, kind: type | None, context: Any = None, children: list | None = None):
        self.kind, self.context, self.children = kind, context, children or []

    @property
    def is_leaf(self) -> bool:
        return self.kind is None

    @property
    def num_leaves(self) -> int:
        return 1 if self.is_leaf else sum(c.num_leaves for c in self.children)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TreeSpec) and (self.kind, self.context, self.children) == (
            other.kind,
            other.context,
            other.children,
        )

    def __hash__(self) -> int:
        return hash(repr(self))

    def __repr__(self, indent: int = 0) -> str:
        if self.is_leaf:
            return "*"
        inner = indent + 2
        parts = [c.__repr__(inner) for c in self.children]
        body = (",\n" + " " * inner).join(parts)
        return f"TreeSpec({self.kind.__name__}, {self.context}, [{body}])"


LEAF = TreeSpec(None)


def _kind(tree: Any) -> type | None:
    for kind in _CONTAINERS:
        if isinstance(tree, kind) and not (kind is tuple and hasattr(tree, "_fields")):
            return kind
    return None


def flatten(tree: Any) -> tuple[list, TreeSpec]:
    """(the leaves in order, the structure)."""
    kind = _kind(tree)
    if kind is None:
        return [tree], LEAF
    items = list(tree.values()) if kind is dict else list(tree)
    leaves: list = []
    specs = []
    for item in items:
        sub_leaves, sub_spec = flatten(item)
        leaves += sub_leaves
        specs.append(sub_spec)
    return leaves, TreeSpec(kind, list(tree.keys()) if kind is dict else None, specs)


def tensor_leaves(tree: Any, refuse: Callable[[type], Exception]) -> tuple[list, TreeSpec]:
    """`flatten` for a tree that may hold tensors only: a leaf of another type raises
    `refuse(its type)` (each transform words that error as PyTorch's does)."""
    leaves, spec = flatten(tree)
    for leaf in leaves:
        if not isinstance(leaf, Tensor):
            raise refuse(type(leaf))
    return leaves, spec


def unflatten(leaves: list, spec: TreeSpec) -> Any:
    """The tree of structure `spec` holding `leaves`."""
    it = iter(leaves)

    def build(s: TreeSpec) -> Any:
        if s.is_leaf:
            return next(it)
        children = [build(c) for c in s.children]
        return dict(zip(s.context, children)) if s.kind is dict else s.kind(children)

    return build(spec)


def tree_map(fn: Callable, tree: Any) -> Any:
    leaves, spec = flatten(tree)
    return unflatten([fn(leaf) for leaf in leaves], spec)


def broadcast_prefix(prefix: Any, tree: Any) -> list | None:
    """`prefix` (an int/None per subtree, e.g. vmap's in_dims) spread over the leaves of
    `tree`; None when the structures do not match."""
    if _kind(prefix) is None:
        return [prefix] * len(flatten(tree)[0])
    kind = _kind(tree)
    if kind is not _kind(prefix) or len(prefix) != len(tree):
        return None
    if kind is dict:
        if set(prefix) != set(tree):
            return None
        pairs = [(prefix[k], tree[k]) for k in tree]
    else:
        pairs = list(zip(prefix, tree))
    out: list = []
    for p, t in pairs:
        sub = broadcast_prefix(p, t)
        if sub is None:
            return None
        out += sub
    return out
