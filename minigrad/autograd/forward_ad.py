"""torch.autograd.forward_ad: dual tensors. Inside `dual_level()`, `make_dual(x, t)` gives a
tensor that carries the tangent t; every op on it computes its output's tangent from its
inputs' with the op's forward formula (ops/tangents.py), in the same forward pass - one pass
gives f(x) and J t. `unpack_dual` reads the tangent back."""

from __future__ import annotations

from typing import Any, NamedTuple

from ..core import forward_grad
from ..core.forward_grad import computing_tangents, set_tangent, tangent_of
from ..core.grad_mode import _Mode
from ..core.shapes import empty_like
from ..core.tensor import Tensor
from ..ops._record import announce
from ..ops.inplace import OVERLAP_MESSAGE, overlapping

__all__ = [
    "UnpackedDualTensor",
    "dual_level",
    "enter_dual_level",
    "exit_dual_level",
    "make_dual",
    "unpack_dual",
]


def enter_dual_level() -> int:
    """Open the (only) forward AD level; returns its number, 0."""
    return forward_grad.enter()


def exit_dual_level(*, level: int | None = None) -> None:
    """Close the level: every tangent made in it is gone."""
    if forward_grad.Levels.level is None and level is None:
        raise RuntimeError("Dual level must be a positive number.")
    forward_grad.exit(level)


class dual_level(_Mode):  # noqa: N801 - PyTorch's name
    """`with dual_level():` opens the level for the block (also a decorator)."""

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, *exc: Any) -> None:
        exit_dual_level()


def _check_level(level: int | None, what: str) -> None:
    if forward_grad.Levels.level is None:
        raise RuntimeError(
            "Trying to create a dual Tensor for forward AD but no level exists, make sure to "
            "enter_dual_level() first."
        )
    if level is not None and level != forward_grad.Levels.level:
        raise RuntimeError(f"Invalid level given to {what}")


def make_dual(tensor: Tensor, tangent: Tensor, *, level: int | None = None) -> Tensor:
    """A view of `tensor` that carries `tangent` (used as it is when laid out as `tensor`,
    else copied into that layout)."""
    _check_level(level, "_make_dual")
    for name, t in (("primal", tensor), ("tangent", tangent)):
        if not t.dtype.is_floating_point:
            raise ValueError(
                f"Expected {name} to be floating point or complex, but got: torch.{t.dtype.name}"
            )
    if tangent_of(tensor) is not None:
        raise RuntimeError(
            "Making a dual Tensor based on a Tensor that already has a forward gradient at the "
            f"same level {forward_grad.Levels.level} is not supported."
        )
    if tangent._data.shape != tensor._data.shape:
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the "
            f"original Tensor, this is not supported. Tensor is of size {list(tensor.shape)} "
            f"while the given forward gradient is of size {list(tangent.shape)}."
        )
    if tangent._data.strides != tensor._data.strides:
        tangent = _laid_out_as(tensor, tangent)
    dual = _view(tensor)
    set_tangent(dual, tangent)
    if dual._grad_fn is not None:  # (observers hear of the view once it carries its tangent)
        announce(dual._grad_fn, (tensor,), dual)
    return dual


def _laid_out_as(tensor: Tensor, tangent: Tensor) -> Tensor:
    """PyTorch copies a tangent laid out differently into the primal's layout (a dense one;
    an expanded primal cannot hold one, and PyTorch's copy says so)."""
    if overlapping(tensor._data):
        raise RuntimeError(OVERLAP_MESSAGE)
    return Tensor._wrap(empty_like(tensor._data, tangent._data.dtype)).copy_(tangent)


def _view(tensor: Tensor) -> Tensor:
    """A view of the whole tensor (ViewBackward0 when it requires grad), without its tangent."""
    with computing_tangents():
        return tensor.view(tuple(tensor._data.shape))


class UnpackedDualTensor(NamedTuple):
    """What `unpack_dual` returns: the primal (a view without the tangent) and the tangent."""

    primal: Tensor
    tangent: Tensor | None


def unpack_dual(tensor: Tensor, *, level: int | None = None) -> UnpackedDualTensor:
    """(primal, tangent) of a dual tensor; (tensor, None) for any other (anything at all
    when no level is open)."""
    if forward_grad.Levels.level is None:
        return UnpackedDualTensor(tensor, None)
    if not isinstance(tensor, Tensor):
        raise TypeError(
            f"_unpack_dual(): argument 'dual' (position 1) must be Tensor, not "
            f"{type(tensor).__name__}"
        )
    tangent = tangent_of(tensor)
    if tangent is None or (level is not None and level != forward_grad.Levels.level):
        return UnpackedDualTensor(tensor, None)
    return UnpackedDualTensor(_view(tensor), tangent)
