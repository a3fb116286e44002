"""One read-only view of autograd objects, whether they come from minigrad or from real torch.

minigrad mirrors PyTorch's names (`grad_fn`, `next_functions`, `variable`, `_saved_*`), so almost
everything is shared; the few places where the two differ (how a node lists its saved tensors,
where output shapes live, the AccumulateGrad name) are answered here, reading torch's private
attributes through torch_internals.py. torch is never imported: an object is recognised as
torch's by the module its type comes from.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from . import torch_internals
from .torch_internals import SavedSlot, output_shape, sequence_nr  # noqa: F401 (the adapters' API)


def is_torch(obj: Any) -> bool:
    """True for torch tensors and torch graph nodes (judged by type, without importing torch).

    torch's C++ nodes (`MulBackward0`, ...) are types of the `builtins` module; its custom
    Function nodes and tensors live in `torch.*`.
    """
    module = type(obj).__module__
    return module.startswith("torch") or (module == "builtins" and hasattr(obj, "next_functions"))


def library_of(t: Any) -> Any:
    """The module a tensor comes from, minigrad or torch (imported by whoever made `t`)."""
    import importlib

    return importlib.import_module("torch" if is_torch(t) else "minigrad")


def is_tensor(obj: Any) -> bool:
    """Duck-typed tensor test: both libraries' tensors have these attributes, nodes do not."""
    return hasattr(obj, "requires_grad") and hasattr(obj, "grad_fn") and hasattr(obj, "shape")


def node_name(node: Any) -> str:
    """`MulBackward0`, `AccumulateGrad` (torch says `torch::autograd::AccumulateGrad`)."""
    return node.name().rsplit("::", 1)[-1]


def is_accumulate(node: Any) -> bool:
    return hasattr(node, "variable")


def run_order(node: Any) -> int | float:
    """The engine's priority: a higher sequence number runs first; none at all sorts last."""
    seq = sequence_nr(node)
    return math.inf if seq is None else seq


def input_shapes(node: Any) -> list[tuple[int, ...] | None]:
    """Shapes of the forward inputs behind each `next_functions` slot (minigrad only; else None).

    A `None` edge whose shape is known is a constant tensor input; torch does not say.
    """
    meta = getattr(node, "_input_meta", None)
    if not isinstance(meta, tuple):
        return [None] * len(node.next_functions)
    return [tuple(m[0]) if m is not None else None for m in meta]


def saved_slots(node: Any) -> list[SavedSlot]:
    """Each tensor the node saved for backward, never unpacked (that would run saved-tensor
    hooks): minigrad answers directly (it keeps a packed tensor's shape), torch's are read from
    its private attributes (torch_internals.py)."""
    if hasattr(node, "saved_tensor_slots"):
        return [
            SavedSlot(name, tuple(shape) if shape is not None else None, bool(freed))
            for name, shape, freed in node.saved_tensor_slots()
        ]
    return torch_internals.saved_slots(node) if is_torch(node) else []


def to_numpy(t: Any) -> np.ndarray:
    """A detached numpy copy of a tensor's values (either library)."""
    d = t.detach()
    if is_torch(d):
        d = d.cpu()
        if not d.dtype.is_floating_point or d.dtype.itemsize >= 4:
            return np.array(d.numpy(), copy=True)
        return np.array(d.float().numpy(), copy=True)  # bfloat16/half: numpy may lack the dtype
    return np.array(d.numpy(), copy=True)


def stored_grad(t: Any) -> Any | None:
    """`.grad` where it is meaningful (leaves, retain_grad), without the non-leaf warning."""
    if t.grad_fn is not None and not getattr(t, "retains_grad", False):
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return t.grad
