"""Hand-written numpy backprop: every gradient written out, no graph, no autograd. The floor
an autograd library's overhead is measured against. numpy has no fast convolution, so W3 calls
minigrad's numba kernels directly: the difference to minigrad there is autograd alone."""

from __future__ import annotations

import numpy as np

from . import data
from .runner import Impl, Runner, now, timed
from .workloads import LR, W1_SIZES, W2_SIZES, W3_SHAPES, W4_LENGTH, W4_START, mlp_shapes


def _sgd(params: list[np.ndarray], grads: list[np.ndarray], lr: float) -> None:
    for p, g in zip(params, grads, strict=True):
        p -= lr * g


def _mlp_forward(params: list[np.ndarray], x: np.ndarray) -> list[np.ndarray]:
    """Activations of every layer, input first; ReLU between layers, none after the last."""
    acts = [x]
    for i in range(0, len(params), 2):
        h = acts[-1] @ params[i].T + params[i + 1]
        acts.append(np.maximum(h, 0) if i + 2 < len(params) else h)
    return acts


def _mlp_backward(params: list[np.ndarray], acts: list[np.ndarray], g: np.ndarray) -> list:
    grads: list[np.ndarray] = [np.empty(0)] * len(params)
    for i in range(len(params) - 2, -1, -2):
        grads[i], grads[i + 1] = g.T @ acts[i // 2], g.sum(0)
        if i:
            g = (g @ params[i]) * (acts[i // 2] > 0)
    return grads


def _softmax_ce(logits: np.ndarray, y: np.ndarray) -> tuple[float, np.ndarray]:
    """Mean cross-entropy and its gradient with respect to the logits."""
    shifted = logits - logits.max(1, keepdims=True)
    p = np.exp(shifted)
    p /= p.sum(1, keepdims=True)
    n = len(y)
    loss = -np.log(p[np.arange(n), y]).mean()
    p[np.arange(n), y] -= 1
    return float(loss), p / n


def _w1() -> Runner:
    params = data.init_params(mlp_shapes(W1_SIZES))
    d = data.moons()

    def step() -> float:
        acts = _mlp_forward(params, d.x)
        diff = acts[-1] - d.y
        _sgd(params, _mlp_backward(params, acts, 2 * diff / diff.size), LR["W1"])
        return float((diff**2).mean())

    return timed("step", step)


def _w2() -> Runner:
    params = data.init_params(mlp_shapes(W2_SIZES))
    batches = data.digits().batches()

    def epoch() -> float:
        for x, y in batches:
            acts = _mlp_forward(params, x)
            loss, g = _softmax_ce(acts[-1], y)
            _sgd(params, _mlp_backward(params, acts, g), LR["W2"])
        return loss

    return timed("epoch", epoch)


def _w3() -> Runner:
    from minigrad.kernels import jit as k

    w1, b1, w2, b2, lw, lb = params = data.init_params(W3_SHAPES)
    batches = data.digits(images=True).batches()

    def conv_relu_pool(x, w, b):
        h = k.conv2d_forward(x, w, b, 1, 1)
        r = np.maximum(h, 0)
        p, idx = k.max_pool2d_forward(r, 2, 2, 0)
        return r, p, idx

    def back_pool_relu(g, idx, r):
        return k.max_pool2d_backward(g, idx, r.shape) * (r > 0)

    def epoch() -> float:
        for x, y in batches:
            r1, p1, i1 = conv_relu_pool(x, w1, b1)
            r2, p2, i2 = conv_relu_pool(p1, w2, b2)
            flat = p2.reshape(len(x), -1)
            loss, g = _softmax_ce(flat @ lw.T + lb, y)
            glw, glb = g.T @ flat, g.sum(0)
            g2 = back_pool_relu((g @ lw).reshape(p2.shape), i2, r2)
            gw2, gb2 = k.conv2d_weight_grad(p1, g2, w2.shape, 1, 1), g2.sum((0, 2, 3))
            g1 = back_pool_relu(k.conv2d_input_grad(g2, w2, p1.shape, 1, 1), i1, r1)
            gw1, gb1 = k.conv2d_weight_grad(x, g1, w1.shape, 1, 1), g1.sum((0, 2, 3))
            _sgd(params, [gw1, gb1, gw2, gb2, glw, glb], LR["W3"])
        return loss

    return timed("epoch", epoch)


def _w4() -> Runner:
    """The chain with a tape of closures, the least an op-by-op autograd must do."""
    x = np.full(4, W4_START, np.float32)

    def run() -> tuple[dict[str, float], float]:
        start = now()
        tape = []
        y = x
        for i in range(W4_LENGTH):
            kind = i % 3  # workloads.W4_OPS: * 1.0001, + 0.0001, relu
            if kind == 0:
                y = y * np.float32(1.0001)
            elif kind == 1:
                y = y + np.float32(0.0001)
            else:
                tape.append((i, y > 0))
                y = np.maximum(y, 0)
        mid = now()
        g = np.ones_like(y)
        masks = dict(tape)
        for i in range(W4_LENGTH - 1, -1, -1):
            kind = i % 3
            if kind == 0:
                g = g * np.float32(1.0001)
            elif kind == 2:
                g = g * masks[i]
        end = now()
        return {
            "forward/op": (mid - start) / W4_LENGTH,
            "backward/op": (end - mid) / W4_LENGTH,
        }, float(y.sum())

    return run


def numpy_impl() -> Impl:
    return Impl("numpy backprop", {"W1": _w1, "W2": _w2, "W3": _w3, "W4": _w4})
