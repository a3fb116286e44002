"""Property tests (hypothesis): random small expression graphs and random view/indexing chains.

* Expression graphs: a few float64 leaves of broadcast-compatible shapes, combined by random
  smooth unary/binary ops. minigrad's gradients must equal PyTorch's and agree with central
  finite differences along random directions; second-order gradients must equal PyTorch's.
* Shape chains: reshape/view/permute/transpose/squeeze/unsqueeze/expand/flatten/indexing in
  random order. Values, the backward graph's node names, gradients, or the error raised must
  equal PyTorch's.

Every gradient is checked on both of minigrad's engine runs: `autograd.grad` (the instrumented
run: `inputs` are given; under create_graph its formulas run on Tensors) and a plain
`.backward()` on fresh leaves with no create_graph, hooks, retain_grad, observers, anomaly mode
or `inputs=` (the plain run on arrays, the one users take), whose leaf `.grad`s must match
torch's in None-ness, dtype, shape and values.

Values come from a numpy generator seeded by hypothesis, so each example is cheap to draw and
reproducible; ranges keep every op well inside its domain.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import minigrad

torch = pytest.importorskip("torch")

from ops._support import dtype_name, graph_of, to_numpy  # noqa: E402 - after the torch guard

SETTINGS = settings(
    max_examples=50,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# --- expression graphs ---------------------------------------------------------------------

UNARY: dict[str, Callable[[ModuleType, Any], Any]] = {
    "tanh": lambda L, x: x.tanh(),
    "sigmoid": lambda L, x: L.sigmoid(x),
    "sin": lambda L, x: x.sin(),
    "cos": lambda L, x: x.cos(),
    "neg": lambda L, x: -x,
    "exp": lambda L, x: x.tanh().exp(),
    "log": lambda L, x: (x * x + 1).log(),
    "sqrt": lambda L, x: (x * x + 1).sqrt(),
    "pow": lambda L, x: (x * x + 0.5) ** 1.5,
    "square": lambda L, x: x**2,
    "affine": lambda L, x: x * 0.5 + 0.25,
    "rsub": lambda L, x: 1 - x,
    "reciprocal": lambda L, x: 1 / (x * x + 1),
    "softmax": lambda L, x: x.softmax(-1) if x.ndim else x,
    "log_softmax": lambda L, x: x.log_softmax(0) if x.ndim else x,
    "sum_keepdim": lambda L, x: x.sum(-1, keepdim=True) if x.ndim else x,
    "mean_keepdim": lambda L, x: x.mean(0, keepdim=True) if x.ndim else x,
    "var_keepdim": lambda L, x: x.var(-1, keepdim=True) if x.ndim and x.shape[-1] > 1 else x,
    "clone": lambda L, x: x.clone(),
}

BINARY: dict[str, Callable[[ModuleType, Any, Any], Any]] = {
    "add": lambda L, a, b: a + b,
    "sub": lambda L, a, b: a - b,
    "mul": lambda L, a, b: a * b,
    "div": lambda L, a, b: a / (b * b + 1),
    "pow": lambda L, a, b: (a * a + 1) ** b.tanh(),
    "add_alpha": lambda L, a, b: L.add(a, b, alpha=-0.5),
    "where": lambda L, a, b: L.where(a > b, a * 2, b),
    "maximum": lambda L, a, b: L.max(a, b),
}


@st.composite
def programs(draw: st.DrawFn) -> dict:
    """Leaf shapes (all broadcastable to one base shape) and a list of ops over earlier nodes.

    Hypothesis draws the sizes and a seed; the ops are picked by a generator from that seed, so
    every op is about equally likely (hypothesis would favour the first names of a list).
    """
    base = draw(st.lists(st.integers(1, 3), min_size=0, max_size=3))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    shapes = []
    for _ in range(draw(st.integers(1, 3))):
        drop = int(rng.integers(0, len(base) + 1))
        shapes.append(tuple(1 if rng.random() < 0.3 else s for s in base[drop:]))
    steps = []
    for _ in range(draw(st.integers(2, 6))):
        n = len(shapes) + len(steps)
        a, b = (int(i) for i in rng.integers(0, n, 2))
        if rng.random() < 0.5:
            steps.append(("u", str(rng.choice(sorted(UNARY))), a, 0))
        else:
            steps.append(("b", str(rng.choice(sorted(BINARY))), a, b))
    return {"shapes": shapes, "steps": steps, "seed": seed}


def run_program(lib: ModuleType, prog: dict, leaves: list) -> Any:
    """The sum of every op's result (all shapes broadcast together), so each op counts."""
    nodes = list(leaves)
    for kind, name, i, j in prog["steps"]:
        nodes.append(
            UNARY[name](lib, nodes[i]) if kind == "u" else BINARY[name](lib, nodes[i], nodes[j])
        )
    out = nodes[len(leaves)]
    for node in nodes[len(leaves) + 1 :]:
        out = out + node
    return out


def leaf_arrays(prog: dict) -> tuple[list[np.ndarray], np.random.Generator]:
    rng = np.random.default_rng(prog["seed"])
    return [rng.uniform(-1.5, 1.5, s) for s in prog["shapes"]], rng


def gradients(
    lib: ModuleType,
    prog: dict,
    arrays: list[np.ndarray],
    upstream: np.ndarray,
    create_graph: bool = False,
) -> tuple[Any, list, list]:
    leaves = [lib.tensor(a, dtype=lib.float64, requires_grad=True) for a in arrays]
    out = run_program(lib, prog, leaves)
    grads = lib.autograd.grad(
        out, leaves, lib.tensor(upstream), create_graph=create_graph, allow_unused=True
    )
    return out, leaves, list(grads)


def plain_gradients(
    lib: ModuleType, prog: dict, arrays: list[np.ndarray], upstream: np.ndarray
) -> list:
    """Leaf `.grad`s after a plain `out.backward(upstream)` on fresh leaves (the array path)."""
    assert lib.is_grad_enabled() and not lib.is_anomaly_enabled()
    leaves = [lib.tensor(a, dtype=lib.float64, requires_grad=True) for a in arrays]
    run_program(lib, prog, leaves).backward(lib.tensor(upstream))
    return [leaf.grad for leaf in leaves]


def assert_same_leaf_grads(mine: list, theirs: list, what: str) -> None:
    """Leaf `.grad`s of minigrad and torch: None on both, or equal dtype, shape and values."""
    for i, (m, t) in enumerate(zip(mine, theirs, strict=True)):
        where = f"{what}: .grad of leaf {i}"
        assert (m is None) == (t is None), f"{where}: minigrad {m!r}, torch {t!r}"
        if t is None:
            continue
        assert (dtype_name(m.dtype), tuple(m.shape)) == (dtype_name(t.dtype), tuple(t.shape)), (
            f"{where}: minigrad {m.dtype} {tuple(m.shape)}, torch {t.dtype} {tuple(t.shape)}"
        )
        np.testing.assert_allclose(to_numpy(m), to_numpy(t), rtol=1e-8, atol=1e-10, err_msg=where)


def dense(grads: list, arrays: list[np.ndarray]) -> list[np.ndarray]:
    """Gradients as arrays; an unused leaf (None) has a zero gradient."""
    return [
        np.zeros(a.shape) if g is None else to_numpy(g) for g, a in zip(grads, arrays, strict=True)
    ]


def upstream_for(
    lib: ModuleType, prog: dict, arrays: list[np.ndarray], rng: np.random.Generator
) -> np.ndarray:
    with lib.no_grad():
        shape = tuple(run_program(lib, prog, [lib.tensor(a) for a in arrays]).shape)
    return rng.uniform(-1, 1, shape)


@SETTINGS
@given(programs())
def test_random_graph_gradients_match_torch_and_finite_differences(prog: dict) -> None:
    arrays, rng = leaf_arrays(prog)
    upstream = upstream_for(torch, prog, arrays, rng)
    out_t, _, grads_t = gradients(torch, prog, arrays, upstream)
    out_m, _, grads_m = gradients(minigrad, prog, arrays, upstream)
    np.testing.assert_allclose(to_numpy(out_m), to_numpy(out_t), rtol=1e-10, atol=1e-12)
    assert str(out_m.dtype).endswith("float64")
    mine, theirs = dense(grads_m, arrays), dense(grads_t, arrays)
    for m, t in zip(mine, theirs, strict=True):
        np.testing.assert_allclose(m, t, rtol=1e-8, atol=1e-10)
    plain_m = plain_gradients(minigrad, prog, arrays, upstream)
    assert_same_leaf_grads(plain_m, plain_gradients(torch, prog, arrays, upstream), "backward()")
    plain = dense(plain_m, arrays)

    # central differences of f(x) = sum(out * upstream) along random directions
    def f(xs: list[np.ndarray]) -> float:
        with minigrad.no_grad():
            out = run_program(minigrad, prog, [minigrad.tensor(x) for x in xs])
        return float((to_numpy(out) * upstream).sum())

    eps = 1e-6
    for _ in range(2):
        direction = [rng.standard_normal(a.shape) for a in arrays]
        plus = f([a + eps * d for a, d in zip(arrays, direction, strict=True)])
        minus = f([a - eps * d for a, d in zip(arrays, direction, strict=True)])
        numeric = (plus - minus) / (2 * eps)
        analytic = sum(float((g * d).sum()) for g, d in zip(mine, direction, strict=True))
        assert analytic == pytest.approx(numeric, rel=1e-5, abs=1e-6)
        analytic = sum(float((g * d).sum()) for g, d in zip(plain, direction, strict=True))
        assert analytic == pytest.approx(numeric, rel=1e-5, abs=1e-6), "backward() .grad"


@SETTINGS
@given(programs())
def test_random_graph_second_order_gradients_match_torch(prog: dict) -> None:
    arrays, rng = leaf_arrays(prog)
    upstream = upstream_for(torch, prog, arrays, rng)
    weights = [rng.uniform(-1, 1, a.shape) for a in arrays]
    results = []
    for lib in (torch, minigrad):
        _, leaves, grads = gradients(lib, prog, arrays, upstream, create_graph=True)
        terms = [
            (g * lib.tensor(w)).sum()
            for g, w in zip(grads, weights, strict=True)
            if g is not None and g.requires_grad
        ]
        if not terms:  # every gradient is constant: nothing to differentiate again
            results.append(None)
            continue
        second = lib.autograd.grad(sum(terms), leaves, allow_unused=True)
        results.append(dense(list(second), arrays))
    expected, actual = results
    # the same second-order gradients by a plain backward() of the penalty (a fresh graph): the
    # double-backward nodes run on bare arrays
    plain = [plain_second_order(lib, prog, arrays, upstream, weights) for lib in (torch, minigrad)]
    if plain[0] is None:
        assert plain[1] is None or all(g is None or not to_numpy(g).any() for g in plain[1])
    else:
        assert plain[1] is not None, "minigrad's first-order gradients do not require grad"
        assert_same_leaf_grads(plain[1], plain[0], "second-order backward()")
    if expected is None:
        assert actual is None or all(not a.any() for a in actual)
        return
    assert actual is not None, "minigrad's first-order gradients do not require grad"
    for m, t in zip(actual, expected, strict=True):
        np.testing.assert_allclose(m, t, rtol=1e-8, atol=1e-10)


def plain_second_order(
    lib: ModuleType,
    prog: dict,
    arrays: list[np.ndarray],
    upstream: np.ndarray,
    weights: list[np.ndarray],
) -> list | None:
    """Leaf `.grad`s after `sum(grad_i * w_i).backward()`, the grads taken with create_graph;
    None when no gradient requires grad."""
    _, leaves, grads = gradients(lib, prog, arrays, upstream, create_graph=True)
    terms = [
        (g * lib.tensor(w)).sum()
        for g, w in zip(grads, weights, strict=True)
        if g is not None and g.requires_grad
    ]
    if not terms:
        return None
    assert lib.is_grad_enabled() and not lib.is_anomaly_enabled()
    sum(terms).backward()
    return [leaf.grad for leaf in leaves]


# --- shape and indexing chains -------------------------------------------------------------


def _divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0] or [1]


@st.composite
def shape_step(draw: st.DrawFn, shape: tuple) -> tuple:
    """One shape/indexing op valid (or deliberately invalid, rarely) for a tensor of `shape`."""
    n = len(shape)
    numel = int(np.prod(shape))
    # hypothesis favours the first entries: the indexing kinds lead
    kinds = ["index", "index_adv", "mask", "permute", "transpose", "squeeze", "expand"] if n else []
    kinds += ["reshape", "view", "unsqueeze", "flatten", "contiguous"] + (["t"] if n <= 2 else [])
    kind = draw(st.sampled_from(kinds))
    if kind in ("reshape", "view"):
        first = draw(st.sampled_from(_divisors(numel))) if numel else 0
        return (kind, (first, -1) if numel else (0,))
    if kind == "unsqueeze":
        return (kind, draw(st.integers(-n - 1, n)))
    if kind == "flatten":
        start = draw(st.integers(0, max(n - 1, 0)))
        return (kind, start, draw(st.integers(start, max(n - 1, 0))))
    if kind == "permute":
        return (kind, tuple(draw(st.permutations(range(n)))))
    if kind == "transpose":
        return (kind, draw(st.integers(-n, n - 1)), draw(st.integers(-n, n - 1)))
    if kind == "squeeze":
        return (kind, draw(st.one_of(st.none(), st.integers(-n, n - 1))))
    if kind == "expand":
        return (kind, tuple(draw(st.integers(1, 3)) if s == 1 else s for s in shape))
    if kind == "mask":
        return (kind, tuple(draw(st.booleans()) for _ in range(shape[0])))
    if kind == "index_adv":
        dim = draw(st.integers(0, n - 1))
        idx = (
            draw(st.lists(st.integers(-shape[dim], shape[dim] - 1), max_size=4))
            if shape[dim]
            else []
        )
        return (kind, dim, tuple(idx))
    if kind == "index":
        key = []
        for size in shape[: draw(st.integers(1, n))]:
            part = draw(st.sampled_from(["int", "slice", "none", "full"]))
            if part == "int" and size:
                key.append(draw(st.integers(-size, size - 1)))
            elif part == "none":
                key.append(None)
            elif part == "slice":
                key.append(
                    slice(
                        draw(st.integers(-size - 1, size)),
                        draw(st.integers(-size, size + 1)),
                        draw(st.integers(1, 3)),
                    )
                )
            else:
                key.append(slice(None))
        if draw(st.booleans()):
            key.insert(draw(st.integers(0, len(key))), Ellipsis)
        return (kind, tuple(key))
    return (kind,)


def apply_step(lib: ModuleType, x: Any, step: tuple) -> Any:
    kind, *args = step
    if kind == "reshape":
        return x.reshape(*args[0])
    if kind == "view":
        return x.view(*args[0])
    if kind == "unsqueeze":
        return x.unsqueeze(args[0])
    if kind == "flatten":
        return x.flatten(*args)
    if kind == "permute":
        return x.permute(*args[0])
    if kind == "transpose":
        return x.transpose(*args)
    if kind == "squeeze":
        return x.squeeze() if args[0] is None else x.squeeze(args[0])
    if kind == "expand":
        return x.expand(*args[0])
    if kind == "mask":
        return x[lib.tensor(list(args[0]), dtype=lib.bool)]
    if kind == "index_adv":
        dim, idx = args
        return x[(slice(None),) * dim + (list(idx),)]
    if kind == "index":
        return x[args[0]]
    if kind == "t":
        return x.t()
    return x.contiguous()


@st.composite
def chains(draw: st.DrawFn) -> tuple[tuple, list]:
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=4)))
    steps, current = [], shape
    for _ in range(draw(st.integers(1, 5))):
        step = draw(shape_step(current))
        try:
            current = tuple(apply_step(torch, torch.empty(current), step).shape)
        except (RuntimeError, IndexError, ValueError):
            steps.append(step)  # an invalid step ends the chain: its error is compared
            break
        steps.append(step)
    return shape, steps


def chain_loss(lib: ModuleType, shape: tuple, steps: list) -> tuple[Any, Any, Any]:
    """A fresh leaf x, the chain's result y and the loss sum(y * weights)."""
    x = lib.tensor(np.arange(float(np.prod(shape))).reshape(shape) / 7 - 1, requires_grad=True)
    y = x * 1.5  # a non-leaf base, so that views of it are recorded
    for step in steps:
        y = apply_step(lib, y, step)
    weights = np.cos(np.arange(y.numel())).reshape(tuple(y.shape))
    return x, y, (y * lib.tensor(weights)).sum()


def chain_outcome(lib: ModuleType, shape: tuple, steps: list) -> tuple:
    """Shape, graph and values of the chain, x.grad after a plain backward() and, on a fresh
    graph, the gradient from autograd.grad; both gradients must have x's dtype and shape."""
    try:
        x, y, loss = chain_loss(lib, shape, steps)
    except (RuntimeError, IndexError, ValueError) as exc:
        return ("raises", type(exc).__name__)
    loss.backward()
    x2, _, loss2 = chain_loss(lib, shape, steps)
    (via_grad,) = lib.autograd.grad(loss2, x2)
    for g in (x.grad, via_grad):
        assert (dtype_name(g.dtype), tuple(g.shape)) == (dtype_name(x.dtype), tuple(x.shape))
    return (tuple(y.shape), graph_of(y), to_numpy(y), to_numpy(x.grad), to_numpy(via_grad))


@SETTINGS
@given(chains())
def test_random_shape_and_indexing_chains_match_torch(chain: tuple) -> None:
    shape, steps = chain
    expected = chain_outcome(torch, shape, steps)
    actual = chain_outcome(minigrad, shape, steps)
    assert actual[:2] == expected[:2], f"steps {steps} on {shape}"
    for a, e in zip(actual[2:], expected[2:], strict=True):  # gradients may sum in another order
        np.testing.assert_allclose(a, e, rtol=1e-12, atol=1e-12, err_msg=f"steps {steps}")
