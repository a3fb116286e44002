"""inf - inf, 0 * inf, overflow, log(0): PyTorch computes them without a word; numpy warns.
Each case runs on both libraries with every warning recorded and minigrad's filter in place,
as a learner has it after `import minigrad` (pytest drops filters added while it collects, so
each test puts it back): the same warnings, so none from numpy."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import minigrad  # noqa: E402
from minigrad.core import quiet  # noqa: E402

INF = float("inf")
CASES = {
    "sum of inf and -inf": lambda L: L.tensor([INF, -INF]).sum(),
    "mean of inf and -inf": lambda L: L.tensor([INF, -INF]).mean(),
    "inf + -inf": lambda L: L.tensor([INF]) + L.tensor([-INF]),
    "inf * 0": lambda L: L.tensor([INF]) * 0,
    "float32 overflow": lambda L: L.tensor([3e38]) * 10,
    "1 / 0": lambda L: L.tensor([1.0]) / 0,
    "log 0 and log -1": lambda L: L.tensor([0.0, -1.0]).log(),
    "sqrt -1": lambda L: L.tensor([-1.0]).sqrt(),
    "exp 1000": lambda L: L.tensor([1000.0]).exp(),
    "10 ** 100": lambda L: L.tensor([10.0]) ** 100,
    "var with inf": lambda L: L.tensor([INF, 1.0]).var(),
    "softmax with inf": lambda L: L.tensor([INF, 1.0]).softmax(0),
    "prod overflow": lambda L: L.tensor([1e30, 1e30]).prod(),
    "cumsum of inf and -inf": lambda L: L.tensor([INF, -INF]).cumsum(0),
    "matmul of inf and -inf": lambda L: L.tensor([[INF, -INF]]) @ L.tensor([[1.0], [1.0]]),
    "norm overflow": lambda L: L.tensor([3e38, 3e38]).norm(),
    "inf to int64": lambda L: L.tensor([INF]).to(L.int64),
    "1e6 to float16": lambda L: L.tensor([1e6]).half(),
    "std of one value": lambda L: L.tensor([1.0]).std(),  # PyTorch's own UserWarning
    "backward overflowing": lambda L: _backward(L, lambda x: (x * x).sum(), [3e38]),
    "backward of log at 0": lambda L: _backward(L, lambda x: x.log().sum(), [0.0]),
    "backward of sqrt at 0": lambda L: _backward(L, lambda x: x.sqrt().sum(), [0.0]),
}


def _backward(lib, f, values):
    x = lib.tensor(values, requires_grad=True)
    f(x).backward()
    return x.grad


def _warnings(lib, case) -> list[str]:
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        quiet.install()  # (before "always")
        CASES[case](lib)
    # (PyTorch's C++ warnings end with where they were raised: " (Triggered internally at ...)")
    return [f"{w.category.__name__}: {str(w.message).split(' (Triggered')[0]}" for w in seen]


@pytest.mark.parametrize("case", CASES)
def test_special_values_warn_as_pytorch_does(case: str) -> None:
    assert _warnings(minigrad, case) == _warnings(torch, case)


def test_a_learners_own_numpy_keeps_its_warnings() -> None:
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        quiet.install()
        np.array([np.inf]) - np.array([np.inf])
    assert [str(w.message) for w in seen] == ["invalid value encountered in subtract"]
