"""torch.autograd.graph's names: what `grad_fn` is. The classes live on the floor (core/node.py,
core/saved.py); this module gives them PyTorch's address."""

from ..core.node import AccumulateGrad, Node, grad_accumulator
from ..core.saved import SavedTensor

__all__ = ["AccumulateGrad", "Node", "SavedTensor", "grad_accumulator"]
