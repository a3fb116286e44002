"""Optimizer base: parameter groups with defaults, per-parameter state, (de)serialization.

Validation and messages follow torch/optim/optimizer.py (PyTorch 2.13). Subclasses implement
`_step_group(group)`; `step` runs them under no_grad so every update is an in-place op that
bumps the parameter's version, as in PyTorch.
"""

from __future__ import annotations

import warnings
from collections import defaultdict
from collections.abc import Callable, Iterable
from copy import deepcopy
from itertools import chain
from typing import Any

import numpy as np

from ..core import grad_mode
from ..core.grad_mode import enable_grad
from ..core.tensor import Tensor
from ..utils._typename import typename
from ..utils.grads import zero_grads

__all__ = ["Optimizer", "required"]


def add_scaled_(p: Tensor, update: Tensor, alpha: float) -> None:
    """p.add_(update, alpha=alpha) under no_grad, as one numpy call when p and update agree in
    shape and dtype (an optimizer's usual case): the same arithmetic, the same version bump,
    without the in-place op's temporary copy."""
    pd, ud = p._data, update._data
    if pd.dtype == ud.dtype and pd.shape == ud.shape and type(alpha) in (int, float):
        if not p._is_inference:
            np.add(pd, ud * alpha, out=pd)
            p._version_counter.value += 1
            return
    p.add_(update, alpha=alpha)


def require_non_negative(**checks: tuple[str, Any]) -> None:
    """PyTorch's constructor checks, one line per hyper-parameter: `lr=("learning rate", lr)`
    raises ValueError("Invalid learning rate: -1") when the value is below 0."""
    for label, value in checks.values():
        if not 0.0 <= value:
            raise ValueError(f"Invalid {label}: {value}")


class _RequiredParameter:
    """Marks a default that every parameter group must set (e.g. a learning rate)."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


class Optimizer:
    """Holds `param_groups` (dicts with 'params' and options) and `state` (per parameter)."""

    def __init__(self, params: Iterable[Any], defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of "
                "Tensors or dicts, but got " + typename(params)
            )
        self.state: defaultdict[Tensor, dict[str, Any]] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group; options it leaves out take the optimizer's defaults."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {typename(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, "
                "but the ordering of tensors in sets will change between runs. "
                "Please use a list instead."
            )
        params = list(params)
        names = [p[0] for p in params if isinstance(p, tuple)]
        params = [p[1] if isinstance(p, tuple) else p for p in params]
        param_group["params"] = params
        if names:
            param_group["param_names"] = names
        for p in params:
            if not isinstance(p, Tensor):
                raise TypeError(
                    "optimizer can only optimize Tensors, but one of the params is " + typename(p)
                )
            if not self.defaults.get("differentiable") and not (p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(
                    "parameter group didn't specify a value of required "
                    f"optimization parameter {name}"
                )
            param_group.setdefault(name, default)
        if len(params) != len(set(params)):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; in "
                "future, this will cause an error; see "
                "github.com/pytorch/pytorch/issues/40967 for more information",
                stacklevel=3,
            )
        seen = set(chain.from_iterable(g["params"] for g in self.param_groups))
        if not seen.isdisjoint(params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Drop (or zero in place) the .grad of every parameter this optimizer updates."""
        zero_grads(chain.from_iterable(g["params"] for g in self.param_groups), set_to_none)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One update of every parameter that has a .grad; returns closure()'s loss if given."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        was_enabled = grad_mode.is_grad_enabled()
        grad_mode.set_enabled(False)  # (as PyTorch's step does: cheaper than a no_grad object)
        try:
            for group in self.param_groups:
                self._step_group(group)
        finally:
            grad_mode.set_enabled(was_enabled)
        return loss

    def _step_group(self, group: dict[str, Any]) -> None:
        raise NotImplementedError

    # --- serialization --------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """State keyed by parameter index (not the parameter itself), groups with indices."""
        mapping: dict[int, int] = {}
        start = 0

        def pack(group: dict[str, Any]) -> dict[str, Any]:
            nonlocal start
            packed = {k: v for k, v in group.items() if k != "params"}
            mapping.update(
                {id(p): i for i, p in enumerate(group["params"], start) if id(p) not in mapping}
            )
            packed["params"] = [mapping[id(p)] for p in group["params"]]
            start += len(packed["params"])
            return packed

        groups = [pack(g) for g in self.param_groups]
        state = {(mapping[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(self.param_groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(
            len(g["params"]) != len(s["params"])
            for g, s in zip(self.param_groups, saved_groups, strict=True)
        ):
            raise ValueError(
                "loaded state dict contains a parameter group that doesn't match "
                "the size of optimizer's group"
            )
        id_map = dict(
            zip(
                chain.from_iterable(g["params"] for g in saved_groups),
                chain.from_iterable(g["params"] for g in self.param_groups),
                strict=True,
            )
        )
        state: defaultdict[Any, dict[str, Any]] = defaultdict(dict)
        for key, value in state_dict["state"].items():
            if key in id_map:
                param = id_map[key]
                state[param] = {k: _cast(param, k, v) for k, v in value.items()}
            else:
                state[key] = value
        for group, saved in zip(self.param_groups, saved_groups, strict=True):
            saved["params"] = group["params"]
            if "param_names" in group and "param_names" not in saved:
                saved["param_names"] = group["param_names"]
        self.state = state
        self.param_groups = saved_groups

    def __repr__(self) -> str:
        text = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"


def _cast(param: Tensor, key: str, value: Any) -> Any:
    """Floating state follows the parameter's dtype; 'step' is kept as saved (PyTorch's rule)."""
    if isinstance(value, Tensor) and key != "step" and param.is_floating_point():
        return value.to(param.dtype)
    return value
