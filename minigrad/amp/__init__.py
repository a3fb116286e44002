"""torch.amp: automatic mixed precision on the CPU. `autocast` runs matmuls and convolutions
in float16 (bfloat16 is refused: numpy has none) and losses in float32; `GradScaler` scales a
loss so small float16 gradients survive, and skips the steps whose gradients overflowed."""

from . import autocast_mode, grad_scaler
from .autocast_mode import autocast, is_autocast_available
from .grad_scaler import GradScaler

__all__ = ["GradScaler", "autocast", "autocast_mode", "grad_scaler", "is_autocast_available"]
