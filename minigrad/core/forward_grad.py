"""Forward-mode AD's state: the one dual level (PyTorch allows no nesting) and the tangent a
tensor carries at it. A tensor keeps `(generation, tangent)`; each level entered gets a new
generation, so a tangent from a level already exited reads as none (PyTorch clears them).

Ops find tangents in `ops/tangents.py`, which every recorded op passes through; the public
API (`dual_level`, `make_dual`, `unpack_dual`) is `autograd/forward_ad.py`."""

from __future__ import annotations

import re
from typing import Any


class Levels:
    """`level`: the open level's number (0) or None; `generation` tells levels apart over
    time; `active` is what every op tests first (a level is open and tangents are not being
    computed right now: the formulas work on primals only)."""

    level: int | None = None
    generation = 0
    active = False
    computing = 0  # nesting of tangent formulas running (their ops carry no tangents)


def enter() -> int:
    if Levels.level is not None:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    Levels.level, Levels.generation = 0, Levels.generation + 1
    Levels.active = Levels.computing == 0
    return 0


def exit(level: int | None = None) -> None:  # noqa: A001 - PyTorch's exit_dual_level
    if Levels.level is None:
        raise RuntimeError(
            "Trying to exit a forward AD level that was not the last one that was created. "
            "This is not supported."
        )
    if level is not None and level != Levels.level:
        raise RuntimeError(
            "Trying to exit a forward AD level that was not the last one that was created. "
            "This is not supported."
        )
    Levels.level, Levels.active = None, False


def tangent_of(t: Any) -> Any:
    """The tangent `t` carries at the open level, or None. A view that has none of its own
    while its base has one sees the matching view of the base's (PyTorch's fw_grad of a view,
    e.g. after the base was written with a dual value): `tangent_from_base`, which the ops
    floor sets (ops/inplace.py)."""
    fw = getattr(t, "_fw_grad", None)
    if Levels.level is None:
        return None
    if fw is None or fw[0] != Levels.generation:
        if getattr(t, "_base", None) is not None and tangent_from_base is not None:
            return tangent_from_base(t)
        return None
    return fw[1]


tangent_from_base: Any = None  # view -> its tangent read off its base's (ops/inplace.py sets it)


def set_tangent(t: Any, tangent: Any) -> None:
    t._fw_grad = None if tangent is None else (Levels.generation, tangent)


class computing_tangents:  # noqa: N801 - used like a function: `with computing_tangents():`
    """While a tangent formula runs: its ops act on primals and carry no tangents."""

    def __enter__(self) -> None:
        Levels.computing += 1
        Levels.active = False

    def __exit__(self, *exc: Any) -> None:
        Levels.computing -= 1
        Levels.active = Levels.computing == 0 and Levels.level is not None


def aten_name(node: Any) -> str:
    """PyTorch names an op without a forward formula by its ATen name: SinhBackward0 ->
    sinh, SpecialZetaBackward0 -> special_zeta."""
    base = re.sub(r"Backward\d*$", "", type(node).__name__.lstrip("_"))
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", base).lower()


def not_implemented(node: Any) -> NotImplementedError:
    """PyTorch's error for an op that has no forward-mode formula."""
    return NotImplementedError(
        f"Trying to use forward AD with {aten_name(node)} that does not support it because it "
        "has not been implemented yet.\nPlease file an issue to PyTorch at "
        "https://github.com/pytorch/pytorch/issues/new?template=feature-request.yml so that "
        "we can prioritize its implementation."
    )
