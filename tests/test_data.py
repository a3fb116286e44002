"""minigrad.utils.data against torch.utils.data: datasets, samplers, default_collate and the
DataLoader give the same batches, lengths and errors wherever the result is deterministic;
shuffles are checked for being permutations, repeatable with a seeded generator, and drawn
as the sampler's options say."""

from __future__ import annotations

import collections
import warnings

import numpy as np
import pytest

import minigrad
import minigrad.utils.data as mdata

torch = pytest.importorskip("torch")
import torch.utils.data as tdata  # noqa: E402

LIBS = ((torch, tdata), (minigrad, mdata))
Pair = collections.namedtuple("Pair", "x y")


def plain(value):
    """Nested batches as plain data: a tensor becomes (dtype, values, requires_grad)."""
    if isinstance(value, (torch.Tensor, minigrad.Tensor)):
        return ("tensor", str(value.dtype).split(".")[-1], value.tolist(), value.requires_grad)
    if isinstance(value, dict):
        return (type(value).__name__, {k: plain(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        kind = "Pair" if isinstance(value, Pair) else type(value).__name__
        return (kind, [plain(v) for v in value])
    return value


def outcome(fn, lib, data):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return plain(fn(lib, data))
    except Exception as e:  # noqa: BLE001 - the outcome compared
        return (type(e).__name__, str(e))


def assert_same(fn):
    expected, got = (outcome(fn, lib, data) for lib, data in LIBS)
    assert got == expected


class Squares:
    """A map-style dataset without the Dataset base class (DataLoader takes any)."""

    def __getitem__(self, i):
        return i * i

    def __len__(self):
        return 7


# --- default_collate / default_convert -----------------------------------------------------------
COLLATE = {
    "ints": lambda t: [1, 2],
    "bools": lambda t: [True, False],
    "floats": lambda t: [1.5, 2],
    "int then float": lambda t: [1, 2.5],
    "strings": lambda t: ["a", "b"],
    "bytes": lambda t: [b"a", b"b"],
    "arrays": lambda t: [np.array([1, 2]), np.array([3, 4])],
    "mixed arrays": lambda t: [np.array([1, 2]), np.array([3, 4.0])],
    "float32 scalars": lambda t: [np.float32(1), np.float32(2)],
    "int32 scalars": lambda t: [np.int32(1), np.int32(2)],
    "string arrays": lambda t: [np.array(["a"]), np.array(["b"])],
    "object arrays": lambda t: [np.array([1.5], dtype=object)],
    "tuples": lambda t: [(1, 2.0), (3, 4.0)],
    "lists": lambda t: [[1, 2], [3, 4]],
    "ragged lists": lambda t: [[1, 2], [3]],
    "dicts": lambda t: [{"a": 1, "b": t.ones(2)}, {"a": 2, "b": t.zeros(2)}],
    "ordered dicts": lambda t: [collections.OrderedDict(a=1)],
    "dicts with other keys": lambda t: [{"a": 1}, {"b": 2}],
    "namedtuples": lambda t: [Pair(1, 2.0), Pair(3, 4.0)],
    "tensors": lambda t: [t.ones(2), t.zeros(2)],
    "tensors of two sizes": lambda t: [t.ones(2), t.ones(3)],
    "tensors requiring grad": lambda t: [t.ones(2, requires_grad=True) * 2, t.ones(2)],
    "0-d tensors": lambda t: [t.tensor(1), t.tensor(2)],
    "int32 and int64 tensors": lambda t: [t.ones(2, dtype=t.int32), t.ones(2, dtype=t.int64)],
    "array and tensor": lambda t: [np.ones(2), t.ones(2)],
    "None": lambda t: [None, None],
    "objects": lambda t: [object],
    "a tuple batch": lambda t: (1, 2),
    "nested": lambda t: [{"x": (t.ones(1), [1, 2])}, {"x": (t.zeros(1), [3, 4])}],
}


@pytest.mark.parametrize("name", COLLATE)
def test_default_collate(name):
    assert_same(lambda lib, data: data.default_collate(COLLATE[name](lib)))


@pytest.mark.parametrize(
    "make",
    [
        lambda t: [np.ones(2), 1, (np.ones(1),)],
        lambda t: np.ones(2),
        lambda t: {"a": np.zeros(1), "b": "s"},
        lambda t: Pair(np.ones(1), 2),
        lambda t: np.float64(1.5),
        lambda t: t.ones(2),
    ],
)
def test_default_convert(make):
    assert_same(lambda lib, data: data.default_convert(make(lib)))


# --- datasets ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "call",
    [
        lambda t, d: d.TensorDataset(t.ones(3), t.ones(4)),
        lambda t, d: len(d.TensorDataset(t.arange(3), t.arange(3) * 2)),
        lambda t, d: d.TensorDataset(t.arange(3), t.arange(6).reshape(3, 2))[1],
        lambda t, d: d.TensorDataset(t.arange(4))[1:3],
        lambda t, d: d.ConcatDataset([]),
        lambda t, d: d.ConcatDataset([range(3), range(2)])[-1],
        lambda t, d: d.ConcatDataset([range(3), range(2)])[3],
        lambda t, d: d.ConcatDataset([range(3), range(2)])[-6],
        lambda t, d: d.ConcatDataset([range(3), range(2)]).cumulative_sizes,
        lambda t, d: len(d.ConcatDataset([range(3), range(2)])),
        lambda t, d: d.Subset(range(10), [1, 5])[1],
        lambda t, d: d.Subset(range(10), [1, 5])[[0, 1]],
        lambda t, d: d.Subset(list(range(10)), [1, 5]).__getitems__([1, 0]),
        lambda t, d: len(d.Subset(range(10), [1, 5])),
        lambda t, d: d.Dataset()[0],
        lambda t, d: len(d.Dataset()),
        lambda t, d: d.Dataset() + d.Dataset(),
        lambda t, d: d.IterableDataset(),
        lambda t, d: type(d.TensorDataset(t.ones(2)) + d.TensorDataset(t.ones(2))).__name__,
        lambda t, d: d.random_split(range(10), [3, 3]),
        lambda t, d: d.random_split(range(10), [0.5, 0.6]),
        lambda t, d: [len(s) for s in d.random_split(range(10), [0.3, 0.3, 0.4])],
        lambda t, d: [len(s) for s in d.random_split(range(11), [0.3, 0.3, 0.4])],
        lambda t, d: [len(s) for s in d.random_split(range(10), [0.5, 0.5, 0.0])],
        lambda t, d: [len(s) for s in d.random_split(range(10), [10])],
        lambda t, d: [len(s) for s in d.random_split(range(10), (2, 8), generator=None)],
    ],
)
def test_dataset_outcomes(call):
    expected, got = (outcome(call, lib, data) for lib, data in LIBS)
    if isinstance(expected, str) and expected.startswith("<torch"):  # an object's repr
        assert not (isinstance(got, tuple) and got[0].endswith("Error"))
    else:
        assert got == expected


def _five(self):
    return iter(range(5))


def _stream_classes(data):
    """Stream (iteration only) and Sized (with a length), named alike in both libraries so
    that PyTorch's messages naming them match."""
    stream_class = type("Stream", (data.IterableDataset,), {"__iter__": _five})
    return stream_class, type("Sized", (stream_class,), {"__len__": lambda self: 5})


STREAMS = {data: _stream_classes(data) for data in (tdata, mdata)}


def stream(data, sized=False):
    return STREAMS[data][sized]()


def test_chain_and_zero_split_warning():
    for _, data in LIBS:
        assert list(stream(data) + stream(data)) == [0, 1, 2, 3, 4] * 2
        assert type(stream(data) + stream(data)).__name__ == "ChainDataset"
        with pytest.warns(UserWarning, match="Length of split at index 2 is 0"):
            data.random_split(range(10), [0.5, 0.5, 0.0])


def test_random_split_is_a_seeded_partition():
    def parts(seed):
        g = minigrad.Generator().manual_seed(seed)
        return [s.indices for s in mdata.random_split(range(20), [0.25, 0.75], generator=g)]

    a, b = parts(3), parts(3)
    assert a == b and sorted(a[0] + a[1]) == list(range(20)) and len(a[0]) == 5
    assert parts(4) != a


# --- samplers ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "call",
    [
        lambda t, d: list(d.SequentialSampler(range(4))),
        lambda t, d: len(d.SequentialSampler(range(4))),
        lambda t, d: list(d.BatchSampler([0, 1, 2, 3, 4], 2, False)),
        lambda t, d: list(d.BatchSampler([0, 1, 2, 3, 4], 2, True)),
        lambda t, d: len(d.BatchSampler([0, 1, 2, 3, 4], 2, False)),
        lambda t, d: len(d.BatchSampler([0, 1, 2, 3, 4], 2, True)),
        lambda t, d: d.BatchSampler(range(3), 0, False),
        lambda t, d: d.BatchSampler(range(3), True, False),
        lambda t, d: d.BatchSampler(range(3), 2, 1),
        lambda t, d: d.RandomSampler(range(3), num_samples=0),
        lambda t, d: len(d.RandomSampler(range(3), num_samples=True)),
        lambda t, d: d.WeightedRandomSampler([0.1, 0.9], True),
        lambda t, d: d.RandomSampler(range(3), replacement=1),
        lambda t, d: d.RandomSampler([]),
        lambda t, d: len(d.RandomSampler(range(3), replacement=True, num_samples=5)),
        lambda t, d: len(d.RandomSampler(range(3), num_samples=7)),
        lambda t, d: sorted(d.RandomSampler(range(6))),
        lambda t, d: sorted(d.SubsetRandomSampler([3, 4, 5])),
        lambda t, d: len(d.SubsetRandomSampler([3, 4, 5])),
        lambda t, d: d.WeightedRandomSampler([0.1, 0.9], 0),
        lambda t, d: d.WeightedRandomSampler([0.1, 0.9], 2, replacement=1),
        lambda t, d: d.WeightedRandomSampler([[0.1, 0.9]], 2),
        lambda t, d: list(d.WeightedRandomSampler([0.1, -0.9], 1)),
        lambda t, d: list(d.WeightedRandomSampler([0.1, 0.9], 3, replacement=False)),
        lambda t, d: sorted(d.WeightedRandomSampler([0.1, 0.9], 2, replacement=False)),
        lambda t, d: len(d.WeightedRandomSampler([0.1, 0.9], 5)),
        lambda t, d: list(d.WeightedRandomSampler([0.0, 1.0, 0.0], 4)),
        lambda t, d: list(iter(d.Sampler())),
    ],
)
def test_sampler_outcomes(call):
    assert_same(call)


def test_random_sampler_options():
    g = minigrad.Generator().manual_seed(0)
    n = list(mdata.RandomSampler(range(4), num_samples=10, generator=g))
    assert len(n) == 10 and sorted(n[:4]) == sorted(n[4:8]) == [0, 1, 2, 3]
    drawn = list(mdata.RandomSampler(range(3), replacement=True, num_samples=3000, generator=g))
    assert np.allclose(np.bincount(drawn) / 3000, 1 / 3, atol=0.03) and len(drawn) == 3000
    weighted = list(mdata.WeightedRandomSampler([1.0, 3.0], 4000, generator=g))
    assert abs(np.mean(weighted) - 0.75) < 0.03


def test_samplers_repeat_with_a_seeded_generator_and_with_manual_seed():
    def orders(make):
        return [list(make(minigrad.Generator().manual_seed(s))) for s in (1, 1, 2)]

    for make in (
        lambda g: mdata.RandomSampler(range(30), generator=g),
        lambda g: mdata.SubsetRandomSampler(list(range(30)), generator=g),
        lambda g: mdata.WeightedRandomSampler([1.0] * 30, 30, generator=g),
    ):
        a, b, c = orders(make)
        assert a == b and a != c
    minigrad.manual_seed(5)
    first = list(mdata.RandomSampler(range(30)))
    minigrad.manual_seed(5)
    assert first == list(mdata.RandomSampler(range(30)))


# --- DataLoader ----------------------------------------------------------------------------------
def tensors(t, d):
    return d.TensorDataset(t.arange(10), t.arange(10) * 2.0)


@pytest.mark.parametrize(
    "call",
    [
        lambda t, d: list(d.DataLoader(tensors(t, d), batch_size=4)),
        lambda t, d: list(d.DataLoader(tensors(t, d), batch_size=4, drop_last=True)),
        lambda t, d: len(d.DataLoader(tensors(t, d), batch_size=4)),
        lambda t, d: len(d.DataLoader(tensors(t, d), batch_size=4, drop_last=True)),
        lambda t, d: list(d.DataLoader(range(5))),
        lambda t, d: list(d.DataLoader(range(5), batch_size=None)),
        lambda t, d: len(d.DataLoader(range(10), batch_size=None)),
        lambda t, d: list(d.DataLoader([np.ones(2)] * 2, batch_size=None)),
        lambda t, d: list(d.DataLoader([{"x": np.ones(2)}] * 3, batch_size=2)),
        lambda t, d: list(d.DataLoader(Squares(), batch_size=3)),
        lambda t, d: list(d.DataLoader(range(5), batch_size=2, collate_fn=lambda b: b)),
        lambda t, d: list(d.DataLoader(range(4), sampler=[3, 2, 1], batch_size=2)),
        lambda t, d: list(d.DataLoader(range(4), batch_sampler=[[3, 2], [1]])),
        lambda t, d: len(d.DataLoader(range(4), batch_sampler=[[3, 2], [1]])),
        lambda t, d: list(d.DataLoader(range(4), num_workers=2, batch_size=2)),
        lambda t, d: list(d.DataLoader(range(4), batch_size=2, pin_memory=True)),
        lambda t, d: len(iter(d.DataLoader(range(4), batch_size=2))),
        lambda t, d: next(iter(d.DataLoader(range(4), batch_size=2))),
        lambda t, d: sorted(
            x for b in d.DataLoader(range(9), batch_size=4, shuffle=True) for x in b.tolist()
        ),
        lambda t, d: [len(b) for b in d.DataLoader(range(9), batch_size=4, shuffle=True)],
        lambda t, d: list(d.DataLoader(d.Subset(range(10), [7, 2, 5]), batch_size=2)),
        lambda t, d: list(d.DataLoader(d.ConcatDataset([range(2), range(3)]), batch_size=3)),
    ],
)
def test_loader_batches(call):
    assert_same(call)


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(batch_size=2, shuffle=True, sampler=[0, 1]),
        dict(batch_size=2, batch_sampler=[[0]]),
        dict(shuffle=True, batch_sampler=[[0]]),
        dict(drop_last=True, batch_sampler=[[0]]),
        dict(sampler=[0], batch_sampler=[[0]]),
        dict(batch_size=None, drop_last=True),
        dict(num_workers=-1),
        dict(timeout=-1),
        dict(prefetch_factor=2),
        dict(persistent_workers=True),
        dict(batch_size=0),
        dict(batch_size=-1),
        dict(batch_size=1.5),
    ],
)
def test_loader_option_errors(kwargs):
    assert_same(lambda t, d: (d.DataLoader(range(10), **kwargs), "made")[1])


@pytest.mark.parametrize(
    "kwargs",
    [dict(shuffle=True), dict(sampler=[1]), dict(batch_sampler=[[1]]), dict(shuffle=False)],
)
def test_iterable_dataset_options(kwargs):
    assert_same(lambda t, d: (d.DataLoader(stream(d), **kwargs), "made")[1])


@pytest.mark.parametrize(
    "call",
    [
        lambda d: list(d.DataLoader(stream(d), batch_size=2)),
        lambda d: list(d.DataLoader(stream(d), batch_size=2, drop_last=True)),
        lambda d: list(d.DataLoader(stream(d), batch_size=None)),
        lambda d: len(d.DataLoader(stream(d), batch_size=2)),
        lambda d: len(d.DataLoader(stream(d, sized=True), batch_size=2)),
        lambda d: len(d.DataLoader(stream(d, sized=True), batch_size=2, drop_last=True)),
    ],
)
def test_iterable_dataset_batches(call):
    assert_same(lambda t, d: call(d))


def test_attributes_frozen_after_init():
    def set_them(t, d):
        loader = d.DataLoader(range(4), batch_size=2)
        results = []
        for name, value in (("batch_size", 3), ("dataset", [1]), ("collate_fn", None)):
            try:
                setattr(loader, name, value)
                results.append("set")
            except ValueError as e:
                results.append(str(e))
        loader.foo = 3
        return results, loader.foo, type(loader.sampler).__name__
        # (batch_sampler's type is checked by the batches tests)

    assert_same(set_them)


def test_shuffle_repeats_with_a_seeded_generator():
    def epochs(seed):
        g = minigrad.Generator().manual_seed(seed)
        loader = mdata.DataLoader(tensors(minigrad, mdata), batch_size=3, shuffle=True, generator=g)
        return [[b[0].tolist() for b in loader] for _ in range(3)]

    a, b = epochs(0), epochs(0)
    assert a == b  # the same shuffles every run
    assert a[0] != a[1]  # and a new one each epoch
    assert sorted(sum(a[0], [])) == list(range(10))
    assert epochs(1) != a


def test_shuffle_follows_manual_seed():
    def epoch():
        return [b.tolist() for b in mdata.DataLoader(range(12), batch_size=4, shuffle=True)]

    minigrad.manual_seed(7)
    first = epoch()
    minigrad.manual_seed(7)
    assert epoch() == first


def test_worker_init_fn_runs_in_process():
    called = []
    loader = mdata.DataLoader(range(4), batch_size=2, num_workers=2, worker_init_fn=called.append)
    assert [b.tolist() for b in loader] == [[0, 1], [2, 3]] and called == [0]
    assert mdata.get_worker_info() is None


def test_training_loop_runs():
    """The usual loop: a TensorDataset, a shuffled loader, a model, an optimizer."""
    minigrad.manual_seed(0)
    x = minigrad.randn(64, 3)
    y = x @ minigrad.tensor([[1.0], [-2.0], [0.5]])
    loader = mdata.DataLoader(
        mdata.TensorDataset(x, y),
        batch_size=16,
        shuffle=True,
        generator=minigrad.Generator().manual_seed(1),
    )
    model = minigrad.nn.Linear(3, 1)
    opt = minigrad.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(30):
        for xb, yb in loader:
            opt.zero_grad()
            loss = ((model(xb) - yb) ** 2).mean()
            loss.backward()
            opt.step()
    assert loss.item() < 1e-3


def test_import_paths():
    import minigrad.utils.data.dataloader as module

    assert minigrad.utils.data.DataLoader is module.DataLoader is mdata.DataLoader
