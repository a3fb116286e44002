"""lerp(input, end, weight): input + weight * (end - input), computed from the nearer end as
PyTorch computes it (exact at weight 0 and 1). input and end share one float dtype (no
promotion); weight is a number or a tensor of that dtype (a 0-d tensor of any dtype)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import dtypes
from ..core.node import Node
from ..core.tensor import Tensor
from . import formula
from ._record import is_operand, operands, record
from .shape import broadcast_shapes


def _lerp_tangents(node: Node, tangents: list, weight: Any) -> Tensor:
    """lerp is linear in input and end: its tangent for them is lerp of their tangents."""
    ends = (formula.tangent_or_zeros(node, tangents, i) for i in (0, 1))
    return lerp(*ends, weight)


class LerpBackward0(Node):
    """A number weight: g * (1 - weight) and g * weight."""

    def jvp(self, out, tangents):
        return _lerp_tangents(self, tangents, self.weight)

    def backward(self, g):
        return g * (1 - self.weight), g * self.weight


class LerpBackward1(Node):
    """A tensor weight: it gets g * (end - self) too."""

    def jvp(self, out, tangents):
        w = self.saved("weight")
        total = _lerp_tangents(self, tangents, w)
        if tangents[2] is None:
            return total
        return total + tangents[2] * (self.saved("end") - self.saved("self"))

    def backward(self, g):
        w = self.saved("weight")
        need = [fn is not None for fn, _ in self.next_functions]
        ga = g * (1 - w) if need[0] else None
        gb = g * w if need[1] else None
        gw = g * (self.saved("end") - self.saved("self")) if need[2] else None
        return ga, gb, gw


def _lerp(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", over="ignore"):
        return np.where(np.abs(w) < 0.5, x + w * (y - x), y - (y - x) * (1 - w))


def _argument_error(got: tuple) -> TypeError:
    names = ", ".join(type(v).__name__ for v in got)
    return TypeError(
        f"lerp() received an invalid combination of arguments - got ({names}), but expected "
        "one of:\n * (Tensor input, Tensor end, Tensor weight, *, Tensor out = None)\n"
        " * (Tensor input, Tensor end, Number weight, *, Tensor out = None)\n"
    )


def _check_dtypes(a: Tensor, end: Tensor, weight: Any) -> None:
    """end in a's dtype, and a weight of more than 0 dims too (a 0-d one takes part in type
    promotion instead)."""
    for name, other in (("end", end), ("weight", weight)):
        if (
            isinstance(other, Tensor)
            and other.dtype is not a.dtype
            and (other.ndim or name == "end")
        ):
            raise RuntimeError(
                f"expected dtype {dtypes.C_NAMES[a.dtype.name]} for `{name}` but got dtype "
                f"{dtypes.C_NAMES[other.dtype.name]}"
            )


def _not_float(dtype: dtypes.dtype, weight: Any) -> NotImplementedError:
    kind = "tensor" if isinstance(weight, Tensor) else "scalar"
    return NotImplementedError(
        f"\"lerp_kernel_{kind}\" not implemented for '{dtypes.SCALAR_NAMES[dtype.name]}'"
    )


def lerp(a: Tensor, end: Tensor, weight: Any) -> Tensor:
    if not (isinstance(end, Tensor) and is_operand(weight)):
        raise _argument_error((a, end, weight))
    _check_dtypes(a, end, weight)
    if not isinstance(weight, Tensor):
        if not a.dtype.is_floating_point:
            raise _not_float(a.dtype, weight)
        x, y = a._data, end._data
        broadcast_shapes(x.shape, y.shape)
        data = _lerp(x, y, x.dtype.type(weight))
        return record(LerpBackward0, data, (a, end), weight=weight)
    _, (x, y, w), dtype = operands(a, end, weight)
    if not dtype.is_floating_point:
        raise _not_float(dtype, weight)
    broadcast_shapes(x.shape, y.shape, w.shape)
    save_for = {"self": (a, 2), "end": (end, 2)}  # (for weight's gradient only)
    data = _lerp(x, y, w)
    return record(LerpBackward1, data, (a, end, weight), save={"weight": weight}, save_for=save_for)


def lerp_method(a: Tensor, end: Tensor, weight: Any) -> Tensor:
    """Tensor.lerp: PyTorch's TypeError names the arguments after self."""
    if not (isinstance(end, Tensor) and is_operand(weight)):
        raise _argument_error((end, weight))
    return lerp(a, end, weight)
