"""torch.backends.cuda as a CPU-only build answers it: CUDA is not built, and cuBLAS's switches
(`matmul.allow_tf32` & co, which training scripts set before anything else) are settings
kept and read back, changing no CPU result.

`allow_tf32` is the float32 matmul precision seen from cuBLAS: "highest" means no TF32, so
setting one moves the other, as in PyTorch.
"""

from __future__ import annotations

import warnings
from typing import Any

_PRECISIONS = ("highest", "high", "medium")
_precision = ["highest"]  # one mutable cell: the current float32 matmul precision


def get_float32_matmul_precision() -> str:
    """The float32 matmul precision: "highest" (the default), "high" or "medium"."""
    return _precision[0]


def set_float32_matmul_precision(precision: str) -> None:
    """Keeps the precision; an unknown name is ignored with PyTorch's warning."""
    if not isinstance(precision, str):
        raise RuntimeError(
            f"set_float32_matmul_precision expects a str, but got {type(precision).__name__}"
        )
    if precision not in _PRECISIONS:
        warnings.warn(
            f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
            "setFloat32MatmulPrecision call has no effect.",
            UserWarning,
            stacklevel=2,
        )
        return
    _precision[0] = precision


def _as_bool(value: Any, setter: str) -> bool:
    if not isinstance(value, bool):
        raise RuntimeError(f"{setter} expects a bool, but got {type(value).__name__}")
    return value


def _reduction(value: Any, name: str) -> tuple[bool, bool]:
    """A reduced-precision-reduction setting: a bool, or (allow_reduced_precision,
    [allow_splitk])."""
    items = [value] if isinstance(value, bool) else value
    if not isinstance(items, (list, tuple)):
        raise TypeError(f"{name} expects a bool or a tuple/list of bools, but got {type(value)!r}")
    if not items:
        raise TypeError(f"{name} expects at least one boolean argument")
    if len(items) > 2:
        raise TypeError(f"{name} expects at most two boolean arguments")
    for which, item in zip(("allow_reduced_precision", "allow_splitk"), items):
        if not isinstance(item, bool):
            raise TypeError(f"{name} expects a bool for {which}, but got {type(item)!r}")
    allow, splitk = items[0], items[1] if len(items) == 2 else True
    if allow and not splitk:
        raise RuntimeError(
            "allow_splitk=False is not supported when reduced precision reductions are enabled"
        )
    return allow, splitk


class cuBLASModule:  # noqa: N801 - PyTorch's class name
    """`torch.backends.cuda.matmul`: only cuBLAS's setting names are attributes, anything
    else is an AttributeError, as there."""

    def __init__(self) -> None:
        reductions = {"fp16": (True, True), "bf16": (True, True)}
        object.__setattr__(self, "_reductions", reductions)
        object.__setattr__(self, "_fp16_accumulation", False)

    def __getattr__(self, name: str) -> bool:
        if name == "allow_tf32":
            return _precision[0] != "highest"
        if name == "allow_fp16_accumulation":
            return self._fp16_accumulation
        for kind, (allow, splitk) in self._reductions.items():
            if name == f"allow_{kind}_reduced_precision_reduction":
                return allow
            if name == f"allow_{kind}_reduced_precision_reduction_split_k":
                return splitk
        raise AttributeError("Unknown attribute " + name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "allow_tf32":
            _precision[0] = "high" if _as_bool(value, "set_allow_tf32_cublas") else "highest"
        elif name == "allow_fp16_accumulation":
            flag = _as_bool(value, "set_allow_fp16_accumulation_cublas")
            object.__setattr__(self, "_fp16_accumulation", flag)
        elif name in (
            "allow_fp16_reduced_precision_reduction",
            "allow_bf16_reduced_precision_reduction",
        ):
            self._reductions[name[6:10]] = _reduction(value, name)
        else:
            raise AttributeError("Unknown attribute " + name)


matmul = cuBLASModule()


def is_built() -> bool:
    """False: this build has no CUDA."""
    return False
