"""nn.Module: attribute-based registration of parameters, buffers and submodules, plus hooks.

Names, orders, reprs and error messages follow torch/nn/modules/module.py (PyTorch 2.13), so
that model code written for PyTorch runs unchanged.
"""

from __future__ import annotations

import itertools
import warnings
from collections import OrderedDict, namedtuple
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from ...core.device import check_cpu, device_of_to_args
from ...core.dtypes import dtype_of_to_args
from ...core.grad_mode import no_grad
from ...core.hooks import RemovableHandle
from ...core.tensor import Tensor
from ...utils._typename import typename
from ...utils.grads import zero_grads
from ...utils.hooks import BackwardHook
from ..parameter import Parameter

__all__ = ["Module"]


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What load_state_dict returns: the keys it could not match."""

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _addindent(s: str, num_spaces: int) -> str:
    lines = s.split("\n")
    if len(lines) == 1:
        return s
    return lines[0] + "\n" + "\n".join(num_spaces * " " + line for line in lines[1:])


def _forward_unimplemented(self: Module, *args: Any) -> Any:
    raise NotImplementedError(
        f'Module [{type(self).__name__}] is missing the required "forward" function'
    )


def _register_hook(
    hooks: OrderedDict, hook: Callable, prepend: bool, *flags: tuple[OrderedDict, bool]
) -> RemovableHandle:
    """Add `hook` (first if `prepend`); each (dict, on) in flags marks the hook id in that dict."""
    handle = RemovableHandle(hooks, *(d for d, _ in flags))
    hooks[handle.id] = hook
    for flag_dict, on in flags:
        if on:
            flag_dict[handle.id] = True
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


class Module:
    """Base class of every layer and model: assign Parameters and Modules as attributes."""

    training: bool
    call_super_init: bool = False
    forward: Callable[..., Any] = _forward_unimplemented

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if not self.call_super_init and kwargs:
            raise TypeError(
                f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                f"'{next(iter(kwargs))}'"
            )
        if not self.call_super_init and args:
            raise TypeError(
                f"{type(self).__name__}.__init__() takes 1 positional argument but "
                f"{len(args) + 1} were given"
            )
        for name, value in (
            ("training", True),
            ("_parameters", {}),
            ("_buffers", {}),
            ("_non_persistent_buffers_set", set()),
            ("_backward_pre_hooks", OrderedDict()),
            ("_backward_hooks", OrderedDict()),
            ("_forward_hooks", OrderedDict()),
            ("_forward_hooks_with_kwargs", OrderedDict()),
            ("_forward_hooks_always_called", OrderedDict()),
            ("_forward_pre_hooks", OrderedDict()),
            ("_forward_pre_hooks_with_kwargs", OrderedDict()),
            ("_modules", {}),
        ):
            object.__setattr__(self, name, value)

    # --- registration ---------------------------------------------------------------------
    def _check_name(self, kind: str, name: Any, own: dict) -> None:
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {typename(name)}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain "."')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if hasattr(self, name) and name not in own:
            raise KeyError(f"attribute '{name}' already exists")

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Add a parameter (or a None placeholder) under `name`."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        self._check_name("parameter", name, self._parameters)
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{typename(param)}' object to parameter '{name}' "
                "(torch.nn.Parameter or None required)"
            )
        if param is not None and param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model "
                f"parameters must be created explicitly. To express '{name}' as a "
                "function of another Tensor, compute the value in the forward() "
                "method."
            )
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Add state that is not a parameter (saved in state_dict unless not persistent)."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        self._check_name("buffer", name, self._buffers)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{typename(tensor)}' object to buffer '{name}' "
                "(torch Tensor or None required)"
            )
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name: str, module: Module | None) -> None:
        """Add a child module under `name`."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module

    register_module = add_module

    def __getattr__(self, name: str) -> Any:
        d = self.__dict__
        for store in ("_parameters", "_buffers", "_modules"):
            if store in d and name in d[store]:
                return d[store][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value: Any) -> None:
        d = self.__dict__
        params, modules, buffers = d.get("_parameters"), d.get("_modules"), d.get("_buffers")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._remove_name(name, d, buffers, modules)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{typename(value)}' as parameter '{name}' "
                    "(torch.nn.Parameter or None expected)"
                )
            self.register_parameter(name, value)
        elif isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._remove_name(name, d, params, buffers)
            modules[name] = value
        elif modules is not None and name in modules:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{typename(value)}' as child module '{name}' "
                    "(torch.nn.Module or None expected)"
                )
            modules[name] = value
        elif buffers is not None and name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    f"cannot assign '{typename(value)}' as buffer '{name}' "
                    "(torch.nn.Buffer, torch.Tensor or None expected)"
                )
            buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def _remove_name(self, name: str, *stores: dict | None) -> None:
        for store in stores:
            if store is not None:
                store.pop(name, None)
        self._non_persistent_buffers_set.discard(name)

    def __delattr__(self, name: str) -> None:
        for store in (self._parameters, self._buffers, self._modules):
            if name in store:
                del store[name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self) -> list[str]:
        keys = itertools.chain(super().__dir__(), self._parameters, self._modules, self._buffers)
        return sorted(k for k in set(keys) if not k[0].isdigit())

    # --- walking the tree -----------------------------------------------------------------
    def named_modules(
        self, memo: set | None = None, prefix: str = "", remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Module]]:
        """Pre-order walk: (dotted name, module), this module first with name `prefix`."""
        memo = set() if memo is None else memo
        stack: list[tuple[str, Module]] = [(prefix, self)]
        while stack:
            name, module = stack.pop()
            if module in memo:
                continue
            if remove_duplicate:
                memo.add(module)
            yield name, module
            children = [
                (name + ("." if name else "") + key, child)
                for key, child in module._modules.items()
                if child is not None
            ]
            stack.extend(reversed(children))

    def modules(self) -> Iterator[Module]:
        for _, module in self.named_modules():
            yield module

    def named_children(self) -> Iterator[tuple[str, Module]]:
        memo: set = set()
        for name, module in self._modules.items():
            if module is not None and module not in memo:
                memo.add(module)
                yield name, module

    def children(self) -> Iterator[Module]:
        for _, module in self.named_children():
            yield module

    def _named_members(
        self, store: str, prefix: str, recurse: bool, remove_duplicate: bool
    ) -> Iterator[tuple[str, Any]]:
        memo: set = set()
        modules = (
            self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
            if recurse
            else [(prefix, self)]
        )
        for module_prefix, module in modules:
            for key, value in getattr(module, store).items():
                if value is None or value in memo:
                    continue
                if remove_duplicate:
                    memo.add(value)
                yield module_prefix + ("." if module_prefix else "") + key, value

    def named_parameters(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Parameter]]:
        """('fc.weight', Parameter) pairs; a parameter shared by two modules comes once."""
        return self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Tensor]]:
        return self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def get_submodule(self, target: str) -> Module:
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at a dotted path such as 'layers.0.weight'."""
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
        param = getattr(mod, name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at a dotted path such as 'norm.running_mean'."""
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
        if name not in mod._buffers:
            raise AttributeError("`" + name + "` is not a buffer")
        return getattr(mod, name)

    # --- modes, gradients, conversions ----------------------------------------------------
    def train(self, mode: bool = True) -> Module:
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self) -> Module:
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Drop every parameter's .grad (or zero it in place with set_to_none=False)."""
        zero_grads(self.parameters(), set_to_none)

    def apply(self, fn: Callable[[Module], None]) -> Module:
        """fn(module) on every submodule (children first), then on self; e.g. custom init."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def _apply(self, fn: Callable[[Tensor], Tensor]) -> Module:
        # Parameters keep their identity (optimizers hold them): only their data is replaced.
        for module in self.children():
            module._apply(fn)
        for param in self._parameters.values():
            if param is None:
                continue
            with no_grad():
                param.data = fn(param)
                if param.grad is not None:
                    param.grad.data = fn(param.grad)
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def to(self, *args: Any, **kwargs: Any) -> Module:
        """Cast floating point parameters and buffers to a dtype; the CPU is the only device."""
        check_cpu(device_of_to_args(args, kwargs))
        target = dtype_of_to_args(args, kwargs)
        if target is None:
            return self
        if not target.is_floating_point:
            raise TypeError(
                "nn.Module.to only accepts floating point or complex dtypes, but got "
                f"desired dtype=torch.{target.name}"
            )
        return self._apply(lambda t: t.to(target) if t.is_floating_point() else t)

    def float(self) -> Module:
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self) -> Module:
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def cpu(self) -> Module:
        return self

    def cuda(self, device: Any = None) -> Module:
        check_cpu(device if device is not None else "cuda")
        return self

    # --- state_dict -----------------------------------------------------------------------
    def _local_state(self) -> dict[str, Tensor]:
        buffers = (
            (k, v) for k, v in self._buffers.items() if k not in self._non_persistent_buffers_set
        )
        return {
            k: v for k, v in itertools.chain(self._parameters.items(), buffers) if v is not None
        }

    def state_dict(
        self, *, destination: OrderedDict | None = None, prefix: str = "", keep_vars: bool = False
    ) -> OrderedDict:
        """Parameters and persistent buffers by dotted name, detached unless keep_vars."""
        destination = OrderedDict() if destination is None else destination
        for name, module in self.named_modules(prefix=prefix.rstrip("."), remove_duplicate=False):
            for key, value in module._local_state().items():
                full = name + ("." if name else "") + key
                destination[full] = value if keep_vars else value.detach()
        return destination

    def _load_from_state_dict(
        self,
        state_dict: Mapping,
        prefix: str,
        assign: bool,
        missing: list,
        unexpected: list,
        errors: list,
    ) -> None:
        local = self._local_state()
        for name, param in local.items():
            key = prefix + name
            if key not in state_dict:
                missing.append(key)
                continue
            value = state_dict[key]
            if not isinstance(value, Tensor):
                errors.append(
                    f'While copying the parameter named "{key}", expected torch.Tensor '
                    f"or Tensor-like object from checkpoint but received {type(value)}"
                )
                continue
            if value.shape != param.shape:
                errors.append(
                    f"size mismatch for {key}: copying a param with shape "
                    f"{value.shape} from checkpoint, the shape in current model is "
                    f"{param.shape}."
                )
                continue
            try:
                with no_grad():
                    if not assign:
                        param.copy_(value)
                    elif isinstance(param, Parameter):
                        setattr(self, name, Parameter(value, param.requires_grad))
                    else:
                        setattr(self, name, value)
            except Exception as ex:  # reported with the others, as PyTorch does
                errors.append(
                    f'While copying the parameter named "{key}", whose dimensions in '
                    f"the model are {param.size()} and whose dimensions in the "
                    f"checkpoint are {value.size()}, an exception occurred : {ex.args}."
                )
        for key in state_dict:
            if key.startswith(prefix):
                head = key[len(prefix) :].split(".", 1)[0]
                if head not in self._modules and head not in local:
                    unexpected.append(key)

    def load_state_dict(
        self, state_dict: Mapping[str, Any], strict: bool = True, assign: bool = False
    ) -> _IncompatibleKeys:
        """Copy values into the existing parameters (in place, under no_grad)."""
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing: list[str] = []
        unexpected: list[str] = []
        errors: list[str] = []
        for name, module in self.named_modules(remove_duplicate=False):
            module._load_from_state_dict(
                state_dict, name + "." if name else "", assign, missing, unexpected, errors
            )
        if strict:
            if unexpected:
                errors.insert(
                    0,
                    "Unexpected key(s) in state_dict: {}. ".format(
                        ", ".join(f'"{k}"' for k in unexpected)
                    ),
                )
            if missing:
                errors.insert(
                    0,
                    "Missing key(s) in state_dict: {}. ".format(
                        ", ".join(f'"{k}"' for k in missing)
                    ),
                )
        if errors:
            raise RuntimeError(
                "Error(s) in loading state_dict for {}:\n\t{}".format(
                    type(self).__name__, "\n\t".join(errors)
                )
            )
        return _IncompatibleKeys(missing, unexpected)

    # --- hooks and calling ----------------------------------------------------------------
    def register_forward_pre_hook(
        self, hook: Callable, *, prepend: bool = False, with_kwargs: bool = False
    ) -> RemovableHandle:
        """hook(module, args) -> None or new args; with_kwargs: hook(module, args, kwargs)."""
        return _register_hook(
            self._forward_pre_hooks,
            hook,
            prepend,
            (self._forward_pre_hooks_with_kwargs, with_kwargs),
        )

    def register_forward_hook(
        self,
        hook: Callable,
        *,
        prepend: bool = False,
        with_kwargs: bool = False,
        always_call: bool = False,
    ) -> RemovableHandle:
        """hook(module, args, output) -> None or a replacement output."""
        return _register_hook(
            self._forward_hooks,
            hook,
            prepend,
            (self._forward_hooks_with_kwargs, with_kwargs),
            (self._forward_hooks_always_called, always_call),
        )

    def register_full_backward_pre_hook(
        self, hook: Callable, prepend: bool = False
    ) -> RemovableHandle:
        """hook(module, grad_output) -> None or a replacement grad_output."""
        return _register_hook(self._backward_pre_hooks, hook, prepend)

    def register_full_backward_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """hook(module, grad_input, grad_output) -> None or a replacement grad_input."""
        return _register_hook(self._backward_hooks, hook, prepend)

    def _run_forward_hook(
        self, hook_id: int, hook: Callable, args: tuple, kwargs: dict, result: Any
    ) -> Any:
        if hook_id in self._forward_hooks_with_kwargs:
            out = hook(self, args, kwargs, result)
        else:
            out = hook(self, args, result)
        return result if out is None else out

    def _call_impl(self, *args: Any, **kwargs: Any) -> Any:
        if not (
            self._forward_pre_hooks
            or self._forward_hooks
            or self._backward_hooks
            or self._backward_pre_hooks
        ):
            return self.forward(*args, **kwargs)
        result = None
        called = set()
        try:
            for hook_id, hook in list(self._forward_pre_hooks.items()):
                if hook_id in self._forward_pre_hooks_with_kwargs:
                    out = hook(self, args, kwargs)
                    if out is not None:
                        if not (isinstance(out, tuple) and len(out) == 2):
                            raise RuntimeError(
                                "forward pre-hook must return None or a tuple of "
                                f"(new_args, new_kwargs), but got {out}."
                            )
                        args, kwargs = out
                else:
                    out = hook(self, args)
                    if out is not None:
                        args = out if isinstance(out, tuple) else (out,)
            bw_hook = None
            if self._backward_hooks or self._backward_pre_hooks:
                bw_hook = BackwardHook(
                    self,
                    list(self._backward_hooks.values()),
                    list(self._backward_pre_hooks.values()),
                )
                args = bw_hook.setup_input_hook(args)
            result = self.forward(*args, **kwargs)
            for hook_id, hook in list(self._forward_hooks.items()):
                if hook_id in self._forward_hooks_always_called:
                    called.add(hook_id)
                result = self._run_forward_hook(hook_id, hook, args, kwargs, result)
            if bw_hook is not None:
                if not isinstance(result, (Tensor, tuple)):
                    warnings.warn(
                        "For backward hooks to be called, module output should be a "
                        f"Tensor or a tuple of Tensors but received {type(result)}",
                        stacklevel=2,
                    )
                result = bw_hook.setup_output_hook(result)
            return result
        except Exception:
            for hook_id, hook in list(self._forward_hooks.items()):
                if hook_id in self._forward_hooks_always_called and hook_id not in called:
                    try:
                        result = self._run_forward_hook(hook_id, hook, args, kwargs, result)
                    except Exception as e:  # the forward's error wins, as in PyTorch
                        warnings.warn(
                            "module forward hook with ``always_call=True`` raised an "
                            "exception that was silenced as another error was raised "
                            f"in forward: {e}",
                            stacklevel=2,
                        )
            raise

    __call__ = _call_impl

    # --- repr -----------------------------------------------------------------------------
    def _get_name(self) -> str:
        return type(self).__name__

    def extra_repr(self) -> str:
        """The text between the parentheses of this module's repr; layers override it."""
        return ""

    def _child_lines(self) -> list[str]:
        """One "(name): repr" line per child module in this module's repr."""
        return [
            "(" + key + "): " + _addindent(repr(module), 2) for key, module in self._modules.items()
        ]

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = self._child_lines()
        lines = extra_lines + child_lines
        main = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main += extra_lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"
