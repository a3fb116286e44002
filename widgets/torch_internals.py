"""Every place the explorer reaches into torch's private internals, and nowhere else.

torch does not report its engine's steps, so the explorer reads what torch keeps for itself:
the Python dicts that hold tensors' and modules' hooks (torch calls whatever they hold), the
`_raw_saved_*` attributes of a node (read without unpacking), the metadata of a node's inputs, the
sequence number that orders its ready queue, and the engine's end-of-pass callback queue.
minigrad mirrors some of these names (`_sequence_nr`, `_saved_*`), so the readers here work on
its objects where they say so. When a torch release moves one of them, this is the file to mend.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple


class SavedSlot(NamedTuple):
    """One tensor a node saved for backward, as the explorer draws it."""

    name: str
    shape: tuple[int, ...] | None
    freed: bool  # released by a backward without retain_graph
    hooked: bool = False  # held by saved-tensor hooks: its shape is unknown without unpacking


TENSOR_HOOKS = (("_backward_hooks", "tensor"), ("_post_accumulate_grad_hooks", "post_accumulate"))
MODULE_HOOKS = (("_backward_hooks", "module"), ("_backward_pre_hooks", "module_pre"))


def hook_dicts(obj: Any, attrs: tuple[tuple[str, str], ...]) -> list[tuple[dict, str]]:
    """(hook dict, the kind of hook it holds) of a tensor (TENSOR_HOOKS) or module
    (MODULE_HOOKS): the dicts torch reads at each call, so a hook put in them runs."""
    found = []
    for attr, kind in attrs:
        hooks = getattr(obj, attr, None)
        if hooks:
            found.append((hooks, kind))
    return found


def at_end_of_pass(callback: Callable[[], None]) -> None:
    """Have torch's engine call `callback` once the running backward pass is over."""
    import torch  # only while a torch pass runs: torch is there

    torch.autograd.Variable._execution_engine.queue_callback(callback)


def sequence_nr(node: Any) -> int | None:
    """A node's creation order (minigrad's nodes have the same method); None without one."""
    seq = getattr(node, "_sequence_nr", None)
    if seq is None:
        return None
    return int(seq() if callable(seq) else seq)


def output_shape(node: Any) -> tuple[int, ...] | None:
    """The shape of the forward output a torch node differentiates (its input metadata)."""
    meta = getattr(node, "_input_metadata", None)
    if meta:
        return tuple(meta[0].shape)
    return None


def saved_slots(node: Any) -> list[SavedSlot]:
    """Each tensor a torch node saved, from its `_raw_saved_<name>` SavedTensor, never unpacked:
    unpacking runs the saved-tensor unpack hook, user code (checkpoint's recomputes its block).

    No hooks: `.data` is the saved tensor itself (no in-place version check either). Hooks:
    `.unpack_hook` is set and `.data` is whatever the pack hook returned, whose shape proves
    nothing, so the shape stays unknown. Freed: both are None (the hooks go too), and
    `_saved_<name>` raises without any hook to run; it gives None for an undefined optional
    tensor (`bias=None`), left out like non-tensors (sizes). A saved list (an index's
    `indices`) is not drawn, only said to be freed: its `_raw_saved_` raises then."""
    slots = []
    attrs = dir(node)
    for attr in attrs:
        if not attr.startswith("_raw_saved_"):
            continue
        name = attr[len("_raw_saved_") :]
        try:
            raw = getattr(node, attr)
        except RuntimeError:  # a freed list (a custom Function's has no `_saved_tensors`)
            if f"_saved_{name}" in attrs:
                slots.append(SavedSlot(name, None, True))
            continue
        if isinstance(raw, tuple | list):
            continue
        if raw.unpack_hook is not None:
            slots.append(SavedSlot(name, None, False, True))
        elif raw.data is not None:
            slots.append(SavedSlot(name, tuple(raw.data.shape), False))
        elif _is_freed(node, f"_saved_{name}"):
            slots.append(SavedSlot(name, None, True))
    return slots


def _is_freed(node: Any, attr: str) -> bool:
    """True when reading a saved tensor with no hook to run raises: freed (else undefined)."""
    try:
        getattr(node, attr)
    except RuntimeError:
        return True
    return False


def backward_hook_of(function: Any) -> tuple[Any, str] | None:
    """(the BackwardHook, "_input_hook" or "_output_hook") when `function` is one of the two
    node hooks through which a module's full backward hooks run (torch.utils.hooks.BackwardHook;
    minigrad's has the same names); else None."""
    owner = getattr(function, "__self__", None)
    side = getattr(getattr(function, "__func__", None), "__name__", "")
    if side in ("_input_hook", "_output_hook") and hasattr(owner, "user_pre_hooks"):
        return owner, side
    return None
