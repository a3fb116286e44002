"""Datasets (scikit-learn's moons and 8x8 digits) and shared initial weights, as numpy arrays."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from .workloads import BATCH


@dataclass(frozen=True)
class Data:
    x: np.ndarray
    y: np.ndarray

    def batches(self, size: int = BATCH) -> list[tuple[np.ndarray, np.ndarray]]:
        """Fixed-order mini-batches; the last one is smaller."""
        return [(self.x[i : i + size], self.y[i : i + size]) for i in range(0, len(self.x), size)]


@cache
def moons() -> Data:
    """100 points of two moons; targets -1/+1 as a (100, 1) float column."""
    from sklearn.datasets import make_moons

    x, y = make_moons(100, noise=0.1, random_state=0)
    return Data(x.astype(np.float32), (2.0 * y - 1).astype(np.float32)[:, None])


@cache
def digits(images: bool = False) -> Data:
    """The 1,797 8x8 digits scaled to [0, 1]: (N, 64) rows, or (N, 1, 8, 8) images."""
    from sklearn.datasets import load_digits

    d = load_digits()
    x = (d.data / 16.0).astype(np.float32)
    return Data(x.reshape(-1, 1, 8, 8) if images else x, d.target.astype(np.int64))


def init_params(shapes: list[tuple[int, ...]], seed: int = 0) -> list[np.ndarray]:
    """torch's default init (uniform, bound 1/sqrt(fan_in)), the same for every implementation."""
    rng = np.random.default_rng(seed)
    params, bound = [], 1.0
    for shape in shapes:
        if len(shape) > 1:  # a weight; the bias after it shares its fan-in
            bound = 1.0 / np.sqrt(np.prod(shape[1:]))
        params.append(rng.uniform(-bound, bound, shape).astype(np.float32))
    return params
