"""Two small learner-style engines the own-engine tests draw and replay (written for these tests).

`Val` is scalar and micrograd-shaped: `_prev`, `_op`, `label`, `.grad` starting at 0 and each
`_backward` a closure set on the instance. `Arr` is tensor-level: numpy data, `parents`, `op`,
`name`, `.grad` None until backward fills it. Both order their graph without recursion, so a
20,000-step chain runs.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np


def topological(root: Any, parents: str) -> list[Any]:
    """Every object reachable from `root`, each after its parents (iterative depth first)."""
    order, seen, stack = [], set(), [(root, False)]
    while stack:
        v, done = stack.pop()
        if done:
            order.append(v)
        elif id(v) not in seen:
            seen.add(id(v))
            stack.append((v, True))
            stack.extend((p, False) for p in reversed(getattr(v, parents)))
    return order


class Val:
    """A number that remembers how it was made."""

    def __init__(self, data: float, prev: tuple = (), op: str = "", label: str = "") -> None:
        self.data, self.grad = data, 0.0
        self._prev, self._op, self.label = prev, op, label
        self._backward = lambda: None

    def __add__(self, other: Val) -> Val:
        out = Val(self.data + other.data, (self, other), "+")

        def _backward() -> None:
            self.grad += out.grad
            other.grad += out.grad

        out._backward = _backward
        return out

    def __mul__(self, other: Val) -> Val:
        out = Val(self.data * other.data, (self, other), "*")

        def _backward() -> None:
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out._backward = _backward
        return out

    def tanh(self) -> Val:
        t = math.tanh(self.data)
        out = Val(t, (self,), "tanh")

        def _backward() -> None:
            self.grad += (1 - t * t) * out.grad

        out._backward = _backward
        return out

    def backward(self, calls: list | None = None) -> None:
        order = topological(self, "_prev")
        self.grad = 1.0
        for v in reversed(order):
            if calls is not None:
                calls.append(v)
            v._backward()


def _add_into(t: Arr, g: np.ndarray) -> None:
    t.grad = g.copy() if t.grad is None else t.grad + g


class Arr:
    """A numpy array that remembers how it was made."""

    def __init__(self, data: Any, parents: tuple = (), op: str = "", name: str = "") -> None:
        self.data = np.asarray(data, dtype=np.float64)
        self.grad: np.ndarray | None = None
        self.parents, self.op, self.name = parents, op, name
        self._backward = lambda: None

    def _out(self, data: np.ndarray, parents: tuple, op: str, grads: Any) -> Arr:
        out = Arr(data, parents, op)

        def _backward() -> None:
            for p, g in zip(parents, grads(out.grad)):
                _add_into(p, g)

        out._backward = _backward
        return out

    def __add__(self, o: Arr) -> Arr:
        return self._out(self.data + o.data, (self, o), "+", lambda g: (g, g))

    def __mul__(self, o: Arr) -> Arr:
        return self._out(self.data * o.data, (self, o), "*", lambda g: (g * o.data, g * self.data))

    def __matmul__(self, o: Arr) -> Arr:
        return self._out(
            self.data @ o.data, (self, o), "@", lambda g: (g @ o.data.T, self.data.T @ g)
        )

    def tanh(self) -> Arr:
        t = np.tanh(self.data)
        return self._out(t, (self,), "tanh", lambda g: (g * (1 - t * t),))

    def sum(self) -> Arr:
        return self._out(self.data.sum(), (self,), "sum", lambda g: (np.ones_like(self.data) * g,))

    def backward(self, calls: list | None = None) -> None:
        order = topological(self, "parents")
        self.grad = np.ones_like(self.data)
        for v in reversed(order):
            if calls is not None:
                calls.append(v)
            v._backward()
