"""Hook handles, and BackwardHook: how full module backward hooks see grad_input/grad_output.

As in PyTorch, the module's tensor inputs and outputs are passed through an identity autograd
Function. The node on the outputs' side captures grad_output (running backward pre-hooks there);
the node on the inputs' side fires the user hooks once the gradients w.r.t. the inputs exist.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from ..autograd.function import Function
from ..core.grad_mode import is_grad_enabled
from ..core.hooks import RemovableHandle
from ..core.tensor import Tensor

__all__ = ["BackwardHook", "RemovableHandle"]

NO_INPUT_GRAD_WARNING = (
    "Full backward hook is firing when gradients are computed with respect to module outputs "
    "since no inputs require gradients. See https://docs.pytorch.org/docs/main/generated/"
    "torch.nn.Module.html#torch.nn.Module.register_full_backward_hook for more details."
)


def _pack_with_none(indices: list[int], values: Any, size: int) -> tuple:
    res: list = [None] * size
    for idx, val in zip(indices, values, strict=True):
        res[idx] = val
    return tuple(res)


class BackwardHookFunction(Function):
    """Identity whose node (`BackwardHookFunctionBackward`) marks where a module's grads pass."""

    @staticmethod
    def forward(ctx: Any, *args: Any) -> tuple:
        ctx.mark_non_differentiable(*[a for a in args if not a.requires_grad])
        return args

    @staticmethod
    def backward(ctx: Any, *args: Any) -> tuple:
        return args


class BackwardHook:
    """The full backward hooks of one forward call (torch.utils.hooks.BackwardHook)."""

    def __init__(
        self, module: Any, user_hooks: list[Callable], user_pre_hooks: list[Callable]
    ) -> None:
        self.module = module
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.grad_outputs: tuple | None = None
        self.n_outputs = -1
        self.output_tensors_index: list[int] | None = None
        self.n_inputs = -1
        self.input_tensors_index: list[int] | None = None

    # --- input side: the user hooks fire here ---------------------------------------------
    def _input_hook(self, grad_input: tuple, _: tuple) -> tuple | None:
        if self.grad_outputs is None:  # gradient reached the inputs without passing the outputs
            return None
        res = _pack_with_none(self.input_tensors_index, grad_input, self.n_inputs)
        for hook in self.user_hooks:
            out = hook(self.module, res, self.grad_outputs)
            if out is None:
                continue
            if len(out) != len(res):
                raise RuntimeError(
                    "Backward hook returned an invalid number of grad_input, "
                    f"got {len(out)}, but expected {len(res)}"
                )
            res = out
        self.grad_outputs = None
        return tuple(res[i] for i in self.input_tensors_index)

    # --- output side: capture grad_output, run pre-hooks -----------------------------------
    def _output_hook(self, _: tuple, grad_output: tuple) -> tuple | None:
        self.grad_outputs = _pack_with_none(self.output_tensors_index, grad_output, self.n_outputs)
        for pre_hook in self.user_pre_hooks:
            new = pre_hook(self.module, self.grad_outputs)
            if new is None:
                continue
            if len(new) != len(self.grad_outputs):
                raise RuntimeError(
                    "Backward pre hook returned an invalid number of grad_output, "
                    f"got {len(new)}, but expected {len(self.grad_outputs)}"
                )
            self.grad_outputs = new
        local = self.grad_outputs
        if self.input_tensors_index is None:  # no input requires grad: fire the hooks right here
            warnings.warn(NO_INPUT_GRAD_WARNING, UserWarning, stacklevel=2)
            grad_inputs = _pack_with_none([], [], self.n_inputs)
            for hook in self.user_hooks:
                res = hook(self.module, grad_inputs, self.grad_outputs)
                if res is not None and not (
                    isinstance(res, tuple) and all(el is None for el in res)
                ):
                    raise RuntimeError(
                        "Backward hook for Modules where no input requires "
                        "gradient should always return None or None for all "
                        "gradients."
                    )
            self.grad_outputs = None
        return tuple(local[i] for i in self.output_tensors_index)

    def _apply_on_tensors(self, hook: Callable, args: tuple) -> tuple[tuple, list[int] | None]:
        idx = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        tensors = [args[i] for i in idx]
        if not (any(t.requires_grad for t in tensors) and is_grad_enabled()):
            return args, None
        new_tensors = BackwardHookFunction.apply(*tensors)
        grad_fns = [
            t.grad_fn
            for t in new_tensors
            if t.grad_fn is not None and t.grad_fn.name() == "BackwardHookFunctionBackward"
        ]
        grad_fns[0].register_hook(hook)
        out = list(args)
        for i, t in zip(idx, new_tensors, strict=True):
            out[i] = t
        return tuple(out), idx

    def setup_input_hook(self, args: tuple) -> tuple:
        res, self.input_tensors_index = self._apply_on_tensors(self._input_hook, args)
        self.n_inputs = len(args)
        return res

    def setup_output_hook(self, result: Any) -> Any:
        is_tuple = isinstance(result, tuple)
        args = result if is_tuple else (result,)
        res, self.output_tensors_index = self._apply_on_tensors(self._output_hook, args)
        self.n_outputs = len(args)
        return res if is_tuple else res[0]
