"""torch.autograd.functional: Jacobians, Hessians and vector products of whole functions.

The same argument checks and messages as PyTorch's, the same strict-mode errors, zeros for
inputs an output does not depend on, and results detached unless create_graph=True. vjp, vhp
and the reverse-mode jacobian are reverse-mode `grad` calls. jvp, hvp and jacobian's
"forward-mode" strategy use the real forward mode (forward_ad's dual tensors) where PyTorch
uses the double-backward trick or vmapped forward AD: jvp is one forward pass, hvp one forward
pass over the gradient's backward (forward over reverse), and the forward-mode Jacobian one
forward pass per input element.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from ..core import grad_mode
from ..core.forward_grad import tangent_of
from ..core.tensor import Tensor
from ..creation import ones_like, zeros, zeros_like
from ..ops.shape import stack
from . import forward_ad
from .api import grad as autograd_grad

__all__ = ["hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"]

_STRICT_NONE = {
    "back": "The output of the user-provided function is independent of input {i}. "
    "This is not allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the "
    "grad_outputs when using the double backward trick to compute forward mode gradients. "
    "This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. "
    "This is not allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry "
    "{i} in the grad_jacobian. This is not allowed in strict mode as it prevents from using "
    "the double backward trick to replace forward mode AD.",
}

_STRICT_CONSTANT = {
    "outputs": "Output {i} of the user-provided function does not require gradients. The "
    "outputs must be computed in a differentiable manner from the input when running in "
    "strict mode.",
    "grad_inputs": "The gradient with respect to input {i} is independent of the inputs of "
    "the user-provided function. This is not allowed in strict mode.",
    "jacobian": "While computing the hessian, found that the jacobian of the user-provided "
    "function with respect to input {i} is independent of the input. This is not allowed in "
    "strict mode. You should ensure that your function is twice differentiable and that the "
    "jacobian depends on the inputs (this would be violated by a linear function for example).",
    "hessian": "The hessian of the user-provided function with respect to input {i} is "
    "independent of the input. This is not allowed in strict mode. You should ensure that "
    "your function is thrice differentiable and that the hessian depends on the inputs.",
}


def _as_tuple(value: Any, arg_name: str, fn_name: str) -> tuple[bool, tuple]:
    """(was it a tuple, the tensors as a tuple); anything but tensors is a TypeError."""
    is_tuple = isinstance(value, tuple)
    values = value if is_tuple else (value,)
    for i, el in enumerate(values):
        if not isinstance(el, Tensor):
            where = f"value at index {i}" if is_tuple else f"given {arg_name}"
            raise TypeError(
                f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of "
                f"Tensors but the {where} has type {type(el)}."
            )
    return is_tuple, values


def _unpack(result: tuple, was_tuple: bool | tuple[bool, bool]) -> Any:
    """Undo `_as_tuple` on a result (or on both levels of a nested one)."""
    if isinstance(was_tuple, tuple):
        outer, inner = was_tuple
        if not inner:
            result = tuple(el[0] for el in result)
        return result if outer else result[0]
    return result if was_tuple else result[0]


def _preprocess(inputs: tuple, create_graph: bool, need_graph: bool) -> tuple:
    # New tensor objects always (differentiable aliases for create_graph), so that the caller's
    # tensors, also captured by func, are told apart from the ones we differentiate by.
    return tuple(
        x.view_as(x) if create_graph and x.requires_grad else x.detach().requires_grad_(need_graph)
        for x in inputs
    )


def _postprocess(values: tuple, create_graph: bool) -> tuple:
    if create_graph:
        return values
    return tuple(v.detach() if isinstance(v, Tensor) else _postprocess(v, False) for v in values)


def _validate_v(v: tuple, other: tuple, other_is_tuple: bool) -> None:
    if len(other) != len(v):
        if other_is_tuple:
            raise RuntimeError(
                f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}."
            )
        raise RuntimeError("The given v should contain a single Tensor.")
    for idx, (el_v, el_other) in enumerate(zip(v, other)):
        if el_v.size() != el_other.size():
            prepend = f"Entry {idx} in " if other_is_tuple else ""
            raise RuntimeError(
                f"{prepend}v has invalid size: should be {el_other.size()} but got {el_v.size()}."
            )


def _check_requires_grad(values: tuple, kind: str, strict: bool) -> None:
    if not strict:
        return
    for i, value in enumerate(values):
        if value is None:
            raise RuntimeError(
                f"The output of the user-provided function is independent of input {i}. "
                "This is not allowed in strict mode."
            )
        if not value.requires_grad:
            raise RuntimeError(_STRICT_CONSTANT[kind].format(i=i))


def _grad(
    outputs: tuple, inputs: tuple, grad_outputs: tuple | None = None, create_graph: bool = False
) -> tuple:
    """autograd.grad over the outputs that require grad; None for every input if none does."""
    grad_outputs = grad_outputs if grad_outputs is not None else (None,) * len(outputs)
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    return autograd_grad(
        [o for o, _ in pairs],
        inputs,
        [g for _, g in pairs],
        retain_graph=True,
        create_graph=create_graph,
        allow_unused=True,
    )


def _fill_in_zeros(grads: tuple, refs: tuple, strict: bool, create_graph: bool, stage: str):
    result = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_STRICT_NONE[stage].format(i=i))
            g = zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(
                f"The {what} of the user-provided function is independent of input {i}. "
                "This is not allowed in strict mode when create_graph=True."
            )
        result.append(g)
    return tuple(result)


def _vector(v: Any, like: tuple, like_is_tuple: bool, fn_name: str, create_graph: bool, what: str):
    """v as a tuple checked against `like` (the outputs for vjp, else the inputs); it may be
    None only when `like` is a single one-element tensor."""
    if v is None:
        if len(like) != 1 or like[0].numel() != 1:
            raise RuntimeError(
                f"The vector v can only be None if {what} a single Tensor with a single element."
            )
        return None
    _, v = _as_tuple(v, "v", fn_name)
    v = _preprocess(v, create_graph, need_graph=False)
    _validate_v(v, like, like_is_tuple)
    return v


_OF_INPUT = "the input to the user-provided function is"


def vjp(
    func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False
) -> tuple:
    """(func(inputs), v^T J)."""
    with grad_mode.enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _preprocess(inputs, create_graph, need_graph=True)
        outputs_tuple, outputs = _as_tuple(
            func(*inputs), "outputs of the user-provided function", "vjp"
        )
        _check_requires_grad(outputs, "outputs", strict)
        v = _vector(
            v, outputs, outputs_tuple, "vjp", create_graph, "the user-provided function returns"
        )
    with grad_mode.set_grad_enabled(create_graph or grad_mode.is_grad_enabled()):
        result = _fill_in_zeros(
            _grad(outputs, inputs, v, create_graph), inputs, strict, create_graph, "back"
        )
    return (
        _unpack(_postprocess(outputs, create_graph), outputs_tuple),
        _unpack(_postprocess(result, create_graph), inputs_tuple),
    )


def _independent_inputs(outputs: tuple, inputs: tuple) -> list[int]:
    """The inputs no output depends on (strict mode refuses them, as PyTorch's reverse-mode
    checks do; found with one backward pass)."""
    grads = _grad(outputs, inputs, tuple(zeros_like(o) for o in outputs))
    return [i for i, g in enumerate(grads) if g is None]


def _tangents(outputs: tuple, strict: bool, stage: str) -> tuple:
    """The outputs' tangents, zeros where an output carries none."""
    found = tuple(tangent_of(o) for o in outputs)
    return _fill_in_zeros(found, outputs, strict, False, stage)


def jvp(
    func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False
) -> tuple:
    """(func(inputs), J v), in one forward-mode pass."""
    with grad_mode.enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _preprocess(inputs, create_graph, need_graph=True)
        v = _vector(v, inputs, inputs_tuple, "jvp", create_graph, _OF_INPUT)
        v = v if v is not None else (ones_like(inputs[0]),)
        with forward_ad.dual_level():
            duals = tuple(forward_ad.make_dual(x, t) for x, t in zip(inputs, v))
            outputs_tuple, outputs = _as_tuple(
                func(*duals), "outputs of the user-provided function", "jvp"
            )
            _check_requires_grad(outputs, "outputs", strict)
            unused = _independent_inputs(outputs, inputs) if strict else []
            if unused:
                raise RuntimeError(_STRICT_NONE["back"].format(i=unused[0]))
            result = _tangents(outputs, strict, "back_trick")
    return (
        _unpack(_postprocess(outputs, create_graph), outputs_tuple),
        _unpack(_postprocess(result, create_graph), outputs_tuple),
    )


def _forward_jacobian(func: Callable, inputs: tuple, outputs: tuple) -> tuple:
    """J[i][j] by forward mode: one pass of func per element of each input, the element's
    unit tangent in, every output's tangent out (a column of each block)."""
    columns: list[list[list]] = [[] for _ in inputs]
    for j, x in enumerate(inputs):
        for k in range(x.numel()):
            unit = zeros(x.numel(), dtype=x.dtype)
            unit[k] = 1
            with forward_ad.dual_level():
                args = list(inputs)
                args[j] = forward_ad.make_dual(x, unit.view(tuple(x.shape)))
                _, outs = _as_tuple(
                    func(*args), "outputs of the user-provided function", "jacobian"
                )
                columns[j].append(_tangents(outs, False, "back"))
    return tuple(
        tuple(
            stack([col[i] for col in columns[j]], dim=out.dim()).view(
                tuple(out.shape) + tuple(x.shape)
            )
            if x.numel()
            else zeros(tuple(out.shape) + tuple(x.shape), dtype=out.dtype)
            for j, x in enumerate(inputs)
        )
        for i, out in enumerate(outputs)
    )


def _lists(value: Any) -> Any:
    return [_lists(v) for v in value] if isinstance(value, tuple) else value


def jacobian(
    func: Callable,
    inputs: Any,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    strategy: str = "reverse-mode",
) -> Any:
    """J[i][j] = d outputs[i] / d inputs[j], shaped output.shape + input.shape: one backward
    per output element (reverse-mode) or one forward pass per input element (forward-mode);
    `vectorize` changes nothing but the checks."""
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
            'function has more outputs than inputs, "forward-mode" tends to be more '
            'performant. Otherwise, prefer to use "reverse-mode".'
        )
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                "torch.autograd.functional.jacobian: `create_graph=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either '
                'set `create_graph=False` or `strategy="reverse-mode"`.'
            )
        if strict:
            raise RuntimeError(
                "torch.autograd.functional.jacobian: `strict=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either '
                'set `strict=False` or `strategy="reverse-mode"`.'
            )
        if not vectorize:
            raise NotImplementedError(
                "Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
                "only implemented for `vectorize=True`."
            )
    with grad_mode.enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _preprocess(inputs, create_graph, need_graph=True)
        outputs_tuple, outputs = _as_tuple(
            func(*inputs), "outputs of the user-provided function", "jacobian"
        )
        _check_requires_grad(outputs, "outputs", strict)
        if vectorize and strict:
            raise RuntimeError(
                "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are "
                "not supported together. Please either set `strict=False` or "
                "`vectorize=False`."
            )
        if strategy == "forward-mode":
            table = _forward_jacobian(func, inputs, outputs)
            result = _unpack(_postprocess(table, False), (outputs_tuple, inputs_tuple))
            # PyTorch's forward-mode answer for tuple inputs is made of lists
            return _lists(result) if inputs_tuple else result
        table = []
        for i, out in enumerate(outputs):
            columns: list[list] = [[] for _ in inputs]
            flat = out.reshape(-1)
            for k in range(out.numel()):
                row = _grad((flat[k],), inputs, create_graph=create_graph)
                for j, (g, x) in enumerate(zip(row, inputs)):
                    if g is None:
                        if strict:
                            raise RuntimeError(
                                f"Output {i} of the user-provided function is independent "
                                f"of input {j}. This is not allowed in strict mode."
                            )
                        g = zeros_like(x)
                    elif strict and create_graph and not g.requires_grad:
                        raise RuntimeError(
                            "The jacobian of the user-provided function is independent of "
                            f"input {i}. This is not allowed in strict mode when "
                            "create_graph=True."
                        )
                    columns[j].append(g)
            table.append(
                tuple(
                    stack(col, dim=0).view(tuple(out.shape) + tuple(x.shape))
                    for col, x in zip(columns, inputs)
                )
            )
        return _unpack(_postprocess(tuple(table), create_graph), (outputs_tuple, inputs_tuple))


def hessian(
    func: Callable,
    inputs: Any,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    outer_jacobian_strategy: str = "reverse-mode",
) -> Any:
    """The Jacobian of the gradient of a scalar function."""
    inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def single_output(*args: Any) -> Tensor:
        out = func(*args)
        out_tuple, outs = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(outs, "outputs", strict)
        if out_tuple:
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.numel() != 1:
            raise RuntimeError(
                "The Tensor returned by the function given to hessian should contain a single "
                "element"
            )
        return out.squeeze()

    def gradient(*args: Any) -> tuple:
        jac = jacobian(single_output, args, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        return jac

    result = jacobian(
        gradient,
        inputs,
        create_graph=create_graph,
        strict=strict,
        vectorize=vectorize,
        strategy=outer_jacobian_strategy,
    )
    return _unpack(result, (inputs_tuple, inputs_tuple))


def _hessian_product(
    name: str, func: Callable, inputs: Any, v: Any, create_graph: bool, strict: bool
) -> tuple:
    """vhp and hvp: the gradient (with its graph), then v^T H by a backward pass over it
    (vhp) or H v as the gradient's tangent when the inputs carry v (hvp: forward over
    reverse, one pass)."""
    forward = name == "hvp"
    with grad_mode.enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", name)
        inputs = _preprocess(inputs, create_graph, need_graph=True)
        v = _vector(v, inputs, inputs_tuple, name, create_graph, _OF_INPUT)
        with forward_ad.dual_level() if forward else contextlib.nullcontext():
            args = inputs
            if forward:
                v = v if v is not None else (ones_like(inputs[0]),)
                args = tuple(forward_ad.make_dual(x, t) for x, t in zip(inputs, v))
            outputs_tuple, outputs = _as_tuple(
                func(*args), "outputs of the user-provided function", name
            )
            _check_requires_grad(outputs, "outputs", strict)
            if outputs_tuple:
                raise RuntimeError(f"The function given to {name} should return a single Tensor")
            if outputs[0].numel() != 1:
                raise RuntimeError(
                    f"The Tensor returned by the function given to {name} should contain a "
                    "single element"
                )
            jac = _grad(outputs, args, create_graph=True)
            _check_requires_grad(jac, "jacobian", strict)
            if forward:
                found = tuple(None if g is None else tangent_of(g) for g in jac)
                result = _fill_in_zeros(found, inputs, strict, create_graph, "double_back_trick")
    if not forward:
        with grad_mode.set_grad_enabled(create_graph or grad_mode.is_grad_enabled()):
            result = _fill_in_zeros(
                _grad(jac, inputs, v, create_graph), inputs, strict, create_graph, "double_back"
            )
    return (
        _unpack(_postprocess(outputs, create_graph), outputs_tuple),
        _unpack(_postprocess(result, create_graph), inputs_tuple),
    )


def vhp(
    func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False
) -> tuple:
    """(func(inputs), v^T H)."""
    return _hessian_product("vhp", func, inputs, v, create_graph, strict)


def hvp(
    func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False
) -> tuple:
    """(func(inputs), H v)."""
    return _hessian_product("hvp", func, inputs, v, create_graph, strict)
