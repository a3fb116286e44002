"""torch.func.functional_call: call a module with some of its parameters and buffers swapped
for given tensors, restoring the module's own afterwards (also when the call raises). This is
how `grad` and `vmap` see a module as a function of its parameters."""

from __future__ import annotations

from typing import Any

from ..core.tensor import Tensor

_MISSING = object()


def _merge(dicts: Any) -> dict:
    """One name -> tensor dict from a dict or a sequence of dicts (names must not repeat)."""
    if isinstance(dicts, dict):
        return dict(dicts)
    if not all(isinstance(d, dict) for d in dicts):
        raise ValueError("Expected all elements of parameter_and_buffer_dicts to be dictionaries")
    merged: dict = {}
    repeated: list = []
    for d in dicts:
        repeated += [k for k in d if k in merged]
        merged.update(d)
    if repeated:
        raise ValueError(
            f"{repeated} appeared in multiple dictionaries; behavior of functional call is "
            "ambiguous"
        )
    return merged


def _all_names(module: Any) -> dict[str, Tensor]:
    """Every parameter and buffer name, tied ones included (remove_duplicate=False)."""
    names = dict(module.named_parameters(remove_duplicate=False))
    names.update(module.named_buffers(remove_duplicate=False))
    return names


def _tie(values: dict, names: dict[str, Tensor]) -> dict:
    """A value given for one name of a tied tensor goes to every name of that tensor."""
    groups: dict[int, list[str]] = {}
    for name, t in names.items():
        groups.setdefault(id(t), []).append(name)
    tied = dict(values)
    for group in groups.values():
        given = [n for n in group if n in values]
        if len(group) < 2 or not given:
            continue
        if len(given) > 1:
            raise ValueError(
                f"functional_call got multiple values for keys {sorted(given)}, which are tied. "
                "Consider using tie_weights=False"
            )
        tied.update(dict.fromkeys(group, values[given[0]]))
    return tied


def _check_strict(module: Any, values: dict, names: dict) -> None:
    unexpected = sorted(k for k in values if k not in names)
    missing = sorted(k for k in names if k not in values)
    errors = [
        f"\t{what} key(s): {', '.join(repr(k) for k in keys)}."
        for what, keys in (("Unexpected", unexpected), ("Missing", missing))
        if keys
    ]
    if errors:
        raise RuntimeError(
            f"Error(s) in reparametrizing for {type(module).__name__}:\n" + "\n".join(errors)
        )


def _swap(module: Any, name: str, value: Any) -> Any:
    """Put value in place of module's `name` (a parameter, a buffer or a plain attribute);
    returns what was there (_MISSING for nothing)."""
    owner_path, _, leaf = name.rpartition(".")
    owner = module.get_submodule(owner_path) if owner_path else module
    for store in (owner._parameters, owner._buffers):
        if leaf in store:
            old, store[leaf] = store[leaf], value
            return old
    old = owner.__dict__.get(leaf, _MISSING)
    if value is _MISSING:
        object.__delattr__(owner, leaf)
    else:
        object.__setattr__(owner, leaf, value)
    return old


def functional_call(
    module: Any,
    parameter_and_buffer_dicts: Any,
    args: Any = None,
    kwargs: dict | None = None,
    *,
    tie_weights: bool = True,
    strict: bool = False,
) -> Any:
    """module(*args, **kwargs) with the given tensors in place of its parameters/buffers."""
    values = _merge(parameter_and_buffer_dicts)
    names = _all_names(module)
    if tie_weights:
        values = _tie(values, names)
    if strict:
        _check_strict(module, values, names)
    args = () if args is None else args if isinstance(args, tuple) else (args,)
    saved: list[tuple[str, Any]] = []
    try:
        for name, value in values.items():
            saved.append((name, _swap(module, name, value)))
        return module(*args, **(kwargs or {}))
    finally:
        for name, old in reversed(saved):
            _swap(module, name, old)
