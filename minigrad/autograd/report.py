"""What the engine tells observers: one method per moment of a backward pass.

The engine calls its pass's reporter at each moment (`task.report.node_start(node, grads)`).
When nobody listens that is `SILENT`, whose methods do nothing, so an unwatched pass pays one
empty call per moment. With listeners (`record_steps`, the explorer) it is a `Reporter`: it
copies each gradient as it is at that moment, names hooks, reads the ready queue and builds the
records with core/events.py's constructors. `Silent` lists the moments; `Reporter` reports them.
"""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Any

import numpy as np

from ..core import events
from ..core.hooks import hook_name
from ..core.node import Node
from ..core.observe import LISTENERS, emit
from ..core.tensor import Tensor

if TYPE_CHECKING:  # the engine hands its GraphTask in; engine.py imports this module
    from .engine import GraphTask

_NOTHING = nullcontext()


class Silent:
    """The moments of a pass, reported to nobody."""

    listening = False

    def backward_start(self) -> None:
        """The pass is set up: its roots and dependency counts."""

    def sending(self, source: Node | None, node: Node, slot: int, grad: Any) -> Any:
        """Around one gradient's delivery into `node`'s input buffer: the edge it took, the sum
        when another gradient was waiting there, and `node` joining the ready queue."""
        return _NOTHING

    def node_start(self, node: Node, grads: list) -> None:
        """`node` leaves the ready queue with the gradients of its forward outputs."""

    def capture(self, node: Node, slot: int, index: int, grad: Tensor | None) -> None:
        """autograd.grad keeps the gradient reaching `node`'s `slot` as result `index`."""

    def hook(self, kind: str, node: Node, slot: int | None, fn: Any, saw: Any, returned: Any):
        """A hook of `kind` (events.HOOK_KINDS) ran: what it was handed and what it returned."""

    def accumulating(self, node: Node, grad: Any) -> AbstractContextManager:
        """Around AccumulateGrad's write of `grad` into its leaf's `.grad`."""
        return _NOTHING

    def node_run(self, node: Node, grads: list, outs: list) -> None:
        """`node` returned the gradients for its inputs."""

    def freed(self, node: Node, saved: dict) -> None:
        """`node` released the tensors it saved (`saved`: name -> shape; may be empty)."""

    def error(self, node: Node | None, err: BaseException) -> None:
        """The pass failed while `node` ran (None: before any node ran)."""

    def backward_end(self) -> None:
        """The pass is over."""


SILENT = Silent()


class Reporter(Silent):
    """The moments of one pass, as records to every listener."""

    listening = True

    def __init__(self, task: GraphTask) -> None:
        self.task = task

    def backward_start(self) -> None:
        task = self.task
        emit(
            events.backward_start(
                roots=list(task.roots),
                root_nodes=task.root_nodes,
                retain_graph=task.retain_graph,
                create_graph=task.create_graph,
                inputs=list(task.inputs) if task.inputs is not None else None,
                dependencies=dict(task.deps),
                capture=task.capture,
            )
        )

    def sending(self, source: Node | None, node: Node, slot: int, grad: Any) -> Any:
        emit(events.edge(source=source, target=node, slot=slot, grad=snap(grad)))
        waiting = self.task.buffers.get(node)
        before = waiting[slot] if waiting is not None else None
        return _After(lambda: self._delivered(node, slot, before, grad))

    def _delivered(self, node: Node, slot: int, before: Any, grad: Any) -> None:
        if before is not None and grad is not None:  # `deliver` summed into a new array
            after = snap(self.task.buffers[node][slot])
            emit(
                events.buffer_sum(
                    node=node, slot=slot, before=snap(before), added=snap(grad), after=after
                )
            )
        if self.task.deps[node] == 0:
            emit(events.ready(node=node, queue=self._queue()))

    def node_start(self, node: Node, grads: list) -> None:
        outputs = [snap(g) for g in grads]
        emit(events.node_start(node=node, grad_outputs=outputs, queue=self._queue()))

    def capture(self, node: Node, slot: int, index: int, grad: Tensor | None) -> None:
        emit(events.capture(node=node, slot=slot, index=index, grad=snap(grad)))

    def hook(self, kind: str, node: Node, slot: int | None, fn: Any, saw: Any, returned: Any):
        if kind == "post_accumulate":  # handed the leaf: what it sees is the leaf's .grad
            saw = saw._grad
        name = kind if fn is None else hook_name(fn)
        emit(
            events.hook(
                hook=kind,
                node=node,
                slot=slot,
                fn=name,
                function=fn,
                grad=snaps(saw),
                returned=_returned(kind, returned),
            )
        )

    def accumulating(self, node: Node, grad: Any) -> AbstractContextManager:
        var = node.variable
        before = snap(var._grad)
        return _After(
            lambda: emit(
                events.accumulate(
                    node=node, variable=var, before=before, added=snap(grad), after=snap(var._grad)
                )
            )
        )

    def node_run(self, node: Node, grads: list, outs: list) -> None:
        if node._is_accumulate_grad:  # its run is reported as the `accumulate` it did
            return
        inputs = [snap(g) for g in outs]
        emit(events.node_run(node=node, grad_outputs=[snap(g) for g in grads], grad_inputs=inputs))

    def freed(self, node: Node, saved: dict) -> None:
        if saved:
            emit(events.freed(node=node, saved=list(saved)))

    def error(self, node: Node | None, err: BaseException) -> None:
        emit(events.error(node=node, error=type(err).__name__, message=str(err)))

    def backward_end(self) -> None:
        emit(events.backward_end(results=[snap(r) for r in self.task.results]))

    def _queue(self) -> list[Node]:
        return [entry[2] for entry in sorted(self.task.heap)]


def reporter_for(task: GraphTask) -> Silent:
    return Reporter(task) if LISTENERS else SILENT


class _After:
    """A context that runs `then` when its block ends without an error."""

    __slots__ = ("then",)

    def __init__(self, then) -> None:
        self.then = then

    def __enter__(self) -> None:
        return None

    def __exit__(self, exc_type: Any, *exc: Any) -> bool:
        if exc_type is None:
            self.then()
        return False


def snap(g: Any) -> np.ndarray | None:
    """A copy of a gradient (Tensor or array), safe from later changes."""
    if g is None:
        return None
    return np.array(g._data if isinstance(g, Tensor) else g, copy=True)


def snaps(g: Any) -> Any:
    """`snap` of one gradient, or of each in a tuple or list (None for what is not one)."""
    if isinstance(g, (tuple, list)):
        return [snap(x) if isinstance(x, (Tensor, np.ndarray)) else None for x in g]
    return snap(g)


def _returned(kind: str, result: Any) -> Any:
    """What a hook returned: gradients as copies (a node hook returns a tuple of them), anything
    else as True (the engine rejects it next)."""
    if result is None:
        return None
    if kind in ("pre", "post"):
        return snaps(result) if isinstance(result, (tuple, list)) else True
    return snap(result) if isinstance(result, (Tensor, np.ndarray)) else True
