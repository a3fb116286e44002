"""torch.amp.GradScaler: dynamic loss scaling. Multiplying the loss by a large scale keeps
small float16 gradients from flushing to zero; before the optimizer steps, the gradients are
divided back (`unscale_`), and a step whose gradients hold an inf or NaN is skipped, the scale
backed off; after `growth_interval` clean steps in a row the scale grows again.

Each optimizer moves through READY -> UNSCALED -> STEPPED between two `update()`s, which is
how calling `unscale_` twice, or after `step`, is caught with PyTorch's errors. Disabled, every
method passes straight through (`scale` returns the loss itself, `step` is `optimizer.step()`).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from enum import Enum
from typing import Any

import numpy as np

from ..autograd import no_grad
from ..core import dtypes
from ..core.tensor import Tensor
from ..creation import full, zeros


class OptState(Enum):
    """Where an optimizer is between two `update()`s."""

    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _fresh_state() -> dict:
    return {"stage": OptState.READY, "found_inf_per_device": {}}


class GradScaler:
    """Scales losses and unscales gradients; see the module docstring."""

    def __init__(
        self,
        device: str = "cuda",
        init_scale: float = 2.0**16,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
        enabled: bool = True,
    ) -> None:
        self._device = device
        if enabled and device == "cuda":
            warnings.warn(
                "torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
                stacklevel=2,
            )
            enabled = False
        self._enabled = enabled
        if enabled:
            assert growth_factor > 1.0, "The growth factor must be > 1.0."
            assert backoff_factor < 1.0, "The backoff factor must be < 1.0."
            self._init_scale = init_scale
            self._scale: Tensor | None = None  # made by the first scale()
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker: Tensor | None = None  # clean steps in a row
            self._per_optimizer_states: dict[int, dict] = {}

    def is_enabled(self) -> bool:
        return self._enabled

    def _lazy_init_scale_growth_tracker(self) -> None:
        self._scale = full((), self._init_scale, dtype=dtypes.float32)
        self._growth_tracker = full((), self._init_growth_tracker, dtype=dtypes.int32)

    def _check_scale_growth_tracker(self, funcname: str) -> None:
        assert self._scale is not None, (
            f"Attempted {funcname} but _scale is None.  This may indicate your script did not "
            "use scaler.scale(loss or outputs) earlier in the iteration."
        )

    def _state_of(self, optimizer: Any) -> dict:
        return self._per_optimizer_states.setdefault(id(optimizer), _fresh_state())

    def scale(self, outputs: Any) -> Any:
        """`outputs` (a tensor, or nested lists/tuples of them) times the current scale."""
        if not self._enabled:
            return outputs
        if self._scale is None:
            self._lazy_init_scale_growth_tracker()
        if isinstance(outputs, Tensor):
            return outputs * self._scale
        if not isinstance(outputs, Iterable):
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")
        scaled = map(self.scale, outputs)
        return type(outputs)(scaled) if isinstance(outputs, (list, tuple)) else scaled

    def _unscale_grads_(self, optimizer: Any, inv_scale: Tensor, found_inf: Tensor) -> None:
        """Divides every gradient by the scale in place, noting first whether any held an inf
        or NaN; float16 gradients are refused, as PyTorch refuses them."""
        with no_grad():
            for group in optimizer.param_groups:
                for param in group["params"]:
                    grad = param.grad
                    if grad is None:
                        continue
                    if grad.dtype is dtypes.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    if not grad.isfinite().all().item():
                        found_inf.fill_(1.0)
                    grad.mul_(inv_scale)

    def unscale_(self, optimizer: Any) -> None:
        """Divides `optimizer`'s gradients by the scale, once per step (before clipping them)."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        state = self._state_of(optimizer)
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError(
                "unscale_() has already been called on this optimizer since the last update()."
            )
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv_scale = full((), np.float32(1.0 / self._scale.item()), dtype=dtypes.float32)
        found_inf = zeros(1, dtype=dtypes.float32)
        self._unscale_grads_(optimizer, inv_scale, found_inf)
        state["found_inf_per_device"] = {"cpu": found_inf}
        state["stage"] = OptState.UNSCALED

    def step(self, optimizer: Any, *args: Any, **kwargs: Any) -> Any:
        """`optimizer.step()` unless the unscaled gradients held an inf or NaN (then None)."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale_growth_tracker("step")
        state = self._state_of(optimizer)
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        found = state["found_inf_per_device"]
        assert len(found) > 0, "No inf checks were recorded for this optimizer."
        result = None
        if not sum(v.item() for v in found.values()):
            result = optimizer.step(*args, **kwargs)
        state["stage"] = OptState.STEPPED
        return result

    def update(self, new_scale: float | Tensor | None = None) -> None:
        """Backs the scale off after an overflow, grows it after `growth_interval` clean steps,
        or sets it to `new_scale`; then every optimizer starts a new step."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("update")
        with no_grad():
            if new_scale is not None:
                self._set_scale(new_scale)
            else:
                found = [
                    inf
                    for state in self._per_optimizer_states.values()
                    for inf in state["found_inf_per_device"].values()
                ]
                assert len(found) > 0, "No inf checks were recorded prior to update."
                self._grow_or_back_off(any(inf.item() for inf in found))
        self._per_optimizer_states = {}

    def _set_scale(self, new_scale: float | Tensor) -> None:
        if isinstance(new_scale, float):
            self._scale.fill_(new_scale)
            return
        assert new_scale.numel() == 1 and not new_scale.requires_grad, (
            "new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
            "torch.FloatTensor with requires_grad=False."
        )
        self._scale.copy_(new_scale)

    def _grow_or_back_off(self, found_inf: bool) -> None:
        """PyTorch's rule, in float32: an overflow multiplies the scale by backoff_factor and
        restarts the count; the growth_interval-th clean step multiplies it by growth_factor
        (kept only if finite) and restarts the count."""
        scale = np.float32(self._scale.item())
        clean = self._growth_tracker.item() + 1
        if found_inf:
            scale, clean = scale * np.float32(self._backoff_factor), 0
        elif clean == self._growth_interval:
            grown = scale * np.float32(self._growth_factor)
            scale, clean = (grown if np.isfinite(grown) else scale), 0
        self._scale.fill_(float(scale))
        self._growth_tracker.fill_(clean)

    def get_scale(self) -> float:
        """The current scale (1.0 when disabled)."""
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else self._scale.item()

    def _get_growth_tracker(self) -> int:
        if not self._enabled:
            return 0
        return (
            self._init_growth_tracker
            if self._growth_tracker is None
            else self._growth_tracker.item()
        )

    def get_growth_factor(self) -> float:
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        self._growth_factor = new_factor

    def get_backoff_factor(self) -> float:
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        self._backoff_factor = new_factor

    def get_growth_interval(self) -> int:
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        self._growth_interval = new_interval

    def state_dict(self) -> dict:
        """The scale and its rule, to checkpoint with the model ({} when disabled)."""
        if not self._enabled:
            return {}
        return {
            "scale": self.get_scale(),
            "growth_factor": self._growth_factor,
            "backoff_factor": self._backoff_factor,
            "growth_interval": self._growth_interval,
            "_growth_tracker": self._get_growth_tracker(),
        }

    def load_state_dict(self, state_dict: dict) -> None:
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError(
                "The source state dict is empty, possibly because it was saved from a disabled "
                "instance of GradScaler."
            )
        self._init_scale = state_dict["scale"]
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._scale is not None:
            self._scale.fill_(self._init_scale)
            self._growth_tracker.fill_(self._init_growth_tracker)
