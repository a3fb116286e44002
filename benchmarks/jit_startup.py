"""What numba costs a fresh process (a new notebook kernel): import, then the first CNN
training step, which compiles every float32 kernel (cold) or loads it from the cache (warm).
Each run is a new interpreter; all share one temporary NUMBA_CACHE_DIR, empty at first."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

FIRST_STEP = """
import json, time
start = time.perf_counter()
import numpy as np
import minigrad as mg
from minigrad.ops import nn as F
imported = time.perf_counter()
rng = np.random.default_rng(0)
x = mg.tensor(rng.random((64, 1, 8, 8), dtype=np.float32))
target = mg.tensor(rng.integers(0, 10, 64))
w1 = mg.tensor(rng.random((16, 1, 3, 3), dtype=np.float32), requires_grad=True)
w2 = mg.tensor(rng.random((32, 16, 3, 3), dtype=np.float32), requires_grad=True)
lw = mg.tensor(rng.random((10, 128), dtype=np.float32), requires_grad=True)
h = F.max_pool2d(F.conv2d(x, w1, padding=1).relu(), 2)
h = F.max_pool2d(F.conv2d(h, w2, padding=1).relu(), 2)
F.cross_entropy(F.linear(h.reshape(64, -1), lw), target).backward()
done = time.perf_counter()
print(json.dumps({"backend": mg.kernels.backend(), "import_s": imported - start,
                  "first_step_s": done - imported}))
"""

COMMAND = "NUMBA_CACHE_DIR=<empty dir> python -c '<first CNN step>' (benchmarks/jit_startup.py)"


def _run(cache_dir: str) -> dict:
    env = {**os.environ, "NUMBA_CACHE_DIR": cache_dir, "MINIGRAD_KERNELS": "numba"}
    out = subprocess.run(
        [sys.executable, "-c", FIRST_STEP], env=env, capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def measure(warm_runs: int = 3) -> dict:
    """Cold (empty cache) and warm (cached, median of warm_runs) first-step times."""
    with tempfile.TemporaryDirectory(prefix="minigrad-jit-") as cache_dir:
        cold = _run(cache_dir)
        warm = sorted((_run(cache_dir) for _ in range(warm_runs)), key=lambda r: r["first_step_s"])
    mid = warm[len(warm) // 2]
    return {
        "cold_first_step_s": cold["first_step_s"],
        "warm_first_step_s": mid["first_step_s"],
        "import_minigrad_s": mid["import_s"],
        "warm_runs": warm_runs,
        "command": COMMAND,
    }
