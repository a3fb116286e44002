"""torch.autograd.graph's names: what `grad_fn` is, and the saved-tensor hooks. The classes live
on the floor (core/node.py, core/saved.py); this module gives them PyTorch's address."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.node import AccumulateGrad, Node, grad_accumulator
from ..core.saved import HOOKS, SavedTensor, pop_hooks, push_hooks

__all__ = [
    "AccumulateGrad",
    "Node",
    "SavedTensor",
    "disable_saved_tensors_hooks",
    "grad_accumulator",
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
