"""The node PyTorch records for an op it has no derivative for (bernoulli(x, p), remainder of
a number by a tensor, bincount's weights, histogram): the output requires grad and the graph
goes on, but a backward or a tangent through it raises, naming the ATen op."""

from __future__ import annotations

from ..core.node import Node


class NotImplementedBackward(Node):
    def name(self) -> str:
        return "torch::autograd::NotImplemented"

    def jvp(self, out, tangents):
        raise NotImplementedError(
            f"Trying to use forward AD with aten::{self.op} that does not support it."
        )

    def backward(self, *grads):  # (one per output: histogram has two)
        raise RuntimeError(f"derivative for aten::{self.op} is not implemented")
