"""One recurrent time step: the step formulas (shared with nn.RNN/LSTM/GRU) and the cell modules.

Every step receives `gates_in`, the input's projection x @ W_ih^T + b_ih, already computed: a
layer projects its whole sequence with one matmul and only the hidden-to-hidden product runs per
step. The gates are stacked in PyTorch's order (LSTM: i, f, g, o; GRU: r, z, n), so PyTorch's
weights load unchanged. The steps are made of minigrad's ops (linear, chunk, sigmoid, tanh, ...),
so autograd needs nothing new; the price is a graph of those ops where PyTorch records one fused
node (the top grad_fn of a cell still agrees: TanhBackward0, MulBackward0, AddBackward0).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ... import creation
from ...core.tensor import Tensor
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["GRUCell", "LSTMCell", "RNNCell", "RNNCellBase"]

State = Tensor | tuple[Tensor, Tensor]


def rnn_tanh_step(gates_in: Tensor, h: Tensor, w_hh: Tensor, b_hh: Tensor | None) -> Tensor:
    return (gates_in + F.linear(h, w_hh, b_hh)).tanh()


def rnn_relu_step(gates_in: Tensor, h: Tensor, w_hh: Tensor, b_hh: Tensor | None) -> Tensor:
    return (gates_in + F.linear(h, w_hh, b_hh)).relu()


def lstm_step(
    gates_in: Tensor,
    state: tuple[Tensor, Tensor],
    w_hh: Tensor,
    b_hh: Tensor | None,
    w_hr: Tensor | None = None,
) -> tuple[Tensor, Tensor]:
    """c' = f*c + i*g, h' = o*tanh(c'), then h' @ W_hr^T when the LSTM has projections."""
    h, c = state
    i, f, g, o = (gates_in + F.linear(h, w_hh, b_hh)).chunk(4, 1)
    c = f.sigmoid() * c + i.sigmoid() * g.tanh()
    h = o.sigmoid() * c.tanh()
    return (h if w_hr is None else F.linear(h, w_hr)), c


def gru_step(gates_in: Tensor, h: Tensor, w_hh: Tensor, b_hh: Tensor | None) -> Tensor:
    """n = tanh(x_n + r*(h W_hn^T + b_hn)): b_hn sits inside the reset gate, as in PyTorch."""
    in_r, in_z, in_n = gates_in.chunk(3, 1)
    h_r, h_z, h_n = F.linear(h, w_hh, b_hh).chunk(3, 1)
    r = (in_r + h_r).sigmoid()
    z = (in_z + h_z).sigmoid()
    n = (in_n + r * h_n).tanh()
    return (1 - z) * n + z * h


# mode (PyTorch's names) -> (gates stacked in W_ih, the step)
STEPS: dict[str, tuple[int, Callable[..., State]]] = {
    "RNN_TANH": (1, rnn_tanh_step),
    "RNN_RELU": (1, rnn_relu_step),
    "LSTM": (4, lstm_step),
    "GRU": (3, gru_step),
}

# an Elman RNN's nonlinearity -> its mode
NONLINEARITY_MODES = {"tanh": "RNN_TANH", "relu": "RNN_RELU"}


def reset_uniform(module: Module, hidden_size: int) -> None:
    """PyTorch's init for every recurrent weight and bias: U(-1/sqrt(hidden), 1/sqrt(hidden))."""
    bound = 1.0 / math.sqrt(hidden_size) if hidden_size > 0 else 0.0
    for weight in module.parameters():
        init.uniform_(weight, -bound, bound)


class RNNCellBase(Module):
    """weight_ih (gates*hidden, input), weight_hh (gates*hidden, hidden) and their biases; the
    forward checks shapes with PyTorch's messages and accepts an unbatched (1-D) input."""

    _mode: str
    _state_names: tuple[str, ...] = ("hidden",)

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool,
        num_chunks: int,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        rows = num_chunks * hidden_size
        self.weight_ih = Parameter(creation.empty((rows, input_size), dtype=dtype, device=device))
        self.weight_hh = Parameter(creation.empty((rows, hidden_size), dtype=dtype, device=device))
        if bias:
            self.bias_ih = Parameter(creation.empty(rows, dtype=dtype, device=device))
            self.bias_hh = Parameter(creation.empty(rows, dtype=dtype, device=device))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        reset_uniform(self, self.hidden_size)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def _step(self) -> Callable[..., State]:
        return STEPS[self._mode][1]

    def _states(self, hx: Any) -> list[Tensor]:
        return [hx]

    def _run(self, input: Tensor, hx: Any) -> State:
        """Check ranks, add the batch dimension if missing, check sizes, take one step."""
        states = None if hx is None else self._states(hx)
        named = [("input", input), *zip(self._state_names, states or ())]
        for label, t in named:
            if t.dim() not in (1, 2):
                raise ValueError(
                    f"{type(self).__name__}: Expected {label} to be 1D or 2D, "
                    f"got {t.dim()}D instead"
                )
        batched = input.dim() == 2
        x = input if batched else input.unsqueeze(0)
        if states is None:
            shape = (x.shape[0], self.hidden_size)
            states = [creation.zeros(shape, dtype=x.dtype) for _ in self._state_names]
        elif not batched:
            states = [s.unsqueeze(0) for s in states]
        self._check_sizes(x, states)
        state = states[0] if len(states) == 1 else tuple(states)
        gates_in = F.linear(x, self.weight_ih, self.bias_ih)
        new = self._step()(gates_in, state, self.weight_hh, self.bias_hh)
        if batched:
            return new
        return tuple(s.squeeze(0) for s in new) if isinstance(new, tuple) else new.squeeze(0)

    def _check_sizes(self, x: Tensor, states: list[Tensor]) -> None:
        if x.shape[1] != self.input_size:
            raise RuntimeError(
                f"input has inconsistent input_size: got {x.shape[1]} expected {self.input_size}"
            )
        for i, s in enumerate(states):
            if s.shape[0] != x.shape[0]:
                raise RuntimeError(
                    f"Input batch size {x.shape[0]} doesn't match hidden{i} batch size {s.shape[0]}"
                )
            if s.shape[1] != self.hidden_size:
                raise RuntimeError(
                    f"hidden{i} has inconsistent hidden_size: got {s.shape[1]}, "
                    f"expected {self.hidden_size}"
                )


class RNNCell(RNNCellBase):
    """h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh), or relu; an unknown nonlinearity is
    accepted here and refused at the first call, as PyTorch does."""

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        nonlinearity: str = "tanh",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def _step(self) -> Callable[..., State]:
        if self.nonlinearity not in NONLINEARITY_MODES:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        return STEPS[NONLINEARITY_MODES[self.nonlinearity]][1]

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        return self._run(input, hx)


class LSTMCell(RNNCellBase):
    """(h', c') from (h, c); the four gates i, f, g, o stacked in that order."""

    _mode = "LSTM"
    _state_names = ("hx[0]", "hx[1]")

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def _states(self, hx: Any) -> list[Tensor]:
        if not isinstance(hx, (tuple, list)):
            raise TypeError(
                "lstm_cell(): argument 'hx' (position 2) must be tuple of Tensors, "
                f"not {type(hx).__name__}"
            )
        return [hx[0], hx[1]]

    def forward(
        self, input: Tensor, hx: tuple[Tensor, Tensor] | None = None
    ) -> tuple[Tensor, Tensor]:
        return self._run(input, hx)


class GRUCell(RNNCellBase):
    """h' = (1 - z) * n + z * h; the three gates r, z, n stacked in that order."""

    _mode = "GRU"

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        return self._run(input, hx)
