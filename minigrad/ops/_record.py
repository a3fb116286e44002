"""How a forward op joins the graph: its node, the node's edges and input metadata, what it
saves, and the announcement observers and anomaly mode hear. Ops call `record`/`record_many`;
custom Functions (autograd/function.py) use `connect` and `announce` on the node they made."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from ..core import anomaly, dtypes, events, grad_mode
from ..core.dtypes import SCALAR_NAMES
from ..core.forward_grad import Levels
from ..core.grad_mode import Anywhere
from ..core.node import Node, edge_of
from ..core.observe import LISTENERS, emit
from ..core.tensor import UNTRACKED_MESSAGE, Tensor, _Untracked
from . import tangents

USUAL_OPERANDS = frozenset({Tensor, float, int})  # (checked first, by type)


def is_operand(value: Any) -> bool:
    """What an op takes where a Tensor goes: a Tensor, a number, or (beyond PyTorch) a numpy
    array. Anything else (None, a list, a string) is refused, never read as NaN."""
    if type(value) in USUAL_OPERANDS:
        return True
    return isinstance(value, (Tensor, numbers.Number, np.ndarray, np.generic))


def argument_error(fn: str, arg: str, position: int, value: Any) -> TypeError:
    """PyTorch's TypeError for an argument that is not a Tensor (nor a number)."""
    return TypeError(
        f"{fn}(): argument '{arg}' (position {position}) must be Tensor, not {type(value).__name__}"
    )


def as_tensor_like(value: Any, like: Tensor | None = None) -> Tensor:
    """Python numbers become constant tensors (weak dtype handled by `promote_data`)."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (bool, np.bool_)):
        return Tensor._wrap(np.array(bool(value)))
    if isinstance(value, numbers.Integral):
        return Tensor._wrap(np.array(int(value), dtype=np.int64))
    if isinstance(value, numbers.Real):
        return Tensor._wrap(np.array(float(value), dtype=dtypes.get_default_dtype().np))
    return Tensor._wrap(np.asarray(value))


def _priority(value: Any) -> int:
    if isinstance(value, (Tensor, np.ndarray)):
        return 2 if np.ndim(value) else 1
    return 0


def _py_dtype(value: Any) -> dtypes.dtype:
    if isinstance(value, np.ndarray):
        return dtypes.from_numpy_dtype(value.dtype)
    if isinstance(value, (bool, np.bool_)):
        return dtypes.bool_
    if isinstance(value, numbers.Integral):
        return dtypes.int64
    return dtypes.float32


_PY_CATEGORY = {bool: 0, int: 1, float: 2}


def operands(*values: Any) -> tuple[list[Tensor], list[np.ndarray], dtypes.dtype]:
    """Tensors for each operand, their arrays cast to the promoted dtype, and that dtype."""
    common = _common_dtype(values)
    if common is not None:  # the usual case, decided without the general promotion rules
        tensors, arrays = [], []
        for v in values:
            if not isinstance(v, Tensor):  # a Python number (_common_dtype saw to that)
                v = Tensor._wrap(np.asarray(v, dtype=common.np))
                v._wrapped_number = True  # _wrapped_number, inlined: this path is hot
            tensors.append(v)
            arrays.append(v._data)
        return tensors, arrays, common
    for position, v in enumerate(values, 1):
        if not is_operand(v):
            raise argument_error("operand", "other", position, v)
    result = dtypes.promote(
        [(_priority(v), v.dtype if isinstance(v, Tensor) else _py_dtype(v)) for v in values]
    )
    # Python numbers go straight to the result dtype, never through float32 first.
    tensors = [
        v
        if isinstance(v, Tensor)
        else _wrapped_number(np.asarray(v, dtype=result.np))
        if _priority(v) == 0
        else Tensor._wrap(np.asarray(v))
        for v in values
    ]
    arrays = [t._data if t._data.dtype == result.np else cast(t._data, result.np) for t in tensors]
    return tensors, arrays, result


def cast(x: np.ndarray, to: np.dtype) -> np.ndarray:
    """`x` in dtype `to` for computing, an expanded array staying expanded: numpy would lay the
    copy out with the broadcast dims innermost, and the op's result would follow that layout
    where PyTorch's keeps the dims in order (TensorIterator skips zero strides)."""
    if 0 in x.strides and x.size > 1:
        whole = tuple(slice(None) if step else slice(0, 1) for step in x.strides)
        return np.broadcast_to(x[whole].astype(to), x.shape)
    return x.astype(to)


def _wrapped_number(data: np.ndarray) -> Tensor:
    """A Python number as a 0-d tensor, marked as PyTorch marks one: saving it for backward
    keeps it as it is (no saved-tensor hook sees it)."""
    t = Tensor._wrap(data)
    t._wrapped_number = True
    return t


def _common_dtype(values: tuple) -> dtypes.dtype | None:
    """The one dtype of all tensor operands when Python numbers cannot change it."""
    common = None
    top = 0  # the highest category among the Python numbers
    for v in values:
        if isinstance(v, Tensor):
            d = v._data.dtype
            if common is None:
                common = d
            elif d != common:
                return None
        else:
            category = _PY_CATEGORY.get(type(v))
            if category is None:
                return None
            top = max(top, category)
    found = dtypes._BY_NUMPY.get(common) if common is not None else None
    if found is None or top > found.category:
        return None
    return found


def should_record(inputs: tuple) -> bool:
    """Grad mode on, some input requires grad, and some input is not an inference tensor (as in
    PyTorch, where inference tensors lack the autograd dispatch key: an op on them alone is not
    recorded, even where they require grad; a Python number counts as a normal tensor)."""
    if Anywhere.grad_off and not grad_mode._State.enabled:
        return False
    wanted = normal = False
    for t in inputs:
        if t is None:
            continue
        requires = (
            t._requires_grad
            or t._grad_fn is not None
            or (t._base is not None and t._base.requires_grad)
        )
        if not t._is_inference:
            if requires:
                return True  # (the usual case)
            normal = True
        elif requires:
            wanted = True
    return wanted and normal


def record(
    node_cls: type[Node],
    data: np.ndarray,
    inputs: tuple,
    save: dict | None = None,
    save_result: bool = False,
    save_for: dict | None = None,
    **attrs: Any,
) -> Tensor:
    """Wrap `data` as the op's output and, when grad is on, attach a `node_cls` node to it.

    `inputs` are the tensors gradients flow back to (None for a non-tensor slot); `save` the
    tensors backward needs (only those, so that unrelated in-place changes stay legal);
    `save_for` those it needs only for one input's gradient, `{name: (tensor, i)}`: saved
    when input i has a gradient edge (PyTorch's should_compute_output: a view made under
    no_grad requires grad but has none), else None.
    """
    out = Tensor._wrap(data)
    if not should_record(inputs):
        if Levels.active and tangents.has_tangents(inputs):
            tangents.attach(node_cls, out, inputs, save, save_for, save_result, attrs)
        return out
    if data.dtype.kind in "biu":  # an integer result of a float input that requires grad
        raise RuntimeError(f"Autograd not support dtype: {SCALAR_NAMES[data.dtype.name]}")
    given = save
    node = connect(node_cls(), inputs)
    if attrs:
        node.__dict__.update(attrs)
    out._grad_fn = node
    if save_for:
        edges, wanted = node.next_functions, {} if save is None else dict(save)
        for name, (t, i) in save_for.items():  # (a loop: a comprehension costs a frame)
            wanted[name] = t if edges[i][0] is not None else None
        save = wanted
    if save:
        node._save(save)
    if save_result:
        node._save({"result": out})
    if Levels.active and tangents.has_tangents(inputs):
        tangents.attach(node_cls, out, inputs, given, save_for, save_result, attrs)
    if LISTENERS or anomaly._State.enabled:
        announce(node, inputs, out)
    return out


def record_many(
    node_cls: type[Node], datas: list[np.ndarray], inputs: tuple, **attrs: Any
) -> list[Tensor]:
    """Like `record`, for an op with several outputs: one node, output i has output_nr i."""
    outs = [Tensor._wrap(d) for d in datas]
    if Levels.active and tangents.has_tangents(inputs):
        tangents.attach_many(node_cls, outs, inputs, attrs)
    if not should_record(inputs):
        return outs
    node = connect(node_cls(), inputs)
    if attrs:
        node.__dict__.update(attrs)
    node._num_outputs = len(outs)
    node._out_meta = tuple((d.shape, d.dtype) for d in datas)
    for i, out in enumerate(outs):
        out._grad_fn, out._output_nr = node, i
    announce(node, inputs, outs[0])
    return outs


def connect(node: Node, inputs: tuple) -> Node:
    """Give `node` one edge per input (where that input's gradient goes) and the metadata the
    gradient sent there is checked against (PyTorch's: the receiving node's)."""
    edges, metas = [], []
    for t in inputs:
        if t is None:
            edges.append((None, 0))
            metas.append(None)
            continue
        fn = t._grad_fn
        if t._base is None and (fn is not None or not t._requires_grad):  # (the usual cases:
            edges.append((fn, t._output_nr) if fn is not None else (None, 0))  # an op's output,
            made = t._made_meta  # or a tensor that does not require grad; edge_of, inlined)
            metas.append(made if made is not None else (t._data.shape, t._data.dtype))
        else:
            edge = edge_of(t)
            edges.append(edge)
            metas.append(input_meta(t, edge))
    node.next_functions, node._input_meta = tuple(edges), tuple(metas)
    return node


def input_meta(t: Tensor, edge: tuple) -> tuple:
    """(shape, dtype) a gradient sent along `edge` (t's) is checked against: the receiving
    node's, as PyTorch checks it."""
    if t._grad_fn is None and edge[0] is not None:  # a leaf: its AccumulateGrad's shape,
        return edge[0]._input_meta[0]  # made before any in-place reshape (t_())
    if t._made_meta is not None:  # a non-leaf reshaped in place without a new history
        return t._made_meta
    return (t._data.shape, t._data.dtype)


def announce(node: Node, inputs: tuple, out: Tensor) -> None:
    """Anomaly mode remembers where the node was made; observers hear that it was (not of
    the ops a tangent formula runs: they are forward mode's arithmetic, not the program's)."""
    if anomaly._State.enabled:
        node._anomaly_trace = anomaly.forward_trace()
    if LISTENERS and not Levels.computing:
        shape = tuple(out._data.shape)
        tangent = tangents.tangent_of(out)
        emit(
            events.node_created(
                node=node,
                name=node.name(),
                inputs=list(inputs),
                output=out,
                shape=shape,
                tangent=None if tangent is None else np.array(tangent._data, copy=True),
            )
        )


def mark_view(out: Tensor, base: Tensor, multi_output: bool = False) -> Tensor:
    """Remember that `out` shares `base`'s storage (PyTorch's `as_view`): the root base, the
    same version counter, and how the view was made (`_creation_meta`), which decides whether
    writing it in place is allowed later (ops/inplace.py). Where its elements lie in the base is
    read off the memory both share when needed (inplace.memory_positions). A view of an
    inference tensor is a plain inference tensor, as in PyTorch."""
    if base._is_inference:  # (PyTorch: a plain inference tensor, which counts no versions)
        out._is_inference, out._version_counter = True, _Untracked()
        return out
    if type(base._version_counter) is _Untracked:  # (an inference tensor given normal .data:
        raise RuntimeError(UNTRACKED_MESSAGE)  # a view would share a version it has not got)
    out._base = base._base if base._base is not None else base
    out._version_counter = base._version_counter
    out._view_version = base._version_counter.value
    out._is_inference = False
    meta = creation_meta(multi_output)
    previous = base.__dict__.get("_creation_meta")
    if previous is not None and (meta is None or previous == "inference"):
        meta = previous  # a view of a view keeps why its base may not be written
    if meta is not None:
        out._creation_meta = meta
    return out


def creation_meta(multi_output: bool) -> str | None:
    """PyTorch's CreationMeta for a view made now: None (DEFAULT), "inference", "no_grad" or
    "multi_output" (split, chunk, unbind with grad mode on)."""
    if Anywhere.inference_blocks and grad_mode._State.inference:
        return "inference"
    if Anywhere.grad_off and not grad_mode._State.enabled:
        return "no_grad"
    return "multi_output" if multi_output else None
