"""The explorer on a learner's OWN autograd engine: draw its graph, replay its backward pass.

A learner who writes a micrograd-style engine (a class wrapping a number or a numpy array,
operators that record their inputs and a backward closure, a topological order) can look at it
with the same pictures and players as minigrad and PyTorch:

    draw_own(loss, names={"w": w})                 # the static picture
    with record_own_backward(loss) as bwd:
        loss.backward()                            # the learner's own backward
    bwd.player()                                   # replayed step by step (save_html works)
    bwd.order()                                    # node titles, in the order `_backward` ran

The protocol: every object reachable from the root has
- `data`: a number or a numpy array (its value);
- `grad`: a number, a numpy array or None (filled by the learner's backward);
- `parents` (or micrograd's `_prev`): the objects it was made from (empty for a leaf);
- `op` (or micrograd's `_op`): the op that made it, "" for a leaf;
- `_backward`: a callable taking no arguments that reads `self.grad` and adds into each parent's
  `.grad` (a leaf's may be missing or do nothing);
- optionally `name` or `label`: a display name.
An object without one of these is refused with a TypeError naming the attribute. Parents in a
tuple or list keep the picture the same every run; a set (micrograd's `_prev`) is iterated in
memory order, so node numbers may change from run to run.

How it is drawn: each object made by an op is one node titled after its op, `mul._backward`
(symbols become words: + add, - sub, * mul, / div, @ matmul, ** pow, so `**2` is `pow2`; a word
op stays as written, `tanh._backward`), numbered `#k` in creation order when several share a
title. Leaves are drawn as leaves, joined straight to the nodes that use them: the learner's
engine has no AccumulateGrad, its `_backward` writes the leaf's `.grad` itself. The root (and any
object given in `names`) is drawn as a tensor too.

How it is replayed: `record_own_backward` walks the graph when the block starts and replaces
each object's `_backward` by a wrapper (an instance attribute, put back when the block ends, even
on an error). A wrapper notes every `.grad` its node touches before and after the real call,
and reports the call in the engine's vocabulary (minigrad/core/events.py): `node_start`,
`node_run`, one `edge` per distinct parent carrying what the call added to that parent's `.grad`
(after minus before: a parent listed twice, `a * a`, gets one edge with the sum), `buffer_sum`
when a non-leaf parent already held a nonzero gradient (from this pass, or left over from an
earlier one), `accumulate` when the parent is a leaf (its `node` is None: no AccumulateGrad ran,
so the leaf is not marked done), `error` when the call raised (the exception goes on; so does a
`.grad` replaced by one of a shape no sum can give, a ValueError). A leaf's `_backward` is
wrapped too: it shows in `order()`, and adds no records. A pass begins with the first call of
an op node (or the root's `_backward` called again after it ran: `backward()` once more); the
seed edge is the root's `.grad` when its `_backward` runs, wherever that is in the order. The
learner's engine has no ready queue, so no `ready` records and queues stay empty; dependency
counts are the number of users of each object, as PyTorch's engine counts them. The explorer's
frames, player and `save_html` then replay these records as they replay minigrad's (the step
texts keep the engine's words: "returned grad_inputs" is what the `_backward` added).

Walks are iterative (a 20,000-node chain is fine) and never hash the learner's objects (their
class may define `__eq__`): objects are looked up by `id()`, and the proxies keep them alive.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from minigrad.core import events

from .trace import Trace
from .view import MAX_NODES, GraphView
from .walk import GraphBuilder

# an op written as a symbol -> the word a node title uses
OP_WORDS = {"+": "add", "-": "sub", "*": "mul", "/": "div", "@": "matmul", "**": "pow"}


def node_title(op: str) -> str:
    """`*` -> `mul._backward`, `**2` -> `pow2._backward`, `tanh` -> `tanh._backward`."""
    op = op.strip()
    if op in OP_WORDS:
        word = OP_WORDS[op]
    elif op.startswith("**"):
        word = "pow" + op[2:].strip()
    else:
        word = op or "op"
    return f"{word}._backward"


def _first_attr(obj: Any, names: tuple[str, ...], what: str) -> Any:
    """The first of `names` that `obj` has, or a TypeError that names them."""
    for name in names:
        if hasattr(obj, name):
            return getattr(obj, name)
    wanted = " or ".join(f"`{n}`" for n in names)
    raise TypeError(
        f"{type(obj).__name__} object has no {wanted} ({what}): the explorer reads your engine's "
        "objects through data, grad, parents/_prev, op/_op and _backward (see widgets.own_engine)"
    )


def _as_array(value: Any, obj: Any, attr: str) -> np.ndarray:
    """A number or array as a numpy array; anything else is refused by name."""
    arr = np.asarray(value)
    if arr.dtype.kind not in "biufc":
        raise TypeError(
            f"{type(obj).__name__}.{attr} should be a number or a numpy array, "
            f"not {type(value).__name__}"
        )
    return arr


def snap(value: Any) -> np.ndarray | None:
    """A copy of a `.grad` as it is now (None stays None)."""
    return None if value is None else np.array(value, copy=True)


def added(before: np.ndarray | None, after: np.ndarray | None) -> np.ndarray | None:
    """What a call added to a `.grad`: after minus before (None when it is still None).
    A `.grad` replaced by one of a shape that cannot have come from adding is refused."""
    if after is None:
        return None
    if before is None:
        return after
    try:
        np.broadcast_shapes(before.shape, after.shape)
    except ValueError:
        raise ValueError(
            f"a .grad went from shape {list(before.shape)} to {list(after.shape)}: "
            "a `_backward` should add into it, keeping its shape"
        ) from None
    return np.asarray(after - before)


class _Values:
    """Array-like enough for the explorer's labels: shape, numel, detach().numpy()."""

    def __init__(self, arr: np.ndarray) -> None:
        self.arr = arr
        self.shape = arr.shape

    def numel(self) -> int:
        return int(self.arr.size)

    def detach(self) -> _Values:
        return self

    def numpy(self) -> np.ndarray:
        return self.arr


class OwnTensor:
    """One of the learner's objects, seen as the explorer sees a tensor (`grad_fn`, `shape`,
    `requires_grad`, `.grad`, ...). It holds the object, so its `id()` stays its own."""

    requires_grad = True
    retains_grad = False

    def __init__(self, obj: Any) -> None:
        self.obj = obj
        data = _first_attr(obj, ("data",), "its value")
        arr = _as_array(data, obj, "data")
        self.shape: tuple[int, ...] = arr.shape
        self.dtype = arr.dtype if isinstance(data, np.ndarray) else None
        _first_attr(obj, ("grad",), "its gradient, None before backward")
        parents = _first_attr(obj, ("parents", "_prev"), "its inputs, empty for a leaf")
        try:
            self.inputs: list[Any] = list(parents)
        except TypeError:
            raise TypeError(
                f"{type(obj).__name__}'s parents/_prev should be an iterable of objects, "
                f"not {type(parents).__name__}"
            ) from None
        self.op = str(_first_attr(obj, ("op", "_op"), "the op that made it")) if self.inputs else ""
        if self.inputs and not callable(_first_attr(obj, ("_backward",), "its backward step")):
            raise TypeError(f"{type(obj).__name__}._backward should be callable")
        self.name = _own_name(obj)
        self.parents: list[OwnTensor] = []
        self.grad_fn: OwnNode | None = None
        self.sink: LeafSink | None = None

    @property
    def grad(self) -> _Values | None:
        """The object's `.grad` now, array-like (for the leaves' `.grad` label)."""
        grad = self.obj.grad
        return None if grad is None else _Values(_as_array(grad, self.obj, "grad"))

    def numel(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    def detach(self) -> _Values:
        return _Values(np.array(self.obj.data, copy=True))

    def target(self) -> OwnNode | LeafSink:
        """Where a gradient for this object goes: its node, or its leaf's sink."""
        return self.grad_fn if self.grad_fn is not None else self.sink


def _own_name(obj: Any) -> str:
    for attr in ("name", "label"):
        value = getattr(obj, attr, None)
        if isinstance(value, str) and value:
            return value
    return ""


class OwnNode:
    """The backward step of an object made by an op, seen as a graph node (`next_functions`,
    `name()`, a sequence number: its place in creation order)."""

    def __init__(self, tensor: OwnTensor, seq: int) -> None:
        self.tensor = tensor
        self._sequence_nr = seq
        self._title = node_title(tensor.op)
        self._input_meta = tuple((p.shape,) for p in tensor.parents)

    @property
    def next_functions(self) -> tuple[tuple[OwnNode | LeafSink, int], ...]:
        """Each parent's node (or leaf sink), input slot 0: the edges gradients take."""
        return tuple((p.target(), 0) for p in self.tensor.parents)

    def name(self) -> str:
        return self._title


class LeafSink:
    """Where gradients for a leaf arrive: drawn as the leaf itself (OwnBuilder)."""

    next_functions = ()

    def __init__(self, tensor: OwnTensor) -> None:
        self.variable = tensor

    def name(self) -> str:
        return self.variable.name or "leaf"


class OwnGraph:
    """The learner's objects reachable from some roots, as proxies, walked without recursion."""

    def __init__(self, roots: Iterable[Any]) -> None:
        self.tensors: dict[int, OwnTensor] = {}  # id(learner object) -> its proxy
        self.topo: list[OwnTensor] = []  # parents before the objects made from them
        self._entered: set[OwnTensor] = set()
        for root in roots:
            self._walk(root)
        for t in self.topo:
            if not t.parents:
                t.sink = LeafSink(t)
        for seq, t in enumerate(self.topo):
            if t.parents:
                t.grad_fn = OwnNode(t, seq)

    def _proxy(self, obj: Any) -> OwnTensor:
        found = self.tensors.get(id(obj))
        if found is None:
            found = self.tensors[id(obj)] = OwnTensor(obj)
        return found

    def _walk(self, root: Any) -> None:
        """Depth first, parents before the objects made from them, on an explicit stack."""
        first = self._proxy(root)
        if first in self._entered:
            return
        self._entered.add(first)
        stack: list[tuple[OwnTensor, int]] = [(first, 0)]
        while stack:
            t, i = stack[-1]
            if i == 0:  # distinct parents, in the order the object lists them
                t.parents = list({id(p): self._proxy(p) for p in t.inputs}.values())
            if i < len(t.parents):
                stack[-1] = (t, i + 1)
                p = t.parents[i]
                if p not in self._entered:
                    self._entered.add(p)
                    stack.append((p, 0))
            else:
                stack.pop()
                self.topo.append(t)

    def find(self, obj: Any) -> OwnTensor | None:
        """The proxy of a learner object of this graph (None for any other object)."""
        found = self.tensors.get(id(obj))
        return found if found is not None and found.obj is obj else None

    def proxies(self, names: Mapping[str, Any] | None) -> dict[str, OwnTensor]:
        """`names` with the proxies in place of the objects (each must be in the graph)."""
        out = {}
        for name, obj in (names or {}).items():
            found = self.find(obj)
            if found is None:
                raise ValueError(f"names[{name!r}] is not part of the graph being drawn")
            out[name] = found
        return out

    def dependencies(self, root: OwnTensor) -> dict[Any, int]:
        """How many gradients each node (or leaf sink) receives in a pass from `root`."""
        deps: dict[Any, int] = {}
        for t in self.topo:
            for p in t.parents:
                deps[p.target()] = deps.get(p.target(), 0) + 1
        deps[root.target()] = deps.get(root.target(), 0) + 1
        return deps


class OwnBuilder(GraphBuilder):
    """A GraphBuilder for proxies: a leaf's sink becomes the leaf's own node (no AccumulateGrad),
    and the learner's objects themselves are accepted wherever a tensor or node is."""

    def __init__(self, own: OwnGraph, names: Mapping[str, Any] | None = None) -> None:
        super().__init__(names=own.proxies(names))
        self.own = own

    def _visit(self, node: Any, shape: tuple | None, queue: Any) -> str:
        if isinstance(node, LeafSink):
            tid = self.node_id[node] = self._tensor_node(node.variable)
            return tid
        return super()._visit(node, shape, queue)

    def model_id(self, obj: Any) -> str | None:
        if not isinstance(obj, (OwnTensor, OwnNode, LeafSink)):
            obj = self.own.find(obj)
            if obj is None:
                return None
        return super().model_id(obj)

    def node_title_id(self, t: OwnTensor) -> str:
        """The id of what runs for `t`: its op node, or the leaf itself (also a lone root)."""
        found = self.node_id.get(t.target())
        return found if found is not None else self.tensor_id[t]


def _builder(roots: Iterable[Any], names: Mapping[str, Any] | None) -> OwnBuilder:
    roots = list(roots)
    own = OwnGraph(roots)
    builder = OwnBuilder(own, names)
    builder.add_roots([own.find(r) for r in roots])
    return builder


def draw_own(
    *roots: Any,
    names: Mapping[str, Any] | None = None,
    lang: str | None = None,
    legend: bool = True,
    max_nodes: int = MAX_NODES,
    rankdir: str = "TB",
) -> GraphView:
    """The static picture of the graph behind `roots`, objects of the learner's own engine
    (the protocol is in this module's docstring): op nodes, leaves, the roots.

    names: `{"h": h}` labels objects (a named object made by an op is drawn as a tensor too);
    lang, legend, max_nodes, rankdir: as for `draw_graph`.
    """
    if not roots:
        raise TypeError("draw_own needs at least one object of your engine")
    builder = _builder(roots, names)
    return GraphView(
        builder.graph,
        builder=builder,
        lang=lang,
        legend=legend,
        max_nodes=max_nodes,
        rankdir=rankdir,
    )


def _lives_on_instance(obj: Any) -> bool:
    """Whether `obj._backward` is the object's own (instance dict or slot), not its class's."""
    if "_backward" in getattr(obj, "__dict__", {}):
        return True
    return any("_backward" in getattr(c, "__slots__", ()) for c in type(obj).__mro__)


class record_own_backward(Trace):  # noqa: N801 - used like a function: `with record_own_backward(...)`
    """Record the learner's own backward from `root`: every `_backward` call, as engine records.

    with record_own_backward(loss, names={"w": w}) as bwd:
        loss.backward()
    bwd.player(lang="zh")
    """

    kind = "backward"

    def __init__(self, root: Any, names: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        self.root = root
        self.names = names
        self.calls: list[str] = []  # model ids of the nodes whose `_backward` ran, in order
        self._open = False  # a pass has begun and not ended
        self._root_ran = False  # the root's own `_backward` has run in the open pass
        self._pending: list[list[np.ndarray | None]] = []  # parents' .grad before each call
        self._failed: BaseException | None = None

    @property
    def own(self) -> OwnGraph:
        return self.builder.own

    def __enter__(self) -> record_own_backward:
        self.builder = _builder([self.root], self.names)
        self._root = self.own.find(self.root)
        try:
            for t in self.own.topo:
                if hasattr(t.obj, "_backward"):
                    self._wrap(t)
        except BaseException:
            self._stack.close()
            raise
        return self

    def __exit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> bool:
        self._stack.close()  # every `_backward` is the learner's again
        if self._open:
            if exc is None:
                self._end_pass()
            elif exc is not self._failed:  # raised outside any `_backward`: the pass failed
                self._emit(events.error(node=None, error=type(exc).__name__, message=str(exc)))
        self.error = exc
        return False

    def order(self, lang: str | None = None) -> list[str]:
        """The explorer's titles of the nodes (leaves included), in the order their `_backward`
        ran: an op node is `mul._backward`, a leaf its own name."""
        titles = self.graph.titles(lang)
        return [titles[nid] for nid in self.calls]

    # --- the wrapper's moments ------------------------------------------------------------
    def _wrap(self, t: OwnTensor) -> None:
        obj = t.obj
        original = obj._backward
        own = _lives_on_instance(obj)

        def run() -> None:
            self._before(t)
            try:
                original()
                self._after(t)
            except BaseException as err:
                self._fail(t, err)
                raise

        obj._backward = run
        self._stack.callback(_restore, obj, original, own)

    def _emit(self, record: dict) -> None:
        self.records.append(record)

    def _before(self, t: OwnTensor) -> None:
        self.calls.append(self.builder.node_title_id(t))
        if t.grad_fn is None:  # a leaf's `_backward`: nothing reaches the explorer
            return
        root = t is self._root
        if self._open and root and self._root_ran:  # backward() called again
            self._end_pass()
        if not self._open:
            self._start_pass()
        node = t.grad_fn
        grad = snap(t.obj.grad)
        if root:
            self._root_ran = True
            self._emit(events.edge(source=None, target=node, slot=0, grad=grad))
        self._emit(events.node_start(node=node, grad_outputs=[grad], queue=[]))
        self._pending.append([snap(p.obj.grad) for p in t.parents])

    def _after(self, t: OwnTensor) -> None:
        if t.grad_fn is None:
            return
        node = t.grad_fn
        befores = self._pending[-1]  # popped once the call is reported (or by _fail)
        afters = [snap(p.obj.grad) for p in t.parents]
        sent = [added(b, a) for b, a in zip(befores, afters)]
        self._pending.pop()
        grad = snap(t.obj.grad)
        self._emit(events.node_run(node=node, grad_outputs=[grad], grad_inputs=sent))
        for p, before, grad_in, after in zip(t.parents, befores, sent, afters):
            self._emit(events.edge(source=node, target=p.target(), slot=0, grad=grad_in))
            if grad_in is None:
                continue
            if p.grad_fn is None:
                self._emit(
                    events.accumulate(
                        node=None, variable=p, before=before, added=grad_in, after=after
                    )
                )
            elif before is not None and np.any(before != 0):
                self._emit(
                    events.buffer_sum(
                        node=p.grad_fn, slot=0, before=before, added=grad_in, after=after
                    )
                )

    def _fail(self, t: OwnTensor, err: BaseException) -> None:
        if t.grad_fn is not None:
            self._pending.pop()
        if not self._open:  # a leaf's `_backward` failed first
            self._start_pass()
        self._failed = err
        node = t.target()
        self._emit(events.error(node=node, error=type(err).__name__, message=str(err)))
        self._open = False

    def _start_pass(self) -> None:
        self._open, self._root_ran = True, False
        self._emit(
            events.backward_start(
                roots=[self._root],
                root_nodes=[self._root.target()],
                retain_graph=None,
                create_graph=None,
                inputs=None,
                dependencies=self.own.dependencies(self._root),
                capture=False,
            )
        )

    def _end_pass(self) -> None:
        self._emit(events.backward_end(results=[]))
        self._open = False


def _restore(obj: Any, original: Any, own: bool) -> None:
    """Put the learner's `_backward` back: the instance's own, or none (the class's shows)."""
    if own:
        obj._backward = original
    else:
        del obj._backward
