"""The backward engine, shaped like PyTorch's: count dependencies, run ready nodes newest first.

Without create_graph, gradients travel as bare numpy arrays and a node with no hooks runs its
formula on them directly (the plain path); hooks, observers, anomaly mode and `inputs=` get
the instrumented path, where every gradient is a Tensor. Every step is reported to observers
(see observe.py) when someone listens.
"""

from __future__ import annotations

import heapq
import itertools
import sys
from collections.abc import Sequence

import numpy as np

from ..dtypes import from_numpy_dtype
from ..tensor import Tensor
from . import anomaly, grad_mode
from .graph import Node, grad_accumulator
from .observe import LISTENERS, emit


def _snap(g) -> np.ndarray | None:
    """A copy of a gradient (Tensor or array) for observers, safe from later changes."""
    if g is None:
        return None
    return np.array(g._data if isinstance(g, Tensor) else g, copy=True)


def _tensor(g) -> Tensor | None:
    return None if g is None or isinstance(g, Tensor) else Tensor._wrap(np.asarray(g))


def _array(g) -> np.ndarray | None:
    return g._data if isinstance(g, Tensor) else g


def _edge_of(t: Tensor) -> tuple:
    """Where a gradient for `t` goes: its grad_fn's slot, its AccumulateGrad, or nowhere."""
    fn = t._grad_fn if t._base is None else t.grad_fn
    if fn is not None:
        return fn, t._output_nr
    if t._requires_grad:
        return grad_accumulator(t), 0
    return None, 0


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


def reduced_dims(big: tuple, shape: tuple) -> tuple[int, ...]:
    """The dims of `big` that summing down to `shape` (which broadcasts to `big`) removes."""
    lead = len(big) - len(shape)
    return tuple(range(lead)) + tuple(
        lead + i for i, s in enumerate(shape) if s == 1 and big[lead + i] != 1
    )


def sum_to_array(g: np.ndarray, shape: tuple) -> np.ndarray:
    """Tensor.sum_to_size for a bare array."""
    dims = reduced_dims(np.shape(g), shape)
    if not dims:
        return g
    out = np.add.reduce(g, axis=dims)
    return out if out.shape == shape else out.reshape(shape)


def _expandable(shape: tuple, to: tuple) -> bool:
    try:
        return np.broadcast_shapes(shape, to) == to
    except ValueError:
        return False


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
            if not arrays and not _expandable(shape, data.shape):  # array formulas are ours
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


def _discover(root_nodes: list[Node]) -> tuple[dict, list]:
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


def _needed(order: list[Node], targets: set) -> set:
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


def _run_tensor_hooks(node: Node, grads: list, observed: bool) -> None:
    if node._is_accumulate_grad:
        hooks = node.variable._backward_hooks
        hook_dicts = {0: hooks} if hooks else None
    else:
        hook_dicts = node._tensor_hooks
    if not hook_dicts and not node._retain_hooks:
        return
    for slot, hooks in (hook_dicts or {}).items():
        for fn in tuple(hooks.values()):
            if grads[slot] is None:
                break
            result = fn(grads[slot])
            if observed:
                emit(
                    "hook",
                    hook="tensor",
                    node=node,
                    slot=slot,
                    fn=_fn_name(fn),
                    grad=_snap(grads[slot]),
                    returned=_snap(result),
                )
            if result is not None:
                grads[slot] = _check_hook_result(_fn_name(fn), grads[slot], result)
    for slot, fn in (node._retain_hooks or {}).items():
        if grads[slot] is not None:
            fn(grads[slot])
            if observed:
                emit(
                    "hook",
                    hook="retain_grad",
                    node=node,
                    slot=slot,
                    fn="retain_grad",
                    grad=_snap(grads[slot]),
                    returned=None,
                )


def _fn_name(fn) -> str:
    return getattr(fn, "__name__", type(fn).__name__)


# references to a gradient array nobody else holds: the engine's input buffer, the argument of
# _accumulate_data, and getrefcount's own
_UNSHARED = 3


def _accumulate_data(var: Tensor, grad: np.ndarray) -> None:
    """AccumulateGrad without create_graph. The first gradient becomes .grad: taken as it is
    when nothing else can see it (PyTorch steals it too), else copied. Later ones add in place."""
    if var._grad is None:
        unshared = (
            type(grad) is np.ndarray
            and grad.base is None
            and grad.flags.writeable
            and sys.getrefcount(grad) <= _UNSHARED
        )
        var._grad = Tensor._wrap(grad if unshared else np.array(grad, copy=True))
    else:
        var._grad._data += grad
        var._grad._version_counter.value += 1


def _accumulate(node, grad: Tensor | None, create_graph: bool, observed: bool) -> list:
    if grad is None:
        return []
    var = node.variable
    before = _snap(var._grad) if observed else None
    if var._grad is None and create_graph:
        from ..ops.inplace import copy  # PyTorch copies into a fresh buffer: CopyBackwards

        var._grad = copy(Tensor._wrap(np.empty_like(grad._data)), grad)
    elif create_graph:
        var._grad = var._grad + grad
    else:
        _accumulate_data(var, grad._data)
    if observed:
        emit(
            "accumulate",
            node=node,
            variable=var,
            before=before,
            added=_snap(grad),
            after=_snap(var._grad),
        )
    for fn in tuple((var._post_acc_hooks or {}).values()):
        fn(var)
        if observed:
            emit(
                "hook",
                hook="post_accumulate",
                node=node,
                slot=0,
                fn=_fn_name(fn),
                grad=_snap(var._grad),
                returned=None,
            )
    return []


def _call_node(node: Node, grads: list, observed: bool, run=None) -> list:
    """Pre-hooks, the node itself (or `run`, for AccumulateGrad), then post-hooks."""
    for fn in tuple((node._pre_hooks or {}).values()):
        result = fn(tuple(grads))
        if observed:
            emit(
                "hook",
                hook="prehook",
                node=node,
                slot=None,
                fn=_fn_name(fn),
                grad=[_snap(g) for g in grads],
                returned=result is not None,
            )
        if result is not None:
            grads[:] = list(result)
    if run is not None:
        outs = run(grads)
    elif all(g is not None for g in grads):
        outs = _validate(node, node.apply(tuple(grads)))
    elif all(g is None for g in grads):
        outs = [None] * len(node.next_functions)
    else:
        outs = _validate(node, node.apply(tuple(node._materialize(grads, False))))
    for fn in tuple((node._post_hooks or {}).values()):
        result = fn(tuple(outs), tuple(grads))
        if observed:
            emit(
                "hook",
                hook="posthook",
                node=node,
                slot=None,
                fn=_fn_name(fn),
                grad=[_snap(g) for g in outs],
                returned=result is not None,
            )
        if result is not None:
            outs = list(result)
    return outs


def _hookless(node: Node) -> bool:
    """Nothing registered on this node (or its leaf) that wants to see its gradients."""
    if node._pre_hooks or node._post_hooks or node._tensor_hooks or node._retain_hooks:
        return False
    if node._is_accumulate_grad:
        var = node.variable
        return not var._backward_hooks and not var._post_acc_hooks
    return True


def _apply_on_arrays(node: Node, grads: list) -> list:
    """Run a node on array gradients: its formula directly when it is written for arrays
    (ops/formula.py), else through Tensors. Returns arrays."""
    for g in grads:
        if g is None:
            if all(g is None for g in grads):
                return [None] * len(node.next_functions)
            grads = node._materialize(grads, True)
            break
    if node._array_formula:
        node._on_arrays = True
        try:
            outs = node.backward(*grads)
        finally:
            node._on_arrays = False
        return _validate(node, outs if isinstance(outs, tuple) else (outs,), True)
    outs = _validate(node, node.apply(tuple(_tensor(g) for g in grads)))
    return [_array(g) for g in outs]


class _Pass:
    """The state of one backward pass: dependency counts, the ready heap, gradient buffers."""

    def __init__(self, deps: dict, observed: bool, needed: set | None) -> None:
        self.deps = deps
        self.observed = observed
        self.needed = needed
        self.heap: list = []
        self.tie = itertools.count()
        self.buffers: dict[Node, list] = {}

    def deliver(self, node: Node, slot: int, grad) -> None:
        """Add `grad` (None still counts) to `node`'s input buffer; the node is ready once all
        its edges have delivered."""
        buffers = self.buffers
        buf = buffers.get(node)
        if buf is None:
            buf = buffers[node] = [None] * node._num_outputs
        if grad is not None:
            before = buf[slot]
            buf[slot] = grad if before is None else before + grad
        deps = self.deps
        left = deps[node] - 1
        deps[node] = left
        if left == 0:
            heapq.heappush(self.heap, (-node._seq_nr, next(self.tie), node))

    def send(self, node: Node, slot: int, grad, source: Node | None) -> None:
        """`deliver`, skipping nodes `inputs` made unnecessary and telling observers."""
        if self.needed is not None and node not in self.needed:
            return
        if not self.observed:
            return self.deliver(node, slot, grad)
        emit(
            "edge",
            source=source,
            target=node,
            slot=slot,
            grad=_snap(grad),
            remaining=self.deps[node] - 1,
        )
        before = self.buffers.get(node, [None] * node._num_outputs)[slot]
        self.deliver(node, slot, grad)
        if grad is not None and before is not None:
            emit(
                "buffer_sum",
                node=node,
                slot=slot,
                before=_snap(before),
                added=_snap(grad),
                after=_snap(self.buffers[node][slot]),
            )
        if self.deps[node] == 0:
            emit("ready", node=node, queue=[e[2] for e in sorted(self.heap)])


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
    Without create_graph, gradients travel as numpy arrays and a hookless node runs its formula
    on them directly; hooks, observers, anomaly mode and `inputs` see Tensors, as in PyTorch.
    """
    observed = bool(LISTENERS)
    arrays = not create_graph
    root_edges = [_edge_of(t) for t in roots]
    root_nodes = list(dict.fromkeys(n for n, _ in root_edges))
    deps, order = _discover(root_nodes)
    for n, _ in root_edges:
        deps[n] = deps.get(n, 0) + 1

    captures: dict[Node, list[tuple[int, int]]] = {}
    needed = None
    if inputs is not None:
        for idx, t in enumerate(inputs):
            node, slot = _edge_of(t)
            captures.setdefault(node, []).append((slot, idx))
        needed = _needed(order, set(captures))
    results: list = [None] * (len(inputs) if inputs is not None else 0)

    if observed:
        emit(
            "backward_start",
            roots=list(roots),
            root_nodes=root_nodes,
            retain_graph=retain_graph,
            create_graph=create_graph,
            inputs=list(inputs) if inputs is not None else None,
            dependencies={n: c for n, c in deps.items()},
            capture=capture,
        )
    state = _Pass(deps, observed, needed)
    # the short path: no one watching, nothing narrowing the pass
    plain = arrays and not observed and not anomaly._State.enabled and inputs is None

    def run_instrumented(node: Node, grads_in: list) -> list | None:
        """Hooks, captures, anomaly checks and observer records around one node, on Tensors.
        Returns the node's gradients, or None when nothing is sent on."""
        if arrays:
            grads_in = [_tensor(g) for g in grads_in]
        if observed:
            emit(
                "node_start",
                node=node,
                grad_outputs=[_snap(g) for g in grads_in],
                queue=[e[2] for e in sorted(state.heap)],
            )
        _run_tensor_hooks(node, grads_in, observed)
        for slot, idx in captures.get(node, ()):
            results[idx] = grads_in[slot]
            if observed:
                emit("capture", node=node, slot=slot, index=idx, grad=_snap(grads_in[slot]))
            if not capture and not node._is_accumulate_grad and grads_in[slot] is not None:
                inputs[idx]._accumulate_non_leaf(grads_in[slot], create_graph)
        if node._is_accumulate_grad:
            if not capture:
                _call_node(
                    node,
                    grads_in,
                    observed,
                    run=lambda g: _accumulate(node, g[0], create_graph, observed),
                )
            return None
        if needed is not None and not any(n in needed for n, _ in node.next_functions if n):
            return None
        try:
            outs = _call_node(node, grads_in, observed)
            if anomaly._State.enabled and anomaly._State.check_nan:
                _check_nan(node, outs)
        except Exception as err:
            if observed:
                emit("error", node=node, error=type(err).__name__, message=str(err))
            if anomaly._State.enabled:
                anomaly.report_error(node)
            raise
        if observed:
            emit(
                "node_run",
                node=node,
                grad_outputs=[_snap(g) for g in grads_in],
                grad_inputs=[_snap(g) for g in outs],
            )
        return [_array(g) for g in outs] if arrays else outs

    prev_mode = grad_mode._State.enabled
    grad_mode._State.enabled = create_graph
    try:
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            for (node, slot), g in zip(root_edges, grads):
                state.send(node, slot, _array(g) if arrays else g, None)
            heap, take, pop, deliver = state.heap, state.buffers.pop, heapq.heappop, state.deliver
            while heap:
                node = pop(heap)[2]
                if plain and _hookless(node):
                    if node._is_accumulate_grad:
                        grads_in = take(node)
                        if grads_in[0] is not None:
                            _accumulate_data(node.variable, grads_in[0])
                        continue
                    outs = _apply_on_arrays(node, take(node))
                else:
                    outs = run_instrumented(node, take(node))
                    if outs is None:
                        continue
                if not retain_graph:
                    freed = node._release_variables()
                    if freed and observed:
                        emit("freed", node=node, saved=list(freed))
                if plain:
                    for (nxt, slot), g in zip(node.next_functions, outs):
                        if nxt is not None:
                            deliver(nxt, slot, g)
                else:
                    for (nxt, slot), g in zip(node.next_functions, outs):
                        if nxt is not None:
                            state.send(nxt, slot, g, node)
                # no reference to a gradient may linger here: see _accumulate_data
                outs = grads_in = g = None
    finally:
        grad_mode._State.enabled = prev_mode
    if observed:
        emit("backward_end", results=[_snap(r) for r in results])
    return results if capture else None


def _check_nan(node: Node, outs: list) -> None:
    for i, g in enumerate(outs):
        if g is not None and g.dtype.is_floating_point and np.isnan(g._data).any():
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")
