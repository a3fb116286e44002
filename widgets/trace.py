"""Recording a forward or backward pass: the records, the graph they happened on, module info.

    with record_forward(model) as fwd:          # ops as they run, and which module ran them
        loss = model(x).pow(2).sum()
    with record_backward(loss, forward=fwd) as bwd:
        loss.backward()

minigrad reports its own steps (`minigrad.autograd.record_steps`); a torch pass is observed by
`torch_records`. torch is used only when the user's objects are torch's (it is then imported).
A trace shows itself with `.draw()` (view.py) and `.player()` (player.py): it imports them.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Mapping
from typing import Any

from minigrad.autograd import record_steps

from . import adapters, memory_sizes, torch_records
from .frames import make_frames
from .memory import MemoryTimeline
from .model import Graph
from .modules import ModuleMap
from .player import BackwardPlayer, ForwardPlayer, Player
from .view import GraphView
from .walk import GraphBuilder


class Trace:
    """A recorded pass: its records, the graph model they refer to, and module names."""

    kind = "trace"

    def __init__(self) -> None:
        self.records: list[dict] = []
        self.builder: GraphBuilder | None = None
        self.modules = ModuleMap(None)
        self.error: BaseException | None = None
        self._stack = contextlib.ExitStack()

    @property
    def graph(self) -> Graph:
        if self.builder is None:
            raise RuntimeError("nothing recorded yet: use the trace in a `with` block first")
        return self.builder.graph

    @property
    def classes(self) -> dict[str, str]:
        """Module path -> class name (empty when no module was given)."""
        return self.modules.classes

    def frames(self, lang: str | None = None) -> list[dict]:
        """One JSON-ready frame per record (see frames.py), worded in `lang`."""
        return make_frames(self.records, self.builder, lang)

    def draw(self, **options: Any) -> GraphView:
        """The static view of the recorded graph (options as for GraphView)."""
        return GraphView(self.graph, classes=self.classes, builder=self.builder, **options)

    def title(self, obj: Any) -> str:
        """THE name of a graph node, tensor or model id (`MulBackward0 #3`, `AccumulateGrad(x)`):
        the one the picture, the player's panel and its step texts use. A tensor that is not
        drawn is named by its grad_fn."""
        titles = self.graph.titles()
        nid = obj if isinstance(obj, str) else self.builder.model_id(obj)
        if nid not in titles:
            raise KeyError(f"{obj!r} is not part of this graph")
        return titles[nid]

    def memory(self, lang: str | None = None) -> MemoryTimeline:
        """The bytes held at each step of a recorded backward pass (memory.py)."""
        sizes = getattr(self, "saved_sizes", None)
        if sizes is None:
            raise TypeError("memory() reads a backward trace: record it with record_backward")
        return MemoryTimeline(self.records, self.builder, sizes, lang)

    def player(self, **options: Any) -> Player:
        """The animated player for this trace (options as for Player, e.g. `lang="zh"`)."""
        return (ForwardPlayer if self.kind == "forward" else BackwardPlayer)(self, **options)

    def __repr__(self) -> str:
        if self.builder is None:
            return f"<{type(self).__name__}: not recorded yet>"
        return f"<{type(self).__name__}: {len(self.records)} records; graph {self.graph.summary()}>"


def builder_for(
    forward: record_forward | None,
    module: Any = None,
    names: Mapping[str, Any] | None = None,
    saved: bool = True,
) -> GraphBuilder:
    """A GraphBuilder that knows what a recorded forward learned: which module made which node,
    parameter names, the values of constant inputs; else only `module`'s parameter names."""
    if forward is None:
        return GraphBuilder(names=names, modules=ModuleMap(module), saved=saved)
    return GraphBuilder(
        names={**(forward.names or {}), **(names or {})},
        modules=forward.modules,
        inputs_of=forward.builder.inputs_of,
        saved=saved,
    )


def _torch_loaded() -> bool:
    return "torch" in sys.modules


class record_forward(Trace):  # noqa: N801 - used like a function: `with record_forward(...)`
    """Record a forward pass as it builds the graph, op by op (and module by module)."""

    kind = "forward"

    def __init__(self, module: Any = None, *, names: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        self.module = module
        self.names = names

    def __enter__(self) -> record_forward:
        self.modules = self._stack.enter_context(ModuleMap(self.module))
        self._steps = self._stack.enter_context(record_steps())
        self._torch_records: list[dict] = []
        if _torch_loaded() and (self.module is None or adapters.is_torch(self.module)):
            self._stack.enter_context(torch_records.forward_mode(self._torch_records))
            if self.module is not None:  # its backward hooks, as the module calls fix them now
                self._stack.enter_context(torch_records.module_hook_spies(self.module))
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stack.close()
        self.records = [r for r in self._steps.records if r["kind"] == "node_created"]
        self.records += self._torch_records
        inputs_of = {
            r["node"]: r["inputs"] for r in self.records if not adapters.is_torch(r["node"])
        }
        self.builder = GraphBuilder(names=self.names, modules=self.modules, inputs_of=inputs_of)
        self.builder.add_roots(self.outputs())

    def outputs(self) -> list[Any]:
        """Tensors made in the block that no later op used: the roots to draw from."""
        used = {n for r in self.records for n, _ in r["node"].next_functions if n is not None}
        return [
            r["output"]
            for r in self.records
            if r["node"] not in used and r.get("output") is not None
        ]


class record_backward(Trace):  # noqa: N801 - used like a function: `with record_backward(...)`
    """Record every step of the backward passes run in the block, on the graph of `roots`.

    forward: a `record_forward` trace of the same graph, for module boxes and constant values.
    module:  an nn.Module, for parameter names only (use `forward=` for module boxes).
    catch:   record an exception raised in the block (e.g. a second backward without
             retain_graph) as the error frame and let the block end normally.
    """

    kind = "backward"

    def __init__(
        self,
        *roots: Any,
        forward: record_forward | None = None,
        module: Any = None,
        names: Mapping[str, Any] | None = None,
        catch: bool = False,
    ) -> None:
        super().__init__()
        if not roots:
            raise TypeError("record_backward needs the tensor(s) whose graph will run backward")
        self.roots = list(roots)
        self.forward, self.module, self.names = forward, module, names
        self.catch = catch

    def __enter__(self) -> record_backward:
        # walk now: a backward without retain_graph frees the saved tensors we want to show
        self.builder = builder_for(self.forward, self.module, self.names)
        self.modules = self.builder.modules
        self.builder.add_roots(self.roots)
        torch = any(adapters.is_torch(t) for t in self.roots)  # saved bytes: read them now
        self.saved_sizes = self._stack.enter_context(memory_sizes.watch(self.builder, torch))
        if torch:
            self._hooks = self._stack.enter_context(
                torch_records.BackwardHooks(self.records, self.roots, list(self.builder.tensor_id))
            )
        else:
            self._steps = self._stack.enter_context(record_steps())
        return self

    def __exit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> bool:
        self._stack.__exit__(exc_type, exc, tb)
        if hasattr(self, "_steps"):
            self.records = list(self._steps.records)
        self._add_higher_order_graph()
        self.error = exc
        return bool(self.catch and isinstance(exc, Exception))

    def _add_higher_order_graph(self) -> None:
        """After `create_graph=True`, leaves' `.grad` have graphs of their own: draw them too."""
        grads = []
        for t, tid in list(self.builder.tensor_id.items()):
            grad = adapters.stored_grad(t) if self.builder.graph.nodes[tid].kind == "leaf" else None
            if grad is not None and grad.grad_fn is not None:
                self.builder.tensor_names.setdefault(
                    grad, f"{self.builder.graph.nodes[tid].name or 'leaf'}.grad"
                )
                grads.append(grad)
        if grads:
            self.builder.add_roots(grads)
