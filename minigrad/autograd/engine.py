"""The backward engine, shaped like PyTorch's: count dependencies, run ready nodes newest first.

Read it top to bottom:
- `execute` sets up one pass (`GraphTask`: the dependency counts `discover` finds, what
  `inputs=` asks for) and runs it one of two ways.
- `run_plain` is a plain `loss.backward()`: gradients travel as numpy arrays and each node runs
  its formula on them (`Node.apply_arrays`); a node with hooks takes the instrumented step.
- `run_instrumented` is every other pass (observers, anomaly mode, `inputs=`, create_graph):
  every node takes `instrumented_step`, gradients travel as Tensors for hooks to see, and each
  step is reported to observers. Without create_graph a node still runs the array formula a
  plain backward runs, so what the explorer replays is what `loss.backward()` does; with it,
  the formula runs on Tensors and is recorded.
- `accumulate` is the one place a gradient is added into `.grad`.

Ownership of gradient arrays, which lets `.grad` take an array instead of copying it (as
PyTorch steals a gradient nobody else holds): a formula hands the engine the arrays it returns
and keeps none of them (ops/formula.py). The engine gives each array to one input buffer. A
seed, a gradient a hook or a Tensor-path node has seen, and the second edge an array is sent
on travel as views, so `.grad` takes an array only when it is not a view (see `accumulate`).
"""

from __future__ import annotations

import heapq
import itertools
import threading
from collections.abc import Sequence

import numpy as np

from ..core import anomaly, grad_mode
from ..core.dtypes import from_numpy_dtype
from ..core.node import Node, edge_of
from ..core.observe import LISTENERS, emit
from ..core.shapes import expandable, sum_to_array
from ..core.tensor import Tensor
from ..ops.inplace import copy


def execute(
    roots: Sequence[Tensor],
    grads: Sequence[Tensor],
    retain_graph: bool,
    create_graph: bool,
    inputs: Sequence[Tensor] | None,
    capture: bool,
) -> list | None:
    """Run one backward pass from `roots` seeded with `grads`.

    capture=False accumulates into leaves (or only into `inputs`); capture=True returns the
    gradients flowing into `inputs` without touching any `.grad` (autograd.grad).
    """
    task = GraphTask(roots, retain_graph, create_graph, inputs, capture)
    outer, _RUNNING.task = _RUNNING.task, task  # a hook may start a backward of its own
    if task.observed:
        emit(
            "backward_start",
            roots=list(roots),
            root_nodes=task.root_nodes,
            retain_graph=retain_graph,
            create_graph=create_graph,
            inputs=list(inputs) if inputs is not None else None,
            dependencies=dict(task.deps),
            capture=capture,
        )
    plain = not create_graph and not task.observed and not anomaly._State.enabled
    prev_mode = grad_mode._State.enabled
    grad_mode.set_enabled(create_graph)
    try:
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            if plain and inputs is None:
                run_plain(task, grads)
            else:
                run_instrumented(task, grads)
    finally:
        grad_mode.set_enabled(prev_mode)
        _RUNNING.task = outer
    if task.observed:
        emit("backward_end", results=[_snap(r) for r in task.results])
    return task.results if capture else None


class _Running(threading.local):
    task: GraphTask | None = None  # the pass this thread is running, for hooks that ask


_RUNNING = _Running()
GRAPH_ROOT = "torch::autograd::GraphRoot"  # the node PyTorch puts above several roots


def current_task() -> GraphTask | None:
    return _RUNNING.task


def will_execute(node: Node) -> bool:
    """Whether the running pass will run `node` (torch._C._will_engine_execute_node)."""
    task = _RUNNING.task
    if task is None:
        raise RuntimeError(
            "_will_engine_execute_node should only be called during the backward pass"
        )
    if node._is_accumulate_grad and task.capture:
        raise RuntimeError(
            "A leaf node was passed to _will_engine_execute_node but we are currently running "
            "autograd.grad(). This is currently not supported."
        )
    return node in task.deps and (task.needed is None or node in task.needed)


# --- discovery ------------------------------------------------------------------------------
def discover(root_nodes: list[Node]) -> tuple[dict, list]:
    """Dependencies (edges pointing into each node) and every reachable node, iteratively."""
    deps: dict[Node, int] = {}
    roots = set(root_nodes)
    order = list(root_nodes)
    stack = list(root_nodes)
    while stack:
        for nxt, _ in stack.pop().next_functions:
            if nxt is None:
                continue
            if nxt in deps:
                deps[nxt] += 1
            else:
                deps[nxt] = 1
                if nxt not in roots:
                    order.append(nxt)
                    stack.append(nxt)
    return deps, order


def needed_nodes(order: list[Node], targets: set) -> set:
    """Nodes with a path to a target: only they run when `inputs` narrows the backward."""
    needed: set = set()
    done: set = set()
    for start in order:
        stack = [(start, False)]
        while stack:
            node, expanded = stack.pop()
            if node in done:
                continue
            if expanded:
                done.add(node)
                if node in targets or any(n in needed for n, _ in node.next_functions if n):
                    needed.add(node)
                continue
            stack.append((node, True))
            stack.extend(
                (n, False) for n, _ in node.next_functions if n is not None and n not in done
            )
    return needed


class GraphTask:
    """One backward pass: dependency counts, the ready heap, each waiting node's gradients."""

    def __init__(
        self,
        roots: Sequence[Tensor],
        retain_graph: bool,
        create_graph: bool,
        inputs: Sequence[Tensor] | None,
        capture: bool,
    ) -> None:
        self.retain_graph, self.create_graph, self.capture = retain_graph, create_graph, capture
        self.observed = bool(LISTENERS)
        self.root_edges = [edge_of(t) for t in roots]
        self.root_nodes = list(dict.fromkeys(n for n, _ in self.root_edges))
        self.deps, order = discover(self.root_nodes)
        for n, _ in self.root_edges:
            self.deps[n] = self.deps.get(n, 0) + 1
        self.inputs = inputs
        self.captures: dict[Node, list[tuple[int, int]]] = {}
        self.needed: set | None = None
        if inputs is not None:
            for idx, t in enumerate(inputs):
                node, slot = edge_of(t)
                self.captures.setdefault(node, []).append((slot, idx))
            self.needed = needed_nodes(order, set(self.captures))
        self.results: list = [None] * (len(inputs) if inputs is not None else 0)
        self.heap: list = []
        self.tie = itertools.count()
        self.buffers: dict[Node, list] = {}

    def deliver(self, node: Node, slot: int, grad) -> None:
        """Add `grad` (None still counts) to `node`'s input buffer; the node is ready once all
        its edges have delivered."""
        buf = self.buffers.get(node)
        if buf is None:
            buf = self.buffers[node] = [None] * node._num_outputs
        if grad is not None:
            before = buf[slot]
            buf[slot] = grad if before is None else before + grad
        left = self.deps[node] - 1
        self.deps[node] = left
        if left == 0:
            heapq.heappush(self.heap, (-node._seq_nr, next(self.tie), node))

    def send(self, node: Node, slot: int, grad, source: Node | None) -> None:
        """`deliver`, skipping nodes `inputs` made unnecessary and telling observers."""
        if self.needed is not None and node not in self.needed:
            return
        if not self.observed:
            return self.deliver(node, slot, grad)
        remaining = self.deps[node] - 1
        emit("edge", source=source, target=node, slot=slot, grad=_snap(grad), remaining=remaining)
        before = self.buffers.get(node, [None] * node._num_outputs)[slot]
        self.deliver(node, slot, grad)
        if grad is not None and before is not None:
            after = _snap(self.buffers[node][slot])
            emit(
                "buffer_sum",
                node=node,
                slot=slot,
                before=_snap(before),
                added=_snap(grad),
                after=after,
            )
        if self.deps[node] == 0:
            emit("ready", node=node, queue=[e[2] for e in sorted(self.heap)])

    def release(self, node: Node) -> None:
        """Free what `node` saved, unless the graph is to be kept."""
        if not self.retain_graph:
            freed = node._release_variables()
            if freed and self.observed:
                emit("freed", node=node, saved=list(freed))


# --- the plain run: numpy arrays end to end -------------------------------------------------
def run_plain(task: GraphTask, seeds: Sequence[Tensor]) -> None:
    """A plain `backward()`: nobody watches, nothing narrows the pass, no graph is built."""
    heap, take, deliver, retain = task.heap, task.buffers.pop, task.deliver, task.retain_graph
    for (node, slot), g in zip(task.root_edges, seeds):
        deliver(node, slot, g._data.view())  # the caller's gradient stays the caller's
    while heap:
        node = heapq.heappop(heap)[2]
        grads = take(node)
        if not _hookless(node):
            outs = instrumented_step(task, node, [_tensor(g) for g in grads])
            if outs is None:
                continue
            outs = [None if g is None else g._data.view() for g in outs]  # a hook saw them
        elif node._is_accumulate_grad:
            if grads[0] is not None:
                accumulate(node.variable, grads[0], False)
            continue
        else:
            outs = _apply_plain(node, grads)
        if not retain:
            node._release_variables()
        last = None
        for (nxt, slot), g in zip(node.next_functions, outs):
            if nxt is not None:
                if g is last and g is not None:
                    g = g.view()  # one array for two inputs (AddBackward0's g, g): one owner
                else:
                    last = g
                deliver(nxt, slot, g)


def _hookless(node: Node) -> bool:
    """Nothing registered on this node (or its leaf) that wants to see its gradients."""
    if node._pre_hooks or node._post_hooks or node._tensor_hooks or node._retain_hooks:
        return False
    if node._is_accumulate_grad:
        var = node.variable
        return not var._backward_hooks and not var._post_acc_hooks
    return True


def _apply_plain(node: Node, grads: list) -> list:
    """Run a node on array gradients: its formula directly when it `runs_on_arrays`, else
    through Tensors (its result then travels as views: the node's code may keep it)."""
    for g in grads:
        if g is None:
            if all(g is None for g in grads):
                return [None] * len(node.next_functions)
            grads = node._materialize(grads, True)
            break
    if node.runs_on_arrays:
        return _validate(node, node.apply_arrays(grads), True)
    outs = _validate(node, node.apply(tuple(_tensor(g) for g in grads)))
    return [None if g is None else g._data.view() for g in outs]


# --- the instrumented run: Tensors, hooks, captures, records --------------------------------
def run_instrumented(task: GraphTask, seeds: Sequence[Tensor]) -> None:
    """Every node through `instrumented_step`; gradients are Tensors, recorded under
    create_graph so that they can be differentiated again."""
    if anomaly._State.enabled and anomaly._State.check_nan and len(task.root_edges) > 1:
        _check_graph_root(task, seeds)
    for (node, slot), g in zip(task.root_edges, seeds):
        task.send(node, slot, g, None)
    while task.heap:
        node = heapq.heappop(task.heap)[2]
        try:
            outs = instrumented_step(task, node, task.buffers.pop(node))
        except Exception:
            if anomaly._State.enabled:  # whatever failed while the node ran: hooks, captures too
                anomaly.report_error(node.name(), node._anomaly_trace)
            raise
        if outs is None:
            continue
        task.release(node)
        for (nxt, slot), g in zip(node.next_functions, outs):
            if nxt is not None:
                task.send(nxt, slot, g, node)


def instrumented_step(task: GraphTask, node: Node, grads: list) -> list | None:
    """Tensor hooks, captures, the node with its pre- and post-hooks, anomaly checks and
    observer records. Returns the node's gradients, or None when nothing is sent on."""
    observed = task.observed
    if observed:
        queue = [e[2] for e in sorted(task.heap)]
        emit("node_start", node=node, grad_outputs=[_snap(g) for g in grads], queue=queue)
    _run_tensor_hooks(task, node, grads)
    for slot, idx in task.captures.get(node, ()):  # (a non-leaf in backward(inputs=) retains
        task.results[idx] = grads[slot]  # its grad: its retain_grad hook above wrote .grad)
        if observed:
            emit("capture", node=node, slot=slot, index=idx, grad=_snap(grads[slot]))
    if node._is_accumulate_grad:
        if not task.capture:
            accumulate_run = lambda g: _accumulate_grad(task, node, g[0])  # noqa: E731
            _call_node(node, grads, observed, False, run=accumulate_run)
        return None
    if task.needed is not None and not any(n in task.needed for n, _ in node.next_functions if n):
        return None
    try:
        outs = _call_node(node, grads, observed, task.create_graph)
        if anomaly._State.enabled and anomaly._State.check_nan:
            _check_nan(node.name(), outs)
    except Exception as err:
        if observed:
            emit("error", node=node, error=type(err).__name__, message=str(err))
        raise
    if observed:
        grad_inputs = [_snap(g) for g in outs]
        emit("node_run", node=node, grad_outputs=[_snap(g) for g in grads], grad_inputs=grad_inputs)
    return outs


def _run_tensor_hooks(task: GraphTask, node: Node, grads: list) -> None:
    """A tensor's own hooks on the gradient reaching it (they may replace it), then retain_grad."""
    if node._is_accumulate_grad:
        hooks = node.variable._backward_hooks
        hook_dicts = {0: hooks} if hooks else None
    else:
        hook_dicts = node._tensor_hooks
    for slot, hooks in (hook_dicts or {}).items():
        for fn in tuple(hooks.values()):
            if grads[slot] is None:
                break
            result = fn(grads[slot])
            if task.observed:
                _emit_hook(
                    "tensor", node, slot, _fn_name(fn), _snap(grads[slot]), _snap(result), fn
                )
            if result is not None:
                grads[slot] = _check_hook_result(_fn_name(fn), grads[slot], result)
    for slot, ref in (node._retain_hooks or {}).items():
        tensor = ref()
        if grads[slot] is not None and tensor is not None:
            accumulate(tensor, grads[slot], task.create_graph)
            if task.observed:
                _emit_hook("retain_grad", node, slot, "retain_grad", _snap(grads[slot]), None)


def _call_node(node: Node, grads: list, observed: bool, create_graph: bool, run=None) -> list:
    """Pre-hooks, the node itself (or `run`, for AccumulateGrad), then post-hooks. Without
    create_graph the node runs the same array formula as in a plain backward."""
    for fn in tuple((node._pre_hooks or {}).values()):
        result = fn(tuple(grads))
        if observed:
            _emit_hook("prehook", node, None, _fn_name(fn), [_snap(g) for g in grads], result, fn)
        if result is not None:
            grads[:] = list(result)
    if run is not None:
        outs = run(grads)
    elif not create_graph and node.runs_on_arrays:  # the formula a plain backward runs
        arrays = _apply_plain(node, [None if g is None else g._data for g in grads])
        outs = [_tensor(g) for g in arrays]
    elif all(g is not None for g in grads):
        outs = _validate(node, node.apply(tuple(grads)))
    elif all(g is None for g in grads):
        outs = [None] * len(node.next_functions)
    else:
        outs = _validate(node, node.apply(tuple(node._materialize(grads, False))))
    for fn in tuple((node._post_hooks or {}).values()):
        result = fn(tuple(outs), tuple(grads))
        if observed:
            _emit_hook("posthook", node, None, _fn_name(fn), [_snap(g) for g in outs], result, fn)
        if result is not None:
            outs = list(result)
    return outs


def _accumulate_grad(task: GraphTask, node: Node, grad: Tensor | None) -> list:
    """AccumulateGrad's run on the instrumented path: `accumulate`, reported, then the leaf's
    post-accumulate hooks."""
    if grad is None:
        return []
    var = node.variable
    before = _snap(var._grad) if task.observed else None
    accumulate(var, grad, task.create_graph)
    if task.observed:
        after = _snap(var._grad)
        emit("accumulate", node=node, variable=var, before=before, added=_snap(grad), after=after)
    for fn in tuple((var._post_acc_hooks or {}).values()):
        fn(var)
        if task.observed:
            _emit_hook("post_accumulate", node, 0, _fn_name(fn), _snap(var._grad), None, fn)
    return []


# --- the one place a gradient is added into .grad -------------------------------------------
def accumulate(t: Tensor, grad, create_graph: bool) -> None:
    """Add a gradient (array or Tensor) into `t.grad`, by PyTorch's rules.

    A leaf (its AccumulateGrad): the first gradient becomes `.grad`, taken as it is when the
    engine owns it (an array that is not a view; see the module docstring), else copied, and
    under create_graph copied by a recorded op (CopyBackwards); later ones add in place, or
    out of place under create_graph. A non-leaf (`retain_grad`, `backward(inputs=[h])`): a
    clone first, then out-of-place sums.
    """
    data = grad._data if isinstance(grad, Tensor) else grad
    if t.grad_fn is not None:
        if t._grad is None:
            t._grad = grad.clone() if create_graph else grad.detach().clone()
        else:
            t._grad = t._grad + grad
    elif t._grad is None:
        if create_graph:
            t._grad = copy(Tensor._wrap(np.empty_like(data)), grad)
        else:
            owned = type(grad) is np.ndarray and grad.base is None and grad.flags.writeable
            t._grad = Tensor._wrap(grad if owned else np.array(data, copy=True))
    elif create_graph:
        t._grad = t._grad + grad
    else:
        t._grad._data += data
        t._grad._version_counter.value += 1


# --- checks and small helpers ---------------------------------------------------------------
def _validate(node: Node, outs: tuple, arrays: bool = False) -> list:
    """Like PyTorch's validate_outputs: reduce broadcast gradients, cast dtypes, reject the rest.

    `arrays`: the gradients are numpy arrays (a formula run without create_graph)."""
    edges, metas = node.next_functions, node._input_meta
    if len(outs) != len(edges):
        raise RuntimeError(
            f"function {node.name()} returned an incorrect number of gradients "
            f"(expected {len(edges)}, got {len(outs)})"
        )
    fixed = list(outs)
    for i, g in enumerate(outs):
        if g is None or edges[i][0] is None:
            continue
        if not arrays and not isinstance(g, Tensor):
            raise TypeError(
                f"function {node.name()} returned a gradient of type "
                f"{type(g).__name__} at index {i}, expected a Tensor or None"
            )
        data = g if arrays else g._data
        shape, np_dtype = metas[i]
        if data.shape == shape and data.dtype == np_dtype:
            continue  # the common case: nothing to check further
        if data.shape != shape:
            if not arrays and not expandable(shape, data.shape):  # array formulas are ours
                raise RuntimeError(
                    f"Function {node.name()} returned an invalid gradient at index "
                    f"{i} - got {list(data.shape)} but expected shape compatible with "
                    f"{list(shape)}"
                )
            g = sum_to_array(g, shape) if arrays else g.sum_to_size(shape)
        if arrays:
            g = g.astype(np_dtype, copy=False)
        elif g._data.dtype != np_dtype:
            g = g.to(from_numpy_dtype(np_dtype))
        fixed[i] = g
    return fixed


def _check_hook_result(name: str, old: Tensor, new) -> Tensor:
    if not isinstance(new, Tensor):
        raise TypeError(f"expected Tensor or None (got {type(new).__name__})")
    if new.shape != old.shape:
        raise RuntimeError(
            f"hook '{name}' has changed the size of value (was {list(old.shape)} "
            f"got {list(new.shape)})"
        )
    if new.dtype != old.dtype:
        raise RuntimeError(
            f"hook '{name}' has changed the type of value (was {old.dtype} got {new.dtype})"
        )
    return new


def _check_nan(name: str, outs: Sequence) -> None:
    for i, g in enumerate(outs):
        if g is not None and g.dtype.is_floating_point and np.isnan(g._data).any():
            raise RuntimeError(f"Function '{name}' returned nan values in its {i}th output.")


def _check_graph_root(task: GraphTask, seeds: Sequence[Tensor]) -> None:
    """Several roots: PyTorch hangs them under one GraphRoot node that returns the seeds, so
    anomaly mode checks the seeds before any node runs (a single root is its own first node)."""
    try:
        _check_nan(GRAPH_ROOT, seeds)
    except RuntimeError as err:
        if task.observed:
            emit("error", node=None, error=type(err).__name__, message=str(err))
        anomaly.report_error(GRAPH_ROOT, anomaly.forward_trace())  # made by this backward call
        raise


def _emit_hook(
    kind: str, node: Node, slot: int | None, fn: str, grad, returned, function=None
) -> None:
    """`function` is the hook itself: an observer names a lambda by it, or finds module hooks."""
    if kind in ("prehook", "posthook") and returned is not None:  # the gradients it returned
        if isinstance(returned, (tuple, list)):
            returned = [_snap(g) if isinstance(g, Tensor) else None for g in returned]
        else:
            returned = True  # not a tuple: the engine rejects it next
    emit(
        "hook",
        hook=kind,
        node=node,
        slot=slot,
        fn=fn,
        function=function,
        grad=grad,
        returned=returned,
    )


def _fn_name(fn) -> str:
    return getattr(fn, "__name__", type(fn).__name__)


def _snap(g) -> np.ndarray | None:
    """A copy of a gradient (Tensor or array) for observers, safe from later changes."""
    if g is None:
        return None
    return np.array(g._data if isinstance(g, Tensor) else g, copy=True)


def _tensor(g) -> Tensor | None:
    return None if g is None or isinstance(g, Tensor) else Tensor._wrap(g)
