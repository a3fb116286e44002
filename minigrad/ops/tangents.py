"""Forward-mode AD inside the ops: an op whose inputs carry tangents gives its output one.

Every op joins the graph through `record` (ops/_record.py); while a dual level is open,
`record` hands the op here with its inputs, what it saved and its output. The op's node class
holds its tangent formula, `jvp`, beside its `backward` (PyTorch's forward derivative beside
its backward one in derivatives.yaml). The formula runs on a *shadow* node: the op's class,
attributes and saved tensors, never connected to any graph, with `next_functions` marking
which inputs carry a tangent (so that formulas asking "is input i needed?" say yes exactly
for those). Formulas work on Tensors and are recorded like any op (a tangent can itself be
differentiated: reverse over forward); their own ops carry no tangents (`computing_tangents`).

Two rules serve most ops, as in PyTorch:
- `elementwise`: for an op whose output element depends only on the same place of each input,
  each input's Jacobian is diagonal, so its term of the tangent is the backward formula
  applied to that input's tangent (broadcast to the output's shape) - PyTorch's
  `auto_element_wise`;
- an op linear in its input applies itself to the tangent (`auto_linear`): written per node,
  one line each (a view of the tangent for a view op).
"""

from __future__ import annotations

from typing import Any

from ..core import forward_grad
from ..core.forward_grad import computing_tangents, set_tangent, tangent_of
from ..core.node import Node
from ..core.saved import SavedTensor
from ..core.tensor import Tensor

_TANGENT = Node.__new__(Node)  # marks an input that carries a tangent in a shadow node


def has_tangents(inputs: tuple) -> bool:
    for x in inputs:
        if x is not None and tangent_of(x) is not None:
            return True
    return False


def attach(
    node_cls: type[Node],
    out: Tensor,
    inputs: tuple,
    save: dict | None,
    save_for: dict | None,
    save_result: bool,
    attrs: dict,
) -> None:
    """Give `out` its tangent when an input of the op carries one (called by `record`)."""
    tangents = [None if x is None else tangent_of(x) for x in inputs]
    if all(t is None for t in tangents) or out._data.dtype.kind not in "fc":
        return  # (an integer or bool output takes no tangent, as in PyTorch)
    node = shadow(node_cls, inputs, tangents, save, save_for, out if save_result else None, attrs)
    with computing_tangents():
        tangent = node.jvp(out, tangents)
    set_tangent(out, _as_output_tangent(tangent, out))
    _keep_with_saved_output(out)


def _keep_with_saved_output(out: Tensor) -> None:
    """A node that saved its own output gives it back with its tangent (PyTorch's
    SavedVariable keeps the forward grad): forward over reverse needs it in the backward."""
    node = out._grad_fn
    for value in (node._saved or {}).values() if node is not None else ():
        if type(value) is SavedTensor and value._tensor is None and value._data is out._data:
            value._fw_grad = out._fw_grad


def attach_many(node_cls: type[Node], outs: list, inputs: tuple, attrs: dict) -> None:
    """`attach` for an op with several outputs: its `jvp` returns one tangent per output."""
    tangents = [None if x is None else tangent_of(x) for x in inputs]
    if all(t is None for t in tangents):
        return
    node = shadow(node_cls, inputs, tangents, None, None, None, attrs)
    with computing_tangents():
        results = node.jvp(outs, tangents)
    for out, tangent in zip(outs, results, strict=True):
        if out._data.dtype.kind in "fc":
            set_tangent(out, _as_output_tangent(tangent, out))


def shadow(
    node_cls: type[Node],
    inputs: tuple,
    tangents: list,
    save: dict | None,
    save_for: dict | None,
    result: Tensor | None,
    attrs: dict,
) -> Node:
    """The op's node, holding what it saved, outside any graph (see the module docstring)."""
    node = node_cls.__new__(node_cls)  # (no sequence number used up: PyTorch's stay consecutive)
    node.__dict__.update(attrs)
    node.next_functions = tuple((None if t is None else _TANGENT, 0) for t in tangents)
    node._input_meta = tuple(None if x is None else (x._data.shape, x._data.dtype) for x in inputs)
    saved = dict(save or {})
    for name, (t, _) in (save_for or {}).items():
        saved[name] = t  # (every operand: a tangent may need what a gradient would not)
    if result is not None:
        saved["result"] = result
    if saved:
        node._save(saved)
    return node


def _as_output_tangent(tangent: Any, out: Tensor) -> Tensor | None:
    """A formula's tangent as the output's: None stays None (no tangent), a Tensor of the
    output's shape; anything else is a bug in the formula, reported as one."""
    if tangent is None:
        return None
    if not isinstance(tangent, Tensor) or tangent._data.shape != out._data.shape:
        shape = getattr(tangent, "shape", type(tangent).__name__)
        raise RuntimeError(
            f"internal error: the forward derivative of {node_name(out)} gave {shape} "
            f"for an output of shape {tuple(out._data.shape)}"
        )
    if tangent._data.dtype != out._data.dtype:
        tangent = tangent.to(out.dtype)
    return tangent


def node_name(out: Tensor) -> str:
    fn = out._grad_fn
    return fn.name() if fn is not None else "an op"


# --- the two rules most nodes use ---------------------------------------------------------
def elementwise(node: Node, out: Tensor, tangents: list) -> Tensor | None:
    """auto_element_wise: sum over inputs of backward(tangent_i)[i]."""
    shape = out._data.shape
    total = None
    for i, t in enumerate(tangents):
        if t is None:
            continue
        g = t if t._data.shape == shape else t.expand(shape)
        term = node.backward(g)
        term = term[i] if isinstance(term, tuple) else term
        if term is None:
            continue
        if not isinstance(term, Tensor):  # (a formula answering a constant, e.g. zeros)
            term = Tensor._wrap(term)
        if term._data.shape != shape:
            term = term.expand(shape)
        total = term if total is None else total + term
    return total


def linear(apply):
    """auto_linear for a one-input op: `apply(node, out, tangent)` runs the op on the tangent."""

    def jvp(node: Node, out: Tensor, tangents: list) -> Tensor | None:
        t = tangents[0]
        return None if t is None else apply(node, out, t)

    return jvp


def level_open() -> bool:
    return forward_grad.Levels.level is not None
