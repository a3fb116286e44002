"""Compile the numba kernels into their cache now, so a learner's first CNN step is quick.

`make install` runs `python -m minigrad.utils.warm_kernels` once: a tiny CNN (conv2d, relu,
max_pool2d, linear, cross-entropy) runs forward and backward in float32 and float64, which
compiles every kernel those use into numba's on-disk cache (kernels/cache.py says where). A new
kernel process then loads them instead of compiling them for ~10 s on its first CNN step.
"""

from __future__ import annotations

import sys
import time

from .. import kernels, nn
from ..core import dtypes
from ..creation import tensor, zeros


def warm() -> float:
    """Run each cached kernel once per float dtype; returns the seconds it took."""
    start = time.perf_counter()
    for dtype in (dtypes.float32, dtypes.float64):
        model = nn.Sequential(
            nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Flatten(), nn.Linear(4 * 2 * 2, 3),
        ).to(dtype)  # fmt: skip
        loss = nn.functional.cross_entropy(model(zeros(2, 1, 4, 4, dtype=dtype)), tensor([0, 2]))
        loss.backward()
    return time.perf_counter() - start


def main() -> int:
    if kernels.backend() != "numba":
        print(f"minigrad kernels: the {kernels.backend()} backend has nothing to compile")
        return 0
    print(f"minigrad kernels compiled into numba's cache in {warm():.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
