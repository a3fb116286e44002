"""The kernel switch, the numba kernels against their numpy references, and both against torch.

The numba path runs in this process: the first run on a machine compiles every kernel for
float32 and float64 (tens of seconds), later runs load them from numba's on-disk cache.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import numpy as np
import pytest
from ops._support import FLOATS, check_op, op
from ops.test_nn_ops import CONV, CONV_TRANSPOSE, LOSSES, POOL, F

import minigrad
from minigrad import kernels
from minigrad.kernels import numpy_ref
from minigrad.ops import nn as mg_nn

torch = pytest.importorskip("torch")
pytest.importorskip("numba")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(params=kernels.BACKENDS)
def backend(request: pytest.FixtureRequest) -> Iterator[str]:
    """Run the test once per kernel implementation, then restore the active one."""
    before = kernels.backend()
    kernels.use(request.param)
    yield request.param
    kernels.use(before)


def python(code: str, **env: str) -> str:
    """stdout of `code` run in a fresh interpreter (nothing imported yet)."""
    full_env = {**os.environ, **env}
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=full_env,
        cwd=ROOT,
        check=True,
    )
    return done.stdout.strip()


# --- the switch --------------------------------------------------------------------------
def test_import_minigrad_does_not_import_numba() -> None:
    code = "import sys, minigrad; print('numba' in sys.modules, minigrad.kernels.backend())"
    assert python(code) == "False numba"


def test_environment_variable_picks_the_backend() -> None:
    assert (
        python("import minigrad; print(minigrad.kernels.backend())", MINIGRAD_KERNELS="numpy")
        == "numpy"
    )


def test_use_switches_and_rejects_unknown_names(backend: str) -> None:
    assert kernels.backend() == backend
    with pytest.raises(ValueError, match="unknown kernel backend"):
        kernels.use("cuda")
    assert kernels.backend() == backend


@pytest.mark.parametrize("backend", ["numba"], indirect=True)
def test_float16_takes_the_numpy_path(backend: str) -> None:
    x = np.ones((1, 1, 4, 4), np.float16)
    w = np.ones((1, 1, 3, 3), np.float16)
    out = kernels.conv2d_forward(x, w, None, 1, 0)
    assert out.dtype == np.float16 and out[0, 0, 0, 0] == 9


def test_cache_falls_back_to_a_temporary_directory(monkeypatch: pytest.MonkeyPatch) -> None:
    from numba.core import config

    from minigrad.kernels import cache

    monkeypatch.setattr(config, "CACHE_DIR", "")
    monkeypatch.setattr(cache, "_writable", lambda path: False)
    chosen = cache.configure()
    assert chosen == config.CACHE_DIR and "minigrad-numba" in chosen


# --- numba kernels equal the numpy references --------------------------------------------
# (N, C, H, W, O, (kh, kw), stride, pad, dilation, groups)
CONV_SHAPES = [
    (2, 3, 7, 9, 4, (3, 3), (1, 1), (1, 1), (1, 1), 1),
    (3, 1, 8, 8, 16, (3, 3), (1, 1), (1, 1), (1, 1), 1),
    (2, 4, 9, 7, 5, (2, 2), (2, 2), (0, 0), (1, 1), 1),
    (1, 2, 6, 6, 3, (3, 3), (2, 2), (1, 1), (1, 1), 1),
    (2, 3, 5, 5, 2, (1, 1), (1, 1), (0, 0), (1, 1), 1),
    (4, 16, 4, 4, 32, (3, 3), (1, 1), (1, 1), (1, 1), 1),
    (2, 3, 4, 4, 2, (2, 2), (1, 1), (2, 2), (1, 1), 1),  # padding as wide as the kernel
    (2, 4, 7, 8, 6, (3, 2), (1, 2), (1, 0), (2, 1), 2),  # non-square, dilated, grouped
    (2, 6, 6, 6, 6, (3, 3), (1, 1), (2, 2), (2, 2), 6),  # depthwise, dilated
    (1, 4, 9, 6, 8, (2, 3), (2, 1), (1, 2), (1, 2), 4),
]
# (N, C, H, W, (kh, kw), stride, pad, dilation, ceil_mode)
POOL_SHAPES = [
    (2, 3, 8, 8, (2, 2), (2, 2), (0, 0), (1, 1), False),
    (1, 2, 7, 9, (3, 3), (2, 2), (1, 1), (1, 1), False),
    (2, 2, 6, 5, (3, 3), (1, 1), (1, 1), (1, 1), False),
    (1, 1, 5, 5, (2, 2), (1, 1), (0, 0), (1, 1), False),
    (1, 2, 5, 7, (2, 3), (2, 2), (1, 1), (2, 1), True),
    (1, 1, 8, 1, (2, 2), (2, 1), (0, 1), (2, 2), False),  # windows inside the padding only
]


def _close(actual: np.ndarray, expected: np.ndarray) -> None:
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    tol = 1e-5 if actual.dtype == np.float32 else 1e-12
    np.testing.assert_allclose(actual, expected, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", CONV_SHAPES, ids=str)
def test_conv_kernels_match_numpy(shape: tuple, dtype: str) -> None:
    from minigrad.kernels import jit

    n, c, h, w, o, k, s, p, d, groups = shape
    rng = np.random.default_rng(sum(map(hash, shape)) % 2**32)
    x = rng.standard_normal((n, c, h, w)).astype(dtype)
    wt = rng.standard_normal((o, c // groups, *k)).astype(dtype)
    bias = rng.standard_normal(o).astype(dtype)
    geometry = (s, p, d, groups)
    out = numpy_ref.conv2d_forward(x, wt, None, *geometry)
    g = rng.standard_normal(out.shape).astype(dtype)
    _close(jit.conv2d_forward(x, wt, None, *geometry), out)
    _close(jit.conv2d_forward(x, wt, bias, *geometry), out + bias.reshape(1, -1, 1, 1))
    _close(
        jit.conv2d_input_grad(g, wt, x.shape, *geometry),
        numpy_ref.conv2d_input_grad(g, wt, x.shape, *geometry),
    )
    _close(
        jit.conv2d_weight_grad(x, g, wt.shape, *geometry),
        numpy_ref.conv2d_weight_grad(x, g, wt.shape, *geometry),
    )
    _close(jit.conv2d_bias_grad(g), numpy_ref.conv2d_bias_grad(g))


@pytest.mark.parametrize("multiply_padding", [True, False])
@pytest.mark.parametrize("shape", CONV_SHAPES, ids=str)
def test_conv_kernels_place_nan_alike(shape: tuple, multiply_padding: bool) -> None:
    """inf and NaN in weights and output gradients: both backends put NaN in the same places,
    with the padded zeros multiplied (PyTorch's im2col arithmetic) or skipped (oneDNN's)."""
    from minigrad.kernels import jit

    n, c, h, w, o, k, s, p, d, groups = shape
    rng = np.random.default_rng(7)
    x = rng.standard_normal((n, c, h, w))
    wt = rng.standard_normal((o, c // groups, *k))
    wt.flat[rng.integers(0, wt.size, 2)] = [np.inf, np.nan]
    geometry = (s, p, d, groups, multiply_padding)
    out = numpy_ref.conv2d_forward(x, wt, None, *geometry)
    np.testing.assert_array_equal(
        np.isnan(jit.conv2d_forward(x, wt, None, *geometry)), np.isnan(out)
    )
    g = rng.standard_normal(out.shape)
    g.flat[rng.integers(0, g.size, 2)] = [-np.inf, np.nan]
    np.testing.assert_array_equal(
        np.isnan(jit.conv2d_weight_grad(x, g, wt.shape, *geometry)),
        np.isnan(numpy_ref.conv2d_weight_grad(x, g, wt.shape, *geometry)),
    )


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", POOL_SHAPES, ids=str)
def test_pool_kernels_match_numpy(shape: tuple, dtype: str) -> None:
    from minigrad.kernels import jit

    n, c, h, w, k, s, p, d, ceil_mode = shape
    rng = np.random.default_rng(sum(map(hash, shape)) % 2**32)
    x = rng.integers(-3, 4, (n, c, h, w)).astype(dtype)  # ties: the first maximum wins
    x[0, 0, 0, 0] = x[0, 0, -1, -1] = np.nan  # NaN: the last one wins
    values, idx = numpy_ref.max_pool2d_forward(x, k, s, p, d, ceil_mode)
    jv, ji = jit.max_pool2d_forward(x, k, s, p, d, ceil_mode)
    np.testing.assert_array_equal(jv, values)
    np.testing.assert_array_equal(ji, idx)
    g = rng.standard_normal(values.shape).astype(dtype)
    _close(jit.max_pool2d_backward(g, idx, x.shape), numpy_ref.max_pool2d_backward(g, idx, x.shape))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(5,), (64, 16, 2, 2), (64, 16, 8, 8)], ids=str)  # 3 paths
def test_relu_kernels_match_numpy(shape: tuple, dtype: str) -> None:
    from minigrad.kernels import jit

    rng = np.random.default_rng(3)
    x = rng.standard_normal(shape).astype(dtype)
    x.flat[:3] = [np.nan, 0.0, -0.0]
    g = rng.standard_normal(shape).astype(dtype)
    g.flat[3:6] = [np.inf, -np.inf, np.nan]  # masked-out places get exactly 0 whatever arrives
    out = numpy_ref.relu_forward(x)
    np.testing.assert_array_equal(jit.relu_forward(x), out)
    np.testing.assert_array_equal(jit.relu_backward(g, out), numpy_ref.relu_backward(g, out))


def test_relu_gradient_at_nan_and_zero_is_torchs(backend: str) -> None:
    values = [float("nan"), 0.0, -1.0, 2.0] * 200  # long enough for the numba loop too
    seed = [float("inf"), float("-inf"), float("inf"), float("nan")] * 200
    x = minigrad.tensor(values, requires_grad=True)
    x.relu().backward(minigrad.tensor(seed))
    tx = torch.tensor(values, requires_grad=True)
    tx.relu().backward(torch.tensor(seed))
    np.testing.assert_array_equal(x.grad._data, tx.grad.numpy())


def test_row_kernels_give_torchs_layout(backend: str) -> None:
    """softmax, log_softmax, layer_norm of a transposed input, and their input gradients: laid
    out as PyTorch lays them out (fuzz seed 1002955: the numpy twin kept the transpose)."""
    values = np.arange(6.0, dtype=np.float32).reshape(2, 3) / 7
    layouts = []
    for lib in (torch, minigrad):
        x = lib.tensor(values, requires_grad=True)
        t = x.t()
        outs = (t.softmax(-1), t.log_softmax(-1), lib.nn.functional.layer_norm(t, (2,)))
        for out in outs:
            (grad,) = lib.autograd.grad((out * lib.arange(6.0).reshape(3, 2)).sum(), t)
            layouts.append((out.stride(), grad.stride()))
    assert layouts[:3] == layouts[3:]


@pytest.mark.parametrize("dtype", FLOATS)
def test_loss_kernels_match_numpy(dtype: str) -> None:
    from minigrad.kernels import jit

    rng = np.random.default_rng(7)
    x = (rng.standard_normal((9, 6)) * 30).astype(dtype)  # large logits: stability matters
    t = np.array([0, 5, -100, 2, 1, 3, 3, -100, 4])
    for actual, expected in zip(
        jit.cross_entropy_forward(x, t, -100)[:3],
        numpy_ref.cross_entropy_forward(x, t, -100)[:3],
        strict=True,
    ):
        _close(actual, expected)
    coef = rng.standard_normal(9).astype(dtype)
    _close(jit.nll_loss_backward(coef, t, -100, 6), numpy_ref.nll_loss_backward(coef, t, -100, 6))
    logp = numpy_ref.cross_entropy_forward(x, t, -100)[0]
    _close(jit.log_softmax_backward(x, logp), numpy_ref.log_softmax_backward(x, logp))
    wrong = np.array([0, -100, 6, -1, 2, 5, 7, 3, 1])  # the first out-of-range row is 2
    for impl in (jit, numpy_ref):
        assert impl.cross_entropy_forward(x, t, -100)[3:] == (7, -1)
        assert impl.cross_entropy_forward(x, wrong, -100)[4] == 2


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("width", [1, 10])
def test_add_rows_matches_numpy_bit_for_bit(dtype: str, width: int) -> None:
    """Repeated and negative rows add up in the same order as np.add.at, so to the same bits."""
    from minigrad.kernels import jit

    rng = np.random.default_rng(3)
    index = rng.integers(-7, 7, 200)
    rows = (rng.standard_normal((200, width)) * 1e4).astype(dtype)
    expected, actual = np.zeros((7, width), dtype), np.zeros((7, width), dtype)
    numpy_ref.add_rows(expected, index, rows)
    jit.add_rows(actual, index, rows)
    np.testing.assert_array_equal(actual, expected)


@pytest.mark.parametrize("dtype", FLOATS)
def test_row_kernels_match_numpy(dtype: str) -> None:
    """softmax's and the row normalisation's kernels: values close, NaN and inf in the same
    places (a row holding inf, -inf or NaN; a row of -inf, as a fully masked attention row)."""
    from minigrad.kernels import jit

    rng = np.random.default_rng(11)
    x = (rng.standard_normal((7, 9)) * 5).astype(dtype)
    x[1, 2], x[2, 0], x[3, 4], x[4] = np.inf, -np.inf, np.nan, -np.inf
    g = rng.standard_normal((7, 9)).astype(dtype)
    g[5, 1] = np.inf
    for actual, expected in (
        (jit.softmax_forward(x), numpy_ref.softmax_forward(x)),
        (
            jit.softmax_backward(g, numpy_ref.softmax_forward(x)),
            numpy_ref.softmax_backward(g, numpy_ref.softmax_forward(x)),
        ),
        *zip(jit.row_stats(x, 1e-5), numpy_ref.row_stats(x, 1e-5), strict=True),
    ):
        _close(actual, expected)
    mean, rstd = numpy_ref.row_stats(x, 1e-5)
    _close(jit.normalize_backward(g, x, mean, rstd), numpy_ref.normalize_backward(g, x, mean, rstd))


# --- the ops, on either backend, against torch -------------------------------------------
# test_nn_ops's cases (which run on the default backend) plus the shapes the lessons train on
EXTRA = [
    op(
        "conv_digits_layer2",
        lambda L, x, w, b: F(L).conv2d(x, w, b, padding=1),
        (3, 16, 4, 4),
        (32, 16, 3, 3),
        (32,),
    ),
    op(
        "conv_stride2_pad1_k2",
        lambda L, x, w: F(L).conv2d(x, w, stride=2, padding=1),
        (1, 3, 5, 6),
        (2, 3, 2, 2),
    ),
    op("pool_k3_s2_p1_odd", lambda L, x: F(L).max_pool2d(x, 3, stride=2, padding=1), (2, 2, 7, 8)),
    op(
        "cross_entropy_large_logits",
        lambda L, x: F(L).cross_entropy(x * 40, L.tensor([0, 4, 2, 2, 1])),
        (5, 5),
    ),
]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("case", CONV + CONV_TRANSPOSE + POOL + LOSSES + EXTRA)
def test_op_matches_torch(case, dtype: str, backend: str, request: pytest.FixtureRequest) -> None:
    """Forward, grad_fn graph, gradients and double backward, on each backend."""
    check_op(case, dtype, request.node.name)


@pytest.mark.parametrize("stride,padding", [(2, 0), (3, 1), (1, 1)])
def test_pool_return_indices_match_torch(stride: int, padding: int, backend: str) -> None:
    x = np.random.default_rng(stride).standard_normal((2, 3, 7, 6)).astype(np.float32)
    _, expected = torch.nn.functional.max_pool2d(
        torch.tensor(x), 3, stride, padding, return_indices=True
    )
    _, actual = mg_nn.max_pool2d(minigrad.tensor(x), 3, stride, padding, return_indices=True)
    np.testing.assert_array_equal(actual.numpy(), expected.numpy())


def test_training_step_matches_torch(backend: str) -> None:
    """A conv -> relu -> pool -> linear -> cross-entropy step gives torch's gradients."""
    rng = np.random.default_rng(0)
    arrays = [
        rng.standard_normal(s).astype(np.float32)
        for s in [(16, 1, 8, 8), (8, 1, 3, 3), (8,), (10, 128), (10,)]
    ]
    target = rng.integers(0, 10, 16)

    def grads(lib, ops) -> list[np.ndarray]:
        x, w, b, lw, lb = (lib.tensor(a, requires_grad=True) for a in arrays)
        h = ops.max_pool2d(ops.conv2d(x, w, b, padding=1).relu(), 2)
        loss = ops.cross_entropy(ops.linear(h.reshape(16, -1), lw, lb), lib.tensor(target))
        loss.backward()
        return [t.grad.numpy() for t in (x, w, b, lw, lb)]

    for a, e in zip(grads(minigrad, mg_nn), grads(torch, torch.nn.functional), strict=True):
        np.testing.assert_allclose(a, e, rtol=2e-4, atol=2e-5)


FIRST_CNN_STEP = """
import numpy as np, minigrad as mg
from minigrad.kernels import jit_conv, jit_pool
net = mg.nn.Sequential(mg.nn.Conv2d(1, 8, 3, padding=1), mg.nn.ReLU(), mg.nn.MaxPool2d(2),
                       mg.nn.Flatten(), mg.nn.Linear(8 * 4 * 4, 10))
x = mg.tensor(np.ones((4, 1, 8, 8), np.float32))
mg.nn.functional.cross_entropy(net(x), mg.tensor([0, 1, 2, 3])).backward()
used = [f for m in (jit_conv, jit_pool) for f in vars(m).values() if hasattr(f, "stats")]
print(sum(sum(f.stats.cache_misses.values()) for f in used),
      sum(sum(f.stats.cache_hits.values()) for f in used))
"""


def test_install_warms_the_kernel_cache_so_a_new_process_compiles_nothing(tmp_path) -> None:
    """`make install` runs minigrad.utils.warm_kernels: afterwards a new kernel process (a
    learner's notebook) loads every conv/pool kernel of a first CNN step from numba's cache."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "MINIGRAD_KERNELS": "numba"}
    warm = [sys.executable, "-m", "minigrad.utils.warm_kernels"]
    said = subprocess.run(warm, env=env, capture_output=True, text=True, check=True).stdout
    assert said.startswith("minigrad kernels compiled into numba's cache in")
    step = [sys.executable, "-c", FIRST_CNN_STEP]
    out = subprocess.run(step, env=env, capture_output=True, text=True, check=True).stdout
    misses, hits = map(int, out.split())
    assert (misses, hits > 0) == (0, True), out
