"""minigrad.utils: activation checkpointing and hook helpers (torch.utils)."""

from . import checkpoint, hooks

__all__ = ["checkpoint", "hooks"]
