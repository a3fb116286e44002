"""torch.autograd.graph's names: what `grad_fn` is, and the saved-tensor hooks. The classes live
on the floor (core/node.py, core/saved.py); this module gives them PyTorch's address."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..core.node import AccumulateGrad, Node, edge_of, grad_accumulator
from ..core.saved import HOOKS, SavedTensor, pop_hooks, push_hooks
from ..core.tensor import Tensor
from .engine import current_task, will_execute

__all__ = [
    "AccumulateGrad",
    "Node",
    "SavedTensor",
    "disable_saved_tensors_hooks",
    "grad_accumulator",
    "register_multi_grad_hook",
    "save_on_cpu",
    "saved_tensors_hooks",
]


class saved_tensors_hooks:  # noqa: N801 - PyTorch's name
    """Inside the block, every tensor an op saves for backward goes through `pack_hook`, and
    only what it returns is kept; `unpack_hook` turns that back into a tensor each time backward
    (or `grad_fn._saved_x`) needs it. The innermost block wins; hooks belong to the thread."""

    def __init__(self, pack_hook: Callable[[Any], Any], unpack_hook: Callable[[Any], Any]) -> None:
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self) -> saved_tensors_hooks:
        push_hooks(self.pack_hook, self.unpack_hook)
        return self

    def __exit__(self, *exc: Any) -> None:
        pop_hooks()


class save_on_cpu(saved_tensors_hooks):  # noqa: N801 - PyTorch's name
    """PyTorch's way to keep saved activations in CPU memory while the model runs on a GPU.
    minigrad's tensors always live on the CPU, so the copy it would make is the tensor itself."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        super().__init__(_to_cpu, _from_cpu)


def _to_cpu(tensor: Any) -> tuple:
    return (tensor.device, tensor.cpu())


def _from_cpu(packed: tuple) -> Any:
    device, tensor = packed
    return tensor.to(device)


class disable_saved_tensors_hooks:  # noqa: N801 - PyTorch's name
    """Inside the block, opening `saved_tensors_hooks` raises RuntimeError(error_message)."""

    def __init__(self, error_message: str) -> None:
        self.error_message = error_message

    def __enter__(self) -> disable_saved_tensors_hooks:
        self.previous, HOOKS.disabled = HOOKS.disabled, self.error_message
        return self

    def __exit__(self, *exc: Any) -> None:
        HOOKS.disabled = self.previous


class _MultiHandle:
    """Removes every tensor hook a multi-grad hook registered."""

    def __init__(self, handles: list) -> None:
        self.handles = handles

    def remove(self) -> None:
        for handle in self.handles:
            handle.remove()

    def __enter__(self) -> _MultiHandle:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.remove()


def register_multi_grad_hook(
    tensors: Sequence[Tensor], fn: Callable, *, mode: str = "all"
) -> _MultiHandle:
    """mode="all": `fn(grads)` once per backward, when the gradients of all `tensors` that the
    pass reaches are there (None for the others). mode="any": `fn(grad)` with the first of
    them. Either way what `fn` returns is ignored."""
    if mode not in ("all", "any"):
        raise ValueError(f"Expects mode to be one of ('all', 'any') but got {mode}")
    tensors = tuple(tensors)
    seen: dict = {"task": None}

    def first_of_this_pass() -> bool:
        task = current_task()
        fresh = seen["task"] is not task
        if fresh:
            seen["task"] = task
        return fresh

    def any_hook(grad: Tensor) -> None:
        if first_of_this_pass():
            fn(grad)

    def all_hook(i: int) -> Callable:
        def hook(grad: Tensor) -> None:
            if first_of_this_pass():
                seen["grads"] = [None] * len(tensors)
                seen["left"] = sum(
                    1 for t in tensors if t.requires_grad and will_execute(edge_of(t)[0])
                )
            seen["grads"][i] = grad
            seen["left"] -= 1
            if seen["left"] == 0:
                fn(tuple(seen["grads"]))

        return hook

    hooks = [any_hook if mode == "any" else all_hook(i) for i in range(len(tensors))]
    return _MultiHandle([t.register_hook(h) for t, h in zip(tensors, hooks) if t.requires_grad])
