"""Issue 21's structural ops, on what the sweep does not look at: result types, the
LinAlgError class, meshgrid's warning, and einsum over many equations (values, first and
second gradients, the last node's name), each compared with PyTorch."""

from __future__ import annotations

import ast
import subprocess
import sys

import numpy as np
import pytest

import minigrad

torch = pytest.importorskip("torch")
LIBS = (torch, minigrad)


def _both(fn):
    return [fn(lib) for lib in LIBS]


def test_result_types_are_named_as_pytorchs():
    for name, call in (
        ("topk", lambda L: L.topk(L.tensor([1.0, 3.0, 2.0]), 2)),
        ("histogram", lambda L: L.histogram(L.tensor([1.0, 2.0, 2.5]), 2)),
    ):
        theirs, ours = _both(call)
        assert type(ours).__name__ == type(theirs).__name__ == name
        fields = ("values", "indices") if name == "topk" else ("hist", "bin_edges")
        for field in fields:
            a, b = getattr(theirs, field), getattr(ours, field)
            np.testing.assert_allclose(b.numpy(), a.numpy())


def test_linalg_error_is_a_runtime_error_named_as_pytorchs():
    for lib in LIBS:
        with pytest.raises(lib.linalg.LinAlgError) as caught:
            lib.linalg.inv(lib.zeros(2, 3, 3))
        assert isinstance(caught.value, RuntimeError)
        assert type(caught.value).__name__ == "_LinAlgError"
        assert "(Batch element 0): The diagonal element 1 is zero" in str(caught.value)


MESHGRID_TWICE = """
import ast
import subprocess
import sys
import warnings
import {lib} as torch
with warnings.catch_warnings(record=True) as seen:
    warnings.simplefilter("always")
    torch.meshgrid(torch.ones(2), torch.ones(3))
    torch.meshgrid(torch.ones(2), torch.ones(3))
    torch.meshgrid(torch.ones(2), torch.ones(3), indexing="xy")
print(repr([str(w.message) for w in seen if w.category is UserWarning]))
"""


def test_meshgrid_warns_once_without_indexing_as_pytorch_does():
    """Once per process (PyTorch's TORCH_WARN_ONCE): each library in a fresh one."""
    for lib in ("torch", "minigrad"):
        run = subprocess.run(
            [sys.executable, "-c", MESHGRID_TWICE.format(lib=lib)],
            capture_output=True,
            text=True,
            check=True,
        )
        messages = ast.literal_eval(run.stdout.strip().splitlines()[-1])
        assert len(messages) == 1, lib
        assert "it will be required to pass the indexing argument" in messages[0]


def test_scatter_keeps_the_last_of_repeated_places():
    theirs, ours = _both(
        lambda L: L.zeros(1, 5).scatter(
            1, L.tensor([[0, 0, 0, 1]]), L.tensor([[1.0, 2.0, 3.0, 4.0]])
        )
    )
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


EQUATIONS = (
    ("ij,jk->ik", (3, 4), (4, 5)),
    ("ij,jk->ki", (3, 4), (4, 5)),
    ("i,i->", (4,), (4,)),
    ("i,j", (3,), (4,)),
    ("ij->j", (3, 4)),
    ("ji", (3, 4)),
    ("ii->i", (3, 3)),
    ("ii", (3, 3)),
    ("iij->ij", (3, 3, 4)),
    ("bij,bjk->bik", (2, 3, 4), (2, 4, 5)),
    ("...ij,...jk", (2, 3, 4), (4, 5)),
    ("...j,j->...", (3, 4), (4,)),
    ("ij,ij->ij", (3, 4), (3, 4)),
    ("ij,ij->i", (3, 4), (1, 4)),
    ("ij,jk,kl->il", (3, 4), (4, 5), (5, 2)),
    ("ab,ab,ab->", (3, 4), (3, 4), (3, 4)),
    ("i,j,k->ijk", (3,), (4,), (2,)),
    ("ijk,ikl->jl", (3, 2, 4), (3, 4, 2)),
    ("Ab,bA", (2, 3), (3, 2)),
    ("ij, jk -> ik", (3, 4), (4, 5)),
    ("ij,jk->ik", (0, 4), (4, 5)),
)


@pytest.mark.parametrize("case", EQUATIONS, ids=[e[0] for e in EQUATIONS])
def test_einsum_matches_pytorch_to_the_second_derivative(case):
    equation, *shapes = case
    rng = np.random.default_rng(len(equation) + sum(len(s) for s in shapes))
    arrays = [rng.normal(size=s) for s in shapes]
    found = []
    for lib in LIBS:
        xs = [lib.tensor(a, requires_grad=True) for a in arrays]
        out = lib.einsum(equation, *xs)
        upstream = lib.tensor(np.cos(np.arange(out.numel())).reshape(tuple(out.shape)))
        first = lib.autograd.grad(out, xs, upstream, create_graph=True)
        second = [None] * len(xs)
        if any(g.requires_grad for g in first):
            total = sum((g * g).sum() for g in first)
            second = lib.autograd.grad(total, xs, allow_unused=True)
        found.append((out.grad_fn.name(), out.detach().numpy(), first, second))
    (name_t, out_t, first_t, second_t), (name_m, out_m, first_m, second_m) = found
    assert name_m == name_t
    np.testing.assert_allclose(out_m, out_t, atol=1e-12)
    for a, b in zip(first_t, first_m):
        np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), atol=1e-12)
    for a, b in zip(second_t, second_m):
        a = np.zeros(0) if a is None else a.numpy()
        b = np.zeros(0) if b is None else b.numpy()
        if a.size and b.size:
            np.testing.assert_allclose(b, a, atol=1e-12)
        else:
            assert not a.any() and not b.any()


def test_einsum_errors_are_pytorchs():
    a = np.ones((3, 4))
    for args in (
        ("ij,jk", a),
        ("ij->k", a),
        ("ij->ii", a),
        ("i1", a),
        ("ijk", a),
        ("ij,ij", a, np.ones((3, 5))),
        ("ii", a),
        ("....", a),
        ("...i,...i", np.ones((2, 2, 4)), np.ones((3, 4))),
    ):
        messages = []
        for lib in LIBS:
            with pytest.raises(RuntimeError) as caught:
                lib.einsum(args[0], *[lib.tensor(x) for x in args[1:]])
            messages.append(str(caught.value))
        assert messages[0] == messages[1]
