"""minigrad.nn: modules, parameters, functional ops, init and gradient utilities (torch.nn)."""

from . import functional, init, modules, parameter, utils
from .modules import *  # noqa: F403 - every module class, listed once in modules/__init__.py
from .parameter import Parameter, UninitializedBuffer, UninitializedParameter

__all__ = [
    *modules.__all__,
    "Parameter",
    "UninitializedBuffer",
    "UninitializedParameter",
    "functional",
    "init",
    "parameter",
    "utils",
]
