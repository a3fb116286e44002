"""Shape ops. Those that are views in PyTorch return numpy views marked with mark_view."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from ..core.dtypes import LEGACY_NAMES
from ..core.node import Node
from ..core.shapes import copy_like, expandable, reduced_dims, wrap_dim
from ..core.tensor import Tensor
from . import formula, tangents
from ._record import mark_view, operands, record


def _shape_arg(shape: tuple) -> tuple:
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    return tuple(map(int, shape))


def broadcast_shapes(*shapes: tuple) -> tuple:
    """The broadcast of `shapes`, or PyTorch's error naming the first pair that clashes."""
    out: tuple = ()
    for shape in shapes:
        if len(shape) <= len(out) and all(  # (the usual case: shape fits out as it is)
            n == 1 or n == m for n, m in zip(reversed(shape), reversed(out))
        ):
            continue
        if not out:
            out = tuple(shape)
            continue
        n = max(len(out), len(shape))
        a, b = (1,) * (n - len(out)) + tuple(out), (1,) * (n - len(shape)) + tuple(shape)
        for i in reversed(range(n)):
            if a[i] != b[i] and 1 not in (a[i], b[i]):
                raise RuntimeError(
                    f"The size of tensor a ({a[i]}) must match the size of tensor "
                    f"b ({b[i]}) at non-singleton dimension {i}"
                )
        out = tuple(y if x == 1 else x for x, y in zip(a, b, strict=True))
    return out


def wrap_dims(dims: Any, ndim: int) -> list[int]:
    """An int or a sequence of dims, wrapped; a dim named twice is an error, as in PyTorch."""
    out = [wrap_dim(d, ndim) for d in ((dims,) if isinstance(dims, int) else dims)]
    for d in out:
        if out.count(d) > 1:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return out


def _infer(shape: tuple, numel: int) -> tuple:
    """`shape` with its -1 filled in from `numel`, or PyTorch's error."""
    if -1 in shape:
        if shape.count(-1) > 1:
            raise RuntimeError("only one dimension can be inferred")
        i = shape.index(-1)
        known = math.prod(shape[:i]) * math.prod(shape[i + 1 :])
        if known > 0 and not numel % known:
            return (*shape[:i], numel // known, *shape[i + 1 :])
    elif math.prod(shape) == numel and min(shape, default=0) >= 0:
        return shape
    for i, s in enumerate(shape):
        if s < -1:
            raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape {list(shape)}")
    if not numel and -1 in shape:
        raise RuntimeError(
            f"cannot reshape tensor of 0 elements into shape {list(shape)} because the "
            "unspecified dimension size -1 can be any value and is ambiguous"
        )
    raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")


def tangent_or_zeros(node: Node, tangents: list, i: int) -> Tensor:
    """Input i's tangent, or zeros of its shape where it carries none: what a formula linear in
    several inputs (cat, scatter, index_put...) combines."""
    t = tangents[i]
    if t is not None:
        return t
    shape, dtype = node._input_meta[i]
    return Tensor._wrap(np.zeros(shape, dtype))


def _reshaped(node: Node, out: Tensor, t: Tensor) -> Tensor:
    """A view op that only changes the shape, applied to the tangent: a view of it (a copy
    only where its strides cannot take the new shape)."""
    return t.reshape(tuple(out._data.shape))


class ViewBackward0(Node):
    jvp = tangents.linear(_reshaped)

    def backward(self, g):
        return (g.reshape(self.self_sym_sizes),)


def _as_view(a: Tensor, shape: tuple, cls: type[Node]) -> Tensor | None:
    """`a` seen with `shape` without copying, or None when its strides do not allow it."""
    try:
        data = a._data.reshape(shape, copy=False)
    except ValueError:
        return None
    out = record(cls, data, (a,), self_sym_sizes=a._data.shape)
    return mark_view(out, a)


def view(a: Tensor, *shape: Any) -> Tensor:
    if not shape:
        raise TypeError(
            "view() received an invalid combination of arguments - got (), but expected one "
            "of:\n * (torch.dtype dtype)\n * (tuple of ints size)\n"
        )
    out = _as_view(a, _infer(_shape_arg(shape), a._data.size), ViewBackward0)
    if out is None:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at "
            "least one dimension spans across two contiguous subspaces). Use "
            ".reshape(...) instead."
        )
    return out


class UnsafeViewBackward0(ViewBackward0):
    jvp = tangents.linear(lambda node, out, t: unsafe_view(t, tuple(out._data.shape)))


def unsafe_view(a: Tensor, shape: tuple) -> Tensor:
    """PyTorch's _unsafe_view: reshape a fresh tensor without marking the result a view."""
    return record(UnsafeViewBackward0, a._data.reshape(shape), (a,), self_sym_sizes=a._data.shape)


class ReshapeAliasBackward0(ViewBackward0):
    pass


def reshape(a: Tensor, *shape: Any) -> Tensor:
    """Like PyTorch: a view of a contiguous tensor (ViewBackward0), an alias of a strided one
    (ReshapeAliasBackward0), or, when strides do not allow a view, a clone viewed unsafely."""
    if not shape:
        raise TypeError('reshape() missing 1 required positional arguments: "shape"')
    shape = _infer(_shape_arg(shape), a._data.size)
    cls = ViewBackward0 if a._data.flags.c_contiguous else ReshapeAliasBackward0
    out = _as_view(a, shape, cls)
    return out if out is not None else unsafe_view(clone(a), shape)


def flatten(a: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    if a.ndim == 0:
        return reshape(a, 1)
    s, e = wrap_dim(start_dim, a.ndim), wrap_dim(end_dim, a.ndim)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return a
    merged = math.prod(a.shape[s : e + 1])  # not -1: ambiguous when empty
    return reshape(a, a.shape[:s] + (merged,) + a.shape[e + 1 :])


class TransposeBackward0(Node):
    jvp = tangents.linear(lambda node, out, t: transpose(t, node.dim0, node.dim1))

    def backward(self, g):
        if self.dim0 == self.dim1:  # transpose(1, 1), or a 0-d tensor's transpose(0, -1)
            return (g,)
        return (formula.transpose(g, self.dim0, self.dim1),)


def transpose(a: Tensor, dim0: int, dim1: int) -> Tensor:
    dim0, dim1 = wrap_dim(dim0, a.ndim), wrap_dim(dim1, a.ndim)
    data = np.swapaxes(a._data, dim0, dim1) if a.ndim else a._data.view()
    out = record(TransposeBackward0, data, (a,), dim0=dim0, dim1=dim1)
    return mark_view(out, a)


def mT(a: Tensor) -> Tensor:  # noqa: N802 - PyTorch's name
    """Tensor.mT: the last two dims swapped (matrices only, unlike transpose)."""
    if a.ndim < 2:
        raise RuntimeError(
            "tensor.mT is only supported on matrices or batches of matrices. Got "
            f"{a.ndim}-D tensor."
        )
    return transpose(a, -2, -1)


class TBackward0(Node):
    jvp = tangents.linear(lambda node, out, tangent: t(tangent))

    def backward(self, g):
        return (formula.t(g),)


def t(a: Tensor) -> Tensor:
    if a.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {a.ndim}D")
    out = record(TBackward0, a._data.T, (a,))
    return mark_view(out, a)


class PermuteBackward0(Node):
    jvp = tangents.linear(lambda node, out, t: permute(t, node.dims))

    def backward(self, g):
        return (formula.permute(g, np.argsort(self.dims).tolist()),)


def permute(a: Tensor, *dims: Any) -> Tensor:
    dims = _shape_arg(dims)
    if len(dims) != a.ndim:
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not "
            "match the length of the desired ordering of dimensions i.e. "
            f"input.dim() = {a.ndim} is not equal to len(dims) = {len(dims)}"
        )
    dims = tuple(wrap_dim(d, a.ndim) for d in dims)
    if len(set(dims)) != len(dims):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    out = record(PermuteBackward0, np.transpose(a._data, dims), (a,), dims=dims)
    return mark_view(out, a)


_WARNED: set[str] = set()


def _warn_once(message: str) -> None:
    """PyTorch's TORCH_WARN_ONCE: a UserWarning the first time in the process only."""
    if message not in _WARNED:
        _WARNED.add(message)
        warnings.warn(message, UserWarning, stacklevel=3)


def T(a: Tensor) -> Tensor:  # noqa: N802
    """x.T: every dim reversed, a PermuteBackward0 whatever the number of dims."""
    if a.ndim != 2:
        _warn_once(
            "Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases."
            if a.ndim == 0
            else "The use of `x.T` on tensors of dimension other than 2 to reverse their shape "
            "is deprecated and it will throw an error in a future release. Consider "
            "`x.mT` to transpose batches of matrices or "
            "`x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of "
            "a tensor."
        )
    return permute(a, tuple(reversed(range(a.ndim))))


class UnsqueezeBackward0(Node):
    jvp = tangents.linear(lambda node, out, t: unsqueeze(t, node.dim))

    def backward(self, g):
        return (formula.squeeze(g, self.dim),)


def unsqueeze(a: Tensor, dim: int) -> Tensor:
    d = wrap_dim(dim, a.ndim + 1)
    out = record(UnsqueezeBackward0, np.expand_dims(a._data, d), (a,), dim=d)
    return mark_view(out, a)


class SqueezeBackward0(Node):
    jvp = tangents.linear(_reshaped)

    def backward(self, g):  # (nothing squeezed: the gradient itself, as PyTorch's unsqueeze_to)
        shape = self.self_sym_sizes
        return (g if tuple(g.shape) == tuple(shape) else g.reshape(shape),)


class SqueezeBackward1(SqueezeBackward0):
    pass


class SqueezeBackward2(SqueezeBackward0):
    pass


class SqueezeBackward4(Node):
    """squeeze_(dim), in place (PyTorch's matmul of a vector and a matrix ends with one): the
    gradient takes the input's shape back."""

    jvp = tangents.linear(_reshaped)

    def backward(self, g):
        return (g.reshape(self._input_meta[0][0]),)


def squeeze(a: Tensor, dim: Any = None) -> Tensor:
    if dim is None:
        axes = tuple(i for i, s in enumerate(a.shape) if s == 1)
        cls = SqueezeBackward0
    else:
        axes = tuple(d for d in wrap_dims(dim, a.ndim) if a.ndim and a.shape[d] == 1)
        cls = SqueezeBackward1 if isinstance(dim, int) else SqueezeBackward2
    out = record(cls, np.squeeze(a._data, axis=axes), (a,), self_sym_sizes=tuple(a.shape))
    return mark_view(out, a)


class ExpandBackward0(Node):
    jvp = tangents.linear(lambda node, out, t: expand(t, tuple(out._data.shape)))

    def backward(self, g):
        return (formula.sum_to(g, self.self_sym_sizes),)


def expand(a: Tensor, *sizes: Any) -> Tensor:
    sizes = _shape_arg(sizes)
    data = a._data
    # (matmul's usual expand is to the shape the tensor has: a plain view, nothing to check)
    target = sizes if sizes == data.shape else _expanded_shape(a, sizes)
    view = data.view() if target == data.shape else np.broadcast_to(data, target)  # (3 us)
    out = record(ExpandBackward0, view, (a,), self_sym_sizes=data.shape)
    return mark_view(out, a)


def _expanded_shape(a: Tensor, sizes: tuple) -> tuple:
    """The shape `a.expand(*sizes)` gives (-1 keeps a dim), or PyTorch's error."""
    lead = len(sizes) - a.ndim
    if lead < 0:
        raise RuntimeError(
            f"expand(torch.{LEGACY_NAMES[a.dtype.name]}{{{list(a.shape)}}}, "
            f"size={list(sizes)}): the number of sizes provided ({len(sizes)}) "
            f"must be greater or equal to the number of dimensions in the tensor "
            f"({a.ndim})"
        )
    for i in range(lead):
        if sizes[i] == -1:
            raise RuntimeError(
                f"The expanded size of the tensor (-1) isn't allowed in a leading, "
                f"non-existing dimension {i}"
            )
    target = tuple(a.shape[i - lead] if s == -1 else s for i, s in enumerate(sizes))
    for i, s in enumerate(a.shape):
        if s != 1 and s != target[lead + i]:
            raise RuntimeError(
                f"The expanded size of the tensor ({target[lead + i]}) must match "
                f"the existing size ({s}) at non-singleton dimension {lead + i}.  "
                f"Target sizes: {list(sizes)}.  Tensor sizes: {list(a.shape)}"
            )
    return target


def sum_to_size(a: Tensor, *shape: Any) -> Tensor:
    """Sum a broadcast gradient back down to `shape` (the engine's one reduction helper): a sum
    keeping dims, then a view dropping the leading ones, as PyTorch's sum_to (which sums all
    at once, no view, down to a 0-d shape)."""
    shape = _shape_arg(shape)
    if not expandable(shape, tuple(a.shape)):
        raise RuntimeError(f"size {{{list(shape)}}} is not expandable to size {{{list(a.shape)}}}.")
    if not shape:
        return a.sum()
    dims = reduced_dims(tuple(a.shape), shape)
    if not dims:
        return a
    out = a.sum(dim=dims, keepdim=True)
    return view(out, shape) if a.ndim > len(shape) else out


class CatBackward0(Node):
    """Each input gets its slice of g; an empty 1-d input gets fresh zeros (no history), as
    in PyTorch, which accepts such inputs whatever the other shapes."""

    def jvp(self, out, tangents):
        return cat([tangent_or_zeros(self, tangents, i) for i in range(len(tangents))], self.dim)

    def backward(self, g):
        grads, start = [], 0
        for size, legacy_empty in zip(self.sizes, self.legacy_empty):
            if legacy_empty:
                empty = np.zeros((0,), dtype=formula.data(g).dtype)
                grads.append(Tensor._wrap(empty) if isinstance(g, Tensor) else empty)
                continue
            idx = [slice(None)] * g.ndim
            idx[self.dim] = slice(start, start + size)
            grads.append(g[tuple(idx)])
            start += size
        return tuple(grads)


def _channels_last(x: np.ndarray) -> bool:
    """A 4-d array laid out NHWC (PyTorch's channels_last), which cat's result keeps."""
    item = x.itemsize
    return x.ndim == 4 and x.strides[1] == item and x.strides[3] == x.shape[1] * item


def cat(tensors: Any, dim: int = 0) -> Tensor:
    if not len(tensors):
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    tensors, arrays, _ = operands(*tensors)
    for i, x in enumerate(arrays):
        if x.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    legacy = [x.shape == (0,) for x in arrays]  # PyTorch's empty 1-d tensors join anything
    joined = [x for x, skip in zip(arrays, legacy) if not skip]
    first = (joined or arrays)[0]
    d = wrap_dim(dim, first.ndim) if joined else 0
    for i, x in enumerate(arrays):
        if legacy[i]:
            continue
        if x.ndim != first.ndim:
            raise RuntimeError(
                f"Tensors must have same number of dimensions: got {first.ndim} and {x.ndim}"
            )
        for k in range(x.ndim):
            if k != d and x.shape[k] != first.shape[k]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. "
                    f"Expected size {first.shape[k]} but got size "
                    f"{x.shape[k]} for tensor number {i} in the list."
                )
    data = np.concatenate(joined or arrays, axis=d)
    if not data.flags.c_contiguous and not all(_channels_last(x) for x in joined):
        data = np.ascontiguousarray(data)  # PyTorch: contiguous unless all are channels-last
    return record(
        CatBackward0,
        data,
        tuple(tensors),
        dim=d,
        sizes=[0 if skip else x.shape[d] for x, skip in zip(arrays, legacy)],
        legacy_empty=legacy,
    )


class StackBackward0(Node):
    def jvp(self, out, tangents):
        return stack([tangent_or_zeros(self, tangents, i) for i in range(len(tangents))], self.dim)

    def backward(self, g):
        if isinstance(g, Tensor):
            return tuple(g.select(self.dim, i) for i in range(self.count))
        return tuple(np.take(g, i, axis=self.dim) for i in range(self.count))


def stack(tensors: Any, dim: int = 0) -> Tensor:
    if not len(tensors):
        raise RuntimeError("stack expects a non-empty TensorList")
    tensors, arrays, _ = operands(*tensors)
    for i, x in enumerate(arrays):
        if x.shape != arrays[0].shape:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got "
                f"{list(arrays[0].shape)} at entry 0 and {list(x.shape)} at entry "
                f"{i}"
            )
    d = wrap_dim(dim, arrays[0].ndim + 1)
    return record(
        StackBackward0, np.stack(arrays, axis=d), tuple(tensors), dim=d, count=len(arrays)
    )


def _copied(node: Node, out: Tensor, t: Tensor) -> Tensor:
    """clone and contiguous on the tangent: a copy, laid out as the output is."""
    if out._data.flags.c_contiguous and not t._data.flags.c_contiguous:
        return contiguous(t)
    return clone(t)


class CloneBackward0(Node):
    jvp = tangents.linear(_copied)

    def backward(self, g):
        return (g,)


def clone(a: Tensor) -> Tensor:
    return record(CloneBackward0, copy_like(a._data), (a,))


def contiguous(a: Tensor) -> Tensor:
    if a._data.flags.c_contiguous:
        return a
    return record(CloneBackward0, a._data.copy(order="C"), (a,))


class ToCopyBackward0(Node):
    jvp = tangents.linear(lambda node, out, t: to_dtype(t, out.dtype))

    def backward(self, g):
        return (formula.to(g, self.dtype),)


def to_dtype(a: Tensor, dtype) -> Tensor:
    if dtype is a.dtype:
        return a
    data = copy_like(a._data, dtype.np)
    if a.requires_grad and not dtype.is_floating_point:
        return Tensor._wrap(data)
    return record(ToCopyBackward0, data, (a,), dtype=a.dtype)
