"""In-place ops: PyTorch's checks, the version counter, and rebasing history onto the new node.

An in-place op is its out-of-place twin run on a snapshot of the old value, whose result is
written back into the tensor's own storage; the tensor then takes the new node as grad_fn.
Writing into a view rebases the view's base instead, through a CopySlices node.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np

from ..core import forward_grad, grad_mode
from ..core.dtypes import SCALAR_NAMES, from_numpy_dtype
from ..core.forward_grad import Levels, computing_tangents, set_tangent, tangent_of
from ..core.node import Node, edge_of, use_sequence_number
from ..core.saved import FREED_MESSAGE, SavedTensor
from ..core.shapes import dense, dense_strides
from ..core.tensor import Tensor
from . import formula
from ._record import announce, connect, input_meta, mark_view, record, should_record
from .flat import ScatterFlatBackward, gather_flat, put_flat, scatter_flat
from .shape import broadcast_shapes

LEAF_MESSAGE = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_OF_LEAF_MESSAGE = (
    "a view of a leaf Variable that requires grad is being used in an in-place operation."
)
OVERLAP_MESSAGE = (
    "unsupported operation: more than one element of the written-to tensor refers to a single "
    "memory location. Please clone() the tensor before performing the operation."
)
PARTIAL_OVERLAP_MESSAGE = (
    "unsupported operation: some elements of the input tensor and the written-to tensor refer to "
    "a single memory location. Please clone() the tensor before performing the operation."
)
# Views PyTorch forbids to write in place (and whose history it refuses once their base was
# written): `_creation_meta` (ops/_record.py) names why, the second half of PyTorch's message.
_AMBIGUOUS = (
    "Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify "
    "your code by moving both the view and the inplace either both inside the {block} block (if "
    "you don't want the inplace to be tracked) or both outside (if you want the inplace to be "
    "tracked)."
)
CREATION_META = {
    "multi_output": "This view is the output of a function that returns multiple views. Such "
    "functions do not allow the output views to be modified inplace. You should replace the "
    "inplace operation by an out-of-place one.",
    "no_grad": _AMBIGUOUS.format(block="no_grad"),
    "inference": _AMBIGUOUS.format(block="inference_mode"),
    "custom_function": "This view was created inside a custom Function (or because an input was "
    "returned as-is) and the autograd logic to handle view+inplace would override the custom "
    "backward associated with the custom Function, leading to incorrect gradients. This "
    "behavior is forbidden. You can fix this by cloning the output of the custom Function.",
}

# When an in-place op refuses to write into an expanded tensor (several elements, one memory
# place), relative to its own checks: PyTorch's kernels check the overlap before the dtype
# (add_), a few ops check their input first (neg_ of a bool), and fill_, zero_, masked_fill_
# and index_put_ write such tensors (every element that shares a place gets the same value).
EARLY, LATE, ALLOWED = "early", "late", "allowed"
PARTIAL, ANY, NONE = "partial", "any", "none"  # which aliasing of an operand run_inplace refuses


NUMBER = Tensor._wrap(np.zeros(()))  # stands for a Python number PyTorch wraps in a tensor


def overlapping(a: np.ndarray) -> bool:
    """PyTorch's internal-overlap test: a dim of size > 1 with stride 0 (an expanded tensor)
    holding more than one element."""
    return (
        0 in a.strides and a.size > 1 and any(s == 0 and n > 1 for n, s in zip(a.shape, a.strides))
    )


def partly_overlaps(out: np.ndarray, inp: np.ndarray) -> bool:
    """PyTorch's overlap test of an in-place op's output and an input: refused when both are
    dense, share memory and are not laid out the same (`x.add_(x[0])`); the same layout is an
    ordinary in-place op, and layouts too hard to compare are let through, as PyTorch does."""
    if not out.size or not inp.size or not np.may_share_memory(out, inp):
        return False
    if not (dense(out) and dense(inp)):
        return False
    if _address(out) != _address(inp) or out.shape != inp.shape:
        return True
    # the same elements in the same layout (strides of size-1 dims are left out: PyTorch's
    # compare them too, but theirs and numpy's follow different conventions; README)
    return any(a != b for a, b, n in zip(out.strides, inp.strides, out.shape) if n > 1)


def shares_memory(out: np.ndarray, inp: np.ndarray) -> bool:
    """PyTorch's assert_no_overlap (index_put_'s test of its value): any shared element, the
    same layout included; layouts too hard to compare (not dense) are let through."""
    if not out.size or not inp.size or not np.may_share_memory(out, inp):
        return False
    return out is inp or (dense(out) and dense(inp))  # (the very same tensor: x[i] = x)


def short_name(node: Node) -> str:
    """A node's name as PyTorch's messages print it: SplitBackward0 -> Split, TBackward1 -> T1."""
    return re.sub(r"Backward(\d+)$", lambda m: "" if m[1] == "0" else m[1], node.name())


def _forbidden_view(view: Tensor, what: str) -> RuntimeError | None:
    """PyTorch's error for writing `view` (or its base) in place, if its creation forbids it
    (handle_view_on_rebase)."""
    meta = view.__dict__.get("_creation_meta")
    if meta is None:
        return None
    node = view._grad_fn
    if meta in ("no_grad", "inference") or node is None:
        if node is not None:
            made = f"Output {view._output_nr} of {short_name(node)} is a view of a view which was"
            made += " created in"
        else:
            made = "A view was created in"
        if meta == "inference":
            head = f"{made} inference mode and {what} modified inplace in normal mode."
        else:
            head = f"{made} no_grad mode and {what} modified inplace with grad mode enabled."
    else:
        head = (
            f"Output {view._output_nr} of {short_name(node)} is a view and {what} modified inplace."
        )
    return RuntimeError(f"{head} {CREATION_META[meta]}")


def check_inplace(t: Tensor, recording: bool = True) -> None:
    """PyTorch's checks before writing into `t`; `recording`: some input requires grad."""
    if not recording:
        return
    base = t._base
    if base is not None:
        error = _forbidden_view(t, "is being")
        if error is not None:
            raise error
        if base._grad_fn is None and t.requires_grad:
            raise RuntimeError(VIEW_OF_LEAF_MESSAGE)
    if t._grad_fn is None and t.requires_grad:
        raise RuntimeError(LEAF_MESSAGE)


def _snapshot(t: Tensor) -> Tensor:
    """The tensor as it is now (history included) on storage the write will not touch."""
    old = Tensor._wrap(t._data.copy(), t._requires_grad)
    old._grad_fn, old._output_nr, old._made_meta = t._grad_fn, t._output_nr, t._made_meta
    tangent = tangent_of(t)
    if tangent is not None:  # (a copy: t's own is written with the result's, in place)
        with computing_tangents():
            set_tangent(old, tangent.clone())
    return old


def _number_original_self(result: Tensor, old: Tensor) -> None:
    """An in-place op whose gradient needs the value before the write (`mul_` by a tensor that
    requires grad, `sin_`, `clamp_`...) clones it in PyTorch, after its node is made; when that
    value requires grad the clone is recorded, and its node (dropped at once) takes a sequence
    number. The op saved our snapshot in that case: take the number too."""
    node = result._grad_fn
    if node is None or not old.requires_grad or not node._saved:
        return
    counter = old._version_counter
    if any(isinstance(s, SavedTensor) and s._counter is counter for s in node._saved.values()):
        use_sequence_number()


def writable(a: np.ndarray) -> np.ndarray:
    """`a`, or a writable alias of the same memory (numpy marks expanded arrays read-only)."""
    if a.flags.writeable:
        return a
    alias = a.view()
    try:
        alias.flags.writeable = True
    except ValueError:
        raise RuntimeError("cannot write into a tensor made from a read-only numpy array") from None
    return alias


def _write(t: Tensor, data: np.ndarray, overlap: str = EARLY, written: Any = None) -> None:
    """Store `data` (broadcast to t's shape) in t's memory and count a new version.
    `written`: a callable giving the bool mask of the places the op writes (the others keep
    their value): on an expanded tensor only those are written, as PyTorch's kernels do."""
    if data.shape != t._data.shape:  # (PyTorch's TensorIterator: the shape, then the dtype)
        try:
            data = np.broadcast_to(data, t._data.shape)
        except ValueError:
            raise RuntimeError(
                f"output with shape {list(t.shape)} doesn't match the broadcast "
                f"shape {list(data.shape)}"
            ) from None
    if t._data.dtype != data.dtype and not np.can_cast(data.dtype, t._data.dtype, "same_kind"):
        src = SCALAR_NAMES[from_numpy_dtype(data.dtype).name]
        dst = SCALAR_NAMES[from_numpy_dtype(t._data.dtype).name]
        raise RuntimeError(f"result type {src} can't be cast to the desired output type {dst}")
    if overlap == LATE and overlapping(t._data):
        raise RuntimeError(OVERLAP_MESSAGE)
    dst = writable(t._data)
    if written is not None and overlapping(dst):
        places = np.nonzero(np.broadcast_to(written(), dst.shape))
        dst[places] = data[places]  # in order: of the elements sharing a place, the last wins
    else:
        np.copyto(dst, data, casting="unsafe")
    t._bump()


def _rebind_saved(node: Node | None, result: Tensor, t: Tensor) -> None:
    """Saved references to `result` (the op's output) now check `t`, which holds it now."""
    for key, saved in (node._saved or {}).items() if node is not None else ():
        if isinstance(saved, SavedTensor) and saved._counter is result._version_counter:
            node._saved[key] = SavedTensor(t, is_output=True)
            node._saved[key]._fw_grad = t._fw_grad  # (its tangent, given back with it)


def _address(a: np.ndarray) -> int:
    return a.__array_interface__["data"][0]


class _Counting:
    """0, 1, 2...: a read-only array reused (up to a size) by every call of `memory_positions`."""

    array = np.arange(0)
    LIMIT = 1 << 20


def _counting(n: int) -> np.ndarray:
    if n > _Counting.array.size:
        if n > _Counting.LIMIT:
            return np.arange(n)
        _Counting.array = np.arange(max(n, 2 * _Counting.array.size))
        _Counting.array.flags.writeable = False
    return _Counting.array


def memory_positions(view: np.ndarray, base: np.ndarray) -> np.ndarray:
    """Where each element of `view` lives in `base` (positions in base's C order), read off the
    memory both share, so it holds whatever in-place view op (t_, squeeze_...) changed either:
    `view`'s strides walk an array holding, at each element's place, its position in base."""
    if not view.size:
        return np.zeros(view.shape, np.int64)
    item = base.itemsize
    if base.flags.c_contiguous:
        start, positions = _address(base), _counting(base.size)
    else:  # each element's position, written at its place in base's memory span
        offsets = np.zeros((), np.int64)
        for d, (n, s) in enumerate(zip(base.shape, base.strides)):
            step = np.arange(n, dtype=np.int64) * (s // item)
            offsets = offsets + step.reshape((n,) + (1,) * (base.ndim - d - 1))
        low = int(offsets.min())
        start = _address(base) + low * item
        positions = np.full(int(offsets.max()) - low + 1, -1, np.int64)
        positions[np.ravel(offsets) - low] = np.arange(base.size)
    try:
        found = np.ndarray(
            view.shape,
            np.int64,
            buffer=positions,
            offset=(_address(view) - start) // item * 8,
            strides=tuple(s // item * 8 for s in view.strides),
        )
    except (ValueError, TypeError):
        found = None
    if found is None or (found < 0).any():
        return _strided_positions(view, base)
    return found.copy()


def _strided_positions(view: np.ndarray, base: np.ndarray) -> np.ndarray:
    """A view whose memory is no longer its base's (`.data` replaced one of them): its own
    strides, from offset 0, read as positions in the base, as PyTorch's as_strided reads the
    view's geometry against the base's storage."""
    steps = [s // view.itemsize for s in view.strides]
    found = sum(
        np.arange(n, dtype=np.int64).reshape((n,) + (1,) * (view.ndim - d - 1)) * steps[d]
        for d, n in enumerate(view.shape)
    ) + np.zeros(view.shape, np.int64)
    if found.size and (found.min() < 0 or found.max() >= base.size):
        raise RuntimeError(
            f"setStorage: sizes {list(view.shape)}, strides {steps}, storage offset 0 are out "
            f"of bounds for a base of {base.size} elements (was .data replaced?)"
        )
    return found


def _flat_index(view: Tensor) -> np.ndarray:
    """Where each element of a view lives in its base, as flat positions of the base."""
    return memory_positions(view._data, view._base._data)


def apply_inplace(t: Tensor, fn: Callable[..., Tensor], *args: Any, **kwargs: Any) -> Tensor:
    """Run `fn(t, *args)` and store the result in t, with PyTorch's autograd semantics."""
    return run_inplace(t, fn, args, kwargs)


def run_inplace(
    t: Tensor,
    fn: Callable[..., Tensor],
    args: tuple,
    kwargs: dict,
    overlap: str = EARLY,
    written: Callable[[], np.ndarray] | None = None,
    wraps_numbers: bool = False,
    float_target_only: bool = False,
    aliasing: str = PARTIAL,
) -> Tensor:
    """`apply_inplace`, with when to refuse an expanded `t` (EARLY, LATE, ALLOWED) and, for the
    ops ALLOWED to write one, `written` (see `_write`). `wraps_numbers`: the op takes a Tensor
    where a Python number is given (add_, mul_, copy_...): PyTorch wraps the number in a normal
    tensor, so the op is recorded even on an inference tensor (clamp_ and fill_ take Scalars).
    `float_target_only`: an integer `t` records nothing whatever its operands (copy_, which
    PyTorch masks by the target's dtype; its generated ops do not). `aliasing`: which sharing
    of `t`'s memory by an operand is refused, after the autograd checks as in PyTorch (PARTIAL
    for most ops; ANY for index_put_, whose value may not even be `t` itself; NONE for an op
    that reads its operands whole first, index_put_ of one value under a mask, which PyTorch
    runs as masked_fill_ with the value's number)."""
    operands = (t, *args, *kwargs.values())
    tensors = [a for a in operands if isinstance(a, Tensor)]
    if wraps_numbers and any(isinstance(a, (int, float)) for a in operands):
        tensors.append(NUMBER)
    recording = should_record(tensors)
    if float_target_only and t._data.dtype.kind not in "fc":
        recording = False
    check_inplace(t, recording)
    if overlap == EARLY and overlapping(t._data):
        raise RuntimeError(OVERLAP_MESSAGE)
    if aliasing == PARTIAL:
        if any(a is not t and partly_overlaps(t._data, a._data) for a in tensors):
            raise RuntimeError(PARTIAL_OVERLAP_MESSAGE)
    elif aliasing == ANY and any(shares_memory(t._data, a._data) for a in tensors[1:]):
        raise RuntimeError(PARTIAL_OVERLAP_MESSAGE)
    stepwise = aliasing == PARTIAL and _reads_what_it_writes(t, tensors)
    if not recording:  # then `fn` records nothing either
        data = _element_by_element(t, fn, args, kwargs) if stepwise else None
        result = fn(t, *args, **kwargs)
        _write(t, result._data if data is None else data, overlap, written)
        take_tangent(t, result)
        return t
    if t._base is not None:
        return _inplace_on_view(t, fn, args, kwargs, overlap, written, stepwise)
    data = _element_by_element(t, fn, args, kwargs) if stepwise else None
    old = _snapshot(t)
    result = fn(old, *args, **kwargs)
    _number_original_self(result, old)
    _write(t, result._data if data is None else data, overlap, written)
    node = result._grad_fn
    if node is not None:  # None: t's dtype takes no gradient (copy_ of a float into an int)
        take_tangent(t, result)
        t._set_history(node, result._output_nr)
        _rebind_saved(node, result, t)
    return t


def write_through(t: Tensor, ufunc: np.ufunc, other: Any) -> bool:
    """`t.add_(other)` (sub_, mul_) written straight into t's memory when there is plainly
    nothing else to do: nothing records, `other` is a float number or a tensor of t's own
    float dtype that neither shares t's memory nor broadcasts t bigger, t is not expanded. The
    optimizer's `p.data += -lr * p.grad` takes this path; anything else is `run_inplace`'s.
    Returns whether it wrote."""
    data = t._data
    if data.dtype.kind != "f" or not data.flags.writeable or overlapping(data):
        return False
    if type(other) is float:
        tensors, value = (t, NUMBER), data.dtype.type(other)  # (as PyTorch wraps the number)
    elif type(other) is Tensor:
        value = other._data
        if value.dtype != data.dtype or (value.shape != data.shape and value.ndim):
            return False
        owners = value.base is None and data.base is None  # (two owners: two memories)
        if value is data or not owners and np.may_share_memory(data, value):
            return False
        tensors = (t, other)
    else:
        return False
    if t._is_inference or Levels.active or should_record(tensors):
        return False  # (forward AD: a tangent may have to follow the write)
    ufunc(data, value, out=data)
    t._bump()
    return True


STEPWISE_LIMIT = 4096  # elements: beyond, operands are read whole first (README)


def _reads_what_it_writes(t: Tensor, tensors: list) -> bool:
    """An operand shares memory with the target in a way PyTorch lets through (a strided or
    expanded view, too hard for it to compare): its kernel then reads each operand element as
    it goes, after the writes before it."""
    return 1 < t._data.size <= STEPWISE_LIMIT and any(
        a is not t and a is not NUMBER and np.may_share_memory(t._data, a._data) for a in tensors
    )


def _element_by_element(t: Tensor, fn: Callable, args: tuple, kwargs: dict) -> np.ndarray:
    """The values an elementwise in-place op leaves when it writes one element at a time, in
    the target's memory order, and its operands read memory it has already written (PyTorch's
    element loop). t's memory is given back as it was: the caller writes the result."""
    before = t._data.copy()
    order = dense_strides(t._data.shape, tuple(s // t._data.itemsize for s in t._data.strides))
    outer_first = sorted(range(t._data.ndim), key=lambda d: -order[d])
    dst = writable(t._data)
    own = Tensor._wrap(before)  # (the op's `self` is read where it is written: its old value)
    try:
        with grad_mode.no_grad(), computing_tangents():
            for step in np.ndindex(*(t._data.shape[d] for d in outer_first)):
                at = tuple(step[outer_first.index(d)] for d in range(t._data.ndim))
                dst[at] = fn(own, *args, **kwargs)._data[at]
        return dst.copy()
    finally:
        np.copyto(dst, before)


class CopySlices(Node):
    """The base's new history after one of its views was written in place.

    Like PyTorch's, it wraps the in-place op's node `fn`: its edges are the base's old history
    followed by fn's other inputs; the gradient for fn's `self` lands back in the view's region.
    Once released (backward without retain_graph) it refuses to run again, as PyTorch's does.
    """

    runs_on_arrays = False  # it runs `fn` through its Tensor `apply`

    def name(self) -> str:
        return "torch::autograd::CopySlices"  # PyTorch's C++ name

    def backward(self, g):
        if self._freed:
            raise RuntimeError(FREED_MESSAGE)
        grads = self.fn.apply((gather_flat(g, self.flat_index),))
        base_needed = self.next_functions[0][0] is not None
        if base_needed and grads[0] is not None and self.overlapping:
            # PyTorch copies fn's gradient into the view's (expanded) region of the base's
            raise RuntimeError(OVERLAP_MESSAGE)
        if grads[0] is not None:  # fn's gradient for the view's elements, in their places
            base_grad = put_flat(g, self.flat_index, grads[0])
        else:
            keep = np.ones(g._data.size, dtype=bool)
            keep[self.flat_index.ravel()] = False
            base_grad = formula.keep(keep.reshape(g.shape), g)
        # no gradient for what needs none (a Python number written, say), as in PyTorch
        others = tuple(
            gi if fn is not None else None
            for (fn, _), gi in zip(self.next_functions[1:], grads[1:])
        )
        return (base_grad if base_needed else None,) + others

    def _release_variables(self) -> dict:
        freed = self.fn._release_variables()
        self._freed_shapes = self.fn._freed_shapes
        self._freed = True
        return freed


def _inplace_on_view(
    view: Tensor,
    fn: Callable[..., Tensor],
    args: tuple,
    kwargs: dict,
    overlap: str,
    written,
    stepwise: bool,
) -> Tensor:
    base = view._base
    data = _element_by_element(view, fn, args, kwargs) if stepwise else None
    stale = view._view_version != view._version_counter.value and (
        view._grad_fn is not None or base.requires_grad
    )
    old = _snapshot(view)
    result = fn(old, *args, **kwargs)
    if stale and result._grad_fn is not None:  # PyTorch re-derives the view's history for the
        use_sequence_number()  # op's edges (a node, with a number), then rebases it anyway
    _number_original_self(result, old)
    data = result._data if data is None else data
    op = result._grad_fn
    if op is None:  # the view's dtype takes no gradient: a plain write
        _write(view, data, overlap, written)
        take_tangent(view, result)
        return view
    node = CopySlices()
    edge = edge_of(base)
    node.next_functions = (edge,) + op.next_functions[1:]
    node._input_meta = (input_meta(base, edge),) + op._input_meta[1:]
    node.fn, node.flat_index = op, _flat_index(view)
    node.overlapping = overlapping(view._data)
    _write(view, data, overlap, written)
    base._set_history(node, 0)
    regenerate_view_history(view, node.flat_index)
    take_tangent(view, result)
    _rebind_saved(op, result, view)
    return view


class AsStridedScatter(ScatterFlatBackward):
    """AsStridedBackward0's gradient recorded under create_graph: PyTorch's as_strided_backward
    scatters into zeros and returns them viewed as the input (as_strided), so that is the node."""

    def name(self) -> str:
        return "AsStridedBackward0"


class AsStridedBackward0(Node):
    """A written view's new history: a window into its base's new history. An empty window
    sends back zeros with no history, as PyTorch's does. Where the window lies is worked out
    when first needed, from the view's and base's memory at the node's making (a window that
    no longer fits, after `.data =`, is refused then, as PyTorch's as_strided refuses it)."""

    _flat_index: np.ndarray | None = None

    @property
    def flat_index(self) -> np.ndarray:
        if self._flat_index is None:
            self._flat_index = memory_positions(*self.geometry)
        return self._flat_index

    def backward(self, g):
        if not self.flat_index.size:
            zeros = np.zeros(self.base_shape, dtype=formula.data(g).dtype)
            return (Tensor._wrap(zeros) if isinstance(g, Tensor) else zeros,)
        return (scatter_flat(g, self.flat_index, self.base_shape, AsStridedScatter),)


def regenerate_view_history(view: Tensor, flat_index: np.ndarray | None = None) -> None:
    """Tensor._regenerate_view_history: after its base (or a sibling view) was written in place,
    the view's history is a fresh AsStridedBackward0 linking it to the base's current one,
    made whatever the grad mode (it replaces a history that existed). A view PyTorch forbids to
    write (made under no_grad, an output of split...) refuses. `flat_index`:
    `_flat_index(view)`, when the caller has it."""
    error = _forbidden_view(view, "its base or another view of its base has been")
    if error is not None:
        raise error
    base = view._base
    view._view_version = view._version_counter.value
    node = connect(AsStridedBackward0(), (base,))
    node._flat_index, node.geometry = flat_index, (view._data, base._data)
    node.base_shape = tuple(base.shape)
    announce(node, (base,), view)
    view._set_history(node, 0)


# --- copy_, which the engine also records (accumulating under create_graph) ---------------
class CopyBackwards(Node):
    def jvp(self, out, tangents):
        """The source's tangent copied in (zeros where it carries none): the old values'
        tangent is overwritten with them."""
        src = tangents[1]
        zeros = Tensor._wrap(np.zeros(out._data.shape, out._data.dtype))
        return zeros if src is None else copy(zeros, src)

    def name(self) -> str:
        return "torch::autograd::CopyBackwards"  # PyTorch's C++ name

    def backward(self, g):
        return formula.zeros_like(g), (g if self.next_functions[1][0] is not None else None)


def same_data(a: np.ndarray, b: np.ndarray) -> bool:
    """Two arrays over the very same elements in the same layout: PyTorch's copy_ returns at
    once (no overlap check, no write)."""
    return (
        a.dtype == b.dtype and a.shape == b.shape and a.strides == b.strides
        and _address(a) == _address(b)
    )  # fmt: skip


def copy(t: Tensor, src: Tensor) -> Tensor:
    """src broadcast to t and cast to t's dtype; an integer `t` takes no gradient, as in
    PyTorch. A Python number is copied like a 0-d tensor."""
    if isinstance(src, (bool, int, float)):
        src = Tensor._wrap(np.asarray(src))
    if not isinstance(src, Tensor):
        raise TypeError(
            f"copy_(): argument 'other' (position 1) must be Tensor, not {type(src).__name__}"
        )
    shape = broadcast_shapes(tuple(t.shape), tuple(src.shape))
    if shape != tuple(t.shape):
        raise RuntimeError(
            f"output with shape {list(t.shape)} doesn't match the broadcast shape {list(shape)}"
        )
    data = np.array(np.broadcast_to(src._data, shape), dtype=t._data.dtype)
    if not t.dtype.is_floating_point:
        return Tensor._wrap(data)
    return record(CopyBackwards, data, (t, src))


# --- forward AD: the tangent follows the write ---------------------------------------------
def take_tangent(t: Tensor, result: Tensor) -> None:
    """After `result` (the op run out of place) was written into `t`: its tangent is written
    into t's, in place, so that views of that tangent see it (PyTorch's in-place formulas run
    in place on the tangent). A `t` without a tangent takes the result's; a view without one
    takes a view of its base's (made of zeros if the base has none), as PyTorch's set_fw_grad
    gives a view written with a dual value."""
    new = tangent_of(result) if Levels.level is not None else None
    if new is None:
        return
    own = tangent_of(t)
    if own is None and t._base is not None:
        own = view_tangent(t, create=True)
    if own is None:  # (a copy, laid out as t: never an operand's tangent itself)
        set_tangent(t, _laid_out_as(t, new))
    elif own is not new:
        _copy_tangent(own, new)


def _laid_out_as(t: Tensor, new: Tensor) -> Tensor:
    """`new` copied into t's layout: a tangent is laid out as its primal, as in PyTorch."""
    out = Tensor._wrap(_zeros_laid_out_as(t._data))
    _copy_tangent(out, new)
    return out


def _copy_tangent(own: Tensor, new: Tensor) -> None:
    """`own.copy_(new)` on tangents: recorded when `new` has a history (reverse over forward),
    else written straight in (an expanded tangent included, as PyTorch's self_t.fill_ would)."""
    with computing_tangents():
        if should_record((own, new)):
            own.copy_(new)
            return
        np.copyto(writable(own._data), new._data, casting="unsafe")
        own._bump()


def view_tangent(view: Tensor, create: bool = False) -> Tensor | None:
    """A tensor's tangent (a view's read off its base's, see forward_grad.tangent_of);
    `create`: give the base a zero tangent first when it has none."""
    own = tangent_of(view)
    if own is not None or view._base is None or not create:
        return own
    return tangent_from_base(view, create)


def tangent_from_base(view: Tensor, create: bool = False) -> Tensor | None:
    """`view_tangent` for a view without a tangent of its own (kept on it once made)."""
    base = view._base
    base_tangent = tangent_of(base)
    if base_tangent is None:
        if not create or base._data.dtype.kind not in "fc":
            return None
        base_tangent = Tensor._wrap(_zeros_laid_out_as(base._data))
        set_tangent(base, base_tangent)
    if base_tangent._data.strides != base._data.strides or base_tangent.shape != base.shape:
        return None  # (a tangent laid out otherwise: no place in it matches the view's)
    offset = _address(view._data) - _address(base._data)
    tangent = Tensor._wrap(_window(base_tangent._data, offset, view._data))
    with computing_tangents():
        mark_view(tangent, base_tangent)
    set_tangent(view, tangent)
    return tangent


forward_grad.tangent_from_base = tangent_from_base  # (core reads views' tangents through it)


class _Window:
    """What numpy reads an array off: `interface` over the memory of `owner` (kept alive)."""

    def __init__(self, owner: np.ndarray, interface: dict) -> None:
        self.owner, self.__array_interface__ = owner, interface


def _window(owner: np.ndarray, offset: int, like: np.ndarray) -> np.ndarray:
    """The elements of `owner`'s memory `offset` bytes from its start, with `like`'s shape and
    strides (a view: writes land in `owner`)."""
    interface = {
        "data": (_address(owner) + offset, False),
        "shape": like.shape,
        "strides": like.strides,
        "typestr": owner.dtype.str,
        "version": 3,
    }
    return np.asarray(_Window(owner, interface))


def _zeros_laid_out_as(a: np.ndarray) -> np.ndarray:
    """Zeros with `a`'s shape and strides, on memory of their own."""
    item = a.itemsize
    low = sum(s * (n - 1) for n, s in zip(a.shape, a.strides) if s < 0 and n) // item
    high = sum(s * (n - 1) for n, s in zip(a.shape, a.strides) if s > 0 and n) // item
    memory = np.zeros(high - low + 1 if a.size else 1, a.dtype)
    return _window(memory, -low * item, a)
