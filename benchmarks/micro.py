"""micrograd (the PyPI package): scalar Values, one Python object per number. W1 and W4 only."""

from __future__ import annotations

import sys

from . import data
from .runner import Impl, Runner, now, timed
from .workloads import LR, W1_SIZES, W4_LENGTH, W4_START, mlp_shapes, w4_ops


def _w1() -> Runner:
    from micrograd.nn import MLP

    model = MLP(W1_SIZES[0], list(W1_SIZES[1:]))
    arrays = iter(data.init_params(mlp_shapes(W1_SIZES)))
    for layer in model.layers:
        w, b = next(arrays), next(arrays)
        for neuron, row, bias in zip(layer.neurons, w, b, strict=True):
            for v, value in zip(neuron.w, row, strict=True):
                v.data = float(value)
            neuron.b.data = float(bias)
    d = data.moons()
    xs, ys = d.x.tolist(), d.y[:, 0].tolist()

    def step() -> float:
        loss = sum((model(x) - y) ** 2 for x, y in zip(xs, ys, strict=True)) * (1.0 / len(xs))
        model.zero_grad()
        loss.backward()
        for p in model.parameters():
            p.data -= LR["W1"] * p.grad
        return loss.data

    return timed("step", step)


def _w4() -> Runner:
    from micrograd.engine import Value

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10 * W4_LENGTH))  # recursive topo sort
    ops = w4_ops()

    def run() -> tuple[dict[str, float], float]:
        start = now()
        y = [Value(W4_START) for _ in range(4)]
        for f in ops:
            y = [f(v) for v in y]
        mid = now()
        total = y[0] + y[1] + y[2] + y[3]
        total.backward()
        end = now()
        return {
            "forward/op": (mid - start) / W4_LENGTH,
            "backward/op": (end - mid) / W4_LENGTH,
        }, total.data

    return run


def micrograd_impl() -> Impl:
    return Impl("micrograd", {"W1": _w1, "W4": _w4})
