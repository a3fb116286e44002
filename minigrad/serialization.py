"""save and load (torch.save, torch.load) for checkpoints: state_dicts and what holds them.

The file format is minigrad's own, not PyTorch's: files written here cannot be read by
`torch.load`, and files written by `torch.save` cannot be read here (loading one raises an
UnpicklingError that says so). A checkpoint is an uncompressed zip archive that numpy can open
(`numpy.load(path)` lists its members):

- `version`: the format's version, `b"1"`;
- `data.pkl`: the object, pickled (protocol 2, as PyTorch's default), every tensor in it
  replaced by a reference (a pickle "persistent id") to
- `tensors/<n>.npy`: the tensor's values in numpy's .npy format, written and read with
  allow_pickle=False, so they are plain numbers whatever the file holds.

A tensor comes back with its dtype, shape, values and requires_grad, as an nn.Parameter if it
was one, and as a leaf without .grad (as in PyTorch). A tensor that appears several times in
the object comes back as one tensor; two different tensors that share memory (views of one
another) come back as separate copies, where PyTorch keeps them sharing storage.

`load(f)` reads with weights_only=True by default, as PyTorch 2.6+ does: the pickle may then
name no class or function but the few a checkpoint needs (collections.OrderedDict and Counter,
set, complex, bytearray, and bytes' encoder); tensors, dtypes and torch.Size are stored as
persistent ids and rebuilt by minigrad. Anything else raises pickle.UnpicklingError ("Weights
only load failed"), before any of it runs. weights_only=False unpickles everything (a whole
nn.Module, say): only for files you trust.
"""

from __future__ import annotations

import codecs
import io
import os
import pickle
import warnings
import zipfile
from collections import Counter, OrderedDict
from collections.abc import Callable
from typing import IO, Any

import numpy as np

from .core import dtypes
from .core.tensor import Size, Tensor
from .nn.parameter import Parameter

__all__ = ["DEFAULT_PROTOCOL", "load", "save"]

DEFAULT_PROTOCOL = 2
FORMAT_VERSION = b"1"
FileLike = str | os.PathLike | IO[bytes]

# what a weights-only load may name in the pickle (PyTorch's list, less its own tensor types)
_SAFE_GLOBALS: dict[tuple[str, str], Any] = {
    ("collections", "OrderedDict"): OrderedDict,
    ("collections", "Counter"): Counter,
    ("builtins", "set"): set,
    ("builtins", "complex"): complex,
    ("builtins", "bytearray"): bytearray,
    ("_codecs", "encode"): codecs.encode,  # how protocol 2 pickles bytes
}

_WEIGHTS_ONLY_MESSAGE = (
    "Weights only load failed. This file can still be loaded with `weights_only=False`, but "
    "do that only if you trust the source of the checkpoint: it can result in arbitrary code "
    "execution.\n\tWeightsUnpickler error: {why}\n\n"
    "With weights_only=True, minigrad.load accepts tensors, dtypes, torch.Size, "
    "collections.OrderedDict and Counter, and plain Python containers, numbers and strings."
)


# ------------------------------------------------------------------------------- save


class _Pickler(pickle.Pickler):
    """Pickles tensors, dtypes and Sizes as persistent ids; collects the tensors' arrays."""

    def __init__(self, file: IO[bytes], protocol: int) -> None:
        super().__init__(file, protocol)
        self.arrays: list[np.ndarray] = []
        self.keys: dict[int, int] = {}  # id(tensor) -> its number: one tensor is stored once
        self.kept: list[Tensor] = []  # keeps those ids valid while pickling

    def persistent_id(self, obj: Any) -> Any:
        if isinstance(obj, Tensor):
            key = self.keys.get(id(obj))
            if key is None:
                key = self.keys[id(obj)] = len(self.arrays)
                self.arrays.append(obj._data)
                self.kept.append(obj)
            kind = "parameter" if isinstance(obj, Parameter) else "tensor"
            return ("tensor", key, kind, bool(obj.requires_grad))
        if isinstance(obj, dtypes.dtype):
            return ("dtype", obj.name)
        if type(obj) is Size:
            return ("size", tuple(int(n) for n in obj))
        return None


def save(
    obj: Any,
    f: FileLike,
    pickle_module: Any = pickle,
    pickle_protocol: int = DEFAULT_PROTOCOL,
    _use_new_zipfile_serialization: bool = True,
    _disable_byteorder_record: bool = False,
) -> None:
    """Write `obj` to the path or binary file `f`: a zip archive (see the module docstring)."""
    if pickle_module is not pickle:
        raise ValueError("minigrad.save pickles with the standard pickle module only")
    buffer = io.BytesIO()
    pickler = _Pickler(buffer, pickle_protocol)
    pickler.dump(obj)
    if isinstance(f, (str, os.PathLike)):
        parent = os.path.dirname(os.fspath(f))
        if parent and not os.path.isdir(parent):
            raise RuntimeError(f"Parent directory {parent} does not exist.")
        with open(f, "wb") as file:
            _write_archive(file, buffer.getvalue(), pickler.arrays)
    else:
        _write_archive(f, buffer.getvalue(), pickler.arrays)


def _write_archive(file: IO[bytes], data: bytes, arrays: list[np.ndarray]) -> None:
    with zipfile.ZipFile(file, "w", compression=zipfile.ZIP_STORED) as archive:
        archive.writestr("version", FORMAT_VERSION)
        archive.writestr("data.pkl", data)
        for key, array in enumerate(arrays):
            with archive.open(f"tensors/{key}.npy", "w", force_zip64=True) as member:
                np.lib.format.write_array(member, array, allow_pickle=False)


# ------------------------------------------------------------------------------- load


class _Unpickler(pickle.Unpickler):
    """Rebuilds persistent ids; with weights_only, refuses every global not in _SAFE_GLOBALS."""

    def __init__(
        self,
        file: IO[bytes],
        archive: zipfile.ZipFile,
        weights_only: bool,
        map_location: Any,
        **kwargs: Any,
    ) -> None:
        super().__init__(file, **kwargs)
        self.archive = archive
        self.weights_only = weights_only
        self.map_location = map_location
        self.loaded: dict[int, Tensor] = {}

    def find_class(self, module: str, name: str) -> Any:
        if not self.weights_only:
            return super().find_class(module, name)
        if module == "__builtin__":  # protocol 2 writes Python 2's name for builtins
            module = "builtins"
        found = _SAFE_GLOBALS.get((module, name))
        if found is None:
            raise pickle.UnpicklingError(
                _WEIGHTS_ONLY_MESSAGE.format(
                    why=f"Unsupported global: GLOBAL {module}.{name} was not an allowed "
                    "global by default."
                )
            )
        return found

    def persistent_load(self, pid: Any) -> Any:
        if not (isinstance(pid, tuple) and pid and isinstance(pid[0], str)):
            raise pickle.UnpicklingError(f"unknown persistent id {pid!r}")
        kind, *rest = pid
        if kind == "dtype" and len(rest) == 1 and rest[0] in _DTYPES:
            return _DTYPES[rest[0]]
        if kind == "size" and len(rest) == 1 and isinstance(rest[0], tuple):
            return Size(int(n) for n in rest[0])
        if kind == "tensor" and len(rest) == 3 and isinstance(rest[0], int):
            key, flavour, requires_grad = rest
            if key not in self.loaded:
                self.loaded[key] = self._tensor(key, flavour, bool(requires_grad))
            return self.loaded[key]
        raise pickle.UnpicklingError(f"unknown persistent id {pid!r}")

    def _tensor(self, key: int, flavour: str, requires_grad: bool) -> Tensor:
        with self.archive.open(f"tensors/{key}.npy") as member:
            array = np.lib.format.read_array(member, allow_pickle=False)
        if array.dtype.kind not in "biuf":  # numbers only (read_array refuses objects)
            raise pickle.UnpicklingError(f"a tensor of unsupported dtype {array.dtype}")
        if not (array.flags.writeable and array.dtype.isnative):
            array = array.astype(array.dtype.newbyteorder("="))
        requires_grad = requires_grad and array.dtype.kind == "f"
        _check_location(self.map_location)
        if flavour == "parameter":
            t: Tensor = Parameter(Tensor._wrap(array), requires_grad)
        else:
            t = Tensor._wrap(array, requires_grad)
        t._version_counter.value = 1  # PyTorch's load writes the storage in: version 1
        if callable(self.map_location):
            moved = self.map_location(t, "cpu")
            t = moved if isinstance(moved, Tensor) else t
        return t


_DTYPES = {d.name: d for d in dtypes._BY_NUMPY.values()}


def _check_location(map_location: Any) -> None:
    """Tensors load on the CPU: a map_location naming another device fails as in PyTorch's
    CPU-only build (only once there is a tensor to place, as there)."""
    if map_location is None or callable(map_location):
        return
    if isinstance(map_location, dict):
        map_location = map_location.get("cpu", "cpu")
    where = str(map_location)
    if where == "cpu":
        return
    if where.startswith("cpu:"):  # PyTorch refuses an indexed CPU too
        raise RuntimeError(
            "don't know how to restore data location of torch.storage.UntypedStorage "
            f"(tagged with {where})"
        )
    where = where.split(":", 1)[0]
    if where == "cuda":
        raise RuntimeError(
            "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() "
            "is False. If you are running on a CPU-only machine, please use torch.load with "
            "map_location=torch.device('cpu') to map your storages to the CPU."
        )
    raise RuntimeError(
        f"Attempting to deserialize object on {map_location}: minigrad keeps tensors on the CPU"
    )


def load(
    f: FileLike,
    map_location: str | Callable | dict | Any = None,
    pickle_module: Any = None,
    *,
    weights_only: bool | None = None,
    mmap: bool | None = None,
    **pickle_load_args: Any,
) -> Any:
    """Read what `save` wrote to the path or binary file `f`.

    weights_only (default True, as in PyTorch 2.6+, unless a pickle_module is given) refuses
    any class or function in the file but the few a checkpoint needs; map_location may name
    the CPU (or be a function, called with each tensor and "cpu"); mmap is accepted and
    ignored (files are read into memory).
    """
    if weights_only is None:  # PyTorch 2.6+: True, unless a pickle_module is given
        weights_only = pickle_module is None
    if weights_only:
        if pickle_module is not None:
            raise RuntimeError(
                "Can not safely load weights when explicit pickle_module is specified"
            )
        if pickle_load_args:
            warnings.warn("pickle_load_args only works if `weights_only=False`.", stacklevel=2)
            pickle_load_args = {}
    elif pickle_module is not None and pickle_module is not pickle:
        raise ValueError("minigrad.load unpickles with the standard pickle module only")
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as file:
            return _load(file, map_location, weights_only, pickle_load_args)
    return _load(f, map_location, weights_only, pickle_load_args)


def _load(file: IO[bytes], map_location: Any, weights_only: bool, kwargs: dict) -> Any:
    seekable = getattr(file, "seekable", None)
    start = file.tell() if seekable is not None and seekable() else None
    magic = file.read(4)
    if not magic:
        raise EOFError("Ran out of input")
    if magic != b"PK\x03\x04":
        raise pickle.UnpicklingError(
            "This file is not a minigrad checkpoint (a zip archive written by minigrad.save): "
            f"it starts with {magic!r}"
        )
    if start is not None:
        file.seek(start)
    else:
        file = io.BytesIO(magic + file.read())
    with zipfile.ZipFile(file) as archive:
        names = set(archive.namelist())
        if "data.pkl" not in names or "version" not in names:
            torch_file = any(name.endswith("/data.pkl") for name in names)
            raise pickle.UnpicklingError(
                "This file was written by PyTorch's torch.save: minigrad reads only files "
                "written by minigrad.save"
                if torch_file
                else "This zip archive is not a minigrad checkpoint (no data.pkl and version)"
            )
        version = archive.read("version")
        if version != FORMAT_VERSION:
            raise pickle.UnpicklingError(
                f"This checkpoint has format version {version!r}; this minigrad reads "
                f"version {FORMAT_VERSION!r}"
            )
        with archive.open("data.pkl") as data:
            unpickler = _Unpickler(data, archive, weights_only, map_location, **kwargs)
            return unpickler.load()
