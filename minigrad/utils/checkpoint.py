"""utils.checkpoint: trade compute for memory by recomputing a block's forward during backward.

Like PyTorch 2.13: leaving out `use_reentrant` warns and falls back to the reentrant variant.

* use_reentrant=True: the block runs under no_grad; the graph gets one `CheckpointFunctionBackward`
  node that keeps only the inputs. Its backward re-runs the block with grad enabled on detached
  inputs and backpropagates through that fresh graph (parameters used inside accumulate their
  .grad there). As in PyTorch, if no input requires grad the output does not either.
* use_reentrant=False: parameters used inside count even when no input requires grad. PyTorch
  does this with saved-tensor hooks; minigrad instead records the block once, notes where its
  graph leaves the block (inputs, parameters, earlier nodes), drops that graph and attaches one
  `CheckpointWithoutReentrantBackward` node with exactly those edges. Recomputation is as above.
  Unlike PyTorch, the grad_fn is that node rather than the block's last op.

Both restore minigrad's RNG state for the recomputation (preserve_rng_state=True), so random
ops such as dropout draw the same numbers twice.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from ..autograd.api import backward as autograd_backward
from ..autograd.api import grad as autograd_grad
from ..autograd.function import Function
from ..core.generator import default_generator
from ..core.grad_mode import enable_grad, is_grad_enabled
from ..core.node import Node
from ..core.tensor import Tensor

__all__ = ["checkpoint", "checkpoint_sequential"]

_USE_REENTRANT_WARNING = (
    "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in "
    "PyTorch 2.9, calling checkpoint without use_reentrant will raise an exception. "
    "use_reentrant=False is recommended, but if you need to preserve the current default "
    "behavior, you can pass use_reentrant=True. Refer to docs for more details on the "
    "differences between the two variants."
)


@contextlib.contextmanager
def _rng_as(saved: Any) -> Iterator[None]:
    """Run the block with the generator as it was at forward time, then restore the current one."""
    if saved is None:
        yield
        return
    outer = default_generator.get_state()
    default_generator.set_state(saved)
    try:
        yield
    finally:
        default_generator.set_state(outer)


def _snapshot_rng(preserve: bool) -> Any:
    return default_generator.get_state() if preserve else None


def _detach_inputs(args: tuple) -> tuple:
    return tuple(
        a.detach().requires_grad_(a.requires_grad) if isinstance(a, Tensor) else a for a in args
    )


def _as_outputs(outputs: Any) -> tuple:
    return outputs if isinstance(outputs, tuple) else (outputs,)


# --- use_reentrant=True ------------------------------------------------------------------------
class CheckpointFunction(Function):
    """Forward without a graph; backward recomputes and backpropagates (PyTorch's algorithm)."""

    @staticmethod
    def forward(ctx: Any, run_function: Callable, preserve_rng_state: bool, *args: Any) -> Any:
        if not any(a.requires_grad for a in args if isinstance(a, Tensor)):
            warnings.warn(
                "None of the inputs have requires_grad=True. Gradients will be None", stacklevel=4
            )
        ctx.run_function = run_function
        ctx.rng = _snapshot_rng(preserve_rng_state)
        ctx.inputs = [None if isinstance(a, Tensor) else a for a in args]
        ctx.tensor_indices = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.save_for_backward(*(a for a in args if isinstance(a, Tensor)))
        return run_function(*args)  # Function.apply already runs forward under no_grad

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> tuple:
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors, strict=True):
            inputs[i] = t
        detached = _detach_inputs(tuple(inputs))
        with _rng_as(ctx.rng), enable_grad():
            outputs = _as_outputs(ctx.run_function(*detached))
        pairs = [
            (o, g)
            for o, g in zip(outputs, grad_outputs, strict=False)
            if isinstance(o, Tensor) and o.requires_grad
        ]
        if not pairs:
            raise RuntimeError(
                "none of output has requires_grad=True, this checkpoint() is not necessary"
            )
        autograd_backward([o for o, _ in pairs], [g for _, g in pairs])
        grads = tuple(a.grad if isinstance(a, Tensor) else None for a in detached)
        return (None, None) + grads


# --- use_reentrant=False -----------------------------------------------------------------------
def _frontier(outputs: tuple, detached: tuple, first_new: int) -> list[Tensor]:
    """Stand-ins for the edges where the block's recorded graph leaves the block.

    A parameter stands for itself; an edge into an older node gets a placeholder tensor whose
    grad_fn is that node (shape and dtype from the consumer's input metadata), so that
    autograd.grad can capture the gradient sent along it.
    """
    inputs = {id(a) for a in detached if isinstance(a, Tensor)}
    found: dict[tuple[int, int], Tensor] = {}
    seen: set[Node] = set()
    stack = [o.grad_fn for o in outputs if isinstance(o, Tensor) and o.grad_fn is not None]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        for i, (nxt, nr) in enumerate(node.next_functions):
            if nxt is None or (id(nxt), nr) in found:
                continue
            if getattr(nxt, "_is_accumulate_grad", False):
                if id(nxt.variable) not in inputs:
                    found[(id(nxt), nr)] = nxt.variable
            elif nxt._seq_nr < first_new:
                shape, dt = node._input_meta[i]
                dt = getattr(dt, "np", dt)  # a minigrad dtype or a numpy one
                stand_in = Tensor._wrap(np.broadcast_to(np.zeros((), dt), shape))
                stand_in._grad_fn, stand_in._output_nr = nxt, nr
                found[(id(nxt), nr)] = stand_in
            else:
                stack.append(nxt)
    return list(found.values())


class CheckpointWithoutReentrant(Function):
    """Edges: the block's tensor inputs, then the frontier stand-ins; saves only the inputs."""

    @staticmethod
    def forward(ctx: Any, plan: dict, *tensors: Any) -> Any:
        n_inputs = len(plan["tensor_indices"])
        ctx.plan = plan
        ctx.save_for_backward(*tensors[:n_inputs])
        outputs = plan.pop("outputs")
        detached = tuple(o.detach() if isinstance(o, Tensor) else o for o in outputs)
        ctx.mark_non_differentiable(
            *(
                d
                for o, d in zip(outputs, detached, strict=True)
                if isinstance(o, Tensor) and not o.requires_grad
            )
        )
        return detached if plan["is_tuple"] else detached[0]

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> tuple:
        plan = ctx.plan
        args = list(plan["args"])
        for i, t in zip(plan["tensor_indices"], ctx.saved_tensors, strict=True):
            args[i] = t
        detached = _detach_inputs(tuple(args))
        with _rng_as(plan["rng"]), enable_grad():
            outputs = _as_outputs(plan["function"](*detached, **plan["kwargs"]))
        pairs = [
            (o, g)
            for o, g in zip(outputs, grad_outputs, strict=False)
            if isinstance(o, Tensor) and o.requires_grad and g is not None
        ]
        inputs = [detached[i] for i in plan["tensor_indices"]]
        targets = [t for t in inputs + plan["frontier"] if t.requires_grad]
        grads = iter(
            autograd_grad([o for o, _ in pairs], targets, [g for _, g in pairs], allow_unused=True)
            if pairs and targets
            else ()
        )
        result = [next(grads, None) if t.requires_grad else None for t in inputs + plan["frontier"]]
        return (None, *result)


def _checkpoint_without_reentrant(
    function: Callable, preserve: bool, args: tuple, kwargs: dict
) -> Any:
    if not is_grad_enabled():
        return function(*args, **kwargs)
    rng = _snapshot_rng(preserve)
    first_new = Node()._seq_nr  # every node the block records is numbered after this one
    detached = _detach_inputs(args)
    outputs = function(*detached, **kwargs)
    frontier = _frontier(_as_outputs(outputs), detached, first_new)
    tensor_indices = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
    plan = {
        "function": function,
        "kwargs": kwargs,
        "rng": rng,
        "frontier": frontier,
        "args": [None if isinstance(a, Tensor) else a for a in args],
        "tensor_indices": tensor_indices,
        "outputs": _as_outputs(outputs),
        "is_tuple": isinstance(outputs, tuple),
    }
    return CheckpointWithoutReentrant.apply(plan, *(args[i] for i in tensor_indices), *frontier)


# --- public API --------------------------------------------------------------------------------
def checkpoint(
    function: Callable,
    *args: Any,
    use_reentrant: bool | None = None,
    preserve_rng_state: bool = True,
    **kwargs: Any,
) -> Any:
    """function(*args, **kwargs), keeping only the inputs and recomputing the rest in backward."""
    if use_reentrant is None:
        warnings.warn(_USE_REENTRANT_WARNING, UserWarning, stacklevel=2)
        use_reentrant = True
    if use_reentrant:
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
        return CheckpointFunction.apply(function, preserve_rng_state, *args)
    return _checkpoint_without_reentrant(function, preserve_rng_state, args, kwargs)


def checkpoint_sequential(
    functions: Any, segments: int, input: Any, use_reentrant: bool | None = None, **kwargs: Any
) -> Any:
    """Run `functions` (a list or Sequential) in `segments` checkpointed chunks; the last chunk
    runs normally."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter "
            "should be passed explicitly. In version 2.9 we will raise an exception if "
            "use_reentrant is not passed. use_reentrant=False is recommended, but if "
            "you need to preserve the current default behavior, you can pass "
            "use_reentrant=True. Refer to docs for more details on the differences "
            "between the two variants.",
            UserWarning,
            stacklevel=2,
        )
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    functions = list(functions.children()) if hasattr(functions, "children") else list(functions)

    def run(start: int, end: int) -> Callable:
        def forward(x: Any) -> Any:
            for j in range(start, end + 1):
                x = functions[j](x)
            return x

        return forward

    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(
            run(start, end), input, use_reentrant=use_reentrant, preserve_rng_state=preserve
        )
    return run(end + 1, len(functions) - 1)(input)
