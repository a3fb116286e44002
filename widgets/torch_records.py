"""Records of a real torch forward and backward, made with the constructors minigrad's engine
reports with (minigrad/core/events.py), so the explorer reads both alike.

torch does not report its engine's steps, so they are observed from outside (every reach into
torch's private internals is in torch_internals.py):
- forward: a `TorchFunctionMode` sees every torch function call; the graph nodes each call left
  behind (walked back to the ones already seen) become "node_created" records, in creation order.
- backward: a pre-hook and a hook on every node of the graph see each node start and finish with
  its gradients. Edges, input-buffer sums and the ready queue are then replayed the way the
  engine works, from the dependency counts minigrad's engine computes (`compute_dependencies`,
  which walks torch's graphs too); freed saved tensors are noticed when their
  `_saved_*` attributes start raising; the end of a pass comes from the engine's own callback queue.
- hooks: the user's hooks that torch keeps in Python dicts are wrapped for the block by "spies"
  that report each call: the tensor hooks and post-accumulate-grad hooks of every tensor the
  graph draws (its leaves, roots and `names=`), and, when the forward was recorded with the
  module, the module's full backward (pre-)hooks. `retain_grad` is reported when its tensor's
  node starts (torch has stored the gradient by then). Hooks on a node itself (`register_hook`,
  `register_prehook` on a grad_fn) live in C++ where nothing can see them: not reported.
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from minigrad.autograd.engine import compute_dependencies
from minigrad.core import events
from minigrad.core.hooks import hook_name

from . import adapters, torch_internals
from .modules import flatten_tensors


def forward_mode(records: list[dict]):
    """A TorchFunctionMode appending "node_created" records to `records` (enter it as a context)."""
    from torch.overrides import TorchFunctionMode  # torch only when the user hands us torch

    class _ForwardMode(TorchFunctionMode):
        def __init__(self) -> None:
            super().__init__()
            self.seen: set = set()

        def __torch_function__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            for t in flatten_tensors(out):
                if t.grad_fn is not None and t.grad_fn not in self.seen:
                    self._created(t, flatten_tensors((args, kwargs or {})))
            return out

        def _created(self, out: Any, inputs: list) -> None:
            new, stack = [], [out.grad_fn]
            while stack:
                node = stack.pop()
                if node is None or node in self.seen:
                    continue
                self.seen.add(node)
                if not adapters.is_accumulate(node):
                    new.append(node)
                    stack.extend(n for n, _ in node.next_functions)
            for node in sorted(new, key=adapters.run_order):
                mine = node is out.grad_fn
                records.append(
                    events.node_created(
                        node=node,
                        name=adapters.node_name(node),
                        inputs=inputs if mine else [],
                        output=out if mine else None,
                        shape=adapters.output_shape(node),
                        tangent=_tangent(out) if mine else None,
                    )
                )

    return _ForwardMode()


def _tangent(t: Any):
    """The tangent a torch tensor carries inside a dual level, as a numpy copy (else None)."""
    from torch.autograd import forward_ad

    tangent = forward_ad.unpack_dual(t).tangent
    return None if tangent is None else _np(tangent)


def _np(t: Any):
    return None if t is None else adapters.to_numpy(t)


def _nps(ts: Any) -> list:
    return [_np(t) if adapters.is_tensor(t) else None for t in ts]


_ACTIVE: list[BackwardHooks] = []  # the recordings in progress; module spies report to the last


def _spy(hooks: dict, key: Any, make: Callable[[Callable], Callable], undo: list) -> None:
    """Replace one hook in its dict by a spy (once), remembering how to put it back."""
    fn = hooks[key]
    if getattr(fn, "_mg_spied", None) is None:
        spy = make(fn)
        spy._mg_spied = fn
        hooks[key] = spy
        undo.append((hooks, key, fn, spy))


def _unspy(undo: list) -> None:
    for hooks, key, fn, spy in reversed(undo):
        if hooks.get(key) is spy:
            hooks[key] = fn
    undo.clear()


@contextlib.contextmanager
def module_hook_spies(model: Any) -> Iterator[None]:
    """Spies on every submodule's full backward hooks while a forward is recorded: each call of
    the module fixes its hooks then (torch's BackwardHook keeps them), so the spies fire in the
    backward, whenever it runs, reporting to the recording in progress (if any)."""
    undo: list = []
    for module in model.modules():
        for hooks, kind in torch_internals.hook_dicts(module, torch_internals.MODULE_HOOKS):
            for key in list(hooks):
                _spy(hooks, key, lambda fn, kind=kind: _module_spy(fn, kind), undo)
    try:
        yield
    finally:
        _unspy(undo)


def _module_spy(fn: Callable, kind: str) -> Callable:
    def spy(module: Any, *grads: Any) -> Any:
        result = fn(module, *grads)
        if _ACTIVE:
            _ACTIVE[-1].module_hook(kind, module, fn, grads[0], result)
        return result

    return spy


class BackwardHooks:
    """Hooks on every given node of a torch graph, turning what they see into engine records."""

    def __init__(self, records: list[dict], roots: list[Any], tensors: Iterable[Any] = ()) -> None:
        """`tensors`: the tensors whose hooks are reported (the drawn ones)."""
        self.records = records
        self.roots = roots
        _, self.nodes = compute_dependencies([t.grad_fn for t in roots if t.grad_fn is not None])
        self.tensors = list(tensors)
        self.accumulate_of = {n.variable: n for n in self.nodes if adapters.is_accumulate(n)}
        self.handles: list = []
        self.undo: list = []  # spied hooks, to put back
        self.before_start: list[dict] = []  # hook records of the node about to start
        self.after_accumulate: list[dict] = []  # post-accumulate-grad hooks of the leaf
        self.retaining: dict[Any, list] = {}  # node -> drawn tensors it outputs that retain grad
        self.active = False
        self.started: Any = None  # the node whose pre-hook ran last without its hook yet
        self.tie = itertools.count()

    # --- attaching --------------------------------------------------------------------------
    def __enter__(self) -> BackwardHooks:
        self._spy_tensors()
        for node in self.nodes:
            self.handles.append(node.register_prehook(self._pre_hook(node)))
            self.handles.append(node.register_hook(self._post_hook(node)))
        _ACTIVE.append(self)
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        _ACTIVE.remove(self)
        _unspy(self.undo)
        for handle in self.handles:
            handle.remove()
        self.handles.clear()
        if self.active and self.started is not None:
            # the pass stopped inside a node, before its end callback: that node raised
            message = str(exc) if exc is not None else "raised (caught inside the block)"
            name = exc_type.__name__ if exc_type is not None else "Error"
            self._emit(events.error(node=self.started, error=name, message=message))
            self.active = False  # like minigrad's engine: no "backward_end" after an error
        self._end()

    def _pre_hook(self, node: Any):
        def pre(grad_outputs):
            self._start(node, grad_outputs)

        return pre

    def _post_hook(self, node: Any):
        def post(grad_inputs, grad_outputs):
            self._finish(node, grad_inputs, grad_outputs)

        return post

    def _emit(self, record: dict) -> None:
        self.records.append(record)

    # --- the user's hooks ---------------------------------------------------------------------
    def _spy_tensors(self) -> None:
        """Spies on the tensor hooks and post-accumulate-grad hooks of the drawn tensors (again
        when a pass starts: hooks registered inside the block count too)."""
        for t in self.tensors:
            for hooks, kind in torch_internals.hook_dicts(t, torch_internals.TENSOR_HOOKS):
                for key in list(hooks):
                    _spy(
                        hooks,
                        key,
                        lambda fn, t=t, kind=kind: self._tensor_spy(fn, t, kind),
                        self.undo,
                    )

    def _tensor_spy(self, fn: Callable, t: Any, kind: str) -> Callable:
        def spy(arg: Any) -> Any:
            result = fn(arg)
            leaf = t.grad_fn is None
            record = events.hook(
                hook=kind,
                node=self.accumulate_of.get(t) if leaf else t.grad_fn,
                slot=0 if leaf else t.output_nr,
                tensor=t,
                fn=hook_name(fn),
                function=fn,
                grad=_np(t.grad if kind == "post_accumulate" else arg),
                returned=_np(result) if adapters.is_tensor(result) else None,
            )
            # a tensor hook runs just before its node's pre-hooks (and the node_start record)
            (self.after_accumulate if kind == "post_accumulate" else self.before_start).append(
                record
            )
            return result

        return spy

    def module_hook(self, kind: str, module: Any, fn: Callable, saw: Any, result: Any) -> None:
        """A module's full backward (pre-)hook ran, inside its BackwardHookFunctionBackward's
        hook: the node now running."""
        if not self.active:
            return
        self._emit(
            events.hook(
                hook=kind,
                node=self.started,
                slot=None,
                module=module,
                fn=hook_name(fn),
                function=fn,
                grad=_nps(saw),
                returned=None if result is None else _nps(result),
            )
        )

    def _retained(self, node: Any, grad_outputs: Any) -> None:
        """`retain_grad` of the drawn tensors this node outputs: torch has just stored them."""
        for t in self.retaining.get(node, ()):
            self._emit(
                events.hook(
                    hook="retain_grad",
                    node=node,
                    slot=t.output_nr,
                    tensor=t,
                    fn="retain_grad",
                    function=None,
                    grad=_np(grad_outputs[t.output_nr]),
                    returned=None,
                )
            )

    # --- one pass ---------------------------------------------------------------------------
    def _begin(self, first: Any, seed) -> None:
        self.active = True
        self._spy_tensors()
        self.retaining = defaultdict(list)
        for t in self.tensors:
            if t.grad_fn is not None and t.retains_grad:
                self.retaining[t.grad_fn].append(t)
        roots = [t.grad_fn for t in self.roots if t.grad_fn is not None] or [first]
        if first not in roots:
            roots = [first]
        self.deps, _ = compute_dependencies(roots)
        for node in roots:
            self.deps[node] = self.deps.get(node, 0) + 1
        self.buffers: dict = defaultdict(dict)
        self.heap: list = []
        self.pending_free: list = []
        self._emit(
            events.backward_start(
                roots=list(self.roots),
                root_nodes=roots,
                retain_graph=None,  # (torch does not say)
                create_graph=None,
                inputs=None,
                dependencies=dict(self.deps),
                capture=False,
            )
        )
        for node in roots:
            self._send(None, node, 0, _np(seed[0]) if node is first and seed else None)
        torch_internals.at_end_of_pass(self._end)

    def _send(self, source: Any, target: Any, slot: int, grad) -> None:
        if grad is not None:
            self._emit(events.edge(source=source, target=target, slot=slot, grad=grad))
            buffer = self.buffers[target]
            if slot in buffer:
                before = buffer[slot]
                buffer[slot] = before + grad
                self._emit(
                    events.buffer_sum(
                        node=target, slot=slot, before=before, added=grad, after=buffer[slot]
                    )
                )
            else:
                buffer[slot] = grad
        if target not in self.deps:
            return
        self.deps[target] -= 1
        if self.deps[target] == 0:
            heapq.heappush(self.heap, (-adapters.run_order(target), next(self.tie), target))
            self._emit(events.ready(node=target, queue=self._queue()))

    def _queue(self) -> list:
        return [entry[2] for entry in sorted(self.heap)]

    def _start(self, node: Any, grad_outputs) -> None:
        if not self.active:
            self._begin(node, grad_outputs)
        self._flush_freed()
        self.heap = [e for e in self.heap if e[2] is not node]
        heapq.heapify(self.heap)
        self.buffers.pop(node, None)
        self.started = node
        self.before = _np(node.variable.grad) if adapters.is_accumulate(node) else None
        outputs = [_np(g) for g in grad_outputs]
        self._emit(events.node_start(node=node, grad_outputs=outputs, queue=self._queue()))
        self.records.extend(self.before_start)
        self.before_start.clear()
        self._retained(node, grad_outputs)

    def _finish(self, node: Any, grad_inputs, grad_outputs) -> None:
        self.started = None
        if adapters.is_accumulate(node):
            self._emit(
                events.accumulate(
                    node=node,
                    variable=node.variable,
                    before=self.before,
                    added=_np(grad_outputs[0]),
                    after=_np(node.variable.grad),
                )
            )
            self.records.extend(self.after_accumulate)
            self.after_accumulate.clear()
            return
        grads = [_np(g) for g in grad_inputs]
        outputs = [_np(g) for g in grad_outputs]
        self._emit(events.node_run(node=node, grad_outputs=outputs, grad_inputs=grads))
        self.pending_free.append(node)
        for (nxt, slot), grad in zip(node.next_functions, grads, strict=False):
            if nxt is not None:
                self._send(node, nxt, slot, grad)

    def _flush_freed(self) -> None:
        for node in self.pending_free:
            freed = [slot.name for slot in adapters.saved_slots(node) if slot.freed]
            if freed:
                self._emit(events.freed(node=node, saved=freed))
        self.pending_free = []

    def _end(self) -> None:
        if not self.active:
            return
        self._flush_freed()
        self._emit(events.backward_end(results=[]))
        self.active = False
