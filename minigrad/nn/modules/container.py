"""Sequential and ModuleList: modules held by position, registered under '0', '1', ...;
ModuleDict: modules held by name; ParameterList and ParameterDict: the same for parameters
(a plain tensor becomes a Parameter, anything else is kept as a plain attribute)."""

from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import ItemsView, Iterable, Iterator, KeysView, Mapping, ValuesView
from typing import Any

from ...core.tensor import Tensor
from ...utils._typename import typename
from ..parameter import Parameter
from .module import Module, _addindent

__all__ = ["ModuleDict", "ModuleList", "ParameterDict", "ParameterList", "Sequential"]


class _IndexedModules(Module):
    """Shared by Sequential and ModuleList: integer indexing over `_modules` in order."""

    def _index(self, idx: Any) -> int:
        idx = operator.index(idx)
        size = len(self)
        if not -size <= idx < size:
            raise IndexError(f"index {idx} is out of range")
        return idx % size

    def _key(self, idx: Any) -> str:
        return list(self._modules)[self._index(idx)]

    def __getitem__(self, idx: int | slice) -> Any:
        if isinstance(idx, slice):
            return self._slice(idx)
        return self._modules[self._key(idx)]

    def _slice(self, idx: slice) -> _IndexedModules:
        raise NotImplementedError

    def __setitem__(self, idx: int, module: Module) -> None:
        setattr(self, self._key(idx), module)

    def __delitem__(self, idx: int | slice) -> None:
        if isinstance(idx, slice):
            for key in list(self._modules)[idx]:
                delattr(self, key)
        else:
            delattr(self, self._key(idx))
        # keep the numbering 0..n-1, as PyTorch does
        items = list(self._modules.values())
        self._modules.clear()
        for i, module in enumerate(items):
            self._modules[str(i)] = module

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def append(self, module: Module) -> _IndexedModules:
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Iterable[Module]) -> _IndexedModules:
        for module in modules:
            self.append(module)
        return self

    def insert(self, index: int, module: Module) -> None:
        items = list(self._modules.values())
        items.insert(index, module)
        self._modules.clear()
        for i, m in enumerate(items):
            self.add_module(str(i), m)


class Sequential(_IndexedModules):
    """Calls its modules in order, each on the previous one's output."""

    def __init__(self, *args: Any) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for idx, module in enumerate(args):
                self.add_module(str(idx), module)

    def _slice(self, idx: slice) -> Sequential:  # keeps the original keys
        return Sequential(OrderedDict(list(self._modules.items())[idx]))

    def forward(self, input: Any) -> Any:
        for module in self:
            input = module(input)
        return input


class ModuleList(_IndexedModules):
    """A list whose modules are registered (their parameters are the owner's parameters)."""

    def __init__(self, modules: Iterable[Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def _slice(self, idx: slice) -> ModuleList:  # renumbered from 0
        return ModuleList(list(self._modules.values())[idx])

    def _child_lines(self) -> list[str]:
        """A run of neighbours that print alike is shown once, as PyTorch's ModuleList shows
        it: "(0-2): 3 x Linear(...)" (a GPT's blocks, say)."""
        reprs = [repr(module) for module in self._modules.values()]
        lines, start = [], 0
        for end in range(1, len(reprs) + 1):
            if end == len(reprs) or reprs[end] != reprs[start]:
                count = end - start
                head = f"({start}): " if count == 1 else f"({start}-{end - 1}): {count} x "
                lines.append(head + _addindent(reprs[start], 2))
                start = end
        return lines

    def __iadd__(self, modules: Iterable[Module]) -> ModuleList:
        return self.extend(modules)


class ModuleDict(Module):
    """A dict whose modules are registered, in insertion order, under their keys."""

    def __init__(self, modules: Mapping[str, Module] | Iterable | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: str) -> bool:
        return key in self._modules

    def clear(self) -> None:
        self._modules.clear()

    def pop(self, key: str) -> Module:
        module = self[key]
        del self[key]
        return module

    def keys(self) -> KeysView[str]:
        return self._modules.keys()

    def items(self) -> ItemsView[str, Module]:
        return self._modules.items()

    def values(self) -> ValuesView[Module]:
        return self._modules.values()

    def update(self, modules: Mapping[str, Module] | Iterable) -> None:
        """Add from a mapping (its order), or from an iterable of (key, module) pairs."""
        if not isinstance(modules, Iterable):
            raise TypeError(
                "ModuleDict.update should be called with an iterable of key/value pairs, "
                "but got " + type(modules).__name__
            )
        if isinstance(modules, (Mapping, ModuleDict)):
            for key, module in modules.items():
                self[key] = module
            return
        for j, pair in enumerate(modules):
            if not isinstance(pair, Iterable):
                raise TypeError(  # sic: PyTorch's message lacks the space after "is"
                    f"ModuleDict update sequence element #{j} should be Iterable; is"
                    f"{type(pair).__name__}"
                )
            if len(pair) != 2:
                raise ValueError(
                    f"ModuleDict update sequence element #{j} has length {len(pair)}; 2 is required"
                )
            self[pair[0]] = pair[1]


# --- issue 21: ParameterList and ParameterDict ----------------------------------------------
def _as_parameter(value: Any) -> Any:
    return (
        Parameter(value)
        if isinstance(value, Tensor) and not isinstance(value, Parameter)
        else value
    )


def _describe(key: str, value: Any, dtype_name: bool) -> str:
    """One line of the repr: '  (key): Parameter containing: [torch.float32 of size 2x3]'."""
    if not isinstance(value, Tensor):
        return f"  ({key}): Object of type: {type(value).__name__}"
    kind = "Parameter containing: " if isinstance(value, Parameter) else ""
    name = f"torch.{value.dtype.name}" if dtype_name else typename(value)
    size = "x".join(str(n) for n in value.shape)
    return f"  ({key}): {kind}[{name} of size {size}]"


class ParameterList(Module):
    """Parameters held by position, registered under '0', '1', ..."""

    def __init__(self, values: Iterable[Any] | None = None) -> None:
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def _index(self, idx: Any) -> str:
        idx = operator.index(idx)
        if not -len(self) <= idx < len(self):
            raise IndexError(f"index {idx} is out of range")
        return str(idx % len(self))

    def __getitem__(self, idx: int | slice) -> Any:
        if isinstance(idx, slice):
            return ParameterList(self[i] for i in range(len(self))[idx])
        return getattr(self, self._index(idx))

    def __setitem__(self, idx: int, param: Any) -> None:
        setattr(self, self._index(idx), _as_parameter(param))

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[Any]:
        return iter(self[i] for i in range(len(self)))

    def __iadd__(self, parameters: Iterable[Any]) -> ParameterList:
        return self.extend(parameters)

    def append(self, value: Any) -> ParameterList:
        self._size += 1
        self[self._size - 1] = value
        return self

    def extend(self, values: Iterable[Any]) -> ParameterList:
        if not isinstance(values, Iterable) or isinstance(values, Tensor):
            raise TypeError(
                "ParameterList.extend should be called with an iterable, but got "
                + type(values).__name__
            )
        for value in values:
            self.append(value)
        return self

    def extra_repr(self) -> str:
        return "\n".join(_describe(str(i), p, True) for i, p in enumerate(self))


class ParameterDict(Module):
    """Parameters held by string key, in insertion order."""

    def __init__(self, parameters: Any = None) -> None:
        super().__init__()
        self._keys: dict[str, None] = {}
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key: str) -> Any:
        return getattr(self, key)

    def __setitem__(self, key: str, value: Any) -> None:
        self._keys[key] = None
        setattr(self, key, _as_parameter(value))

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        delattr(self, key)

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __contains__(self, key: Any) -> bool:
        return key in self._keys

    def keys(self) -> KeysView[str]:
        return self._keys.keys()

    def values(self) -> Iterator[Any]:
        return (self[k] for k in self._keys)

    def items(self) -> Iterator[tuple[str, Any]]:
        return ((k, self[k]) for k in self._keys)

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self else default

    def pop(self, key: str) -> Any:
        value = self[key]
        del self[key]
        return value

    def clear(self) -> None:
        for key in list(self._keys):
            del self[key]

    def update(self, parameters: Any) -> None:
        """From a mapping (its order) or an iterable of (key, value) pairs."""
        if not isinstance(parameters, Iterable):
            raise TypeError(
                "ParametersDict.update should be called with an iterable of key/value pairs, "
                "but got " + type(parameters).__name__
            )
        pairs = (
            parameters.items() if isinstance(parameters, (Mapping, ParameterDict)) else parameters
        )
        for j, pair in enumerate(pairs):
            if not isinstance(pair, Iterable):
                raise TypeError(
                    f"ParameterDict update sequence element #{j} should be Iterable; is"
                    f"{type(pair).__name__}"
                )
            if len(pair) != 2:
                raise ValueError(
                    f"ParameterDict update sequence element #{j} has length {len(pair)}; 2 is "
                    "required"
                )
            self[pair[0]] = pair[1]

    def extra_repr(self) -> str:
        return "\n".join(_describe(k, p, False) for k, p in self.items())
