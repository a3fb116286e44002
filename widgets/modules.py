"""Which module created which backward node, learned from forward hooks.

The graph itself does not say which `nn.Module` an op ran in. A forward hook on every submodule
sees each call's inputs and output; the nodes reachable from the output but not from the inputs
were created by that call. Inner modules finish first and claim their nodes; an outer module
walks through them (they are nested inside it) but stops at its own inputs and at anything an
unrelated module already claimed. The same code serves `minigrad.nn.Module` and `torch.nn.Module`,
which share `named_modules`, `named_parameters` and `register_forward_hook`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from . import adapters
from .texts import say


def flatten_tensors(value: Any) -> list[Any]:
    """Tensors found in a (nested) tuple/list/dict, in order, iteratively."""
    found, stack = [], [value]
    while stack:
        item = stack.pop()
        if adapters.is_tensor(item):
            found.append(item)
        elif isinstance(item, dict):
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, (list, tuple)):
            stack.extend(reversed(item))
    return found


def _inside(path: str, outer: str) -> bool:
    """Whether module `path` is `outer` itself or nested in it ("" is the root module)."""
    return outer == "" or path == outer or path.startswith(outer + ".")


class ModuleMap:
    """node -> qualified module name, plus parameter names and module class names.

    Use as a context manager around a forward pass: hooks are attached on enter, removed on exit.
    """

    def __init__(self, module: Any = None) -> None:
        """`module=None` gives an empty map (a graph drawn without any module)."""
        self.module = module
        self.params: dict[Any, str] = {}
        self.classes: dict[str, str] = {}
        self.paths: dict[int, str] = {}  # id(module) -> its path (the map holds the modules)
        if module is not None:
            self.params = {p: n for n, p in module.named_parameters()}
            self.classes = {n: type(m).__name__ for n, m in module.named_modules()}
            self.paths = {id(m): n for n, m in module.named_modules()}
        self.module_of: dict[Any, str] = {}
        self.inputs: dict[Any, str] = {}  # tensor -> outermost module it was passed into
        self._handles: list = []

    def __enter__(self) -> ModuleMap:
        for name, mod in self.module.named_modules() if self.module is not None else ():
            self._handles.append(mod.register_forward_hook(self._hook(name)))
        return self

    def __exit__(self, *exc: Any) -> None:
        for handle in self._handles:
            handle.remove()
        self._handles.clear()

    def _hook(self, path: str):
        def after_forward(module: Any, inputs: Any, output: Any) -> None:
            tensors = flatten_tensors(inputs)
            for t in tensors:  # hooks fire inner modules first: the outermost call writes last
                self.inputs[t] = path
            self.claim(path, tensors, flatten_tensors(output))

        return after_forward

    def claim(self, path: str, inputs: Iterable[Any], outputs: Iterable[Any]) -> None:
        """Give `path` every unclaimed node between `outputs` and `inputs`."""
        inputs = list(inputs)
        stop_nodes = {t.grad_fn for t in inputs if t.grad_fn is not None}
        stop_leaves = [t for t in inputs if t.grad_fn is None]
        stack = [t.grad_fn for t in outputs if t.grad_fn is not None]
        seen: set = set()
        while stack:
            node = stack.pop()
            if node in seen or node in stop_nodes:
                continue
            seen.add(node)
            owner = self.module_of.get(node)
            if owner is not None and not _inside(owner, path):
                continue  # made by an earlier, unrelated module call
            if adapters.is_accumulate(node):
                if not any(node.variable is t for t in stop_leaves):
                    self.module_of.setdefault(node, self.param_module(node.variable) or path)
                continue
            self.module_of.setdefault(node, path)
            stack.extend(n for n, _ in node.next_functions if n is not None)

    def module_name(self, module: Any, lang: str | None = None) -> str:
        """A module in words: `Linear fc1`, `Sequential (the model)` (`Sequential（模型）` in
        Chinese), or its class alone when it is not part of the model this map knows."""
        cls = type(module).__name__
        path = self.paths.get(id(module))
        if path is None:
            return cls
        return f"{cls} {path}" if path else say("module.root", lang, cls=cls)

    def param_module(self, t: Any) -> str | None:
        """The module owning parameter `t` (None for tensors that are not parameters)."""
        name = self.params.get(t)
        return None if name is None else name.rpartition(".")[0]

    def input_module(self, t: Any, default: str | None) -> str | None:
        """Where a constant tensor belongs: outside the outermost module it was passed into,
        else (made inside a module) with the node that uses it."""
        if t not in self.inputs:
            return default
        outermost = self.inputs[t]
        if not outermost:  # passed into the model itself
            return None
        return outermost.rpartition(".")[0] or None
