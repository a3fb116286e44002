"""What a pass reports, in named kinds declared once: the vocabulary of the observer channel.

Each kind is declared below as a function whose keyword-only parameters are the record's fields,
typed; `@kind` turns the declaration into the constructor of that kind's records and enters it
in `KINDS`. A record is a plain dict, `{"kind": "edge", "source": ..., ...}`, so code that reads
`r["kind"]` and `r["node"]` works on it as it is. Both producers build records with these
constructors: minigrad's engine (through autograd/report.py) and the explorer's observer of a
real torch pass (widgets/torch_records.py); the explorer turns each kind into frames
(widgets/frames.py) and words it (widgets/texts.py). A new kind is one declaration here; the
tests then name every place that still lacks it.

Nodes and tensors may be minigrad's or torch's, so they are typed by what both have. Arrays are
numpy copies made when the step happened: later changes to a gradient do not reach a record.
"""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable
from typing import Any, Literal, Protocol, runtime_checkable

import numpy as np

Record = dict[str, Any]
Array = np.ndarray
HookKind = Literal[
    "tensor", "retain_grad", "pre", "post", "post_accumulate", "module_pre", "module"
]
HOOK_KINDS: tuple[str, ...] = typing.get_args(HookKind)


@runtime_checkable
class GraphNode(Protocol):
    """A backward node of either library (`grad_fn`, `AccumulateGrad`)."""

    next_functions: Any

    def name(self) -> str: ...


@runtime_checkable
class TensorLike(Protocol):
    """A tensor of either library."""

    grad_fn: Any
    requires_grad: bool
    shape: Any


KINDS: dict[str, Callable[..., Record]] = {}


def kind(declaration: Callable[..., Any]) -> Callable[..., Record]:
    """Make a kind from its declaration: its name is the kind, its keyword-only parameters the
    fields (those with a default may be left out). The constructor refuses a missing or unknown
    field, so a producer cannot drift from the vocabulary unnoticed."""
    name = declaration.__name__
    params = inspect.signature(declaration).parameters
    defaults = {f: p.default for f, p in params.items() if p.default is not p.empty}
    required = frozenset(params) - defaults.keys()
    allowed = frozenset(params)

    @functools.wraps(declaration)
    def make(**fields: Any) -> Record:
        given = fields.keys()
        if not required <= given <= allowed:
            missing, unknown = sorted(required - given), sorted(given - allowed)
            raise TypeError(f"{name} record: missing fields {missing}, unknown fields {unknown}")
        record = {"kind": name, **fields}
        for field, default in defaults.items():
            record.setdefault(field, default)
        return record

    KINDS[name] = make
    return make


def fields(name: str) -> dict[str, Any]:
    """A kind's fields and their types (resolved annotations), in declaration order."""
    declaration = KINDS[name].__wrapped__
    hints = typing.get_type_hints(declaration, globalns=globals())
    return {f: hints[f] for f in inspect.signature(declaration).parameters}


# --- forward ---------------------------------------------------------------------------------
@kind
def node_created(
    *,
    node: GraphNode,
    name: str,
    inputs: list[TensorLike | None],
    output: TensorLike | None,
    shape: tuple[int, ...] | None,
    tangent: Array | None = None,
) -> Record:
    """An op joined the graph: `node` differentiates `output` (of `shape`) made from `inputs`.
    In forward mode (inside a dual level), `tangent` is the tangent `output` carries: the
    directional derivative computed in the same pass."""


# --- backward, in the order a pass reports them -------------------------------------------------
@kind
def backward_start(
    *,
    roots: list[TensorLike],
    root_nodes: list[GraphNode],
    retain_graph: bool | None,
    create_graph: bool | None,
    inputs: list[TensorLike] | None,
    dependencies: dict[GraphNode, int],
    capture: bool,
) -> Record:
    """A pass begins: how many gradients each node waits for (a root counts its seed too).
    `capture`: autograd.grad, which returns gradients instead of writing `.grad`."""


@kind
def edge(*, source: GraphNode | None, target: GraphNode, slot: int, grad: Array | None) -> Record:
    """A gradient travels into input `slot` of `target` (from the seed when `source` is None)."""


@kind
def buffer_sum(*, node: GraphNode, slot: int, before: Array, added: Array, after: Array) -> Record:
    """A second gradient for the same input of `node` is added to the one waiting there."""


@kind
def ready(*, node: GraphNode, queue: list[GraphNode]) -> Record:
    """Every gradient `node` waits for has arrived: it joins the ready queue (newest first)."""


@kind
def node_start(
    *, node: GraphNode, grad_outputs: list[Array | None], queue: list[GraphNode]
) -> Record:
    """`node` leaves the queue and runs on the gradients of its forward outputs."""


@kind
def capture(*, node: GraphNode, slot: int, index: int, grad: Array | None) -> Record:
    """autograd.grad keeps the gradient reaching `node`'s `slot` as its result `index`."""


@kind
def hook(
    *,
    hook: HookKind,
    node: GraphNode | None,
    slot: int | None,
    fn: str,
    function: Callable[..., Any] | None,
    grad: Array | list[Array | None] | None,
    returned: Array | list[Array | None] | bool | None,
    tensor: TensorLike | None = None,
    module: Any = None,
) -> Record:
    """A hook ran: which kind, on which node (and output `slot`), its name and the hook itself,
    what it saw (`grad`) and what it returned (True: something that is not gradients). `tensor`
    or `module`: whose hook it is, where the producer knows it."""


@kind
def node_run(
    *, node: GraphNode, grad_outputs: list[Array | None], grad_inputs: list[Array | None]
) -> Record:
    """`node` returned the gradients for its forward inputs (they are sent on next)."""


@kind
def accumulate(
    *,
    node: GraphNode,
    variable: TensorLike,
    before: Array | None,
    added: Array,
    after: Array | None,
) -> Record:
    """A leaf's AccumulateGrad wrote `variable.grad`: `before` + `added` = `after`."""


@kind
def freed(*, node: GraphNode, saved: list[str]) -> Record:
    """`node` let go of the tensors it saved for backward (no retain_graph)."""


@kind
def error(*, node: GraphNode | None, error: str, message: str) -> Record:
    """The pass failed while running `node` (None: before any node ran): the exception's type
    name and message."""


@kind
def backward_end(*, results: list[Array | None]) -> Record:
    """The pass finished; `results` are autograd.grad's gradients (empty for backward())."""
