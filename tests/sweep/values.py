"""Sample values as numpy arrays, and the layouts that turn a leaf into the tensor an op sees.

Value kinds: "n" uniform over the op's domain (ints in [-3, 3], random bools); "s" the same with
nan, inf, -inf, 0 and -0 placed at random positions; "k" kinks and ties, every element one of
-1, -0, 0, 0.5, 1 (relu's and abs's kink, clamp's bounds, round's half, ties for max/sort).
An Arg's own kind overrides the case's: "idxN" (ints in [0, N)) and "mask" always, the domain
kinds "pos" (0.5..2), "nz" (±0.5..2), "unit" (0..1) and "n" only where the case draws "n";
"zero" (all zeros) and "fillN" (all N) always.

Layouts: "c" the leaf itself; "T" a permuted (all dims reversed) view; "s" a view taking every
other element of the last dim; "e" a stride-0 view expanded from size 1 along the first dim of
size >= 2; "same" the first two equal arguments are one tensor object.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from .spec import Arg, D, Same, Sample, Seq

NP = {"f32": np.float32, "f64": np.float64, "i32": np.int32, "i64": np.int64, "bool": np.bool_}
LIB_NAME = {"f32": "float32", "f64": "float64", "i32": "int32", "i64": "int64", "bool": "bool"}
SPECIALS = (np.nan, np.inf, -np.inf, 0.0, -0.0)
KINKS = (-1.0, -0.0, 0.0, 0.5, 1.0)
DOMAINS = {"pos": (0.5, 2.0), "unit": (0.0, 1.0)}


def is_float(dtype: str) -> bool:
    return dtype in ("f32", "f64")


def dtype_of(arg: Arg, combo: str) -> str:
    parts = combo.split("+")
    if arg.dtype == "x":
        return parts[0]
    if arg.dtype == "y":
        return parts[-1]
    return arg.dtype


def draw(rng: np.random.Generator, shape: tuple, kind: str, dtype: str, domain: tuple) -> Any:
    """Values of one kind for one shape, as an array of ``dtype``."""
    if kind == "zero":
        return np.zeros(shape, NP[dtype])
    if kind.startswith("fill"):
        return np.full(shape, int(kind[4:]), NP[dtype])
    if kind == "mask" or dtype == "bool":
        return rng.random(shape) < 0.5
    if kind.startswith("idx"):
        return rng.integers(0, int(kind[3:]), shape).astype(NP[dtype])
    if not is_float(dtype):
        pool = (-1, 0, 1) if kind == "k" else range(-3, 4)
        return rng.choice(np.array(pool), shape).astype(NP[dtype])
    if kind == "k":
        return rng.choice(np.array(KINKS), shape).astype(NP[dtype])
    if kind == "nz":
        mag = rng.uniform(0.5, 2.0, shape)
        return (mag * rng.choice(np.array([-1.0, 1.0]), shape)).astype(NP[dtype])
    lo, hi = DOMAINS.get(kind, domain)
    out = rng.uniform(lo, hi, shape)
    if kind == "s" and out.size:
        where = rng.permutation(out.size)[: len(SPECIALS)]
        out.reshape(-1)[where] = np.array(SPECIALS)[: len(where)]
    return out.astype(NP[dtype])


def kind_of(arg: Arg, case_kind: str) -> str:
    if arg.values.startswith(("idx", "fill")) or arg.values in ("mask", "zero"):
        return arg.values
    if arg.values and case_kind == "n":
        return arg.values
    return case_kind


def layout_applies(layout: str, shape: tuple) -> bool:
    if layout == "T":
        return len(shape) >= 2
    if layout == "s":
        return len(shape) >= 1
    if layout == "e":
        return any(n >= 2 for n in shape)
    return layout == "c"


def _view(layout: str, shape: tuple) -> Callable[[Any], Any]:
    if layout == "T":
        dims = tuple(reversed(range(len(shape))))
        return lambda t: t.permute(*dims)
    if layout == "s":
        return lambda t: t[..., ::2]
    if layout == "e":
        return lambda t: t.expand(*shape)
    return lambda t: t


def leaf_array(
    rng: np.random.Generator, arg: Arg, layout: str, kind: str, dtype: str, domain: tuple
) -> np.ndarray:
    """The leaf's array: the visible values laid out so that ``_view(layout)`` shows them."""
    shape = arg.shape
    if layout == "e":
        d = next(i for i, n in enumerate(shape) if n >= 2)
        return draw(rng, shape[:d] + (1,) + shape[d + 1 :], kind, dtype, domain)
    visible = draw(rng, shape, kind, dtype, domain)
    if layout == "T":
        return np.ascontiguousarray(visible.transpose(tuple(reversed(range(len(shape))))))
    if layout == "s":
        leaf = np.full(shape[:-1] + (2 * shape[-1],), 7, dtype=visible.dtype)
        leaf[..., ::2] = visible
        return leaf
    return visible


@dataclass
class Planned:
    """One tensor argument, ready to build on either library."""

    array: np.ndarray
    dtype: str
    layout: str
    grad: bool
    shape: tuple

    def build(self, lib: ModuleType, requires_grad: bool, clone: bool) -> tuple[Any, Any, Any]:
        """(leaf, base, the tensor the op gets): with ``clone`` the view is taken of a clone of
        the leaf (the base), so that in-place ops may write into it."""
        wants = requires_grad and self.grad and is_float(self.dtype)
        leaf = lib.tensor(self.array, dtype=getattr(lib, LIB_NAME[self.dtype]), requires_grad=wants)
        base = leaf.clone() if clone else leaf
        return leaf, base, _view(self.layout, self.shape)(base)


def plan(
    sample: Sample, layout: str, kind: str, combo: str, domain: tuple, rng: np.random.Generator
) -> tuple[tuple, dict]:
    """The sample's args and kwargs with every Arg replaced by a Planned (Same and Seq kept)."""
    args = list(sample.args)
    if layout == "same":
        args = _with_same(args)

    def one(a: Any) -> Any:
        if isinstance(a, Arg):
            lay = layout if layout_applies(layout, a.shape) else "c"
            dt = dtype_of(a, combo)
            arr = leaf_array(rng, a, lay, kind_of(a, kind), dt, domain)
            return Planned(arr, dt, lay, a.grad, a.shape)
        if isinstance(a, Seq):
            return Seq(tuple(one(i) for i in a.items))
        return a

    return tuple(one(a) for a in args), {k: one(v) for k, v in sample.kwargs}


def _with_same(args: list) -> list:
    for j, b in enumerate(args):
        for i in range(j):
            a = args[i]
            if isinstance(a, Arg) and isinstance(b, Arg) and _same_kind(a, b):
                args[j] = Same(i)
                return args
    return args


def _same_kind(a: Arg, b: Arg) -> bool:
    """Shapes equal and dtypes equal ("x" and "y" are one dtype where "same" is crossed)."""
    role = {"y": "x"}
    return (a.shape, role.get(a.dtype, a.dtype), a.grad) == (
        b.shape,
        role.get(b.dtype, b.dtype),
        b.grad,
    )


def has_same(sample: Sample) -> bool:
    return any(isinstance(a, Same) for a in _with_same(list(sample.args)))


@dataclass
class Built:
    """A sample on one library: the leaves requiring grad, the op's args and kwargs, every
    tensor argument (to observe in-place writes) and every tensor the op's arguments are views
    of (the clones, or the leaves themselves)."""

    leaves: list
    args: list
    kwargs: dict
    tensors: list
    bases: list


def build(
    lib: ModuleType, planned: tuple[tuple, dict], requires_grad: bool, clone: str = ""
) -> Built:
    """``clone``: "" none, "first" the first tensor argument, "all" every float argument."""
    out = Built([], [], {}, [], [])

    def one(p: Any) -> Any:
        if isinstance(p, Planned):
            first = not out.tensors
            do_clone = clone == "all" and is_float(p.dtype) or clone == "first" and first
            leaf, base, t = p.build(lib, requires_grad, do_clone)
            if leaf.requires_grad:
                out.leaves.append(leaf)
            out.tensors.append(t)
            out.bases.append(base)
            return t
        if isinstance(p, Seq):
            return [one(i) for i in p.items]
        if isinstance(p, D):
            return getattr(lib, LIB_NAME[p.name])
        return p

    for a in planned[0]:
        out.args.append(out.args[a.index] if isinstance(a, Same) else one(a))
    out.kwargs = {k: one(v) for k, v in planned[1].items()}
    return out
