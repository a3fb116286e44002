"""What W1..W4 are: the shapes, hyper-parameters and elementwise chain every implementation
uses, so that they all compute the same thing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

DESCRIPTIONS = {
    "W1": "MLP 2-16-16-1 (ReLU, MSE), 100 moons points, one SGD step",
    "W2": "MLP 64-128-64-10 (ReLU, cross-entropy), digits, batch 64, one epoch",
    "W3": "CNN conv16-pool-conv32-pool-linear, digits, batch 64, one epoch",
    "W4": "2,000-op elementwise chain on a (4,) tensor, per op",
    "W5": "makemore MLP (embedding 27x10, block 3, tanh 200), batch 32, one SGD step",
    "W6": "tiny GPT (2 blocks, 4 heads, embed 32, block 16), batch 16, one AdamW step",
}
METRICS = {
    "W1": ("step",),
    "W2": ("epoch",),
    "W3": ("epoch",),
    "W4": ("forward/op", "backward/op"),
    "W5": ("step",),
    "W6": ("step",),
}

W1_SIZES = (2, 16, 16, 1)
W2_SIZES = (64, 128, 64, 10)
W3_SHAPES = [(16, 1, 3, 3), (16,), (32, 16, 3, 3), (32,), (10, 128), (10,)]
BATCH = 64
LR = {"W1": 0.1, "W2": 0.05, "W3": 0.05}

W4_LENGTH = 2000
W4_START = 0.5
# one op after another, cycling; every implementation (micrograd too) has these three
W4_OPS: tuple[Callable[[Any], Any], ...] = (
    lambda y: y * 1.0001,
    lambda y: y + 0.0001,
    lambda y: y.relu(),
)


def w4_ops() -> list[Callable[[Any], Any]]:
    """The W4 chain: W4_LENGTH ops."""
    return [W4_OPS[i % len(W4_OPS)] for i in range(W4_LENGTH)]


def mlp_shapes(sizes: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Parameter shapes of an MLP in torch's order: weight (out, in), bias (out,) per layer."""
    shapes: list[tuple[int, ...]] = []
    for a, b in zip(sizes, sizes[1:], strict=False):
        shapes += [(b, a), (b,)]
    return shapes
