"""What an op's sample inputs are made of: tensor arguments described, never built, so that
collecting tens of thousands of cases costs no tensor and no numpy array."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

FLOAT = ("f32", "f64")
NONFLOAT = ("i64", "bool")
# a binary op's operand dtypes: each pair is also crossed with values and checks (cases.py)
PROMOTIONS = ("f32+f64", "f32+i64", "i64+f64", "i32+i64", "i64+bool", "bool+bool")


@dataclass(frozen=True)
class Arg:
    """A tensor argument. ``dtype`` is "x" (the case's first dtype), "y" (its second) or a fixed
    name (f32, f64, i32, i64, bool); ``values`` is "" (the case's value kind) or a fixed kind
    (values.py: pos, nz, idxN, mask, n, unit); ``grad``: its leaf requires grad when float."""

    shape: tuple[int, ...]
    dtype: str = "x"
    values: str = ""
    grad: bool = True


@dataclass(frozen=True)
class Same:
    """The very tensor object passed as argument ``index`` (e.g. ``x * x``)."""

    index: int


@dataclass(frozen=True)
class Seq:
    """A Python list of tensor arguments (cat, stack)."""

    items: tuple[Arg, ...]


@dataclass(frozen=True)
class D:
    """A dtype argument (f32, f64, i32, i64, bool), resolved on each library."""

    name: str


@dataclass(frozen=True)
class Sample:
    """One way to call an op: ``name`` is unique within the op, ``args``/``kwargs`` hold Arg,
    Same, Seq or plain Python values. ``dtypes`` overrides the op's dtype combos; ``error``:
    PyTorch raises in the forward (only the forward check runs); ``crossed``: layouts and value
    kinds are crossed with it (False for fixed-value samples); ``leaf``: an in-place op writes
    into the leaf itself, not into a clone."""

    name: str
    args: tuple = ()
    kwargs: tuple[tuple[str, Any], ...] = ()
    dtypes: tuple[str, ...] | None = None
    error: bool = False
    crossed: bool = True
    leaf: bool = False

    @property
    def kw(self) -> dict[str, Any]:
        return dict(self.kwargs)

    def tensors(self) -> list[Arg]:
        """Every Arg, in order, those inside a Seq included."""
        found: list[Arg] = []
        for a in (*self.args, *(v for _, v in self.kwargs)):
            if isinstance(a, Arg):
                found.append(a)
            elif isinstance(a, Seq):
                found.extend(a.items)
        return found


@dataclass(frozen=True)
class OpInfo:
    """One public op. ``call(lib, *args, **kwargs)`` runs it on torch or minigrad; ``samples``
    lists its inputs; ``dtypes`` the dtype combos crossed with every sample (float ones get
    every check, the others the forward only); ``values`` the value kinds crossed (values.py);
    ``domain`` the range of the "n" kind; ``grad``: its float outputs are differentiable;
    ``inplace``: the first argument is written (the sweep passes a clone, or a view of one);
    ``random``: values are not compared, only dtype, shape and flags."""

    name: str
    call: Callable[..., Any]
    samples: tuple[Sample, ...]
    dtypes: tuple[str, ...] = FLOAT + NONFLOAT
    values: tuple[str, ...] = ("n", "s")
    domain: tuple[float, float] = (-2.0, 2.0)
    grad: bool = True
    inplace: bool = False
    random: bool = False
    layouts: tuple[str, ...] = ("T", "s", "e", "same")
    note: str = field(default="", compare=False)


def shape_token(shape: tuple[int, ...]) -> str:
    """'3x4'; '0d' for a 0-d shape."""
    return "x".join(map(str, shape)) if shape else "0d"


def shapes_token(*shapes: tuple[int, ...]) -> str:
    return ",".join(shape_token(s) for s in shapes)
