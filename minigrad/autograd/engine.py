"""The backward engine, shaped like PyTorch's: count dependencies, run ready nodes newest first.

Read it top to bottom; each part is named after its counterpart in PyTorch's engine:

| here                  | PyTorch (engine.cpp)            | what                           |
|-----------------------|---------------------------------|--------------------------------|
| execute               | Engine::execute                 | one pass, start to end         |
| GraphTask             | GraphTask                       | a pass: counts, queue, buffers |
| compute_dependencies  | compute_dependencies            | edges pointing into each node  |
| init_to_execute       | GraphTask::init_to_execute      | what `inputs=` needs           |
| GraphTask.deliver     | InputBuffer::add, dependencies_ | sum a gradient in, count down  |
| run_plain             | thread_main                     | the loop, on numpy arrays      |
| run_instrumented      | thread_main                     | the loop, on Tensors           |
| evaluate_function     | evaluate_function               | captures, then the node        |
| call_function         | call_function                   | hooks around the node          |
| call_tensor_pre_hooks | call_tensor_pre_hooks           | tensor hooks, retain_grad      |
| call_node             | fn(inputs), validate_outputs    | the node's own computation     |
| accumulate_grad       | AccumulateGrad::apply           | a leaf's gradient into .grad   |
| accumulate            | AccumulateGrad::accumulateGrad  | how .grad is added to          |
| validate_outputs      | validate_outputs                | gradients' shapes and dtypes   |

A plain `loss.backward()` (nobody watching, no hooks on a node, no `inputs=`, no create_graph)
takes `run_plain`: gradients travel as numpy arrays and each node runs its formula on them
(`Node.apply_arrays`). Every other pass takes `run_instrumented`: gradients travel as Tensors,
for hooks to see. Without create_graph a node still runs the array formula a plain backward
runs, so what the explorer replays is what `loss.backward()` does; with it, the formula runs on
Tensors and is recorded. Each pass tells its reporter (`task.report`, autograd/report.py) what
happens; with nobody listening that reporter does nothing.

Ownership of gradient arrays, which lets `.grad` take an array instead of copying it (as
PyTorch steals a gradient nobody else holds): a formula hands the engine the arrays it returns
and keeps none of them (ops/formula.py). The engine gives each array to one input buffer. A
seed, a gradient a hook or a Tensor-path node has seen, and the second edge an array is sent
on travel as views, so `.grad` takes an array only when it is not a view (see `accumulate`).
"""

from __future__ import annotations

import heapq
import itertools
import sys
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..core import anomaly, grad_mode
from ..core.dtypes import from_numpy_dtype
from ..core.node import Node, edge_of, use_sequence_number
from ..core.shapes import dense, expandable, sum_to_array
from ..core.tensor import Tensor
from ..ops._record import mark_view
from ..ops.inplace import copy
from ..ops.shape import broadcast_shapes
from .hook_results import checked_tuple, checked_value
from .report import SILENT, reporter_for

GRAPH_ROOT = "torch::autograd::GraphRoot"  # the node PyTorch puts above several roots


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
    grads = validate_roots(task, grads)
    outer, _RUNNING.task = _RUNNING.task, task  # a hook may start a backward of its own
    task.report.backward_start()
    watched = task.report.listening or anomaly._State.enabled
    plain = not (create_graph or watched) and inputs is None
    prev_mode = grad_mode._State.enabled
    grad_mode.set_enabled(create_graph)
    try:
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            if plain:
                run_plain(task, grads)
            else:
                run_instrumented(task, grads)
    finally:
        grad_mode.set_enabled(prev_mode)
        _RUNNING.task = outer
    task.report.backward_end()
    return task.results if capture else None


class _Running(threading.local):
    task: GraphTask | None = None  # the pass this thread is running, for hooks that ask


_RUNNING = _Running()


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
    return node in task.deps and (task.reaches is None or node in task.reaches)


# --- one pass: its dependency counts, its ready queue, its input buffers ---------------------
def _accumulator(t: Tensor) -> bool:
    """Whether a leaf's AccumulateGrad is alive (PyTorch's try_get_grad_accumulator)."""
    ref = t._grad_acc_ref
    return ref is not None and ref() is not None


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
        self.roots, self.inputs = roots, inputs
        self.retain_graph, self.create_graph, self.capture = retain_graph, create_graph, capture
        edges = self.root_edges = [edge_of(t) for t in roots]
        for t in inputs or ():  # PyTorch's Identity for an input with no node yet (a number)
            if (t._grad_fn if t._base is None else t.grad_fn) is None and not _accumulator(t):
                use_sequence_number()
        if len(edges) != 1:
            use_sequence_number()  # PyTorch's GraphRoot above several roots (a number)
        self.root_nodes = (
            [n for n, _ in edges] if len(edges) == 1 else list(dict.fromkeys(n for n, _ in edges))
        )
        self.deps, order = compute_dependencies(self.root_nodes)
        for n, _ in self.root_edges:
            self.deps[n] = self.deps.get(n, 0) + 1  # the seed
        self.captures: dict[Node, list[tuple[int, int]]] = {}  # node -> (slot, result index)
        self.reaches = self.runs = None  # (without `inputs=`: every node)
        self.results: list = []
        if inputs is not None:
            for idx, t in enumerate(inputs):
                node, slot = edge_of(t)
                if node is not None:  # (no edge: no gradient can reach it, it gets None)
                    self.captures.setdefault(node, []).append((slot, idx))
            self.reaches, self.runs = init_to_execute(order, self.captures, capture)
            self.results = [None] * len(inputs)
        self.heap: list = []
        self.tie = itertools.count()
        self.buffers: dict[Node, list] = {}
        self.report = reporter_for(self)

    def deliver(self, node: Node, slot: int, grad) -> None:
        """Add `grad` (None still counts) to `node`'s input buffer; the node is ready once all
        its edges have delivered."""
        buf = self.buffers.get(node)
        if buf is None:
            buf = self.buffers[node] = [None] * node._num_outputs
        if grad is not None:
            before = buf[slot]
            buf[slot] = grad if before is None else self.summed(before, grad)
        left = self.deps[node] - 1
        self.deps[node] = left
        if left == 0:
            heapq.heappush(self.heap, (-node._seq_nr, next(self.tie), node))

    def summed(self, before, grad):
        """Two gradients for one input. PyTorch adds the second into the first in place when
        no graph is being built (InputBuffer::accumulate), which counts a version of it."""
        total = before + grad
        if not self.create_graph and type(total) is Tensor:
            total._version_counter.value = before._version_counter.value + 1
        return total

    def send(self, node: Node, slot: int, grad, source: Node | None) -> None:
        """`deliver`, reported, to a node the pass needs (`inputs=` may narrow it)."""
        if self.reaches is None or node in self.reaches:
            with self.report.sending(source, node, slot, grad):
                self.deliver(node, slot, grad)

    def release(self, node: Node) -> None:
        """Free what `node` saved, unless the graph is to be kept."""
        if not self.retain_graph:
            self.report.freed(node, node._release_variables())


def compute_dependencies(root_nodes: list) -> tuple[dict, list]:
    """How many edges point into each node below the roots, and every node reachable from
    them (roots first), walked iteratively. Works on torch's graphs too (the explorer)."""
    deps: dict = {}
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


def init_to_execute(order: list[Node], captures: dict, capture: bool) -> tuple[set, set]:
    """With `inputs=`: the nodes gradients must reach (those with a path to an input) and the
    nodes that must run (those sending to one of them; and, for backward, the inputs' own
    nodes: an AccumulateGrad writes .grad, a non-leaf's grad_fn runs and sends nothing on, as
    PyTorch's exec_info marks them). Without `inputs=` the task keeps None: everything."""
    reaches = _with_path_to(order, set(captures))
    runs = {n for n in reaches if any(c in reaches for c, _ in n.next_functions if c)}
    if not capture:
        runs.update(captures)
    return reaches, runs


def _with_path_to(order: list[Node], targets: set) -> set:
    """The nodes with a path to a target (the targets too), walked iteratively."""
    found: set = set()
    done: set = set()
    for start in order:
        stack = [(start, False)]
        while stack:
            node, expanded = stack.pop()
            if node in done:
                continue
            if expanded:
                done.add(node)
                if node in targets or any(n in found for n, _ in node.next_functions if n):
                    found.add(node)
                continue
            stack.append((node, True))
            stack.extend(
                (n, False) for n, _ in node.next_functions if n is not None and n not in done
            )
    return found


# --- the loops ----------------------------------------------------------------------------------
def run_plain(task: GraphTask, seeds: Sequence[Tensor]) -> None:
    """A plain `backward()`: nobody watches, nothing narrows the pass, no graph is built.

    The loop every `loss.backward()` runs, so the usual case of each step is written out here
    (a node with one gradient in, its formula on arrays; a leaf's first gradient taken as it
    is; a gradient delivered to a node's buffer); anything else goes the general way.

    A leaf's AccumulateGrad runs once the node that completed it has delivered all its
    gradients (each checked first, as PyTorch validates a node's outputs before passing any
    on), without a trip through the queue: it would come out next anyway (its priority is the
    highest, ties in arrival order)."""
    heap, buffers, deps, retain = task.heap, task.buffers, task.deps, task.retain_graph
    pop, push, tie = heapq.heappop, heapq.heappush, task.tie
    for (node, slot), g in zip(task.root_edges, seeds):
        task.deliver(node, slot, g._data.view())  # the caller's gradient stays the caller's
    while heap:
        node = pop(heap)[2]
        grads = buffers.pop(node)
        if node._is_accumulate_grad:  # (a root: other leaves are reached below)
            _accumulate_plain(task, node, grads)
            continue
        if node._pre_hooks or node._post_hooks or node._tensor_hooks or node._retain_hooks:
            outs = evaluate_function(task, node, [_tensor(g) for g in grads])
            outs = [None if g is None else g._data.view() for g in outs]  # a hook saw them
        elif node.runs_on_arrays and len(grads) == 1 and grads[0] is not None:
            outs = node.apply_arrays(grads)  # (the usual case; checked as it is delivered)
            if len(outs) != len(node.next_functions):
                validate_outputs(node, outs, True)  # raises PyTorch's error
        else:
            outs = call_node(task, node, grads)
        if not retain:
            node._release_variables()
        last = leaves = None
        for i, ((nxt, slot), g) in enumerate(zip(node.next_functions, outs)):
            if nxt is None:
                continue
            if g is not None:
                if g is last:
                    g = g.view()  # one array for two inputs (AddBackward0's g, g): one owner
                else:
                    last = g
                meta = node._input_meta[i]
                if g.shape != meta[0] or g.dtype != meta[1]:
                    g = fit_gradient(g, meta, True, node, i)
            buf = buffers.get(nxt)  # (GraphTask.deliver, written out)
            if buf is None:
                if nxt._num_outputs == 1:
                    buffers[nxt] = [g]
                else:
                    buffers[nxt] = buf = [None] * nxt._num_outputs
                    buf[slot] = g
            elif g is not None:
                before = buf[slot]
                buf[slot] = g if before is None else before + g
            left = deps[nxt] - 1
            deps[nxt] = left
            if left == 0:
                if not nxt._is_accumulate_grad:
                    push(heap, (-nxt._seq_nr, next(tie), nxt))
                elif leaves is None:
                    leaves = [nxt]
                else:
                    leaves.append(nxt)
        if leaves is not None:
            for leaf in leaves:
                _accumulate_plain(task, leaf, buffers.pop(leaf))


def _accumulate_plain(task: GraphTask, node: Node, grads: list) -> None:
    """A leaf's AccumulateGrad in a plain pass (it sends nothing on, and saves nothing)."""
    var = node.variable
    if var._backward_hooks or var._post_acc_hooks or node._pre_hooks or node._post_hooks:
        evaluate_function(task, node, [_tensor(g) for g in grads])
    elif not _took_first_grad(var, grads[0]):
        accumulate_grad(task, node, grads[0])


def _took_first_grad(var: Tensor, grad: Any) -> bool:
    """A leaf's first gradient taken as its `.grad` when that is plainly allowed: an array of
    the engine's own, contiguous as the leaf is, the leaf still a leaf that requires grad.
    False: `accumulate_grad` decides (it may copy, add, or refuse)."""
    if var._grad is not None or var._grad_fn is not None or not var._requires_grad:
        return False
    if type(grad) is not np.ndarray or not (  # (engine_owned, written out)
        grad.base is None or (type(grad.base) is np.ndarray and sys.getrefcount(grad.base) == 2)
    ):
        return False
    flags, leaf = grad.flags, var._data
    if not (flags.writeable and flags.c_contiguous and leaf.flags.c_contiguous):
        return False
    if grad.shape != leaf.shape:
        return False
    var._grad = Tensor._wrap(grad)
    return True


def run_instrumented(task: GraphTask, seeds: Sequence[Tensor]) -> None:
    """Every node through `evaluate_function`; gradients are Tensors, recorded under
    create_graph so that they can be differentiated again."""
    node = None
    try:
        if anomaly._State.enabled and anomaly._State.check_nan and len(task.root_edges) > 1:
            _check_nan(GRAPH_ROOT, seeds)  # PyTorch's GraphRoot node returns the seeds first
        for (root, slot), g in zip(task.root_edges, seeds):
            task.send(root, slot, g, None)
        while task.heap:
            node = heapq.heappop(task.heap)[2]
            outs = evaluate_function(task, node, task.buffers.pop(node))
            if outs is None:
                continue
            task.release(node)
            for (nxt, slot), g in zip(node.next_functions, outs):
                if nxt is not None:
                    task.send(nxt, slot, g, node)
    except Exception as err:
        task.report.error(node, err)
        if anomaly._State.enabled:  # where the failing node was made, as PyTorch warns
            if node is None:  # the seeds, which PyTorch's GraphRoot node returns
                anomaly.report_error(GRAPH_ROOT, anomaly.forward_trace())
            else:  # whatever failed while the node ran: hooks and captures too
                anomaly.report_error(node.name(), node._anomaly_trace)
        raise


# --- one node -----------------------------------------------------------------------------------
def evaluate_function(task: GraphTask, node: Node, grads: list) -> list | None:
    """A ready node's turn: its tensor hooks, what autograd.grad captures here, then (when the
    pass needs it) the node itself. Returns its gradients, or None when it does not run."""
    task.report.node_start(node, grads)
    call_tensor_pre_hooks(task, node, grads)
    for slot, idx in task.captures.get(node, ()):  # (a non-leaf in backward(inputs=) retains
        task.results[idx] = grads[slot]  # its grad: its retain_grad hook above wrote .grad)
        task.report.capture(node, slot, idx, grads[slot])
    if task.runs is not None and node not in task.runs:
        return None
    outs = call_function(task, node, grads)
    if anomaly._State.enabled and anomaly._State.check_nan:
        _check_nan(node.name(), outs)
    task.report.node_run(node, grads, outs)
    return outs


def call_tensor_pre_hooks(task: GraphTask, node: Node, grads: list) -> None:
    """A tensor's own hooks on the gradient reaching it (they may replace it), then retain_grad.
    A leaf's hooks are its AccumulateGrad's `_tensor_hooks`, as in PyTorch."""
    for slot, hooks in (node._tensor_hooks or {}).items():
        for fn in tuple(hooks.values()):  # (an output that got no gradient: called with None)
            result = call_hook(task, "tensor", node, slot, fn, grads[slot])
            if result is not None:
                grads[slot] = checked_value(fn, grads[slot], result)
    for slot, ref in tuple((node._retain_hooks or {}).items()):  # (storing .grad may regenerate
        tensor = ref()  # a stale view's history, and retain_grad moves to the new node)
        if grads[slot] is not None and tensor is not None:
            accumulate(tensor, grads[slot], task.create_graph)
            task.report.hook("retain_grad", node, slot, None, grads[slot], None)


def call_function(task: GraphTask, node: Node, grads: list) -> list:
    """The node's pre-hooks, the node (`call_node`), then its post-hooks. Without create_graph
    the node runs on arrays, as in a plain backward; its gradients come back as Tensors."""
    for fn in tuple((node._pre_hooks or {}).values()):
        result = call_hook(task, "pre", node, None, fn, tuple(grads))
        if result is not None:
            grads[:] = checked_tuple(fn, tuple(grads), result)
    if task.create_graph:
        outs = call_node(task, node, grads)
    else:
        arrays = call_node(task, node, [None if g is None else g._data.view() for g in grads])
        outs = [_as_gradient(g, grads) for g in arrays]
    if node.masks_unneeded:  # what nothing needs is not computed: hooks see None there
        needed = task.reaches
        outs = [
            g if n is not None and (needed is None or n in needed) else None
            for (n, _), g in zip(node.next_functions, outs)
        ]
    for fn in tuple((node._post_hooks or {}).values()):
        result = call_hook(task, "post", node, None, fn, tuple(outs), tuple(grads))
        if result is not None:
            outs = checked_tuple(fn, tuple(outs), result)
    return outs


def call_hook(task: GraphTask, kind: str, node: Node, slot: int | None, fn: Any, *args: Any):
    """Run one hook, and report what it was handed and what it returned."""
    result = fn(*args)
    task.report.hook(kind, node, slot, fn, args[0], result)
    return result


def call_node(task: GraphTask, node: Node, grads: list) -> list:
    """The node's own computation, its gradients checked by `validate_outputs`. Gradients are
    numpy arrays, or Tensors under create_graph (the formula is then recorded)."""
    if node._is_accumulate_grad:
        return accumulate_grad(task, node, grads[0])
    for g in grads:
        if g is None:  # an output that got no gradient: zeros, unless none got any
            if all(g is None for g in grads):
                return [None] * len(node.next_functions)
            grads = node._materialize(grads, not task.create_graph)
            break
    # (gradients the pass does not need are not computed in PyTorch, so not checked either)
    needed = task.reaches if node.masks_unneeded else None
    if task.create_graph:
        return validate_outputs(node, node.apply(tuple(grads)), False, needed)
    if node.runs_on_arrays:
        return validate_outputs(node, node.apply_arrays(grads), True, needed)
    outs = validate_outputs(node, node.apply(tuple(_tensor(g) for g in grads)), False, needed)
    return [None if g is None else g._data.view() for g in outs]  # the node's code may keep it


def accumulate_grad(task: GraphTask, node: Node, grad) -> list:
    """A leaf's AccumulateGrad: its gradient into `.grad`, then the leaf's post-accumulate-grad
    hooks. It sends nothing on."""
    var = node.variable
    if grad is None:
        return []
    if var._grad_fn is not None:  # (detach_(), then an in-place op gave it a history)
        raise RuntimeError("leaf variable has been moved into the graph interior")
    # (not after requires_grad_(False) or detach_(); the hooks below still run)
    if var._requires_grad or var.requires_grad:
        if task.report is SILENT:
            accumulate_leaf(var, grad, task.create_graph)
        else:
            with task.report.accumulating(node, grad):
                accumulate_leaf(var, grad, task.create_graph)
    hooks = var._post_acc_hooks
    if hooks:
        for fn in tuple(hooks.values()):
            call_hook(task, "post_accumulate", node, 0, fn, var)
    return []


# --- the rules of .grad, and the checks ---------------------------------------------------------
def accumulate(t: Tensor, grad, create_graph: bool) -> None:
    """Add a gradient (array or Tensor) into `t.grad`, by PyTorch's rules.

    A leaf (its AccumulateGrad): the first gradient becomes `.grad`, taken as it is when the
    engine owns it (an array that is not a view; see the module docstring), else copied, and
    under create_graph copied by a recorded op (CopyBackwards); later ones add in place, or
    out of place under create_graph. A non-leaf (`retain_grad`, `backward(inputs=[h])`): a
    clone first, then out-of-place sums.
    """
    if t.grad_fn is None:
        accumulate_leaf(t, grad, create_graph)
    elif t._grad is None:
        t._grad = grad.clone() if create_graph else grad.detach().clone()
    else:
        t._grad = t._grad + grad


def accumulate_leaf(t: Tensor, grad, create_graph: bool) -> None:
    """`accumulate` for a leaf (AccumulateGrad's accumulateGrad)."""
    data = grad._data if isinstance(grad, Tensor) else grad
    if t._grad is None:
        if isinstance(grad, np.generic):  # (numpy's 0-d reductions give scalars)
            grad = data = np.array(grad)
        if not create_graph and engine_owned(grad) and obeys_layout_contract(data, t._data):
            t._grad = Tensor._wrap(grad)  # the engine's own array, laid out as the leaf is
        else:
            t._grad = clone_obey_contract(grad, t._data, create_graph)
    elif create_graph:
        t._grad = t._grad + grad
    else:
        if data.shape != t._grad._data.shape:  # (the leaf changed shape: t_() under no_grad)
            shape = broadcast_shapes(t._grad._data.shape, data.shape)
            if shape != t._grad._data.shape:
                raise RuntimeError(
                    f"output with shape {list(t._grad.shape)} doesn't match the broadcast "
                    f"shape {list(shape)}"
                )
        t._grad._data += data
        t._grad._bump()


def engine_owned(grad: Any) -> bool:
    """Whether nobody but the engine holds the gradient's memory, so that `.grad` may take it
    as it is (PyTorch steals a gradient whose use_count says the same): an array of its own,
    or a view of one nothing else refers to (sum_to's sum viewed without its leading dims, a
    product transposed); not the caller's seed, nor one a hook kept."""
    if type(grad) is not np.ndarray or not grad.flags.writeable:
        return False
    return grad.base is None or (
        type(grad.base) is np.ndarray and sys.getrefcount(grad.base) == 2  # (the view's own)
    )


def obeys_layout_contract(grad: np.ndarray, leaf: np.ndarray) -> bool:
    """PyTorch's test for keeping a first gradient as it is: laid out as the leaf (strides of
    dims of size > 1 equal; a dense leaf) or contiguous. A leaf reshaped in place under
    no_grad (t_(), unsqueeze_()) fails it, unless the gradient is 0-d."""
    if grad.strides == leaf.strides and grad.shape == leaf.shape:
        return dense(leaf) or grad.flags.c_contiguous  # (the usual case)
    if not dense(leaf):
        return grad.flags.c_contiguous
    if grad.ndim > leaf.ndim:
        return False
    for n, g_step, l_step in zip(grad.shape, grad.strides, leaf.strides):
        if (n != 1 and g_step != l_step) or (n == 1 and g_step == 0):
            return False
    return True


def clone_obey_contract(grad: Any, leaf: np.ndarray, create_graph: bool) -> Tensor:
    """PyTorch's clone_obey_contract: the gradient copied into a new tensor with the leaf's
    shape and strides when the leaf is dense (broadcasting, or refusing as copy_ does), else a
    contiguous clone. Under create_graph the copy is recorded (CopyBackwards)."""
    data = grad._data if isinstance(grad, Tensor) else grad
    if not create_graph and data.shape == leaf.shape and leaf.flags.c_contiguous:
        return Tensor._wrap(np.array(data, order="C"))  # (the usual case: a contiguous leaf)
    if dense(leaf):
        if data.shape != leaf.shape:
            shape = broadcast_shapes(leaf.shape, data.shape)
            if shape != leaf.shape:
                raise RuntimeError(
                    f"output with shape {list(leaf.shape)} doesn't match the broadcast shape "
                    f"{list(shape)}"
                )
        out = np.empty_like(leaf, dtype=data.dtype)
    else:
        out = np.empty(data.shape, data.dtype)
    if create_graph:
        return copy(Tensor._wrap(out), grad)
    np.copyto(out, data)
    return Tensor._wrap(out)


def validate_outputs(
    node: Node, outs: tuple, arrays: bool = False, needed: set | None = None
) -> list:
    """Like PyTorch's validate_outputs: reduce broadcast gradients, cast dtypes, reject the rest.

    `arrays`: the gradients are numpy arrays (a formula run without create_graph). `needed`:
    the nodes `inputs=` leaves the pass (None: all); gradients for others are left as they are
    (the caller drops them)."""
    edges, metas = node.next_functions, node._input_meta
    if len(outs) != len(edges):
        raise RuntimeError(
            f"function {node.name()} returned an incorrect number of gradients "
            f"(expected {len(edges)}, got {len(outs)})"
        )
    fixed = list(outs)
    for i, g in enumerate(outs):
        if g is None or edges[i][0] is None or (needed is not None and edges[i][0] not in needed):
            continue
        if not arrays and not isinstance(g, Tensor):
            raise TypeError(
                f"function {node.name()} returned a gradient of type "
                f"{type(g).__name__} at index {i}, expected a Tensor or None"
            )
        data, (shape, np_dtype) = (g if arrays else g._data), metas[i]
        if data.shape != shape or data.dtype != np_dtype:  # (the usual case: nothing to do)
            fixed[i] = fit_gradient(g, metas[i], arrays, node, i)
    return fixed


def validate_roots(task: GraphTask, seeds: Sequence[Tensor]) -> list[Tensor]:
    """The seeds checked as PyTorch's engine checks them first: against what each root's node
    expects (a leaf reshaped in place under no_grad still expects its old shape)."""
    fitted = list(seeds)
    for i, (t, (node, _)) in enumerate(zip(task.roots, task.root_edges)):
        if node is None:
            continue
        if node._is_accumulate_grad:
            meta = node._input_meta[0]
        else:
            meta = t._made_meta or (t._data.shape, t._data.dtype)
        data = fitted[i]._data
        if data.shape != meta[0] or data.dtype != meta[1]:
            fitted[i] = fit_gradient(fitted[i], meta, False, None, i)
    return fitted


def fit_gradient(g: Any, meta: tuple, arrays: bool, node: Node | None, i: int) -> Any:
    """`g` summed to the expected shape where it broadcasts to it and cast to the expected
    dtype; PyTorch's error if its shape is neither (naming the node that returned it, if not
    a seed)."""
    data = g if arrays else g._data
    shape, np_dtype = meta
    if data.shape == shape and data.dtype == np_dtype:
        return g  # the common case: nothing to check further
    if data.shape != shape:
        if not expandable(shape, data.shape):
            who = "" if node is None else f"Function {node.name()} returned an "
            raise RuntimeError(
                f"{who}invalid gradient at index {i} - got {list(data.shape)} but expected "
                f"shape compatible with {list(shape)}"
            )
        g = sum_to_array(g, shape) if arrays else g.sum_to_size(shape)
    if arrays:
        return g.astype(np_dtype, copy=False)
    return g if g._data.dtype == np_dtype else g.to(from_numpy_dtype(np_dtype))


def _check_nan(name: str, outs: Sequence) -> None:
    for i, g in enumerate(outs):
        if g is not None and g.dtype.is_floating_point and np.isnan(g._data).any():
            raise RuntimeError(f"Function '{name}' returned nan values in its {i}th output.")


def _as_gradient(g: np.ndarray | None, incoming: list) -> Tensor | None:
    """A node's array result as a Tensor; where PyTorch's is a view, so is this one, made with
    grad mode off (writing it in place later under grad mode is refused): a view of a
    gradient the node was handed (SumBackward0's expand, ViewBackward0's reshape), or sum_to's
    sum (which keeps its dims) viewed without the leading ones."""
    out = _tensor(g)
    if g is not None and g.base is not None:
        for source in incoming:
            if source is not None and np.may_share_memory(g, source._data):
                return mark_view(out, source)
        base = g.base  # (a numba kernel's array has numba's memory record as its base)
        lead = base.ndim - g.ndim if type(base) is np.ndarray else 0
        if lead > 0 and base.size == g.size and base.shape[lead:] == g.shape:
            return mark_view(out, Tensor._wrap(base))
    return out


def _tensor(g) -> Tensor | None:
    return None if g is None or isinstance(g, Tensor) else Tensor._wrap(g)
