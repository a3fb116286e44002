"""Lesson 18's test bench: how the checks run a learner's own engine and what they compare it with.

The learner's engine is a class (`Var` in the lesson) that follows the explorer's own-engine
protocol: `data` (a numpy array), `grad`, `parents` (or `_prev`), `op` and `_backward`, a
zero-argument closure that reads `out.grad` and adds into its parents' `.grad`. A check never
trusts one input: every call draws new shapes and values (float64), runs the learner's code and
compares it with minigrad's and PyTorch's gradients of the same function.

Here: the references (minigrad and torch), walks over the learner's graph, and two watchers:
`counting` sees how often a closure computes with its nodes' data (finite differences evaluate the
forward once or twice per input element; a formula a handful of times), and `outsourced.watching`
(shared with lessons 10, 11 and 17) sees a closure hand the derivative to another autograd.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

import minigrad as mg
from minigrad.autograd import record_steps

from . import outsourced


def parents_of(node: Any) -> tuple:
    """A node's inputs, under either name the explorer's protocol allows."""
    found = getattr(node, "parents", None)
    if found is None:
        found = getattr(node, "_prev", ())
    try:
        return tuple(found)
    except TypeError:
        return ()


def graph_nodes(root: Any) -> list:
    """Every node reachable from root, each once (by identity), without recursion."""
    seen: dict[int, Any] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen[id(node)] = node
        stack.extend(parents_of(node))
    return list(seen.values())


class Counting(np.ndarray):
    """A node's data while a closure runs: every numpy operation that reads it is counted. The
    results are plain arrays, so only work done directly on the nodes' data counts."""

    count = [0]

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        Counting.count[0] += 1

        def plain(a: Any) -> Any:
            return a.view(np.ndarray) if isinstance(a, Counting) else a

        inputs = tuple(plain(a) for a in inputs)
        if "out" in kwargs:
            kwargs["out"] = tuple(plain(a) for a in kwargs["out"])
        return getattr(ufunc, method)(*inputs, **kwargs)


@contextmanager
def counting(nodes: list) -> Iterator[list[int]]:
    """`with counting(nodes) as ops:` the nodes' data seen as `Counting` views; `ops[0]` is how
    many numpy operations read them in the block. The data is put back afterwards."""
    kept = [(node, node.data) for node in nodes]
    for node, data in kept:
        if isinstance(data, np.ndarray):
            node.data = data.view(Counting)
    Counting.count[0] = 0
    try:
        yield Counting.count
    finally:
        for node, data in kept:
            node.data = data


@contextmanager
def watched() -> Iterator[outsourced.Findings]:
    """What a block handed to another autograd (torch, minigrad's engine, jax, complex step...)."""
    with outsourced.watching() as seen:
        yield seen


# --- the references -----------------------------------------------------------------------------


def _torch() -> Any:
    import torch  # here, not at the top: labkit.progress() imports every lesson module

    return torch


def _leaf(lib: str, array: np.ndarray) -> Any:
    if lib == "torch":
        torch = _torch()
        return torch.tensor(array, dtype=torch.float64, requires_grad=True)
    return mg.tensor(np.array(array, dtype=np.float64), requires_grad=True)


def _numpy(t: Any) -> np.ndarray:
    return np.array(t.detach().tolist(), dtype=np.float64)


def reference(
    fn: Callable[[list, str], Any],
    arrays: list[np.ndarray],
    upstream: Callable[[tuple], np.ndarray],
) -> tuple[np.ndarray, list[np.ndarray], list[np.ndarray], np.ndarray]:
    """`fn(leaves, lib)` in minigrad and in PyTorch (float64): the forward value, each input's
    gradient in each library, and the upstream gradient used (`upstream(shape of the output)`)."""
    grads: dict[str, list[np.ndarray]] = {}
    value, seed = np.zeros(0), np.zeros(0)
    for lib in ("minigrad", "torch"):
        leaves = [_leaf(lib, a) for a in arrays]
        out = fn(leaves, lib)
        if lib == "minigrad":
            value = _numpy(out)
            seed = np.asarray(upstream(value.shape), dtype=np.float64)
            out.backward(mg.tensor(seed))
            grads[lib] = [_numpy(leaf.grad) for leaf in leaves]
        else:
            torch = _torch()
            found = torch.autograd.grad(out, leaves, torch.tensor(seed, dtype=torch.float64))
            grads[lib] = [_numpy(g) for g in found]
    return value, grads["minigrad"], grads["torch"], seed


def functional(lib: str) -> Any:
    """The library's `nn.functional`."""
    return _torch().nn.functional if lib == "torch" else mg.nn.functional


def int_tensor(lib: str, values: np.ndarray) -> Any:
    """Class indices as the library wants them (int64)."""
    if lib == "torch":
        torch = _torch()
        return torch.tensor(values, dtype=torch.int64)
    return mg.tensor(np.array(values, dtype=np.int64))


# --- graphs for the engine: one program, run in the learner's engine, minigrad and torch --------

Step = tuple[str, str, Callable[..., Any], tuple[str, ...]]  # name, text, op, input names


def diamond() -> tuple[list[str], list[Step]]:
    """A node used four times (`a`: by tanh, exp and twice by `a * a`) and a leaf used twice."""
    steps: list[Step] = [
        ("a", "a = x * w", lambda p, q: p * q, ("x", "w")),
        ("b", "b = a.tanh()", lambda p: p.tanh(), ("a",)),
        ("c", "c = a.exp()", lambda p: p.exp(), ("a",)),
        ("d", "d = a * a", lambda p, q: p * q, ("a", "a")),
        ("e", "e = b * c", lambda p, q: p * q, ("b", "c")),
        ("f", "f = e * d", lambda p, q: p * q, ("e", "d")),
        ("g", "g = f * w", lambda p, q: p * q, ("f", "w")),
        ("loss", "loss = g.sum()", lambda p: p.sum(), ("g",)),
    ]
    return ["x", "w"], steps


def long_and_short() -> tuple[list[str], list[Step]]:
    """A short path and a long one into the same node: a pre-order search meets `t` early."""
    steps: list[Step] = [
        ("t", "t = x.tanh()", lambda p: p.tanh(), ("x",)),
        ("u", "u = t * y", lambda p, q: p * q, ("t", "y")),
        ("v", "v = u.exp()", lambda p: p.exp(), ("u",)),
        ("s", "s = v.tanh()", lambda p: p.tanh(), ("v",)),
        ("r", "r = s * t", lambda p, q: p * q, ("s", "t")),
        ("loss", "loss = r.sum()", lambda p: p.sum(), ("r",)),
    ]
    return ["x", "y"], steps


def run_program(leaves: dict[str, Any], steps: list[Step]) -> dict[str, Any]:
    """Every value of the program, by name, built from `leaves` with the given ops."""
    values = dict(leaves)
    for name, _, op, inputs in steps:
        values[name] = op(*(values[i] for i in inputs))
    return values


def engine_reference(
    names: list[str], steps: list[Step], arrays: dict[str, np.ndarray]
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], list[str]]:
    """The leaves' gradients in minigrad and torch, and minigrad's order (step names; leaves by
    their own names, for their AccumulateGrad nodes)."""
    grads: dict[str, dict[str, np.ndarray]] = {}
    order: list[str] = []
    for lib in ("minigrad", "torch"):
        leaves = {n: _leaf(lib, arrays[n]) for n in names}
        values = run_program(leaves, steps)
        if lib == "minigrad":
            by_node = {v.grad_fn: k for k, v in values.items() if k not in leaves}
            with record_steps() as records:
                values["loss"].backward()
            for r in records.records:
                if r["kind"] == "node_start":
                    node = r["node"]
                    leaf = getattr(node, "variable", None)
                    found = [n for n, t in leaves.items() if t is leaf]
                    order.append(found[0] if found else by_node.get(node, "?"))
        else:
            values["loss"].backward()
        grads[lib] = {n: _numpy(leaves[n].grad) for n in names}
    return grads["minigrad"], grads["torch"], order
