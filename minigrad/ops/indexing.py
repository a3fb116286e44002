"""Indexing: basic indices are views (SelectBackward0/SliceBackward0 chains, like PyTorch);
anything advanced is IndexBackward0; scatter_into_zeros is the differentiable inverse."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .. import kernels
from ..core.dtypes import SCALAR_NAMES
from ..core.node import Node
from ..core.tensor import Tensor
from . import formula, tangents
from ._record import mark_view, record
from .shape import tangent_or_zeros, unsqueeze, wrap_dim

SEQUENCE_AS_TUPLE_WARNING = (
    "Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed "
    "in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be "
    "interpreted as tensor index, x[torch.tensor(seq)], which will result either in an error or "
    "a different result"
)


def _as_tuple(key: Any) -> bool:
    """PyTorch's (NumPy's old) rule: a short list holding a sequence, tensor, slice, `...` or
    None is read as a tuple of indices, with a deprecation warning; other lists index."""
    if not isinstance(key, list) or len(key) >= 32:
        return False
    for k in key:
        if k is Ellipsis or k is None or isinstance(k, (Tensor, slice, list, tuple, range)):
            warnings.warn(SEQUENCE_AS_TUPLE_WARNING, UserWarning, stacklevel=4)
            return True
    return False


def _basic(a: Tensor, key: tuple, cls: type[Node]) -> Tensor:
    view_key = key if Ellipsis in key else key + (Ellipsis,)  # keeps 0-d results numpy views
    out = record(cls, a._data[view_key], (a,), self_sym_sizes=tuple(a.shape), key=key)
    return mark_view(out, a)


class ScatterBackward0(Node):
    """Backward of scatter_into_zeros: read the gradient back at the same positions. Recorded
    under create_graph with the name PyTorch's indexing backward records (below)."""

    jvp = tangents.linear(
        lambda node, out, t: scatter_into_zeros(t, tuple(out._data.shape), node.key, type(node))
    )

    def backward(self, g):
        return (g[self.key],)


class SelectBackwardBackward0(ScatterBackward0):
    pass


class SliceBackwardBackward0(ScatterBackward0):
    pass


class IndexPutImplBackward0(ScatterBackward0):
    pass


def _rows_key(key: Any) -> bool:
    """A key of one integer array, picking whole rows (dim 0)."""
    return (
        isinstance(key, tuple)
        and len(key) == 1
        and isinstance(key[0], np.ndarray)
        and key[0].dtype.kind == "i"
    )


def _view_key(key: Any) -> bool:
    """A key numpy answers with a view: ints, slices, ... and None only."""
    return isinstance(key, tuple) and all(
        (isinstance(k, (int, np.integer)) and not isinstance(k, bool))
        or isinstance(k, slice)
        or k is Ellipsis
        or k is None
        for k in key
    )


def scatter_into_zeros(g: Any, shape: tuple, key: Any, recorded_as: type[Node]) -> Any:
    """Zeros of `shape` with g at `key`: indexing's backward, recorded under create_graph as
    `recorded_as`. Through a view's key (ints and slices: each place once) g is copied in, so
    -0.0 stays (PyTorch's copy_); through advanced indices repeats add up (index_put's
    accumulate)."""
    g_data = formula.data(g)
    data = np.zeros(shape, dtype=g_data.dtype)
    if _rows_key(key):  # x[idx]: whole rows added up (an embedding's)
        if data.size:
            width = data.size // shape[0]
            rows = g_data.reshape(-1, width)
            kernels.add_rows(data.reshape(shape[0], width), key[0].ravel(), rows)
    elif _view_key(key):
        data[key] = g_data
    else:
        np.add.at(data, key, g_data)
    return formula.result(recorded_as, data, (g,), key=key)


class SelectBackward0(Node):
    recorded_as: type[Node] = SelectBackwardBackward0
    jvp = tangents.linear(lambda node, out, t: _basic(t, node.key, type(node)))

    def backward(self, g):
        return (scatter_into_zeros(g, self.self_sym_sizes, self.key, self.recorded_as),)


def select(a: Tensor, dim: int, index: int) -> Tensor:
    if a.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, a.ndim)
    if not -a.shape[d] <= index < a.shape[d]:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size "
            f"{list(a.shape)} at dimension {d}"
        )
    return _select(a, d, index)


def _select(a: Tensor, d: int, index: int) -> Tensor:
    key = (slice(None),) * d + (index % a.shape[d],)
    return _basic(a, key, SelectBackward0)


class SliceBackward0(SelectBackward0):
    recorded_as = SliceBackwardBackward0


def _slice(a: Tensor, dim: int, k: slice, always: bool = False) -> Tensor:
    if k.step is not None and k.step <= 0:
        raise ValueError("step must be greater than zero")
    start, stop, step = k.indices(a.shape[dim])
    # PyTorch skips a slice that keeps everything, judged on the bounds as written: x[0:9, :]
    # is skipped, x[-3:, :] is recorded even when it also keeps every row
    keeps_all = (
        k.start in (None, 0) and (k.stop is None or k.stop >= a.shape[dim]) and k.step in (None, 1)
    )
    if keeps_all and not always:
        return a
    return _basic(a, (slice(None),) * dim + (slice(start, stop, step),), SliceBackward0)


class IndexBackward0(SelectBackward0):
    """Advanced indexing. The index tensors are saved as PyTorch saves them (version-checked);
    the gradient is scattered with the positions the forward read (`key`)."""

    recorded_as = IndexPutImplBackward0
    jvp = tangents.linear(
        lambda node, out, t: _record_gather(
            t, np.ascontiguousarray(t._data[node.key]), node.key, ()
        )
    )

    def backward(self, g):
        for name in self.index_names:
            self.saved(name)  # refuses if that index tensor was changed in place since
        return (scatter_into_zeros(g, self.self_sym_sizes, self.key, self.recorded_as),)


def _numpy_key(a: Tensor, advanced: dict[int, np.ndarray]) -> tuple:
    """The numpy key of advanced indices at the given dims (masks become their nonzero()
    indices), checked as PyTorch checks them. Its arrays are new: backward reads the places the
    forward used, whatever happens to the index tensors they came from."""
    key: list[Any] = [slice(None)] * a.ndim
    for n, (d, idx) in enumerate(sorted(advanced.items())):
        if idx.dtype == np.bool_:
            for i, (m, s) in enumerate(zip(idx.shape, a.shape[d:], strict=False)):
                if m != s:
                    raise IndexError(
                        f"The shape of the mask {list(idx.shape)} at index {i} does "
                        f"not match the shape of the indexed tensor "
                        f"{list(a.shape)} at index {d + i}"
                    )
            key[d : d + idx.ndim] = np.nonzero(idx)
            continue
        size = a.shape[d]
        if not size and idx.size:
            raise IndexError("index is out of bounds for dimension with size 0")
        if not a._data.size:  # PyTorch's kernel finds a bad index as it copies: here nothing
            key[d] = np.zeros(idx.shape, np.int64)  # is copied, so any index will do
            continue
        if idx.size and (idx.min() < -size or idx.max() >= size):
            bad = idx[(idx < -size) | (idx >= size)]
            raise IndexError(
                f"index {int(bad.flat[0])} is out of bounds for dimension {n} with size {size}"
            )
        key[d] = idx.astype(np.int64)
    arrays = [k for k in key if not isinstance(k, slice)]
    try:
        if len(arrays) > 1:
            np.broadcast_shapes(*(k.shape for k in arrays))
    except ValueError:
        shapes = ", ".join(str(list(k.shape)) for k in arrays)
        raise IndexError(
            f"shape mismatch: indexing tensors could not be broadcast together with shapes {shapes}"
        ) from None
    last = max(i for i, k in enumerate(key) if not isinstance(k, slice))
    return tuple(key[: last + 1])


def _saved(sources: tuple) -> dict:
    return {f"indices{i}": t for i, t in enumerate(sources)}


def _gather(a: Tensor, advanced: dict[int, np.ndarray], sources: tuple = ()) -> Tensor:
    """a[key] for advanced indices at the given dims. `sources`: the index tensors the caller
    gave, saved for backward's version check."""
    key = _numpy_key(a, advanced)
    data = np.ascontiguousarray(a._data[key])  # numpy may lay the result out transposed
    return _record_gather(a, data, key, sources)


def _take_rows(a: Tensor, index: Tensor) -> Tensor:
    """a[idx] for one integer tensor (an embedding lookup): numpy's take checks the bounds as
    it copies; a bad index goes the general way, for PyTorch's error."""
    idx = index._data
    if a._data.size:
        try:
            data = a._data.take(idx, axis=0)
        except IndexError:
            pass
        else:  # (the key is a copy: backward reads the rows the forward read)
            return _record_gather(a, data, (idx.astype(np.int64),), (index,))
    return _gather(a, {0: idx}, (index,))


def _record_gather(a: Tensor, data: np.ndarray, key: tuple, sources: tuple) -> Tensor:
    save = _saved(sources)
    return record(
        IndexBackward0,
        data,
        (a,),
        save=save,
        self_sym_sizes=a._data.shape,
        key=key,
        index_names=tuple(save),
    )


_ZERO_DIM = (
    "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
    "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number"
)


def _is_int(k: Any) -> bool:
    """Python/numpy ints and 0-d integer tensors index like an int (a select)."""
    if isinstance(k, np.ndarray):
        return k.ndim == 0 and k.dtype.kind in "iu"
    return isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_))


def _is_flag(k: Any) -> bool:
    """True/False (or a 0-d bool tensor): a new dim of size 1 indexed by [k]."""
    return isinstance(k, (bool, np.bool_)) or (
        isinstance(k, np.ndarray) and k.ndim == 0 and k.dtype == np.bool_
    )


def _index_array(k: Any) -> np.ndarray:
    """A sequence (list, tuple, range) or tensor used as an index, as an array."""
    if not isinstance(k, (list, tuple, range, np.ndarray)):
        raise IndexError(
            "only integers, slices (`:`), ellipsis (`...`), None and long or byte "
            f"Variables are valid indices (got {type(k).__name__})"
        )
    arr = np.asarray(k)
    if arr.size == 0 and arr.dtype.kind == "f":  # [] indexes nothing, as an int tensor
        arr = arr.astype(np.int64)
    if arr.dtype.kind not in "iub":
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    return arr


def _dims_taken(k: Any) -> int:
    if k is None or k is Ellipsis or _is_flag(k):
        return 0
    if _is_int(k) or isinstance(k, slice):
        return 1
    arr = _index_array(k)
    return arr.ndim if arr.dtype == np.bool_ else 1


def _saved_index(k: Any) -> bool:
    """An index tensor PyTorch keeps for backward (and checks): any but a 0-d one, which is
    read at once (an integer selects, True/False adds a dim)."""
    return isinstance(k, Tensor) and k._data.ndim > 0


def index_views(a: Tensor, key: Any, lone_slice: bool = True) -> tuple[Tensor, dict, tuple]:
    """PyTorch's indexing, first part: ints select, slices slice and None unsqueezes one after
    the other (views). Returns that view, the advanced indices left to apply (dim -> array of
    lists, tensors, masks, True/False) and the index tensors PyTorch saves. `lone_slice`: `a[s]`
    with a lone slice keeping everything is still recorded (reading; writing skips it)."""
    if isinstance(key, slice) and a.ndim:
        return _slice(a, 0, key, always=lone_slice), {}, ()
    if not isinstance(key, tuple):
        key = tuple(key) if _as_tuple(key) else (key,)
    items = tuple(k._data if isinstance(k, Tensor) else k for k in key)
    specified = sum(_dims_taken(k) for k in items)
    if specified > a.ndim:
        if a.ndim == 0:  # PyTorch's words for each kind of index into a 0-d tensor
            first = next(k for k in items if _dims_taken(k))
            if isinstance(first, slice):
                raise IndexError("slice() cannot be applied to a 0-dim tensor.")
            if _is_int(first) and not isinstance(first, np.ndarray):
                if int(first) != 0:
                    raise IndexError(
                        f"index {int(first)} is out of bounds for dimension 0 with size 0"
                    )
                raise IndexError(_ZERO_DIM)
        raise IndexError(f"too many indices for tensor of dimension {a.ndim}")
    out, dim, advanced = a, 0, {}
    for k in items:
        if k is None or _is_flag(k):
            out = unsqueeze(out, dim)
            if k is not None:
                advanced[dim] = np.array([bool(k)])
            dim += 1
        elif k is Ellipsis:
            dim += a.ndim - specified
        elif _is_int(k):
            if not -out.shape[dim] <= int(k) < out.shape[dim]:
                raise IndexError(
                    f"index {int(k)} is out of bounds for dimension {dim} with size "
                    f"{out.shape[dim]}"
                )
            out = _select(out, dim, int(k))
        elif isinstance(k, slice):
            out = _slice(out, dim, k)
            dim += 1
        else:
            advanced[dim] = _index_array(k)
            dim += advanced[dim].ndim if advanced[dim].dtype == np.bool_ else 1
    return out, advanced, tuple(k for k in key if _saved_index(k))


class AliasBackward0(Node):
    jvp = tangents.linear(lambda node, out, t: t)  # (PyTorch's alias carries the tangent itself)

    def backward(self, g):
        return (g,)


def getitem(a: Tensor, key: Any) -> Tensor:
    """a[key]: the basic indices as views (`index_views`), then the advanced ones gather a
    copy; a key that changes nothing is an alias, as in PyTorch."""
    if type(key) is Tensor and key._data.ndim and key._data.dtype.kind == "i" and a._data.ndim:
        return _take_rows(a, key)  # (the usual `a[idx]`, an embedding lookup)
    out, advanced, sources = index_views(a, key)
    if advanced:
        return _gather(out, advanced, sources)
    return _basic(a, (Ellipsis,), AliasBackward0) if out is a else out


class IndexPutBackward0(Node):
    """The written places get exactly 0 (PyTorch puts zeros there with index_put: inf or NaN
    in g stays out); the value gets g read back at them. The index tensors are saved (and
    version-checked) as PyTorch saves them."""

    def jvp(self, out, tangents):
        """The self tangent with the value's written at the same places."""
        base, value = (tangent_or_zeros(self, tangents, i) for i in (0, 1))
        return _put(base, self.saved("indices"), value, {})

    def backward(self, g):
        for name in self.index_names:
            self.saved(name)
        key = self.saved("indices")  # the places written (freed with the graph, as in PyTorch)
        kept = np.ones(g.shape, dtype=bool)
        kept[key] = False
        # no gradient is computed for a value that needs none (a Python number, say)
        gv = g[key] if self.next_functions[1][0] is not None else None
        return formula.keep(kept, g), gv


def put_key(a: Tensor, advanced: dict[int, np.ndarray], value: Tensor) -> tuple:
    """The numpy key of `a[indices] = value`, once the value is known to fit its places."""
    key = _numpy_key(a, advanced)
    target = a._data[key].shape
    try:
        fits = np.broadcast_shapes(value.shape, target) == target
    except ValueError:
        fits = False
    if not fits:
        raise RuntimeError(
            f"shape mismatch: value tensor of shape {list(value.shape)} cannot be broadcast to "
            f"indexing result of shape {list(target)}"
        )
    return key


def index_put(a: Tensor, advanced: dict[int, np.ndarray], value: Tensor, sources: tuple = ()):
    """Out-of-place `a[indices] = value` for advanced indices at the given dims (as
    `index_views` leaves them); setitem runs it in place."""
    key = put_key(a, advanced, value)
    if value._data.dtype != a._data.dtype:
        raise RuntimeError(
            "Index put requires the source and destination dtypes match, got "
            f"{SCALAR_NAMES[a.dtype.name]} for the destination and "
            f"{SCALAR_NAMES[value.dtype.name]} for the source."
        )
    return _put(a, key, value, _saved(sources))


def _put(a: Tensor, key: tuple, value: Tensor, save: dict) -> Tensor:
    """index_put at a numpy key already checked; `save`: the index tensors to keep."""
    data = a._data.copy()
    data[key] = np.broadcast_to(value._data, data[key].shape)
    names = tuple(save)
    save["indices"] = key
    return record(IndexPutBackward0, data, (a, value), save=save, index_names=names)


def written_places(a: Tensor, advanced: dict[int, np.ndarray]) -> np.ndarray:
    """Where index_put writes: a bool mask of a's shape."""
    mask = np.zeros(a.shape, dtype=bool)
    mask[_numpy_key(a, advanced)] = True
    return mask
