"""dtype objects named like PyTorch's, each a thin wrapper over a numpy dtype."""

from __future__ import annotations

import numpy as np


class dtype:  # noqa: N801 - mirrors torch.dtype
    """A tensor element type; `category` orders bool < integer < floating for type promotion."""

    __slots__ = ("name", "np", "category", "itemsize")

    def __init__(self, name: str, np_dtype: type, category: int) -> None:
        self.name = name
        self.np = np.dtype(np_dtype)
        self.category = category
        self.itemsize = self.np.itemsize

    @property
    def is_floating_point(self) -> bool:
        return self.category == 2

    def __repr__(self) -> str:
        return f"minigrad.{self.name}"

    def __reduce__(self):
        return (from_numpy_dtype, (self.np,))


bool_ = dtype("bool", np.bool_, 0)
int32 = dtype("int32", np.int32, 1)
int64 = dtype("int64", np.int64, 1)
float32 = dtype("float32", np.float32, 2)
float64 = dtype("float64", np.float64, 2)
float16 = dtype("float16", np.float16, 2)
uint8 = dtype("uint8", np.uint8, 1)  # torch.ByteTensor's: generator states, legacy bytes

_BY_NUMPY = {d.np: d for d in (bool_, int32, int64, float32, float64, float16, uint8)}


class _UnstoredDtype(dtype):
    """A dtype PyTorch has and numpy lacks (bfloat16): it prints, compares, promotes and is
    pickled by name, so scripts that name it run; only making a tensor of it fails, at the one
    place every tensor maker asks, its numpy type."""

    __slots__ = ()

    def __init__(self, name: str, itemsize: int) -> None:
        self.name, self.category, self.itemsize = name, 2, itemsize

    @property
    def np(self):  # noqa: D102 - the numpy type every tensor maker asks for
        raise TypeError(
            f"Got unsupported ScalarType {SCALAR_NAMES[self.name]}: minigrad keeps tensors in "
            f"numpy arrays and numpy has no {self.name} (use float32, or float16 for half "
            "precision)"
        )

    def __reduce__(self) -> str:
        return self.name


bfloat16 = _UnstoredDtype("bfloat16", 2)
_default_float = float32

# Legacy type names used in PyTorch messages, e.g. "[torch.FloatTensor [3]]".
LEGACY_NAMES = {
    "float32": "FloatTensor",
    "float64": "DoubleTensor",
    "float16": "HalfTensor",
    "int64": "LongTensor",
    "int32": "IntTensor",
    "bool": "BoolTensor",
    "uint8": "ByteTensor",
    "bfloat16": "BFloat16Tensor",
}
SCALAR_NAMES = {
    "float32": "Float",
    "float64": "Double",
    "float16": "Half",
    "int64": "Long",
    "int32": "Int",
    "bool": "Bool",
    "uint8": "Byte",
    "bfloat16": "BFloat16",
}

# C type names, as PyTorch's grad-assignment errors print them.
C_NAMES = {
    "float32": "float",
    "float64": "double",
    "float16": "c10::Half",
    "int64": "long int",
    "int32": "int",
    "bool": "bool",
    "uint8": "unsigned char",
    "bfloat16": "c10::BFloat16",
}


def from_numpy_dtype(np_dtype) -> dtype:
    """The minigrad dtype of a numpy dtype; other numpy kinds map to their nearest supported one."""
    np_dtype = np.dtype(np_dtype)
    found = _BY_NUMPY.get(np_dtype)
    if found is not None:
        return found
    if np_dtype.kind == "f":
        return float64
    if np_dtype.kind in "iu":
        return int64
    if np_dtype.kind == "b":
        return bool_
    raise TypeError(
        f"can't convert np.ndarray of type {np_dtype}. The only supported types are: "
        "float64, float32, float16, int64, int32, and bool."
    )


def dtype_of_to_args(args: tuple, kwargs: dict) -> dtype | None:
    """The dtype asked for by `.to(...)`: a dtype, another tensor's dtype, or dtype=; devices
    (the only one is the CPU) are accepted and ignored."""
    target = kwargs.get("dtype")
    for a in args:
        if isinstance(a, dtype):
            target = a
        elif isinstance(getattr(a, "dtype", None), dtype):
            target = a.dtype
    return target


def get_default_dtype() -> dtype:
    return _default_float


def set_default_dtype(d: dtype) -> None:
    global _default_float
    if not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _default_float = d


def promote(dtypes_by_priority: list[tuple[int, dtype]]) -> dtype:
    """PyTorch's result_type: the highest category wins; within the winning category, operands
    with dimensions beat zero-dim tensors, which beat Python scalars (priority 2 > 1 > 0)."""
    top_cat = max(d.category for _, d in dtypes_by_priority)
    best_prio = max(p for p, d in dtypes_by_priority if d.category == top_cat)
    candidates = [d for p, d in dtypes_by_priority if p == best_prio and d.category == top_cat]
    if best_prio == 0:  # only Python scalars carry the top category: default dtype
        return _default_float if top_cat == 2 else (int64 if top_cat == 1 else bool_)
    return max(candidates, key=lambda d: d.itemsize)
