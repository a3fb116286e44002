"""torch.autograd.backward and torch.autograd.grad on top of the engine."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ..core.node import edge_of
from ..core.shapes import empty_like
from ..core.tensor import Size, Tensor
from ..ops.shape import stack
from . import engine

CREATE_GRAPH_WARNING = (
    "Using backward() with create_graph=True will create a reference cycle between the parameter "
    "and its gradient which can cause a memory leak. We recommend using autograd.grad when "
    "creating the graph to avoid this. If you have to use this function, make sure to reset the "
    ".grad fields of your parameters to None after use to break the cycle and avoid the leak."
)


_warned = {"create_graph": False}


def _as_tuple(x: Any) -> tuple:
    if x is None:
        return ()
    if isinstance(x, Tensor):
        return (x,)
    return tuple(x)


def _make_grads(outputs: tuple, grads: tuple, is_grads_batched: bool = False) -> list:
    """One seed per output: implicit ones for a scalar, else the given gradient checked and cast
    to the output's dtype (PyTorch's engine validates root gradients like any other). Extra
    gradients are ignored and too few are an error, as in PyTorch."""
    if len(grads) < len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grads)} gradients")
    result = []
    for i, (out, g) in enumerate(zip(outputs, grads)):
        if g is None and not out.requires_grad:
            result.append(None)  # the engine refuses this root next
            continue
        if g is None:
            data = out._data
            if data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if data.dtype.kind != "f":
                raise RuntimeError(
                    f"grad can be implicitly created only for real scalar outputs "
                    f"but got {out.dtype}"
                )
            result.append(_implicit_seed(data))
            continue
        if not isinstance(g, Tensor):
            g = Tensor._wrap(np.asarray(g, dtype=out._data.dtype))
        if g.shape != out.shape:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and "
                f"output[{i}] has a shape of {out.shape}."
            )
        if g.dtype.is_floating_point != out.dtype.is_floating_point:
            raise RuntimeError(
                f"For complex Tensors, both grad_output and output are required to "
                f"have the same dtype. Mismatch in dtype: grad_output[{i}] has a "
                f"dtype of {g.dtype} and output[{i}] has a dtype of {out.dtype}."
            )
        if g._data.dtype != out._data.dtype:
            g = Tensor._wrap(g._data.astype(out._data.dtype))
        result.append(g)
    return result


def _implicit_seed(data: np.ndarray) -> Tensor:
    """The 1 a scalar output is seeded with, shaped like it ((), (1,), (1, 1), ...)."""
    return Tensor._wrap(np.array(1, dtype=data.dtype).reshape(data.shape))


def _check_roots_and_inputs(outputs: tuple, inputs: tuple | None, retain: bool) -> None:
    """What PyTorch's engine checks before a pass: every root requires grad, every input is a
    Tensor that does; `retain` (backward's `inputs=`): each input first keeps its .grad
    (retain_grad, which is what refuses one that does not require grad)."""
    for i, out in enumerate(outputs):
        if edge_of(out)[0] is None:  # (a view made under no_grad requires grad, has no edge)
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn"
            )
    for t in inputs or ():
        if not isinstance(t, Tensor):
            raise RuntimeError(
                f"all inputs have to be Tensors or GradientEdges, but got {type(t).__name__}"
            )
        if retain:
            t.retain_grad()
        if not t.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")


def backward(
    tensors: Any,
    grad_tensors: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    grad_variables: Any = None,
    inputs: Any = None,
) -> None:
    """Accumulate d(tensors)/d(leaf) into each leaf's .grad (or only into `inputs`)."""
    if grad_variables is not None:
        message = "`grad_variables` is deprecated. Use `grad_tensors` instead."
        warnings.warn(message, FutureWarning, stacklevel=2)
        grad_tensors = grad_variables
    outputs = _as_tuple(tensors)
    grads = _as_tuple(grad_tensors) if grad_tensors is not None else (None,) * len(outputs)
    inputs = _as_tuple(inputs) if inputs is not None else None
    if inputs is not None and len(inputs) == 0:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    if retain_graph is None:
        retain_graph = create_graph
    if create_graph and not _warned["create_graph"]:
        _warned["create_graph"] = True  # once per process, like PyTorch's TORCH_WARN_ONCE
        warnings.warn(CREATE_GRAPH_WARNING, UserWarning, stacklevel=3)
    grads = _make_grads(outputs, grads)
    _check_roots_and_inputs(outputs, inputs, retain=True)  # a non-leaf input keeps its .grad
    engine.execute(outputs, grads, retain_graph, create_graph, inputs, capture=False)


def grad(
    outputs: Any,
    inputs: Any,
    grad_outputs: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    only_inputs: bool = True,
    allow_unused: bool | None = None,
    is_grads_batched: bool = False,
    materialize_grads: bool = False,
) -> tuple:
    """Return d(outputs)/d(inputs) without touching any .grad."""

    outputs = _as_tuple(outputs)
    inputs_t = _as_tuple(inputs)
    if not inputs_t:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    if allow_unused is None:
        allow_unused = materialize_grads
    if materialize_grads and not allow_unused:
        raise ValueError(
            "Expected allow_unused to be True or not passed when "
            "materialize_grads=True, but got: allow_unused=False."
        )
    grads = _as_tuple(grad_outputs) if grad_outputs is not None else (None,) * len(outputs)
    if retain_graph is None:
        retain_graph = create_graph
    if is_grads_batched:
        _check_roots_and_inputs(outputs, inputs_t, retain=False)
        return _batched(outputs, inputs_t, grads, retain_graph, create_graph, allow_unused)
    grads = _make_grads(outputs, grads)
    _check_roots_and_inputs(outputs, inputs_t, retain=False)
    result = engine.execute(outputs, grads, retain_graph, create_graph, inputs_t, capture=True)
    final = []
    for i, (t, g) in enumerate(zip(inputs_t, result)):
        if g is None:
            if not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have "
                    "been used in the graph. Set allow_unused=True if this is the "
                    "desired behavior."
                )
            if materialize_grads:  # PyTorch: zeros_like(input, requires_grad=create_graph)
                g = Tensor._wrap(empty_like(t._data), create_graph)
                g._data.fill(0)
        elif not create_graph and g._grad_fn is not None:  # (else as captured: maybe a view)
            g = g.detach()
        final.append(g)
    return tuple(final)


def _batched(
    outputs: tuple,
    inputs: tuple,
    grads: tuple,
    retain_graph: bool,
    create_graph: bool,
    allow_unused: bool,
) -> tuple:
    """`is_grads_batched=True`: the first dimension of each grad_output is a batch; one
    vector-Jacobian product per row, stacked (PyTorch vectorises this with vmap)."""
    sizes = set()
    for i, (out, g) in enumerate(zip(outputs, grads)):
        g_shape = tuple(g.shape) if isinstance(g, Tensor) else ()
        if g_shape[1:] != tuple(out.shape) or not g_shape:
            raise RuntimeError(
                "If `is_grads_batched=True`, we interpret the first dimension of each grad_output "
                "as the batch dimension. The sizes of the remaining dimensions are expected to "
                "match the shape of corresponding output, but a mismatch was detected: "
                f"grad_output[{i}] has a shape of {Size(g_shape[1:])} and output[{i}] has a shape "
                f"of {out.shape}. If you only want some tensors in `grad_output` to be considered "
                "batched, consider using vmap."
            )
        sizes.add(g_shape[0])
    if len(sizes) != 1:
        raise RuntimeError(f"the grad_outputs have different batch sizes: {sorted(sizes)}")
    batch = sizes.pop()
    rows = [
        grad(outputs, inputs, [g[b] for g in grads], retain_graph or b < batch - 1,
             create_graph, allow_unused=allow_unused)
        for b in range(batch)
    ]  # fmt: skip
    return tuple(
        None if rows and rows[0][i] is None else stack([r[i] for r in rows])
        for i in range(len(inputs))
    )


def tensor_backward(
    self: Tensor,
    gradient: Tensor | None = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    inputs: Any = None,
) -> None:
    """Tensor.backward: `autograd.backward` from this tensor (attached in autograd/__init__).
    The usual `loss.backward()` (an op's float scalar, nothing else given) goes straight to
    the engine: there is nothing for `backward`'s checks to find."""
    data = self._data
    if (
        gradient is None
        and not create_graph
        and inputs is None
        and self._grad_fn is not None
        and self._base is None
        and data.size == 1
        and data.dtype.kind == "f"
    ):
        seeds = [_implicit_seed(data)]
        engine.execute((self,), seeds, bool(retain_graph), False, None, capture=False)
        return
    backward(self, gradient, retain_graph, create_graph, inputs=inputs)


# errors and help() name it as PyTorch does: "Tensor.backward() got an unexpected keyword ..."
tensor_backward.__name__, tensor_backward.__qualname__ = "backward", "Tensor.backward"
