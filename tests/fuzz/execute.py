"""Run a program under one library, step by step, and note everything a user could observe.

After each line: the error it raised (type and message), what the hooks it triggered were handed,
and, for every tensor the program has named, its values (NaN, ±inf and the sign of zero kept),
dtype, shape, strides, `requires_grad`, `is_leaf`, `grad_fn` name, `.grad`, `retains_grad` and
`_version`.
Each of those reads may raise, and then the error is what is observed.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from .programs import PRELUDE

NAME = re.compile(r"t\d+$")
FIELDS = ("dtype", "shape", "values", "requires_grad", "is_leaf", "grad_fn", "grad")
FIELDS += ("retains_grad", "_version", "stride")


@dataclass
class Step:
    line: str
    error: tuple[str, str] | None
    hooks: list
    tensors: dict[str, Any]


def is_tensor(value: Any) -> bool:
    """A tensor of either library (by type: reading `grad_fn` may raise)."""
    return any(cls.__name__ == "Tensor" for cls in type(value).__mro__)


def array(t: Any) -> np.ndarray:
    """The values as printing shows them (a PyTorch ZeroTensor, which sgn's gradient is,
    refuses .numpy() but prints its zeros)."""
    t = t.detach()
    if getattr(t, "_is_zerotensor", lambda: False)():
        t = t.clone()
    return np.array(t.numpy())


def plain(value: Any) -> Any:
    """A tensor as (dtype, shape, values); tuples and None as they are."""
    if value is None:
        return None
    if isinstance(value, (tuple, list)):
        return tuple(plain(v) for v in value)
    if is_tensor(value):
        return ("tensor", str(value.dtype).rsplit(".", 1)[-1], tuple(value.shape), array(value))
    return repr(value)


def observable_strides(shape: tuple, strides: tuple) -> tuple | None:
    """Strides that decide anything: none of an empty tensor, none along a dim of size 1 (no
    view, reshape or write ever steps along it; PyTorch's own values there vary by history)."""
    if 0 in shape:
        return None
    return tuple(s if n > 1 else None for n, s in zip(shape, strides))


def read(t: Any, field: str) -> Any:
    if field == "dtype":
        return str(t.dtype).rsplit(".", 1)[-1]
    if field == "shape":
        return tuple(t.shape)
    if field == "values":
        return array(t)
    if field == "stride":
        return observable_strides(t.shape, t.stride())
    if field == "grad_fn":
        fn = t.grad_fn
        return None if fn is None else fn.name()
    if field == "grad":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return plain(t.grad)
    return getattr(t, field)


def observe(t: Any) -> dict[str, Any]:
    seen = {}
    for field in FIELDS:
        try:
            seen[field] = read(t, field)
        except Exception as err:  # reading may raise: that is observed
            seen[field] = ("raises", type(err).__name__)
    return seen


def run(lines: list[str], lib: ModuleType) -> list[Step]:
    env: dict[str, Any] = {"torch": lib}
    exec(PRELUDE, env)
    steps = []
    try:
        for line in lines:
            logged = len(env["LOG"])
            error = None
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                try:
                    exec(line, env)
                except Exception as err:  # an error is an outcome to compare
                    error = (type(err).__name__, str(err))
            hooks = [tuple(plain(x) for x in entry) for entry in env["LOG"][logged:]]
            names = sorted((n for n in env if NAME.match(n)), key=lambda n: int(n[1:]))
            tensors = {n: observe(env[n]) if is_tensor(env[n]) else plain(env[n]) for n in names}
            steps.append(Step(line, error, hooks, tensors))
    finally:
        lib.set_grad_enabled(True)
    return steps
