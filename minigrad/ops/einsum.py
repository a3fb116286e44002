"""einsum: a string equation (implicit or explicit output, `...`, repeated subscripts as
diagonals), computed from the ops already here, so that it differentiates (and again) through
them and the graph ends where PyTorch's decomposition ends:

- one operand: its diagonals, a permute into the output's order (PermuteBackward0, even when
  nothing moves), then a sum over the subscripts the output drops (SumBackward1);
- several: subscripts only one operand has are summed first; then operands are joined left
  to right, by a multiply (MulBackward0) when the pair shares nothing to sum, else by bmm
  between views, its result viewed back (ViewBackward0).
The numbers and gradients are PyTorch's; the nodes inside the graph need not be the ones
PyTorch records (its permutes and views are placed differently), only the last one is.
"""

from __future__ import annotations

import string
from typing import Any

import numpy as np

from ..core import dtypes
from ..core.tensor import Tensor
from ._record import record
from .elementwise import mul
from .indexing import getitem
from .linalg import bmm
from .reduction import sum
from .shape import ViewBackward0, permute, reshape

LETTERS = frozenset(string.ascii_letters)


def _fail(message: str) -> RuntimeError:
    return RuntimeError(f"einsum(): {message}")


def _parse_term(term: str, offset: int, index: int) -> list:
    """A term's subscripts, with "..." as one Ellipsis item; PyTorch's errors for the rest."""
    out: list = []
    i = 0
    while i < len(term):
        ch = term[i]
        if ch == " ":
            i += 1
            continue
        if ch == ".":
            if Ellipsis in out:
                raise _fail(
                    f"found '.' for operand {index} for which an ellipsis was already found"
                )
            if term[i : i + 3] != "...":
                raise _fail(f"found '.' for operand {index} that is not part of any ellipsis")
            out.append(Ellipsis)
            i += 3
            continue
        if ch not in LETTERS:
            raise _fail(
                f"invalid subscript given at index {offset + i} in the equation string, "
                "subscripts must be in [a-zA-Z]"
            )
        out.append(ch)
        i += 1
    return out


def _labels(terms: list[list], operands: tuple) -> tuple[list[list], int]:
    """Each operand's subscripts with its ellipsis expanded into numbered dims (0 = the
    outermost of the broadcast ellipsis), and how many dims the ellipsis stands for."""
    width = 0
    for i, (term, t) in enumerate(zip(terms, operands)):
        named = len([s for s in term if s is not Ellipsis])
        if Ellipsis not in term and named != t.ndim:
            raise _fail(
                f"the number of subscripts in the equation ({named}) does not match the number "
                f"of dimensions ({t.ndim}) for operand {i} and no ellipsis was given"
            )
        if Ellipsis in term and named > t.ndim:
            raise _fail(
                f"the number of subscripts in the equation ({named}) is more than the number of "
                f"dimensions ({t.ndim}) for operand {i}"
            )
        width = max(width, t.ndim - named)
    expanded = []
    for term, t in zip(terms, operands):
        n = t.ndim - len([s for s in term if s is not Ellipsis])
        dots = list(range(width - n, width))
        at = term.index(Ellipsis) if Ellipsis in term else len(term)
        expanded.append(term[:at] + (dots if Ellipsis in term else []) + term[at + 1 :])
    return expanded, width


def _diagonals(t: Tensor, labels: list, index: int) -> tuple[Tensor, list]:
    """Repeated subscripts of one operand: their diagonal, as the last dim (advanced indexing,
    IndexBackward0)."""
    for label in dict.fromkeys(labels):
        where = [i for i, s in enumerate(labels) if s == label]
        if len(where) < 2:
            continue
        sizes = {t.shape[i] for i in where}
        if len(sizes) > 1:
            first, second = (t.shape[i] for i in where[:2])
            raise _fail(
                f"subscript {label} is repeated for operand {index} but the sizes "
                f"don't match, {second} != {first}"
            )
        rest = [i for i in range(t.ndim) if i not in where]
        t = permute(t, rest + where)
        along = Tensor._wrap(np.arange(t.shape[-1], dtype=np.int64))
        t = getitem(t, (Ellipsis,) + (along,) * len(where))
        labels = [labels[i] for i in rest] + [label]
    return t, labels


def _align(t: Tensor, labels: list, order: list) -> Tensor:
    """t permuted into `order` (its subscripts), size-1 dims where it lacks one."""
    mine = [s for s in order if s in labels]
    t = permute(t, [labels.index(s) for s in mine])
    shape = [t.shape[mine.index(s)] if s in labels else 1 for s in order]
    return reshape(t, shape) if len(shape) != t.ndim else t


def _sizes(aligned: list[Tensor], order: list, labels: list[list]) -> dict:
    """Each subscript's size, checked as PyTorch checks them (broadcasting size-1 dims)."""
    sizes: dict = {}
    for i, t in enumerate(aligned):
        for s, n in zip(order, t.shape):
            if n == 1:
                continue
            if sizes.get(s, n) != n:
                if isinstance(s, str):
                    raise _fail(
                        f"subscript {s} has size {n} for operand {i} which does not broadcast "
                        f"with previously seen size {sizes[s]}"
                    )
                own = s - min(x for x in labels[i] if not isinstance(x, str))
                raise _fail(  # (PyTorch's words, its missing space included)
                    f"dimension {own} covered by ellipsis in operand {i}has size {n} which does "
                    f"not broadcast with previously seen ellipsis with size {sizes[s]} for the "
                    "respective dimension"
                )
            sizes[s] = n
    return sizes


def _contract(a: Tensor, b: Tensor, summed: list[int]) -> Tensor:
    """a * b summed over dims `summed` (both aligned, same rank), by bmm: the result keeps
    every dim, the summed ones of size 1."""
    dims = range(a.ndim)
    batch = [d for d in dims if d not in summed and a.shape[d] != 1 and b.shape[d] != 1]
    left = [d for d in dims if d not in summed and d not in batch and b.shape[d] == 1]
    right = [d for d in dims if d not in summed and d not in batch and d not in left]
    count = lambda t, ds: int(np.prod([t.shape[d] for d in ds], dtype=np.int64))  # noqa: E731
    inner = count(a, summed)
    a3 = reshape(permute(a, batch + left + summed + right), count(a, batch), count(a, left), inner)
    b3 = reshape(permute(b, batch + summed + right + left), count(b, batch), inner, count(b, right))
    out = bmm(a3, b3)
    kept = batch + left + right
    shape = [a.shape[d] if d in batch + left else b.shape[d] for d in kept]
    out = reshape(out, shape)
    back = [kept.index(d) for d in dims if d not in summed]
    out = permute(out, back)
    return reshape(out, [1 if d in summed else out.shape[back.index(kept.index(d))] for d in dims])


def _viewed(t: Tensor, shape: list) -> Tensor:
    """The result's final view (ViewBackward0, as PyTorch's last step), laid out anew."""
    data = np.ascontiguousarray(t._data).reshape(shape)
    return record(ViewBackward0, data, (t,), self_sym_sizes=tuple(t.shape))


def einsum(equation: str, *operands: Any) -> Tensor:
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    lhs, arrow, rhs = equation.partition("->")
    terms, offset = [], 0
    for i, term in enumerate(lhs.split(",")):
        terms.append(_parse_term(term, offset, i))
        offset += len(term) + 1
    if len(terms) > len(operands):
        raise _fail("fewer operands were provided than specified in the equation")
    if len(terms) < len(operands):
        raise _fail("more operands were provided than specified in the equation")
    if len({t.dtype for t in operands}) > 1:
        kinds = [dtypes.SCALAR_NAMES[t.dtype.name] for t in operands]
        raise RuntimeError(f"expected scalar type {kinds[0]} but found {kinds[1]}")
    labels, width = _labels(terms, operands)
    if arrow:
        out_term = _parse_term(rhs, len(lhs) + 2, -1)
        for s in out_term:
            if s is not Ellipsis and out_term.count(s) > 1:
                raise _fail(f"output subscript {s} appears more than once in the output")
            if s is not Ellipsis and not any(s in term for term in labels):
                raise _fail(
                    f"output subscript {s} does not appear in the equation for any input operand"
                )
        at = out_term.index(Ellipsis) if Ellipsis in out_term else len(out_term)
        dots = list(range(width)) if Ellipsis in out_term else []
        output = out_term[:at] + dots + out_term[at + 1 :]
    else:
        counts: dict = {}
        for term in labels:
            for s in term:
                if isinstance(s, str):
                    counts[s] = counts.get(s, 0) + 1
        output = list(range(width)) + sorted(s for s, n in counts.items() if n == 1)
    tensors = [_diagonals(t, term, i) for i, (t, term) in enumerate(zip(operands, labels))]
    everything = list(dict.fromkeys(s for _, term in tensors for s in term))
    order = output + [s for s in everything if s not in output]
    aligned = [_align(t, term, order) for t, term in tensors]
    sizes = _sizes(aligned, order, labels)
    if len(aligned) == 1:
        out = aligned[0]
        summed = list(range(len(output), len(order)))
        out = sum(out, summed) if summed else out
        return out
    return _join(aligned, order, output, sizes)


def _join(aligned: list[Tensor], order: list, output: list, sizes: dict) -> Tensor:
    """Operands joined left to right; subscripts summed as soon as no later operand has them."""
    n_out = len(output)

    def needed_after(k: int) -> set:
        return {d for t in aligned[k:] for d in range(len(order)) if t.shape[d] != 1}

    result = aligned[0]
    last_was_bmm = False
    for k in range(1, len(aligned)):
        later = needed_after(k + 1)
        summed = [
            d
            for d in range(n_out, len(order))
            if d not in later and (result.shape[d] != 1 or aligned[k].shape[d] != 1)
        ]
        both = [d for d in summed if result.shape[d] != 1 and aligned[k].shape[d] != 1]
        if both:
            alone_a = [d for d in summed if d not in both and result.shape[d] != 1]
            alone_b = [d for d in summed if d not in both and aligned[k].shape[d] != 1]
            a = sum(result, alone_a, keepdim=True) if alone_a else result
            b = sum(aligned[k], alone_b, keepdim=True) if alone_b else aligned[k]
            result = _contract(a, b, both)
            last_was_bmm = True
        else:
            result = mul(result, aligned[k])
            if summed:
                result = sum(result, summed, keepdim=True)
            last_was_bmm = False
    shape = [sizes.get(s, 1) for s in output]
    if last_was_bmm:
        return _viewed(result, shape)
    rest = [d for d in range(n_out, len(order)) if result.shape[d] != 1]
    if rest:
        result = sum(result, rest, keepdim=True)
    return reshape(result, shape) if list(result.shape) != shape else result
