"""embedding: rows of a weight matrix picked by integer indices. Its gradient adds each output
row's gradient into the weight row it came from (none into padding_idx's row); under
create_graph that sum is recorded as PyTorch's EmbeddingDenseBackwardBackward0, whose own
gradient picks rows again, so every order is differentiable."""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import kernels
from ...core import grad_mode
from ...core.forward_grad import computing_tangents
from ...core.node import Node
from ...core.tensor import Tensor
from .. import formula, tangents
from .._record import record

NO_PADDING = 2**64 - 1  # what PyTorch shows as _saved_padding_idx when there is none (-1)


class _PickRows(Node):
    jvp = tangents.linear(lambda node, out, t: _pick(t, node.indices))

    def name(self) -> str:
        return "EmbeddingBackward0"

    def backward(self, g):
        return (_scatter(g, self.indices, self.rows),)


class EmbeddingDenseBackwardBackward0(Node):
    jvp = tangents.linear(lambda node, out, t: _scatter(t, node.indices, out.shape[0], node.counts))

    def backward(self, gg):
        return (_pick(gg, self.indices),)


def _pick(g: Any, indices: np.ndarray) -> Any:
    """Rows `indices` of g (recorded as a gather of rows when g is a Tensor)."""
    gd = formula.data(g)
    data = gd[indices]
    if isinstance(g, Tensor):
        return record(_PickRows, data, (g,), indices=indices, rows=gd.shape[0])
    return data


def _scatter(g: Any, indices: np.ndarray, rows: int, counts: np.ndarray | None = None) -> Any:
    """A (rows, dim) gradient: each row of g (divided by `counts`, when given) added into row
    indices[i]. Recorded on Tensors; its gradient picks rows without the division, as
    PyTorch's EmbeddingDenseBackwardBackward0 does with scale_grad_by_freq."""
    gd = formula.data(g)
    dim = gd.shape[-1]
    out = np.zeros((rows, dim), dtype=gd.dtype)
    added = gd if counts is None else gd / counts.astype(gd.dtype)
    kernels.add_rows(out, indices.reshape(-1), added.reshape(-1, dim))
    if isinstance(g, Tensor):
        return record(EmbeddingDenseBackwardBackward0, out, (g,), indices=indices, counts=counts)
    return out


class EmbeddingBackward0(Node):
    """The weight's gradient: g's rows summed per index, skipping padding_idx, each divided by
    how often its index occurs when scale_grad_by_freq."""

    # (the rows the tangent picks; padding_idx only stops gradients)
    jvp = tangents.linear(
        lambda node, out, t: _pick(t, formula.data(node.saved("indices")).astype(np.int64))
    )

    def backward(self, g):
        indices = formula.data(self.saved("indices")).astype(np.int64)
        rows = self.weight_sym_argsize_0
        pad = self.padding
        if pad is not None:
            g = formula.keep((indices != pad)[..., None], g)
        counts = None
        if self.scale_grad_by_freq:
            counts = np.bincount(indices.reshape(-1), minlength=rows)[indices][..., None]
        return (_scatter(g, indices, rows, counts),)


def _check(indices: Tensor, weight: Tensor) -> None:
    if indices.dtype.name not in ("int64", "int32"):
        name = {"float32": "Float", "float64": "Double", "bool": "Bool"}.get(
            indices.dtype.name, indices.dtype.name
        )
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar "
            f"types: Long, Int; but got torch.{name}Tensor instead (while checking arguments "
            "for embedding)"
        )
    if weight.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    i = indices._data
    if i.size and (i.min() < 0 or i.max() >= weight.shape[0]):
        raise IndexError("index out of range in self")


def embedding(
    input: Tensor, weight: Tensor, padding_idx: int | None = None, scale_grad_by_freq: bool = False
) -> Tensor:
    """weight[input]; `padding_idx` already made non-negative (nn.functional's job)."""
    _check(input, weight)
    data = weight._data[input._data]
    save = {
        "indices": input,
        "padding_idx": NO_PADDING if padding_idx is None else padding_idx,
        "scale_grad_by_freq": scale_grad_by_freq,
        "sparse": False,
        "weight_sym_argsize_0": weight.shape[0],
    }
    return record(
        EmbeddingBackward0,
        data,
        (weight,),
        save=save,
        padding=padding_idx,
        scale_grad_by_freq=scale_grad_by_freq,
        weight_sym_argsize_0=weight.shape[0],
    )


def embedding_renorm_(weight: Tensor, input: Tensor, max_norm: float, norm_type: float) -> None:
    """The rows of `weight` that `input` uses, scaled down to norm max_norm where theirs is
    above it (PyTorch divides by norm + 1e-7); written in place under no_grad, as PyTorch's
    embedding_renorm_, so the weight's version counts the write."""
    rows = np.unique(input._data.reshape(-1).astype(np.int64))
    picked = weight._data[rows]
    norms = np.linalg.norm(picked.astype(np.float64), ord=norm_type, axis=1)
    scale = np.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
    with grad_mode.no_grad(), computing_tangents():  # (a forward-mode tangent stays as is)
        weight[Tensor._wrap(rows)] = Tensor._wrap((picked * scale[:, None]).astype(picked.dtype))
