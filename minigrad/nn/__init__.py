"""minigrad.nn: modules, parameters, functional ops, init and gradient utilities (torch.nn)."""

from . import functional, init, modules, utils
from .modules import *  # noqa: F403 - every module class, listed once in modules/__init__.py
from .parameter import Parameter

__all__ = [*modules.__all__, "Parameter", "functional", "init", "utils"]
