"""Generators and random ops against PyTorch: the Generator API and its errors, seeding of the
default generator, `generator=` on every random op (same seed, same numbers; other streams left
alone), the sampling ops' distributions, shapes, dtypes, graph nodes and exact errors.

Random values are never compared with PyTorch's (minigrad draws from numpy's PCG64, PyTorch
from an MT19937): their reproducibility and their distributions are."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad

torch = pytest.importorskip("torch")
LIBS = (torch, minigrad)


def outcome(fn, lib):
    """What fn(lib) gave: a tensor's (dtype, shape), a plain value, or (error type, message)."""
    try:
        value = fn(lib)
    except Exception as e:  # noqa: BLE001 - the outcome compared
        return (type(e).__name__, str(e))
    if isinstance(value, (torch.Tensor, minigrad.Tensor)):
        return (str(value.dtype).split(".")[-1], tuple(value.shape), value.requires_grad)
    return value


def assert_same_outcome(fn):
    expected, got = (outcome(fn, lib) for lib in LIBS)
    assert got == expected


# --- Generator -------------------------------------------------------------------------------
def test_manual_seed_returns_the_generator_and_repeats_the_stream():
    g = minigrad.Generator()
    assert g.manual_seed(3) is g and g.initial_seed() == 3
    a = minigrad.rand(5, generator=g)
    g.manual_seed(3)
    assert minigrad.equal(a, minigrad.rand(5, generator=g))


def test_fresh_generator_seed_and_device_as_pytorch():
    for lib in LIBS:
        g = lib.Generator()
        assert g.initial_seed() == torch.Generator().initial_seed()
        assert str(g.device) == "cpu" and lib.Generator("cpu").device == lib.device("cpu")
        seed = g.seed()
        assert isinstance(seed, int) and g.initial_seed() == seed


@pytest.mark.parametrize("seed", [0, 7, -1, -(2**63), 2**63, 2**64 - 1, 2**64, -(2**63) - 1])
def test_seed_range(seed):
    assert_same_outcome(lambda lib: lib.Generator().manual_seed(seed).initial_seed())


@pytest.mark.parametrize("seed", [1.5, True, "3"])
def test_generator_refuses_non_integer_seeds(seed):
    assert_same_outcome(lambda lib: lib.Generator().manual_seed(seed))


@pytest.mark.parametrize("seed", [1.5, "3", 2**64 - 1, -1])
def test_torch_manual_seed_takes_what_int_takes(seed):
    def seeded(lib):
        g = lib.manual_seed(seed)
        return g is lib.default_generator, lib.initial_seed()

    assert_same_outcome(seeded)


def test_state_round_trip_and_copy():
    g = minigrad.Generator().manual_seed(11)
    minigrad.randn(3, generator=g)
    state = g.get_state()
    assert state.dtype is minigrad.uint8 and state.ndim == 1
    a = minigrad.randn(4, generator=g)
    state[0] = 255  # a copy: the generator is unchanged
    g.set_state(g.get_state())
    b = minigrad.randn(4, generator=g)
    g.set_state(state_before := minigrad.Generator().manual_seed(11).get_state())
    assert g.initial_seed() == 11 and state_before.dtype is minigrad.uint8
    minigrad.randn(3, generator=g)
    assert minigrad.equal(minigrad.randn(4, generator=g), a)
    assert not minigrad.equal(a, b)


def test_state_keeps_a_buffered_half():
    """numpy's PCG64 buffers 32 bits of a 64-bit draw: the state carries it."""
    g = minigrad.Generator().manual_seed(5)
    g.rng.integers(0, 2**31, dtype=np.int32)  # leaves half a draw buffered
    state = g.get_state()
    first = g.rng.integers(0, 2**31, size=3, dtype=np.int32)
    g.set_state(state)
    assert np.array_equal(first, g.rng.integers(0, 2**31, size=3, dtype=np.int32))


@pytest.mark.parametrize(
    "make",
    [lambda lib: lib.zeros(3), lambda lib: [1, 2], lambda lib: lib.zeros(3, dtype=lib.int64)],
)
def test_set_state_type_errors(make):
    assert_same_outcome(lambda lib: lib.Generator().set_state(make(lib)))


def test_set_state_size_error():
    for lib in LIBS:
        with pytest.raises(RuntimeError, match="Expected a CPUGeneratorImplState of size"):
            lib.Generator().set_state(lib.zeros(3, dtype=lib.uint8))


def test_generator_on_another_device_is_refused():
    for lib in LIBS:
        with pytest.raises(RuntimeError):
            lib.Generator("cuda")


def test_rng_state_functions_and_fork_rng():
    minigrad.manual_seed(4)
    state = minigrad.get_rng_state()
    a = minigrad.rand(3)
    minigrad.set_rng_state(state)
    assert minigrad.equal(a, minigrad.rand(3))
    with minigrad.random.fork_rng():
        inside = minigrad.rand(3)
    assert minigrad.equal(inside, minigrad.rand(3))
    assert minigrad.random.manual_seed is minigrad.manual_seed


# --- generator= on every random op -------------------------------------------------------------
DRAWS = {
    "rand": lambda t, g: t.rand(2, 3, generator=g),
    "randn": lambda t, g: t.randn((2, 3), generator=g, dtype=t.float64),
    "randint": lambda t, g: t.randint(0, 10, (5,), generator=g),
    "randperm": lambda t, g: t.randperm(7, generator=g),
    "rand_like": lambda t, g: t.rand_like(t.ones(3), generator=g),
    "randn_like": lambda t, g: t.randn_like(t.ones(3), generator=g),
    "randint_like": lambda t, g: t.randint_like(t.ones(3), 2, 9, generator=g),
    "normal(float, float, size)": lambda t, g: t.normal(1.0, 2.0, (4,), generator=g),
    "normal(Tensor, float)": lambda t, g: t.normal(t.zeros(4), 1.0, generator=g),
    "normal(float, Tensor)": lambda t, g: t.normal(0.0, t.ones(4), generator=g),
    "normal(Tensor, Tensor)": lambda t, g: t.normal(t.zeros(4), t.ones(4), generator=g),
    "multinomial": lambda t, g: t.multinomial(t.tensor([0.2, 0.3, 0.5]), 2, generator=g),
    "Tensor.multinomial": lambda t, g: t.ones(2, 5).multinomial(9, True, generator=g),
    "bernoulli": lambda t, g: t.bernoulli(t.full((6,), 0.5), generator=g),
    "Tensor.bernoulli_": lambda t, g: t.zeros(6).bernoulli_(0.5, generator=g),
    "Tensor.uniform_": lambda t, g: t.zeros(3).uniform_(-1, 1, generator=g),
    "Tensor.normal_": lambda t, g: t.zeros(3).normal_(0, 1, generator=g),
}


@pytest.mark.parametrize("name", DRAWS)
def test_same_seed_same_values_and_the_default_stream_untouched(name):
    draw = DRAWS[name]
    minigrad.manual_seed(0)
    default_before = minigrad.get_rng_state()
    a = draw(minigrad, minigrad.Generator().manual_seed(42))
    b = draw(minigrad, minigrad.Generator().manual_seed(42))
    assert minigrad.equal(a, b)
    assert minigrad.equal(default_before, minigrad.get_rng_state())
    # and the default generator, when none is given, repeats after torch.manual_seed
    minigrad.manual_seed(1)
    c = draw(minigrad, None)
    minigrad.manual_seed(1)
    assert minigrad.equal(c, draw(minigrad, None))


@pytest.mark.parametrize("name", DRAWS)
def test_results_shaped_and_typed_as_pytorch(name):
    assert_same_outcome(lambda lib: DRAWS[name](lib, lib.Generator().manual_seed(0)))


def test_generator_of_the_wrong_type():
    for lib in LIBS:
        with pytest.raises(TypeError):
            lib.multinomial(lib.ones(2), 1, generator=3)
    with pytest.raises(TypeError, match="argument 'generator' must be torch.Generator, not int"):
        minigrad.multinomial(minigrad.ones(2), 1, generator=3)


# --- multinomial ---------------------------------------------------------------------------------
MULTINOMIAL_CASES = [
    ([0.1, 0.2, 0.7], 2, False),
    ([0.1, 0.2, 0.7], 4, False),
    ([0.1, 0.2, 0.7], 4, True),
    ([0.1, 0.2, 0.7], 0, False),
    ([0.1, 0.2, 0.7], -1, True),
    ([0.1, -0.2], 1, False),
    ([0.1, float("inf")], 1, True),
    ([0.1, float("nan")], 1, False),
    ([0.0, 0.0], 1, True),
    ([[0.0, 0.0], [1.0, 1.0]], 1, False),
    ([[0.2, 0.3], [1.0, 1.0]], 2, False),
    ([[[1.0]]], 1, False),
    (1.0, 1, False),
    ([], 1, False),
    ([-1.0, 2.0], 3, False),
    ([[1.0, 2.0]], 0, True),
]


@pytest.mark.parametrize("probs, n, replacement", MULTINOMIAL_CASES)
def test_multinomial_shapes_and_errors(probs, n, replacement):
    assert_same_outcome(lambda lib: lib.multinomial(lib.tensor(probs), n, replacement))


@pytest.mark.parametrize(
    "call",
    [
        lambda lib: lib.multinomial(lib.tensor([1, 2]), 1),
        lambda lib: lib.multinomial(lib.tensor([1.0, 2.0]), 2.0),
        lambda lib: lib.multinomial(lib.zeros(0, 3), 1),
        lambda lib: lib.multinomial(lib.ones(2, 0), 1),
        lambda lib: lib.multinomial(lib.ones(3, dtype=lib.float64), 3),
        lambda lib: lib.tensor([0.5, 0.5]).multinomial(num_samples=2),
        lambda lib: lib.multinomial(lib.tensor([0.2, 0.8], requires_grad=True), 1),
    ],
)
def test_multinomial_more_outcomes(call):
    assert_same_outcome(call)


def test_multinomial_without_replacement_draws_distinct_and_zero_weights_last():
    g = minigrad.Generator().manual_seed(0)
    for _ in range(50):
        drawn = minigrad.multinomial(minigrad.tensor([0.0, 3.0, 0.0, 1.0]), 3, generator=g)
        assert len(set(drawn.tolist())) == 3 and set(drawn.tolist()[:2]) == {1, 3}


def test_multinomial_frequencies():
    probs = np.array([0.1, 0.2, 0.3, 0.4])
    g = minigrad.Generator().manual_seed(1)
    drawn = minigrad.multinomial(minigrad.tensor(probs * 5), 40000, True, generator=g).numpy()
    assert np.allclose(np.bincount(drawn, minlength=4) / drawn.size, probs, atol=0.01)
    # without replacement, a single draw picks each category by its weight
    firsts = [
        minigrad.multinomial(minigrad.tensor(probs), 2, generator=g)[0].item() for _ in range(4000)
    ]
    assert np.allclose(np.bincount(firsts, minlength=4) / 4000, probs, atol=0.03)


def test_multinomial_rows_draw_independently():
    g = minigrad.Generator().manual_seed(2)
    rows = minigrad.tensor([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    drawn = minigrad.multinomial(rows, 5, True, generator=g)
    assert drawn.tolist() == [[0] * 5, [2] * 5]


# --- normal, bernoulli, the in-place fills ------------------------------------------------------
@pytest.mark.parametrize(
    "call",
    [
        lambda lib: lib.normal(lib.zeros(3), -1.0),
        lambda lib: lib.normal(lib.zeros(3), lib.tensor([1.0, -1.0, 1.0])),
        lambda lib: lib.normal(0.0, -1.0, (2,)),
        lambda lib: lib.normal(lib.zeros(3), lib.ones(2)),
        lambda lib: lib.normal(lib.zeros(3), lib.ones(1, 3)),
        lambda lib: lib.normal(lib.zeros(3), lib.ones(3, 1)),
        lambda lib: lib.normal(lib.zeros(3, dtype=lib.int64), 1.0),
        lambda lib: lib.normal(lib.zeros(3, dtype=lib.int64), -lib.ones(3, dtype=lib.int64)),
        lambda lib: lib.normal(lib.zeros(3), lib.ones(3, dtype=lib.int64)),
        lambda lib: lib.normal(lib.zeros(3, dtype=lib.float64), lib.ones(3)),
        lambda lib: lib.normal(0.0, 1.0),
        lambda lib: lib.normal(0, 1, (2,), dtype=lib.float64),
        lambda lib: lib.normal(0, 1, (2,), requires_grad=True),
        lambda lib: lib.bernoulli(lib.tensor([0.5, -0.1])),
        lambda lib: lib.bernoulli(lib.tensor([0.5, float("nan")])),
        lambda lib: lib.bernoulli(lib.tensor([1, 0])),
        lambda lib: lib.bernoulli(lib.tensor([0.5, 0.2], dtype=lib.float64)),
        lambda lib: lib.bernoulli(lib.tensor([1, 0]), 0.5),
        lambda lib: lib.zeros(2).bernoulli_(lib.tensor([0.5, 1.2])),
        lambda lib: lib.zeros(2).bernoulli_(1.5),
        lambda lib: lib.zeros(2, dtype=lib.int64).bernoulli_(0.5),
        lambda lib: lib.zeros(2, dtype=lib.bool).bernoulli_(lib.full((2,), 0.5)),
        lambda lib: lib.zeros(2).bernoulli_(lib.ones(2, dtype=lib.int64)),
        lambda lib: lib.zeros(2, 3).bernoulli_(lib.full((4,), 0.5)),
        lambda lib: lib.zeros(3).normal_(0, -1),
        lambda lib: lib.zeros(3).normal_(0, -1.5),
        lambda lib: lib.zeros(3).uniform_(1.0, 0.5),
        lambda lib: lib.zeros(2).bernoulli_(2.0),
        lambda lib: lib.normal(lib.zeros(3), -1e-7),
        lambda lib: lib.zeros(3).uniform_(1, 0),
        lambda lib: lib.randperm(-1),
        lambda lib: lib.randperm(4, dtype=lib.float32, requires_grad=True),
        lambda lib: lib.randperm(4, requires_grad=True),
        lambda lib: lib.randperm(3, dtype=lib.bool),
        lambda lib: lib.randperm(300, dtype=lib.uint8),
        lambda lib: lib.randint(5, (2,), dtype=lib.bool),
        lambda lib: lib.randint(0, 300, (2,), dtype=lib.uint8),
        lambda lib: lib.randint(-3, 3, (2,), dtype=lib.uint8),
        lambda lib: lib.randint_like(lib.ones(2), 5, 3),
        lambda lib: lib.randint_like(lib.ones(2, dtype=lib.bool), 3),
        lambda lib: lib.randint_like(lib.ones(2), 5, requires_grad=True),
        lambda lib: lib.rand_like(lib.ones(2), requires_grad=True),
    ],
)
def test_sampling_outcomes(call):
    assert_same_outcome(call)


def test_distributions():
    g = minigrad.Generator().manual_seed(3)
    n = 40000
    u = minigrad.rand(n, generator=g).numpy()
    assert u.min() >= 0 and u.max() < 1 and abs(u.mean() - 0.5) < 0.01
    z = minigrad.normal(minigrad.full((n,), 2.0), 3.0, generator=g).numpy()
    assert abs(z.mean() - 2) < 0.06 and abs(z.std() - 3) < 0.06
    b = minigrad.bernoulli(minigrad.full((n,), 0.3), generator=g).numpy()
    assert set(np.unique(b)) <= {0.0, 1.0} and abs(b.mean() - 0.3) < 0.01
    p = minigrad.zeros(n).bernoulli_(0.8, generator=g).numpy()
    assert abs(p.mean() - 0.8) < 0.01
    r = minigrad.randint(-2, 3, (n,), generator=g).numpy()
    assert set(np.unique(r)) == {-2, -1, 0, 1, 2}
    perm = minigrad.randperm(50, generator=g).tolist()
    assert sorted(perm) == list(range(50))


def _zero_gradient_graph(lib):
    m = lib.zeros(3, requires_grad=True)
    s = lib.ones(3, requires_grad=True)
    outs = [
        lib.normal(m, 1.0),
        lib.normal(0.0, s),
        lib.normal(m, s),
        lib.bernoulli(m + 0.5),
        (m * 1).bernoulli_(lib.full((3,), 0.5, requires_grad=True)),
        (m * 1).bernoulli_(0.5),
    ]
    names = [o.grad_fn.name() for o in outs]
    grads = lib.autograd.grad(sum(o.sum() for o in outs), [m, s])
    return names, [g.tolist() for g in grads]


def test_random_ops_record_zero_gradients_as_pytorch():
    assert_same_outcome(_zero_gradient_graph)


def test_bernoulli_with_p_has_no_derivative():
    for lib in LIBS:
        y = lib.bernoulli(lib.rand(3, requires_grad=True), 0.3)
        assert y.requires_grad and y.grad_fn.name() == "torch::autograd::NotImplemented"
        with pytest.raises(RuntimeError, match="derivative for aten::bernoulli is not implemented"):
            y.sum().backward()
