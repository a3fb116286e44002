"""What the backward passes did while a lesson's cells ran: evidence for checks that run later.

A check runs after the learner's cell, so it cannot watch the learner's backward pass itself.
The witness listens on minigrad's observer channel (`minigrad.core.observe`) and keeps a short
summary of the last passes: their roots (and the roots' values, when small), the nodes that ran,
the leaves whose `.grad` AccumulateGrad wrote, and the gradients something kept at a node (the
hook `retain_grad()` leaves, a tensor hook, or `autograd.grad` capturing a result). Lessons 01
and 03 read it to tell a gradient the engine produced from the same number typed in or worked
out by hand; it also notes what each pass added to a leaf and, in a pass's graph, the tensors a
product or a power meets with themselves (x * x, h ** 2): a pass made up to be linear with the
right slope does not have them.

It starts when such a lesson's module is imported inside a Jupyter kernel (`start_in_kernel`),
so a lesson's first cell starts it; tests start and stop it themselves (`watching()`): a listener
left on in a test process would slow every later test and change which path the engine takes.
"""

from __future__ import annotations

import sys
import weakref
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

KEEP = 32  # passes remembered; a lesson's exercise is checked right after it ran
SMALL = 16  # roots with at most this many elements keep their values


def _ref(obj: Any) -> Any:
    try:
        return weakref.ref(obj)
    except TypeError:
        return lambda: None


def _array(value: Any) -> np.ndarray | None:
    if value is None or isinstance(value, list | tuple | bool):
        return None
    return np.array(value, dtype=float, copy=True)


class Pass:
    """One backward pass, as far as the checks need it."""

    def __init__(self, record: dict[str, Any]) -> None:
        roots = record["roots"]
        self.roots = [_ref(t) for t in roots]
        self.root_values = [
            np.array(t.detach().tolist(), dtype=float) if t.numel() <= SMALL else None
            for t in roots
        ]
        self.capture: bool = bool(record["capture"])
        self.ran: list[Any] = []  # weak references to the nodes that ran
        self.writes: list[tuple[Any, np.ndarray | None]] = []  # (leaf, its .grad afterwards)
        self.kept: list[tuple[str, Any, Any, np.ndarray | None]] = []  # (how, node, leaf, grad)
        self.adds: list[tuple[Any, np.ndarray | None]] = []  # (leaf, what the pass added)
        self.root_nodes = [_ref(n) for n in record.get("root_nodes") or [] if n is not None]
        # products and powers where a tensor meets itself: {id: (the product, what it meets)};
        # `live`: those that sent a nonzero gradient along every edge in this pass (not a
        # 0 * x * x beside a pass made linear on purpose)
        self.products = _squared(record.get("root_nodes") or [])
        self.live: set[int] = set()

    def squares(self, tensor: Any) -> bool:
        """Did this pass's graph meet `tensor` with itself (t * t, t ** 2, ...): the nonlinear
        part of a square, which no pass made linear on purpose (14 * x, h * 2h.detach()) has."""
        if tensor is None:
            return False
        node = getattr(tensor, "grad_fn", None)
        for key in self.live:
            product, met = self.products[key]
            if product() is None:
                continue
            for node_ref, leaf_ref in met:
                if (node is not None and node_ref() is node) or (
                    node is None and leaf_ref() is tensor
                ):
                    return True
        return False

    def started_at(self, tensor: Any) -> bool:
        """Was `tensor` (its grad_fn) one of the pass's roots?"""
        node = getattr(tensor, "grad_fn", None)
        return node is not None and any(ref() is node for ref in self.root_nodes)

    def added_to(self, leaf: Any) -> list[np.ndarray | None]:
        return [added for ref, added in self.adds if ref() is leaf]

    def after_for(self, leaf: Any) -> np.ndarray | None:
        """What this pass left in `leaf.grad` (its last write)."""
        found = [after for ref, after in self.writes if ref() is leaf]
        return found[-1] if found else None

    def wrote(self, leaf: Any) -> bool:
        return any(ref() is leaf for ref, _ in self.writes)

    def ran_node(self, node: Any) -> bool:
        return node is not None and any(ref() is node for ref in self.ran)

    def kept_for_leaf(self, leaf: Any) -> list[np.ndarray | None]:
        """Gradients kept at `leaf`'s AccumulateGrad (autograd.grad(..., leaf), a leaf hook)."""
        return [grad for _, _, ref, grad in self.kept if leaf is not None and ref() is leaf]

    def kept_at(self, node: Any) -> list[tuple[str, np.ndarray | None]]:
        if node is None:
            return []
        return [(how, grad) for how, ref, _, grad in self.kept if ref() is node]


WALK = 400  # graphs larger than this are not searched for squares (lessons 01 and 03 are tiny)
_PRODUCTS = ("Mul", "Div", "Pow", "Mm", "Matmul", "Dot", "Einsum", "Bmm", "Mv")


def _squared(roots: list[Any]) -> dict[int, tuple[Any, list[tuple[Any, Any]]]]:
    """The products and powers in the graph that reach a node along two of their inputs (a
    power: along its one input), each with the nodes (and the leaves of AccumulateGrad nodes) it
    meets with themselves there."""
    order: list[Any] = []
    seen: set[int] = set()
    stack = [(n, False) for n in roots if n is not None]
    while stack:  # post-order, so each node's inputs come before it
        node, done = stack.pop()
        if done:
            order.append(node)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        if len(seen) > WALK:
            return {}
        stack.append((node, True))
        stack.extend((n, False) for n, _ in getattr(node, "next_functions", ()) if n is not None)
    reach: dict[int, set[int]] = {}
    by_id = {id(n): n for n in order}
    found: dict[int, tuple[Any, list[tuple[Any, Any]]]] = {}
    for node in order:
        children = [n for n, _ in getattr(node, "next_functions", ()) if n is not None]
        reach[id(node)] = {id(node)}.union(*(reach.get(id(c), set()) for c in children))
        name = node.name()
        if not any(part in name for part in _PRODUCTS):
            continue
        met: set[int] = set()
        if name.startswith("Pow") and len(children) == 1:
            met |= reach.get(id(children[0]), set())
        for i, a in enumerate(children):
            for b in children[i + 1 :]:
                met |= reach.get(id(a), set()) & reach.get(id(b), set())
        if met:
            found[id(node)] = (
                _ref(node),
                [(_ref(by_id[m]), _ref(getattr(by_id[m], "variable", None))) for m in met],
            )
    return found


_passes: deque[Pass] = deque(maxlen=KEEP)
_open: list[Pass] = []  # passes under way (a hook may start a pass inside a pass)


def _listen(record: dict[str, Any]) -> None:
    kind = record["kind"]
    if kind == "backward_start":
        current = Pass(record)
        _passes.append(current)
        _open.append(current)
        return
    if not _open:
        return
    current = _open[-1]
    if kind == "node_start":
        current.ran.append(_ref(record["node"]))
    elif kind == "node_run" and id(record["node"]) in current.products:
        sent = [g for g in record["grad_inputs"] if g is not None]
        if sent and all(np.any(g) for g in sent):  # (0 * x * x sends 0 along one of its edges)
            current.live.add(id(record["node"]))
    elif kind == "accumulate":
        current.writes.append((_ref(record["variable"]), _array(record["after"])))
        current.adds.append((_ref(record["variable"]), _array(record["added"])))
    elif (kind == "hook" and record["hook"] in ("retain_grad", "tensor")) or kind == "capture":
        node = record["node"]
        leaf = getattr(node, "variable", None)  # an AccumulateGrad's leaf
        how = record["hook"] if kind == "hook" else "capture"
        current.kept.append((how, _ref(node), _ref(leaf), _array(record["grad"])))
    elif kind in ("backward_end", "error"):
        _open.pop()


def running() -> bool:
    from minigrad.core.observe import LISTENERS

    return _listen in LISTENERS


def start() -> None:
    from minigrad.core.observe import LISTENERS

    if not running():
        LISTENERS.append(_listen)


def stop() -> None:
    from minigrad.core.observe import LISTENERS

    while _listen in LISTENERS:
        LISTENERS.remove(_listen)
    _passes.clear()
    _open.clear()


def start_in_kernel() -> None:
    """Start when running inside IPython (a lesson's kernel), not in a plain test process
    (there `get_ipython()` is None, even when a plugin has imported IPython)."""
    ipython = sys.modules.get("IPython")
    if ipython is not None and ipython.get_ipython() is not None:  # Jupyter, Colab, VS Code
        start()


@contextmanager
def watching() -> Iterator[None]:
    """The witness on for a block (tests): `with witness.watching(): ...`."""
    was = running()
    start()
    try:
        yield
    finally:
        if not was:
            stop()


def passes() -> list[Pass]:
    """The passes remembered, oldest first."""
    return list(_passes)
