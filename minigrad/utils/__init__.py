"""minigrad.utils: activation checkpointing, hook helpers and data loading (torch.utils)."""

from . import checkpoint, data, hooks

__all__ = ["checkpoint", "data", "hooks"]
