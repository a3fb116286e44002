"""Run one op on PyTorch and on minigrad with the same inputs, and compare what each exposes.

`check_op` feeds both libraries the same float inputs (requiring grad), the same upstream
gradient and the same weights for a second-order pass, then compares: result dtype, shape and
values, `grad_fn.name()`, the names of the whole backward graph, first-order gradients
(`autograd.grad(..., create_graph=True)`) and the gradients of `sum(grad_i * w_i)` with respect to
every input and to the upstream gradient (double backward). PyTorch is always the expectation.

First-order gradients are also compared the way users get them: fresh leaves, the op, then a plain
`out.backward(upstream)` (no create_graph, hooks, retain_grad, observers, anomaly mode or
`inputs=`), and each leaf's `.grad`: None on both or equal dtype, shape and values. That is
minigrad's plain run, where every formula runs on bare numpy arrays; `autograd.grad` takes the
instrumented run, and with create_graph=True its formulas run on Tensors and are recorded. The
backward must also leave the upstream tensor unchanged.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np
import pytest

import minigrad

torch = pytest.importorskip("torch")

LIBS: tuple[ModuleType, ModuleType] = (torch, minigrad)
FLOATS = ("float32", "float64")
TOLERANCE = {"float32": {"rtol": 2e-4, "atol": 2e-5}, "float64": {"rtol": 1e-7, "atol": 1e-10}}

Domain = tuple[float, float]


def rng_for(key: str) -> np.random.Generator:
    """A generator seeded by a test's id, so every case has its own fixed values."""
    return np.random.default_rng(zlib.crc32(key.encode()))


@dataclass(frozen=True)
class Op:
    """``fn(lib, *inputs)`` applied to float inputs of ``shapes`` drawn from ``domains``."""

    fn: Callable[..., Any]
    shapes: tuple[tuple[int, ...], ...]
    domains: tuple[Domain, ...]
    second_order: bool = True


def op(
    label: str,
    fn: Callable[..., Any],
    *shapes: tuple[int, ...],
    domain: Domain | Sequence[Domain] = (-2.0, 2.0),
    second_order: bool = True,
    marks: Any = (),
) -> Any:
    """A pytest param for `check_op`; ``domain`` is one (low, high) or one per input."""
    domains = (domain,) * len(shapes) if isinstance(domain[0], (int, float)) else tuple(domain)
    return pytest.param(Op(fn, tuple(shapes), domains, second_order), id=label, marks=marks)


def dtype_name(dtype: Any) -> str:
    """'float32' for torch.float32 and minigrad.float32 alike."""
    return str(dtype).rsplit(".", 1)[-1]


def to_numpy(t: Any) -> np.ndarray:
    """Values of a torch or minigrad tensor as a numpy array.

    torch cannot list its storage-less "efficient zero" tensors (some second-order gradients).
    """
    shape = tuple(t.shape)
    if 0 in shape or getattr(t, "_is_zerotensor", lambda: False)():
        return np.zeros(shape)
    return np.array(t.detach().tolist()).reshape(shape)


def node_name(node: Any) -> str | None:
    """'MulBackward0'; torch's 'torch::autograd::AccumulateGrad' loses its namespace."""
    return None if node is None else node.name().rsplit("::", 1)[-1]


def graph_of(t: Any) -> Any:
    """The backward graph below ``t`` as nested ``(name, children)``; None for a missing edge."""

    def walk(node: Any) -> Any:
        if node is None:
            return None
        return (node_name(node), tuple(walk(n) for n, _ in node.next_functions))

    return walk(t.grad_fn)


def make_inputs(
    lib: ModuleType, arrays: Sequence[np.ndarray], dtype: str, requires_grad: bool = True
) -> list[Any]:
    return [lib.tensor(a, dtype=getattr(lib, dtype), requires_grad=requires_grad) for a in arrays]


def _observe(
    lib: ModuleType,
    case: Op,
    arrays: list[np.ndarray],
    dtype: str,
    upstream: np.ndarray | None,
    weights: list[np.ndarray],
) -> dict[str, Any]:
    xs = make_inputs(lib, arrays, dtype)
    out = case.fn(lib, *xs)
    seen: dict[str, Any] = {
        "dtype": dtype_name(out.dtype),
        "shape": tuple(out.shape),
        "value": to_numpy(out),
        "requires_grad": out.requires_grad,
        "grad_fn": node_name(out.grad_fn),
        "graph": graph_of(out),
    }
    if upstream is None or not out.requires_grad:
        return seen
    g = lib.tensor(upstream, dtype=out.dtype, requires_grad=True)
    grads = lib.autograd.grad(out, xs, g, create_graph=True, allow_unused=True)
    seen["grads"] = [None if gi is None else to_numpy(gi) for gi in grads]
    seen["grad_dtypes"] = [None if gi is None else dtype_name(gi.dtype) for gi in grads]
    terms = [
        (gi * lib.tensor(w, dtype=gi.dtype)).sum()
        for gi, w in zip(grads, weights, strict=True)
        if gi is not None and gi.requires_grad
    ]
    if case.second_order and terms:
        second = lib.autograd.grad(sum(terms), [*xs, g], allow_unused=True)
        seen["second"] = [None if s is None else to_numpy(s) for s in second]
    seen["plain"], seen["plain_upstream"] = _plain_backward(lib, case, arrays, dtype, upstream)
    return seen


def _plain_backward(
    lib: ModuleType, case: Op, arrays: list[np.ndarray], dtype: str, upstream: np.ndarray
) -> tuple[list[tuple | None], np.ndarray]:
    """Each fresh leaf's ``.grad`` as ``(dtype, shape, values)`` or None after a plain
    ``out.backward(upstream)``, and the upstream tensor's values afterwards.

    Nothing here may switch minigrad's engine off its plain (array) path: no create_graph, no
    hooks or retain_grad, no observer (record_steps), no anomaly mode, no ``inputs=``.
    """
    assert lib.is_grad_enabled() and not lib.is_anomaly_enabled()
    xs = make_inputs(lib, arrays, dtype)
    out = case.fn(lib, *xs)
    seed = lib.tensor(upstream, dtype=out.dtype)
    out.backward(seed)
    grads = [
        None
        if x.grad is None
        else (dtype_name(x.grad.dtype), tuple(x.grad.shape), to_numpy(x.grad))
        for x in xs
    ]
    if lib is minigrad:
        _check_grads_own_their_memory(xs, grads, seed, case.fn(lib, *xs))
    return grads, to_numpy(seed)


def _check_grads_own_their_memory(xs: list, grads: list, seed: Any, again: Any) -> None:
    """minigrad's `.grad` takes a gradient array without copying only when the engine owns it
    (autograd/engine.py), so no `.grad` may share memory with an input, the seed or another
    `.grad`, and a second backward adds into each exactly once. (PyTorch decides by reference
    count instead: after a view op its `.grad` can alias the caller's seed.)"""
    arrays = [x.grad._data for x in xs if x.grad is not None]
    for i, g in enumerate(arrays):
        for other in arrays[i + 1 :] + [t._data for t in [*xs, seed]]:
            assert not np.shares_memory(g, other), "a .grad shares memory after a plain backward"
    again.backward(seed)
    for x, first in zip(xs, grads):
        if first is not None:
            np.testing.assert_array_equal(to_numpy(x.grad), first[2] * 2, err_msg="2nd backward")


def _same_values(
    label: str, exp: np.ndarray | None, act: np.ndarray | None, shape: tuple, dtype: str
) -> None:
    """None is an all-zero gradient (torch and minigrad may differ on which they return)."""
    exp = np.zeros(shape) if exp is None else exp
    act = np.zeros(shape) if act is None else act
    np.testing.assert_allclose(act, exp, equal_nan=True, err_msg=label, **TOLERANCE[dtype])


def check_op(case: Op, dtype: str, key: str) -> None:
    """Compare ``case`` on torch and minigrad (see the module docstring); fail on any difference."""
    rng = rng_for(key)
    arrays = [
        rng.uniform(lo, hi, shape)
        for (lo, hi), shape in zip(case.domains, case.shapes, strict=True)
    ]
    probe = case.fn(torch, *make_inputs(torch, arrays, dtype))
    upstream = rng.uniform(-1, 1, tuple(probe.shape)) if probe.dtype.is_floating_point else None
    weights = [rng.uniform(-1, 1, shape) for shape in case.shapes]
    exp = _observe(torch, case, arrays, dtype, upstream, weights)
    act = _observe(minigrad, case, arrays, dtype, upstream, weights)
    for field in ("dtype", "shape", "requires_grad", "grad_fn", "graph"):
        assert act[field] == exp[field], f"{field}: minigrad {act[field]!r}, torch {exp[field]!r}"
    tol = exp["dtype"] if exp["dtype"] in TOLERANCE else dtype
    _same_values("forward", exp["value"], act["value"], exp["shape"], tol)
    assert ("grads" in act) == ("grads" in exp)
    for i, (e, a) in enumerate(zip(exp.get("grads", ()), act.get("grads", ()), strict=True)):
        _same_values(f"grad of input {i}", e, a, case.shapes[i], dtype)
    assert act.get("grad_dtypes") == exp.get("grad_dtypes"), (
        f"gradient dtypes: minigrad {act.get('grad_dtypes')}, torch {exp.get('grad_dtypes')}"
    )
    if "second" in exp:
        assert "second" in act, "minigrad's gradients do not require grad under create_graph"
        shapes = [*case.shapes, exp["shape"]]
        for i, (e, a) in enumerate(zip(exp["second"], act["second"], strict=True)):
            _same_values(f"second-order grad of input {i}", e, a, shapes[i], dtype)
    _check_plain(exp, act, case, dtype)


def _check_plain(exp: dict, act: dict, case: Op, dtype: str) -> None:
    """The leaves' ``.grad`` after a plain ``out.backward(upstream)`` must equal torch's."""
    assert ("plain" in act) == ("plain" in exp)
    if "plain" not in exp:
        return
    for i, (e, a) in enumerate(zip(exp["plain"], act["plain"], strict=True)):
        where = f"plain backward, .grad of input {i}"
        assert (a is None) == (e is None), f"{where}: minigrad {a and a[:2]}, torch {e and e[:2]}"
        if e is None:
            continue
        assert a[:2] == e[:2], f"{where}: minigrad (dtype, shape) {a[:2]}, torch {e[:2]}"
        _same_values(where, e[2], a[2], case.shapes[i], dtype)
    np.testing.assert_array_equal(
        act["plain_upstream"],
        exp["plain_upstream"],
        err_msg="plain backward changed the upstream gradient passed to it",
    )


def outcome(fn: Callable[[ModuleType], Any], lib: ModuleType) -> tuple:
    """What ``fn(lib)`` does, as plain data: a tensor's dtype/shape/values or the error raised."""
    try:
        value = fn(lib)
    except Exception as exc:  # the error is the outcome being compared
        return ("raises", type(exc).__name__, str(exc))
    return ("returns", describe(value))


def describe(value: Any) -> Any:
    if isinstance(value, (tuple, list)):  # namedtuples (max's values, indices) become tuples
        return (tuple if isinstance(value, tuple) else list)(describe(v) for v in value)
    if type(value).__name__ == "dtype":
        return ("dtype", dtype_name(value))
    if hasattr(value, "grad_fn") and hasattr(value, "dtype"):
        return (
            "tensor",
            dtype_name(value.dtype),
            tuple(value.shape),
            value.detach().tolist(),
            value.requires_grad,
            node_name(value.grad_fn),
        )
    return value


def first_sentence(message: str) -> str:
    from parity import key_phrase

    return key_phrase(message)


def assert_same_outcome(fn: Callable[[ModuleType], Any], key: str | None = None) -> None:
    """``fn(torch)`` and ``fn(minigrad)`` give equal values, or the same error type whose message
    contains ``key`` (default: the first sentence of PyTorch's message)."""
    exp, act = outcome(fn, torch), outcome(fn, minigrad)
    if exp[0] == "raises":
        assert act[:2] == exp[:2], f"torch raised {exp}, minigrad gave {act}"
        phrase = key if key is not None else first_sentence(exp[2])
        assert phrase in exp[2], f"key {phrase!r} is not in torch's message {exp[2]!r}"
        assert phrase in act[2], f"minigrad's message {act[2]!r} lacks {phrase!r}"
        return
    assert _equal(act, exp), f"minigrad {act!r}\n   torch {exp!r}"


def _equal(act: Any, exp: Any) -> bool:
    if isinstance(exp, (tuple, list)) and isinstance(act, (tuple, list)):
        if len(act) != len(exp) or type(act) is not type(exp):
            return False
        if exp and exp[0] == "tensor":
            values_same = (
                np.allclose(
                    np.array(act[3], dtype=float),
                    np.array(exp[3], dtype=float),
                    rtol=1e-5,
                    atol=1e-6,
                    equal_nan=True,
                )
                if np.shape(act[3]) == np.shape(exp[3])
                else False
            )
            return act[:3] == exp[:3] and act[4:] == exp[4:] and values_same
        return all(_equal(a, e) for a, e in zip(act, exp, strict=True))
    if isinstance(exp, float) and isinstance(act, float):
        return bool(np.isclose(act, exp, rtol=1e-5, atol=1e-6, equal_nan=True))
    return type(act) is type(exp) and act == exp
