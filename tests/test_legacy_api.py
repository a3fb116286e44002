"""The small API around tensors, against PyTorch: legacy tensor types (FloatTensor(...),
isinstance, Tensor.type()), Tensor.new_*, uint8 tensors, f-string formatting of tensors, and
torch.cuda / torch.backends as a CPU-only build answers them."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad

torch = pytest.importorskip("torch")
LIBS = (torch, minigrad)
LEGACY = ("FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor", "IntTensor", "BoolTensor")
LEGACY += ("ByteTensor",)


def outcome(fn, lib):
    """A tensor as (dtype, shape, values, requires_grad); other values as they are; an error
    as (type, message)."""
    try:
        value = fn(lib)
    except Exception as e:  # noqa: BLE001 - the outcome compared
        return (type(e).__name__, str(e))
    if isinstance(value, (torch.Tensor, minigrad.Tensor)):
        return (
            str(value.dtype).split(".")[-1],
            tuple(value.shape),
            value.detach().tolist(),
            value.requires_grad,
        )
    return value


def assert_same_outcome(fn):
    """Equal outcomes; of PyTorch's "invalid combination of arguments" errors, which go on to
    list each signature's mismatch, the first line only."""
    expected, got = (outcome(fn, lib) for lib in LIBS)
    if isinstance(expected, tuple) and "invalid combination" in str(expected[-1]):
        expected, got = expected[0], (got[0], str(got[1]).split("\n")[0])
        assert got == (expected, str(outcome(fn, torch)[1]).split("\n")[0])
    else:
        assert got == expected


# --- legacy constructors -------------------------------------------------------------------------
CONSTRUCTIONS = [
    ([1, 2],),
    ([[1, 2], [3, 4]],),
    ([1.7, -2.2],),
    ((2, 3),),
    ([True, 2],),
    ([],),
    (),
    (3,),
    (0,),
    (-1,),
    (2.5,),
    (None,),
    ("a",),
    ([[1], [2, 3]],),
    ([1, 2], [3]),
    (2.0, 3),
]


@pytest.mark.parametrize("name", LEGACY)
@pytest.mark.parametrize("args", CONSTRUCTIONS)
def test_legacy_constructor_from_data(name, args):
    def build(lib):
        t = getattr(lib, name)(*args)
        # sizes give uninitialised memory: compare its shape and dtype only
        return (
            t if not args or isinstance(args[0], (list, tuple)) else (t.shape, t.dtype == t.dtype)
        )

    assert_same_outcome(build)


@pytest.mark.parametrize("name", LEGACY)
def test_legacy_constructor_from_sizes(name):
    for lib in LIBS:
        t = getattr(lib, name)(2, 3)
        assert tuple(t.shape) == (2, 3) and isinstance(t, getattr(lib, name))
        assert tuple(getattr(lib, name)(lib.Size([4, 1])).shape) == (4, 1)


@pytest.mark.parametrize(
    "call",
    [
        lambda lib: lib.LongTensor([2**63]),
        lambda lib: lib.IntTensor([2**31]),
        lambda lib: lib.ByteTensor([256]),
        lambda lib: lib.ByteTensor([-0.5]),
        lambda lib: lib.ByteTensor([255.9]),
        lambda lib: lib.LongTensor([1e19]),
        lambda lib: lib.IntTensor([[1, 2], [3, 2**31]]),
        lambda lib: lib.ByteTensor([1, 255]),
        lambda lib: lib.LongTensor(np.array([1.5])),
        lambda lib: lib.DoubleTensor(np.array([1, 2])),
        lambda lib: lib.FloatTensor([1], requires_grad=True),
        lambda lib: lib.FloatTensor(lib.tensor([1, 2])),
        lambda lib: lib.LongTensor(lib.tensor([1.0, 2.0])),
        lambda lib: lib.ByteTensor(lib.tensor([1.0])),
        lambda lib: lib.FloatTensor(lib.tensor(2.0)),
        lambda lib: lib.FloatTensor([1, 2], device="cpu"),
    ],
)
def test_legacy_constructor_outcomes(call):
    assert_same_outcome(call)


def test_legacy_constructor_of_a_tensor_shares_memory():
    for lib in LIBS:
        x = lib.ones(2)
        y = lib.FloatTensor(x)
        y[0] = 5
        assert x.tolist() == [5.0, 1.0] and not y.requires_grad


def test_isinstance_and_names_as_pytorch():
    def answers(lib):
        made = [
            lib.ones(2),
            lib.ones(2).double(),
            lib.ones(2, dtype=lib.int64),
            lib.ones(2, requires_grad=True),
            lib.nn.Parameter(lib.ones(2)),
            lib.ones(2, dtype=lib.uint8),
            lib.ones(2, dtype=lib.bool),
        ]
        table = [[isinstance(t, getattr(lib, n)) for n in LEGACY] for t in made]
        types = [getattr(lib, n) for n in LEGACY]
        return (
            table,
            [repr(k) for k in types],
            [k.__name__ for k in types],
            [issubclass(k, lib.Tensor) for k in types],
            [str(k.dtype).split(".")[-1] for k in types],
            isinstance(lib.ones(2), (lib.FloatTensor, lib.LongTensor)),
            type(lib.FloatTensor([1])) is lib.Tensor,
        )

    assert_same_outcome(answers)


@pytest.mark.parametrize(
    "call",
    [
        lambda lib: lib.ones(2).type(),
        lambda lib: lib.ones(2, dtype=lib.uint8).type(),
        lambda lib: lib.ones(2, dtype=lib.int32).type(),
        lambda lib: lib.ones(2).type(lib.LongTensor),
        lambda lib: lib.ones(2).type(lib.ByteTensor),
        lambda lib: lib.ones(2).type("torch.ByteTensor"),
        lambda lib: lib.ones(2).type("torch.BoolTensor"),
        lambda lib: lib.ones(2).type(lib.int32),
        lambda lib: lib.ones(2, dtype=lib.int64).type(lib.Tensor),
        lambda lib: lib.ones(2).type(lib.HalfTensor).type(),
        lambda lib: lib.ones(2).type("FloatTensor"),
        lambda lib: lib.FloatTensor([1]).type(),
        lambda lib: lib.Tensor([1, 2]).type(),
    ],
)
def test_type_strings_and_casts(call):
    assert_same_outcome(call)


# --- uint8 ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "call",
    [
        lambda lib: lib.tensor([1, 2], dtype=lib.uint8) + 1.5,
        lambda lib: lib.tensor([200], dtype=lib.uint8) + lib.tensor([100], dtype=lib.uint8),
        lambda lib: lib.tensor([1, 2], dtype=lib.uint8).sum(),
        lambda lib: lib.tensor([1, 2], dtype=lib.uint8) * lib.tensor([1, 2], dtype=lib.int32),
        lambda lib: lib.tensor([1, 2], dtype=lib.uint8) + True,
        lambda lib: lib.ones(2, dtype=lib.uint8) - 3,
        lambda lib: lib.from_numpy(np.array([7, 8], dtype=np.uint8)),
        lambda lib: repr(lib.tensor([1, 2], dtype=lib.uint8)),
    ],
)
def test_uint8_tensors(call):
    assert_same_outcome(call)


# --- Tensor.new_* --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "call",
    [
        lambda lib: lib.ones(2, dtype=lib.long).new_tensor([1.5, 2]),
        lambda lib: lib.ones(2, dtype=lib.long).new_tensor(3.7),
        lambda lib: lib.ones(2, dtype=lib.long).new_tensor([1.5], dtype=lib.float64),
        lambda lib: lib.ones(2).new_tensor([1, 2], requires_grad=True),
        lambda lib: lib.ones(2, dtype=lib.long).new_tensor([1, 2], requires_grad=True),
        lambda lib: lib.ones(2).new_tensor([[1], [2, 3]]),
        lambda lib: lib.ones(2, dtype=lib.long).new_full((2,), 3.5),
        lambda lib: lib.ones(2, dtype=lib.long).new_full((2,), 3.5, dtype=lib.float32),
        lambda lib: lib.ones(2).new_full(2, 3),
        lambda lib: lib.ones(2, dtype=lib.int32).new_zeros(2, 3),
        lambda lib: lib.ones(2, dtype=lib.int32).new_ones((2,)),
        lambda lib: lib.ones(2).new_ones((2,), requires_grad=True),
        lambda lib: lib.ones(2).new_ones(-1),
        lambda lib: (lambda t: (t.shape, t.dtype == lib.int64))(
            lib.ones(2, dtype=lib.long).new_empty(2, 3)
        ),
        lambda lib: lib.ones(2).new_empty((2, 3), dtype=lib.float64).shape,
    ],
)
def test_new_factories(call):
    assert_same_outcome(call)


def test_new_tensor_of_a_tensor_warns_as_pytorch():
    for lib in LIBS:
        with pytest.warns(UserWarning, match="To copy construct from a tensor"):
            got = lib.ones(2, dtype=lib.long).new_tensor(lib.tensor([1.5]))
        assert got.tolist() == [1]


# --- f-strings -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "make, spec",
    [
        (lambda lib: lib.tensor(2.5), ""),
        (lambda lib: lib.tensor(2.5), ".4f"),
        (lambda lib: lib.tensor(3), "d"),
        (lambda lib: lib.tensor(3), "5"),
        (lambda lib: lib.tensor(3), ".2f"),
        (lambda lib: lib.tensor(3.0), "d"),
        (lambda lib: lib.tensor(True), ""),
        (lambda lib: lib.tensor(True), ">6"),
        (lambda lib: lib.tensor(2.5, requires_grad=True), ".2f"),
        (lambda lib: lib.tensor(2.5, requires_grad=True) * 2, ".2f"),
        (lambda lib: lib.tensor(0.1), ".20f"),
        (lambda lib: lib.tensor(0.1, dtype=lib.float64), ".20f"),
        (lambda lib: lib.tensor(12345.678), ".3e"),
        (lambda lib: lib.tensor([2.5]), ".2f"),
        (lambda lib: lib.tensor([2.5, 1]), ""),
        (lambda lib: lib.tensor([[2.5]]), ".2f"),
        (lambda lib: lib.tensor([]), ""),
        (lambda lib: lib.tensor([]), ".2f"),
    ],
)
def test_format(make, spec):
    assert_same_outcome(lambda lib: format(make(lib), spec))


def test_fstring_of_a_loss():
    for lib in LIBS:
        loss = (lib.tensor([1.0, 2.0], requires_grad=True) ** 2).mean()
        assert f"loss {loss:.3f} / {loss.item():.3f}" == "loss 2.500 / 2.500"


# --- torch.cuda and torch.backends ---------------------------------------------------------------
@pytest.mark.parametrize(
    "call",
    [
        lambda lib: lib.cuda.is_available(),
        lambda lib: lib.cuda.device_count(),
        lambda lib: lib.cuda.is_initialized(),
        lambda lib: lib.cuda.manual_seed(3),
        lambda lib: lib.cuda.manual_seed_all(3),
        lambda lib: lib.cuda.seed(),
        lambda lib: lib.cuda.seed_all(),
        lambda lib: lib.cuda.empty_cache(),
        lambda lib: lib.cuda.memory_allocated(),
        lambda lib: lib.cuda.max_memory_allocated(),
        lambda lib: lib.cuda.is_bf16_supported(),
        lambda lib: lib.cuda.current_device(),
        lambda lib: lib.cuda.get_device_name(),
        lambda lib: lib.cuda.synchronize(),
        lambda lib: lib.backends.cudnn.is_available(),
        lambda lib: lib.backends.cudnn.version(),
        lambda lib: lib.backends.mps.is_available(),
        lambda lib: lib.backends.mps.is_built(),
    ],
)
def test_cuda_and_backends_on_a_cpu_build(call):
    expected, got = (outcome(call, lib) for lib in LIBS)
    if isinstance(expected, tuple) and expected[0] == "AssertionError":
        assert got[0] == "AssertionError" and got[1].startswith(expected[1])
    else:
        assert got == expected


def test_cuda_seeding_leaves_the_cpu_generator_alone():
    minigrad.manual_seed(5)
    state = minigrad.get_rng_state()
    minigrad.cuda.manual_seed_all(9)
    assert minigrad.equal(state, minigrad.get_rng_state())


def test_cudnn_flags_are_settable():
    cudnn = minigrad.backends.cudnn
    defaults = (cudnn.deterministic, cudnn.benchmark, cudnn.enabled, cudnn.allow_tf32)
    real = torch.backends.cudnn
    assert defaults == (real.deterministic, real.benchmark, real.enabled, real.allow_tf32)
    try:
        cudnn.deterministic, cudnn.benchmark = True, False
        assert minigrad.backends.cudnn.deterministic is True
    finally:
        cudnn.deterministic, cudnn.benchmark = defaults[:2]


def test_deterministic_algorithms_switch():
    def switch(lib):
        seen = [lib.are_deterministic_algorithms_enabled()]
        try:
            lib.use_deterministic_algorithms(True, warn_only=True)
            seen += [
                lib.are_deterministic_algorithms_enabled(),
                lib.is_deterministic_algorithms_warn_only_enabled(),
            ]
            lib.use_deterministic_algorithms(False, warn_only=True)
            seen.append(lib.is_deterministic_algorithms_warn_only_enabled())
            for bad in (
                lambda: lib.use_deterministic_algorithms(1),
                lambda: lib.use_deterministic_algorithms(True, warn_only=1),
            ):
                try:
                    bad()
                except TypeError as e:
                    seen.append(str(e))
        finally:
            lib.use_deterministic_algorithms(False)
        return seen

    assert_same_outcome(switch)
