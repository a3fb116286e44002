"""nn.Parameter: a leaf tensor that a Module registers as one of its parameters."""

from __future__ import annotations

from typing import Any

from ..core.dtypes import dtype_of_to_args, float32, float64
from ..core.shapes import copy_like
from ..core.tensor import Size, Tensor
from ..creation import empty


class Parameter(Tensor):
    """A Tensor subclass so that `Module.__setattr__` can tell parameters from plain tensors.

    Like PyTorch's, it shares storage and version counter with the tensor it wraps and is always
    a leaf; results of ops on it are plain Tensors.
    """

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True) -> Parameter:
        if data is None:
            data = empty(0)
        p = Tensor.__new__(cls)
        p._init(data._data, False, counter=data._version_counter)
        if requires_grad:
            if not data.dtype.is_floating_point:
                raise RuntimeError(
                    "Only Tensors of floating point and complex dtype can require gradients"
                )
            p._requires_grad = True
        return p

    def __init__(self, *args: Any, **kwargs: Any) -> None:  # everything happened in __new__
        pass

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __reduce_ex__(self, proto: Any) -> tuple:
        return (_rebuild_parameter, (self._data, self._requires_grad))

    def __deepcopy__(self, memo: dict) -> Parameter:
        """A fresh parameter with the same values: unlike a plain tensor's deepcopy, PyTorch's
        leaves `.grad` (and any other attribute) behind, so a copied model starts clean."""
        if id(self) not in memo:
            memo[id(self)] = Parameter(Tensor._wrap(copy_like(self._data)), self._requires_grad)
        return memo[id(self)]


def _rebuild_parameter(data: Any, requires_grad: bool) -> Parameter:
    return Parameter(Tensor._wrap(data.copy()), requires_grad)


# --- issue 21: parameters and buffers of lazy modules, before their shape is known ----------
_SHAPE_MESSAGE = (
    "Can't access the shape of an uninitialized parameter or buffer. This error usually happens "
    "in `load_state_dict` when trying to load an uninitialized parameter into an initialized "
    "one. Call `forward` to initialize the parameters before accessing their attributes."
)
# what may be asked of one (as PyTorch lets through); everything else public raises
_ALLOWED = frozenset(
    (
        "materialize",
        "cls_to_become",
        "size",
        "dtype",
        "device",
        "requires_grad",
        "grad",
        "grad_fn",
        "is_leaf",
        "data",
        "detach",
        "retains_grad",
        "is_floating_point",
        "shape",
        "to",
        "float",
        "double",
        "cpu",
    )
)


def _unusable(name: str, kind: str = "UninitializedParameter") -> ValueError:
    return ValueError(
        f"Attempted to use an uninitialized parameter in {name}. This error happens when you "
        f"are using a `LazyModule` or explicitly manipulating `torch.nn.parameter.{kind}` "
        "objects. When "
        "using LazyModules Call `forward` with a dummy batch to initialize the parameters before "
        "calling torch functions"
    )


class _Uninitialized:
    """Shared by UninitializedParameter and UninitializedBuffer: no numbers yet (an empty
    array stands in), any use raises, and `materialize(shape)` makes it a `cls_to_become`
    of that shape in place (same object, so optimizers and modules keep holding it)."""

    cls_to_become: type = Tensor

    def __getattribute__(self, name: str) -> Any:
        if not name.startswith("_") and name not in _ALLOWED and hasattr(Tensor, name):
            raise _unusable(
                f"<method '{name}' of 'torch._C.TensorBase' objects>", type(self).__name__
            )
        return object.__getattribute__(self, name)

    @property
    def shape(self) -> Any:
        raise RuntimeError(_SHAPE_MESSAGE)

    def size(self, dim: int | None = None) -> Any:
        return Size(self._data.shape) if dim is None else self._data.shape[dim]

    def detach(self) -> Any:  # (state_dict keeps it as it is, as PyTorch's lazy modules do)
        return self

    def to(self, *args: Any, **kwargs: Any) -> Any:
        """A dtype change (module.double(), .to(dtype)) gives an uninitialized one of that
        dtype, as in PyTorch: the shape is still to come."""
        target = dtype_of_to_args(args, kwargs)
        if target is None or target == self.dtype:
            return self
        return type(self)(self._requires_grad, dtype=target)

    def float(self) -> Any:
        return self.to(float32)

    def double(self) -> Any:
        return self.to(float64)

    def cpu(self) -> Any:
        return self

    def materialize(self, shape: Any, device: Any = None, dtype: Any = None) -> None:
        data = empty(tuple(shape), dtype=dtype if dtype is not None else self.dtype)
        requires_grad = self._requires_grad
        self.__class__ = self.cls_to_become
        Tensor._init(self, data._data, False)
        self._requires_grad = requires_grad

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"

    def __reduce_ex__(self, proto: Any) -> tuple:
        return (type(self), (self._requires_grad,))

    def __deepcopy__(self, memo: dict) -> Any:
        if id(self) not in memo:
            memo[id(self)] = type(self)(self._requires_grad, dtype=self.dtype)
        return memo[id(self)]


def _operator(name: str) -> Any:
    """An operator that refuses, naming the op as PyTorch does (`__radd__` is add)."""
    base = name.strip("_")
    if base[0] in "ri" and base[1:] in ("add", "sub", "mul", "truediv", "matmul", "pow"):
        base = base[1:]

    def refuse(self: Any, *args: Any, **kwargs: Any) -> Any:
        what = f"<method '{base}' of 'torch._C.TensorBase' objects>"
        raise _unusable(what, type(self).__name__)

    return refuse


for _name in (
    "__add__", "__radd__", "__iadd__", "__sub__", "__rsub__", "__isub__", "__mul__",
    "__rmul__", "__imul__", "__truediv__", "__rtruediv__", "__itruediv__", "__matmul__",
    "__rmatmul__", "__pow__", "__rpow__", "__neg__", "__getitem__", "__setitem__",
    "__lt__", "__le__", "__gt__", "__ge__", "__abs__", "__len__", "__iter__", "__float__",
    "__int__", "__bool__",
):  # fmt: skip
    setattr(_Uninitialized, _name, _operator(_name))


class UninitializedParameter(_Uninitialized, Parameter):
    """A lazy module's parameter before its first forward (PyTorch's)."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad: bool = True, device: Any = None, dtype: Any = None) -> Any:
        return Parameter.__new__(cls, empty(0, dtype=dtype), requires_grad)


class UninitializedBuffer(_Uninitialized, Tensor):
    """A lazy module's buffer before its first forward (PyTorch's)."""

    cls_to_become = Tensor

    def __new__(cls, requires_grad: bool = False, device: Any = None, dtype: Any = None) -> Any:
        b = Tensor.__new__(cls)
        Tensor._init(b, empty(0, dtype=dtype)._data, requires_grad)
        return b

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def __deepcopy__(self, memo: dict) -> Any:  # (PyTorch refuses to copy one)
        raise _unusable("<function Tensor.__deepcopy__>", "UninitializedBuffer")


def is_lazy(param: Any) -> bool:
    return isinstance(param, _Uninitialized)
