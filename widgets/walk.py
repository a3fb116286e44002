"""Walk `grad_fn.next_functions` into the graph model, breadth first, without recursion.

The builder also remembers which live object became which id (backward nodes, leaves, saved
tensors, edges), so that engine records, which name live objects, can be turned into frames that
name ids. Those lookups hold the objects, so an id can never be confused with a recycled `id()`.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Iterable, Mapping
from typing import Any

from . import adapters
from .labels import VALUE_LIMIT, format_values
from .model import Graph
from .modules import ModuleMap


def dtype_name(t: Any) -> str | None:
    """`float32` for a minigrad or torch tensor (`minigrad.float32`, `torch.float32`)."""
    dtype = getattr(t, "dtype", None)
    return None if dtype is None else str(dtype).rsplit(".", 1)[-1]


class GraphBuilder:
    """Grows one Graph from any number of root tensors; ids continue across `add_roots` calls.

    names:   display names for tensors, `{"x": x, "h": h}`; named non-leaf tensors get a node.
    modules: a ModuleMap: parameter names, and which module created which node.
    inputs_of: backward node -> its forward inputs (from "node_created" records), which lets
             constant inputs show their values.
    """

    def __init__(
        self,
        *,
        names: Mapping[str, Any] | None = None,
        modules: ModuleMap | None = None,
        inputs_of: Mapping[Any, list] | None = None,
        saved: bool = True,
        value_limit: int = VALUE_LIMIT,
    ) -> None:
        self.graph = Graph()
        self.tensor_names: dict[Any, str] = {t: n for n, t in (names or {}).items()}
        self.modules = modules if modules is not None else ModuleMap(None)
        self.inputs_of = inputs_of or {}
        self.show_saved = saved
        self.value_limit = value_limit
        self.named_outputs: dict[Any, list] = defaultdict(list)
        for t in self.tensor_names:
            if t.grad_fn is not None:
                self.named_outputs[t.grad_fn].append(t)
        # live object -> id lookups (see module docstring)
        self.node_id: dict[Any, str] = {}  # backward and AccumulateGrad nodes
        self.tensor_id: dict[Any, str] = {}  # leaves, constants and drawn non-leaf tensors
        self.saved_id: dict[tuple[Any, str], str] = {}
        self.grad_edges: dict[tuple[Any, Any, int], list[str]] = defaultdict(list)
        self.seed_edges: dict[tuple[Any, int], list[str]] = defaultdict(list)
        self.accumulate_edge: dict[Any, str] = {}
        self._seeded: set[str] = set()  # tensor nodes already joined to their grad_fn

    # --- public ---------------------------------------------------------------------------
    def add_roots(self, roots: Iterable[Any]) -> Graph:
        """Add every tensor's graph (already drawn parts are reused) and return the model."""
        queue: deque = deque()
        for t in roots:
            if t.grad_fn is None:
                self._tensor_node(t)
                continue
            tid = self._tensor_node(t)
            self._seed(t, tid, self._visit(t.grad_fn, tuple(t.shape), queue))
        while queue:
            self._expand(queue.popleft(), queue)
        return self.graph

    def name_of(self, t: Any, default: str = "") -> str:
        """A tensor's display name: given names, then `t.name`, then its parameter name."""
        if t in self.tensor_names:
            return self.tensor_names[t]
        own = getattr(t, "name", None)
        if isinstance(own, str) and own:
            return own
        return self.modules.params.get(t, default)

    def model_id(self, obj: Any) -> str | None:
        """The id of a graph node or a tensor (a tensor that is not drawn: its grad_fn's)."""
        if adapters.is_tensor(obj):
            found = self.tensor_id.get(obj)
            return found if found is not None else self.node_id.get(obj.grad_fn)
        return self.node_id.get(obj)

    # --- walk -----------------------------------------------------------------------------
    def _visit(self, node: Any, shape: tuple | None, queue: deque) -> str:
        if node in self.node_id:
            return self.node_id[node]
        g = self.graph
        if adapters.is_accumulate(node):
            var = node.variable
            gnode = g.add_node(
                "accumulate",
                "AccumulateGrad",
                shape=tuple(var.shape),
                dtype=dtype_name(var),
                module=self.modules.param_module(var),
                seq=adapters.sequence_nr(node),
            )
            self.node_id[node] = gnode.id
            leaf = self._tensor_node(var)
            self.accumulate_edge[node] = g.add_edge(gnode.id, leaf, "accumulate").id
            return gnode.id
        shape = adapters.output_shape(node) or shape
        gnode = g.add_node(
            "backward",
            adapters.node_name(node),
            shape=shape,
            module=self.modules.module_of.get(node),
            seq=adapters.sequence_nr(node),
        )
        self.node_id[node] = gnode.id
        queue.append(node)
        return gnode.id

    def _expand(self, node: Any, queue: deque) -> None:
        g = self.graph
        nid = self.node_id[node]
        module = g.nodes[nid].module
        if self.show_saved:
            for slot in adapters.saved_slots(node):
                sid = g.add_node(
                    "saved",
                    slot.name,
                    shape=slot.shape,
                    freed=slot.freed,
                    hooked=slot.hooked,
                    module=module,
                ).id
                self.saved_id[(node, slot.name)] = sid
                g.add_edge(sid, nid, "saved")
        for t in self.named_outputs.get(node, ()):
            self._seed(t, self._tensor_node(t), nid)
        shapes = adapters.input_shapes(node)
        inputs = self.inputs_of.get(node) or []
        for i, (nxt, slot) in enumerate(node.next_functions):
            if nxt is None:
                const = inputs[i] if i < len(inputs) else None
                if const is not None or shapes[i] is not None or adapters.is_torch(node):
                    cid = (
                        self._tensor_node(const, module)
                        if const is not None
                        else g.add_node(
                            "constant", "constant", shape=shapes[i], module=module, placeholder=True
                        ).id
                    )
                    g.add_edge(nid, cid, "constant", i)
                continue
            target = self._visit(nxt, shapes[i] if slot == 0 else None, queue)
            self.grad_edges[(node, nxt, slot)].append(g.add_edge(nid, target, "grad", slot).id)

    def _seed(self, t: Any, tid: str, nid: str) -> None:
        """Join a drawn non-leaf tensor to its grad_fn: where its gradient enters the graph."""
        if tid in self._seeded:
            return
        self._seeded.add(tid)
        slot = getattr(t, "output_nr", 0)
        self.seed_edges[(t.grad_fn, slot)].append(self.graph.add_edge(tid, nid, "output", slot).id)

    def _tensor_node(self, t: Any, module: str | None = None) -> str:
        """The node for a tensor itself: a leaf, a constant, or a drawn non-leaf tensor."""
        if t in self.tensor_id:
            return self.tensor_id[t]
        if t.grad_fn is not None:
            kind, default = "tensor", "output"
        elif t.requires_grad:
            kind, default, module = "leaf", "", self.modules.param_module(t)
        else:
            kind, default = "constant", "constant"
            module = self.modules.input_module(t, module)
        name = self.name_of(t)
        node = self.graph.add_node(
            kind,
            name or default,
            placeholder=not name,  # no name of its own: the picture says what it is
            shape=tuple(t.shape),
            dtype=dtype_name(t),
            values=self._values(t),
            grad=self._values(adapters.stored_grad(t)),
            module=module,
        )
        self.tensor_id[t] = node.id
        return node.id

    def _values(self, t: Any | None) -> str | None:
        """Formatted values of a small tensor (a big one is not even copied out)."""
        if t is None or t.numel() > self.value_limit:
            return None
        return format_values(adapters.to_numpy(t), self.value_limit)
