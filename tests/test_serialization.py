"""torch.save / torch.load against minigrad.save / minigrad.load (minigrad/serialization.py).

Snippets run on torch and on minigrad (tests/parity.py): what comes back from a file or a
BytesIO (types, keys, dtypes, shapes, values, requires_grad, identity), PyTorch's tutorial
patterns (save a state_dict, build a new model, load it, same outputs; a general checkpoint
that resumes training), what weights_only=True refuses and the errors. Each library reads only
its own files. Tests at the end look at minigrad's format itself.
"""

from __future__ import annotations

import functools
import io
import math
import pickle
from collections import Counter, OrderedDict
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
import test_nn
from parity import Recorder, assert_same
from test_nn import fill_fixed, fixed

pytest.importorskip("torch")

lib = test_nn.lib  # the fixture that runs a test once on torch and once on minigrad


class Point:
    """A class of the user's: weights_only=True refuses it."""

    def __init__(self, x: float) -> None:
        self.x = x


MARKS: list[str] = []


def _mark(what: str) -> str:
    MARKS.append(what)
    return what


class Payload:
    """Unpickling this calls _mark: weights_only=True must refuse it before it runs."""

    def __reduce__(self) -> tuple:
        return (_mark, ("ran",))


def round_trip(torch: ModuleType, obj: Any, where: Path | None, **load_args: Any) -> Any:
    """torch.save then torch.load, through the file `where` or (None) a BytesIO."""
    if where is None:
        buffer = io.BytesIO()
        torch.save(obj, buffer)
        buffer.seek(0)
        return torch.load(buffer, **load_args)
    torch.save(obj, where)
    return torch.load(where, **load_args)


def make_net(torch: ModuleType) -> Any:
    """The tutorials' small CNN, with a buffer, and fixed weights."""

    class Net(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv = torch.nn.Conv2d(1, 2, 3)
            self.pool = torch.nn.MaxPool2d(2)
            self.fc = torch.nn.Linear(8, 3)
            self.register_buffer("seen", torch.zeros(1))

        def forward(self, x: Any) -> Any:
            self.seen += 1
            return self.fc(torch.flatten(self.pool(torch.relu(self.conv(x))), 1))

    return fill_fixed(torch, Net())


def images(torch: ModuleType) -> Any:
    return fixed(torch, 4, 1, 6, 6)


def labels(torch: ModuleType) -> Any:
    return torch.tensor([0, 2, 1, 2])


def record_tensor(out: Recorder, label: str, t: Any) -> None:
    out(label, (t, type(t).__name__, t.requires_grad, t.is_leaf, t.grad is None))


# ---------------------------------------------------------------- what comes back


def snip_state_dict(torch: ModuleType, out: Recorder, where: Path | None) -> None:
    model = make_net(torch)
    loaded = round_trip(torch, model.state_dict(), where)
    out("type", type(loaded).__name__)
    out("keys", list(loaded))
    for key, value in loaded.items():
        record_tensor(out, key, value)


@pytest.mark.parametrize("to_file", [True, False], ids=["file", "BytesIO"])
def test_state_dict_round_trip(to_file: bool, tmp_path: Path) -> None:
    where = tmp_path / "model.pth" if to_file else None
    assert_same(functools.partial(snip_state_dict, where=where))


def snip_tensors(torch: ModuleType, out: Recorder, where: Path | None) -> None:
    leaf = torch.tensor([1.0, -2.0], requires_grad=True)
    leaf.grad = torch.ones(2)  # .grad is not saved
    tensors = {
        "float32 matrix": fixed(torch, 2, 3),
        "transposed": fixed(torch, 2, 3).t(),
        "float64": fixed(torch, 3, dtype=torch.float64),
        "float16": fixed(torch, 4, dtype=torch.float16),
        "int64": torch.tensor([[1, -2], [3, 4]]),
        "int32": torch.tensor([5, 6], dtype=torch.int32),
        "bool": torch.tensor([True, False]),
        "0-d": torch.tensor(3.5),
        "empty": torch.zeros(0, 3),
        "leaf with grad": leaf,
        "non-leaf": leaf * 2,  # comes back as a leaf that requires grad
        "parameter": torch.nn.Parameter(fixed(torch, 2)),
        "frozen parameter": torch.nn.Parameter(fixed(torch, 2), requires_grad=False),
    }
    loaded = round_trip(torch, tensors, where)
    for key, value in loaded.items():
        record_tensor(out, key, value)
    loaded["float32 matrix"].add_(1)  # loaded tensors are writable, with a fresh version
    out("written in place", (loaded["float32 matrix"], loaded["float32 matrix"]._version))


@pytest.mark.parametrize("to_file", [True, False], ids=["file", "BytesIO"])
def test_tensors_keep_dtype_shape_values_and_requires_grad(to_file: bool, tmp_path: Path) -> None:
    where = tmp_path / "tensors.pt" if to_file else None
    assert_same(functools.partial(snip_tensors, where=where))


def snip_identity(torch: ModuleType, out: Recorder) -> None:
    t = fixed(torch, 3)
    p = torch.nn.Parameter(fixed(torch, 2))
    loaded = round_trip(torch, {"a": t, "b": t, "params": [p, p]}, None)
    out("one tensor saved twice is one tensor", loaded["a"] is loaded["b"])
    out("one parameter saved twice", loaded["params"][0] is loaded["params"][1])
    loaded["a"].mul_(2)
    out("so a write shows through both names", loaded["b"])


def test_a_tensor_saved_twice_loads_once() -> None:
    assert_same(snip_identity)


def snip_containers(torch: ModuleType, out: Recorder) -> None:
    obj = {
        "epoch": 7,
        "loss": 0.25,
        "name": "run-1",
        "flags": [True, False, None],
        "nested": {"tuple": (1, (2.5, "x")), "list": [[1], []]},
        "ordered": OrderedDict([("b", 1), ("a", 2)]),
        "counter": Counter("abca"),
        "set": {3, 1, 2},
        "bytes": b"\x00ab",
        "complex": 1 + 2j,
        "inf and nan": [math.inf, -math.inf, math.nan],
        "dtype": torch.float64,
        "size": torch.Size([2, 3]),
    }
    loaded = round_trip(torch, obj, None)
    out("keys", list(loaded))
    out("plain", [loaded[k] for k in ("epoch", "loss", "name", "flags", "nested")])
    out("ordered", (type(loaded["ordered"]).__name__, list(loaded["ordered"].items())))
    out("counter", (type(loaded["counter"]).__name__, sorted(loaded["counter"].items())))
    out("set", (type(loaded["set"]).__name__, sorted(loaded["set"])))
    out("bytes and complex", (repr(loaded["bytes"]), repr(loaded["complex"])))
    out("inf and nan", loaded["inf and nan"])
    out("dtype", (loaded["dtype"], loaded["dtype"] is torch.float64))
    out("size", (type(loaded["size"]).__name__, tuple(loaded["size"])))


def test_plain_python_values_round_trip() -> None:
    assert_same(snip_containers)


# ---------------------------------------------------------------- the tutorials' patterns


def train(torch: ModuleType, model: Any, optimizer: Any, steps: int) -> Any:
    criterion = torch.nn.CrossEntropyLoss()
    for _ in range(steps):
        optimizer.zero_grad()
        loss = criterion(model(images(torch)), labels(torch))
        loss.backward()
        optimizer.step()
    return loss


def snip_save_for_inference(torch: ModuleType, out: Recorder, path: Path) -> None:
    # "Saving & Loading Model for Inference": save the state_dict, load it into a new model
    model = make_net(torch)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    out("loss", train(torch, model, optimizer, steps=5))
    torch.save(model.state_dict(), path)
    fresh = make_net(torch)
    with torch.no_grad():
        for p in fresh.parameters():
            p.zero_()
    result = fresh.load_state_dict(torch.load(path, weights_only=True))
    out("load_state_dict result", repr(result))
    fresh.eval()
    model.eval()
    with torch.no_grad():
        expected, got = model(images(torch)), fresh(images(torch))
    out("outputs", got)
    out("same outputs", torch.equal(expected, got))
    out("buffer", (fresh.seen, model.seen))


def test_save_state_dict_new_model_load_same_outputs(tmp_path: Path) -> None:
    assert_same(functools.partial(snip_save_for_inference, path=tmp_path / "model_weights.pth"))


def snip_general_checkpoint(torch: ModuleType, out: Recorder, path: Path, name: str) -> None:
    # "Saving & Loading a General Checkpoint for Inference and/or Resuming Training"
    make_optimizer = {
        "SGD": lambda params: torch.optim.SGD(params, lr=0.1, momentum=0.9),
        "Adam": lambda params: torch.optim.Adam(params, lr=0.01),
        "RMSprop": lambda params: torch.optim.RMSprop(params, lr=0.01, centered=True),
        "Adagrad": lambda params: torch.optim.Adagrad(params, lr=0.1, lr_decay=0.1),
    }[name]
    model = make_net(torch)
    optimizer = make_optimizer(model.parameters())
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
    loss = train(torch, model, optimizer, steps=3)
    scheduler.step()
    torch.save(
        {
            "epoch": 3,
            "model_state_dict": model.state_dict(),
            "optimizer_state_dict": optimizer.state_dict(),
            "scheduler_state_dict": scheduler.state_dict(),
            "loss": loss,
        },
        path,
    )
    out("uninterrupted", train(torch, model, optimizer, steps=3))
    out("uninterrupted parameters", list(model.parameters()))

    resumed = make_net(torch)
    resumed_optimizer = make_optimizer(resumed.parameters())
    resumed_scheduler = torch.optim.lr_scheduler.StepLR(resumed_optimizer, step_size=2, gamma=0.5)
    checkpoint = torch.load(path, weights_only=True)
    resumed.load_state_dict(checkpoint["model_state_dict"])
    resumed_optimizer.load_state_dict(checkpoint["optimizer_state_dict"])
    resumed_scheduler.load_state_dict(checkpoint["scheduler_state_dict"])
    out("checkpoint", (checkpoint["epoch"], checkpoint["loss"], resumed_scheduler.get_last_lr()))
    resumed.train()
    out("resumed", train(torch, resumed, resumed_optimizer, steps=3))
    out("resumed parameters", list(resumed.parameters()))
    out(
        "resumed exactly where it stopped",
        all(torch.equal(a, b) for a, b in zip(model.parameters(), resumed.parameters())),
    )


@pytest.mark.parametrize("name", ["SGD", "Adam", "RMSprop", "Adagrad"])
def test_general_checkpoint_resumes_training(name: str, tmp_path: Path) -> None:
    assert_same(
        functools.partial(snip_general_checkpoint, path=tmp_path / "checkpoint.tar", name=name)
    )


def snip_entire_model(torch: ModuleType, out: Recorder, path: Path) -> None:
    # "Save/Load Entire Model": pickles the classes, so it needs weights_only=False
    model = fill_fixed(
        torch, torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
    )
    torch.save(model, path)
    with out.raises("weights_only=True refuses a module"):
        torch.load(path)
    loaded = torch.load(path, weights_only=False)
    out("type", type(loaded).__name__)
    out("outputs", loaded(fixed(torch, 2, 3)))
    out("parameters", [(type(p).__name__, p.requires_grad) for p in loaded.parameters()])


def test_entire_model_needs_weights_only_false(tmp_path: Path) -> None:
    assert_same(functools.partial(snip_entire_model, path=tmp_path / "model.pth"))


def snip_map_location(torch: ModuleType, out: Recorder) -> None:
    for label, where in {
        "string": "cpu",
        "function": lambda storage, location: storage,
        "dict": {"cuda:0": "cpu"},
    }.items():
        out(label, round_trip(torch, {"w": fixed(torch, 2)}, None, map_location=where)["w"])
    with out.raises("an indexed CPU"):
        round_trip(torch, {"w": fixed(torch, 2)}, None, map_location="cpu:0")
    with out.raises("to CUDA"):
        round_trip(torch, {"w": fixed(torch, 2)}, None, map_location="cuda")
    out("to CUDA, no tensors", list(round_trip(torch, {"n": 1}, None, map_location="cuda").items()))


def test_map_location() -> None:
    assert_same(snip_map_location)


# ---------------------------------------------------------------- errors

LOAD_REFUSED = {
    "a user class": lambda t: {"p": Point(1.0)},
    "a numpy array": lambda t: np.ones(2),
    "a numpy scalar": lambda t: {"lr": np.float32(0.1)},
    "a slice": lambda t: slice(1, 2),
    "a frozenset": lambda t: frozenset({1}),
    "a function": lambda t: {"f": math.sqrt},
    "a module": lambda t: t.nn.Linear(2, 1),
    "a payload": lambda t: [Payload()],
}


def snip_refused(torch: ModuleType, out: Recorder, case: str) -> None:
    with out.raises(case):
        round_trip(torch, LOAD_REFUSED[case](torch), None)


@pytest.mark.parametrize("case", list(LOAD_REFUSED))
def test_weights_only_refuses(case: str) -> None:
    MARKS.clear()
    assert_same(functools.partial(snip_refused, case=case))
    assert MARKS == []  # refused before running: nothing was called


@pytest.mark.parametrize(
    "load_args", [{"weights_only": False}, {"pickle_module": pickle}], ids=["False", "pickle"]
)
def test_weights_only_false_loads_anything(lib: ModuleType, load_args: dict) -> None:
    MARKS.clear()
    loaded = round_trip(lib, {"p": Point(2.0), "x": [Payload()]}, None, **load_args)
    assert loaded["p"].x == 2.0 and loaded["x"] == ["ran"] and MARKS == ["ran"]


ERRORS = {
    "no such file": lambda t, d: t.load(d / "missing.pt"),
    "no such directory": lambda t, d: t.save({}, d / "missing" / "model.pt"),
    "a lambda": lambda t, d: t.save({"f": lambda: 1}, io.BytesIO()),
    "an empty file": lambda t, d: t.load(io.BytesIO()),
    "pickle_module and weights_only": lambda t, d: t.load(
        io.BytesIO(), pickle_module=pickle, weights_only=True
    ),
}


def snip_error(torch: ModuleType, out: Recorder, case: str, tmp: Path) -> None:
    with out.raises(case):
        ERRORS[case](torch, tmp)


@pytest.mark.parametrize("case", list(ERRORS))
def test_errors_match_torch(case: str, tmp_path: Path) -> None:
    key = "Can't pickle" if case == "a lambda" else None  # torch's message has an address
    if case == "no such directory":
        key = "does not exist"  # the path differs between the runs, not the message
    assert_same(functools.partial(snip_error, case=case, tmp=tmp_path), key=key)


# ---------------------------------------------------------------- minigrad's own format


def test_save_and_load_are_exported() -> None:
    import minigrad
    import minigrad.serialization

    assert minigrad.save is minigrad.serialization.save
    assert minigrad.load is minigrad.serialization.load


def test_a_checkpoint_is_an_npz_numpy_can_read(tmp_path: Path) -> None:
    import minigrad

    path = tmp_path / "weights.pth"  # the name is kept: nothing appends ".npz"
    minigrad.save({"w": minigrad.tensor([[1.0, 2.0]]), "n": 3}, path)
    assert [p.name for p in tmp_path.iterdir()] == ["weights.pth"]
    with np.load(path, allow_pickle=False) as archive:
        assert sorted(archive.files) == ["data.pkl", "tensors/0", "version"]
        assert archive["tensors/0"].tolist() == [[1.0, 2.0]]
        assert archive["tensors/0"].dtype == np.float32


def test_files_of_the_other_library_are_refused(tmp_path: Path) -> None:
    import torch

    import minigrad

    torch.save({"w": torch.ones(2)}, tmp_path / "torch.pt")
    with pytest.raises(pickle.UnpicklingError, match="written by PyTorch's torch.save"):
        minigrad.load(tmp_path / "torch.pt")
    (tmp_path / "text.pt").write_bytes(b"hello world")
    with pytest.raises(pickle.UnpicklingError, match="not a minigrad checkpoint"):
        minigrad.load(tmp_path / "text.pt")


def test_a_file_object_and_a_string_path(tmp_path: Path) -> None:
    import minigrad

    with open(tmp_path / "a.pt", "wb") as f:
        minigrad.save([minigrad.ones(2)], f)
    with open(tmp_path / "a.pt", "rb") as f:
        assert minigrad.load(f)[0].tolist() == [1.0, 1.0]
    minigrad.save(minigrad.arange(3), str(tmp_path / "b.pt"))
    assert minigrad.load(str(tmp_path / "b.pt")).tolist() == [0, 1, 2]


def test_loaded_tensors_own_their_memory() -> None:
    import minigrad

    w = minigrad.ones(2, 2)
    loaded = round_trip(minigrad, {"w": w, "view": w[0]}, None)
    loaded["w"].add_(1)
    assert w.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    # a view and its base are saved as two tensors (PyTorch keeps them sharing storage)
    assert loaded["view"].tolist() == [1.0, 1.0]
