"""nn.RNN, nn.LSTM, nn.GRU: the steps of rnn_cell.py run over a sequence, layer by layer.

Parameters are named, shaped, ordered and initialised as PyTorch's (weight_ih_l0, weight_hh_l0,
bias_ih_l0, bias_hh_l0, weight_hr_l0 for a projecting LSTM, `_reverse` for the backward
direction), so a PyTorch state_dict loads as is. Each direction projects its whole input with
one linear, then steps through time; dropout is applied to every layer's output but the last,
in training mode only. Autograd goes through the ops the steps are made of, so the grad_fn
names differ from PyTorch's fused kernels (its MkldnnRnnLayerBackward0 and the like).
"""

from __future__ import annotations

import warnings
from typing import Any

from ... import creation
from ...core.tensor import Tensor
from ...ops.shape import cat, stack
from .. import functional as F
from ..parameter import Parameter
from .module import Module
from .rnn_cell import NONLINEARITY_MODES, STEPS, State, reset_uniform

__all__ = ["GRU", "LSTM", "RNN", "RNNBase"]


def _check_arguments(input_size: Any, hidden_size: Any, num_layers: int, proj_size: int) -> None:
    for name, size in (("input_size", input_size), ("hidden_size", hidden_size)):
        if not isinstance(size, int):
            raise TypeError(f"{name} should be of type int, got: {type(size).__name__}")
        if size <= 0:
            raise ValueError(f"{name} must be greater than zero")
    if num_layers <= 0:
        raise ValueError("num_layers must be greater than zero")
    if proj_size < 0:
        raise ValueError("proj_size should be a positive integer or zero to disable projections")
    if proj_size >= hidden_size:
        raise ValueError("proj_size has to be smaller than hidden_size")


def _check_dropout(dropout: Any, num_layers: int) -> float:
    if isinstance(dropout, bool) or not 0 <= float(dropout) <= 1:
        raise ValueError(
            "dropout should be a number in range [0, 1] representing the probability of an "
            "element being zeroed"
        )
    if dropout > 0 and num_layers == 1:
        warnings.warn(
            "dropout option adds dropout after all but last recurrent layer, so non-zero "
            "dropout expects num_layers greater than 1, but got "
            f"dropout={dropout} and num_layers={num_layers}",
            stacklevel=4,
        )
    return float(dropout)


def _hx_rank_message(batched: bool, states: list[Tensor]) -> str:
    rank = 3 if batched else 2
    which = f"For {'batched' if batched else 'unbatched'} {rank}-D input"
    if len(states) == 1:
        return f"{which}, hx should also be {rank}-D but got {states[0].dim()}-D tensor"
    got = ", ".join(f"{s.dim()}-D" for s in states)
    return f"{which}, hx and cx should also be {rank}-D but got ({got}) tensors"


class RNNBase(Module):
    """The layer stack shared by RNN, LSTM and GRU; `mode` is PyTorch's: RNN_TANH, RNN_RELU,
    LSTM or GRU."""

    def __init__(
        self,
        mode: str,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        proj_size: int = 0,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        if mode not in STEPS:
            raise ValueError("Unrecognized RNN mode: " + mode)
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = _check_dropout(dropout, num_layers)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        _check_arguments(input_size, hidden_size, num_layers, proj_size)
        if proj_size and mode != "LSTM":
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        self._all_weights: list[list[str]] = []
        gates = STEPS[mode][0] * hidden_size
        out_size = proj_size or hidden_size
        for layer in range(num_layers):
            layer_in = input_size if layer == 0 else out_size * len(self._suffixes())
            for suffix in self._suffixes():
                shapes = {"weight_ih": (gates, layer_in), "weight_hh": (gates, out_size)}
                if bias:
                    shapes |= {"bias_ih": (gates,), "bias_hh": (gates,)}
                if proj_size:
                    shapes["weight_hr"] = (proj_size, hidden_size)
                names = []
                for kind, shape in shapes.items():
                    names.append(f"{kind}_l{layer}{suffix}")
                    weight = creation.empty(shape, dtype=dtype, device=device)
                    self.register_parameter(names[-1], Parameter(weight))
                self._all_weights.append(names)
        self._flat_weights_names = [name for names in self._all_weights for name in names]
        self.reset_parameters()

    def _suffixes(self) -> tuple[str, ...]:
        return ("", "_reverse") if self.bidirectional else ("",)

    def reset_parameters(self) -> None:
        reset_uniform(self, self.hidden_size)

    def flatten_parameters(self) -> None:
        """PyTorch packs the weights into one cuDNN buffer here; minigrad has none to pack."""

    @property
    def all_weights(self) -> list[list[Parameter]]:
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    # --- forward ----------------------------------------------------------------------------
    def _state_shapes(self, batch: int) -> list[tuple[int, int, int]]:
        """h0's shape, and c0's for an LSTM (c keeps the full hidden size under projection)."""
        stacked = self.num_layers * len(self._suffixes())
        shapes = [(stacked, batch, self.proj_size or self.hidden_size)]
        if self.mode == "LSTM":
            shapes.append((stacked, batch, self.hidden_size))
        return shapes

    def _states(self, hx: Any) -> list[Tensor]:
        return [hx[0], hx[1]] if self.mode == "LSTM" else [hx]

    def _check_input(self, input: Tensor) -> None:
        if input.dim() not in (2, 3):
            kind = "RNN" if self.mode.startswith("RNN") else self.mode
            noun = " tensor" if kind == "RNN" else ""  # PyTorch's RNN says "tensor", the others not
            raise ValueError(
                f"{kind}: Expected input to be 2D or 3D, got {input.dim()}D{noun} instead"
            )
        weight = self.weight_ih_l0
        if input.dtype != weight.dtype:
            got, want = input.dtype.name, weight.dtype.name
            raise ValueError(
                f"RNN input dtype (torch.{got}) does not match weight dtype (torch.{want}). "
                f"Convert input: input.to(torch.{want}), or convert model: model.to(torch.{got})"
            )

    def _check_sizes(self, x: Tensor, states: list[Tensor]) -> None:
        if x.shape[-1] != self.input_size:
            raise RuntimeError(
                f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                f"got {x.shape[-1]}"
            )
        expected = self._state_shapes(x.shape[1])
        for i, (s, shape) in enumerate(zip(states, expected, strict=True)):
            if tuple(s.shape) != shape:
                what = "hidden" if len(states) == 1 else f"hidden[{i}]"
                raise RuntimeError(f"Expected {what} size {shape}, got {list(s.shape)}")
        if x.shape[0] == 0:
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")

    def _run(self, input: Tensor, hx: Any) -> tuple[Tensor, State]:
        """(output, final state) in PyTorch's layouts, for batched or unbatched input."""
        self._check_input(input)
        batched = input.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        states = None if hx is None else self._states(hx)
        if states is not None:
            if any(s.dim() != input.dim() for s in states):
                raise RuntimeError(_hx_rank_message(batched, states))
            if not batched:
                states = [s.unsqueeze(1) for s in states]
        x = input if batched else input.unsqueeze(batch_dim)
        if self.batch_first:
            x = x.transpose(0, 1)
        if states is None:
            shapes = self._state_shapes(x.shape[1])
            states = [creation.zeros(shape, dtype=x.dtype) for shape in shapes]
        self._check_sizes(x, states)
        output, finals = self._layers(x, states)
        if self.batch_first:
            output = output.transpose(0, 1)
        if not batched:
            output = output.squeeze(batch_dim)
            finals = [f.squeeze(1) for f in finals]
        return output, (finals[0] if len(finals) == 1 else tuple(finals))

    def _layers(self, x: Tensor, states: list[Tensor]) -> tuple[Tensor, list[Tensor]]:
        """Every layer and direction in turn; returns the last layer's output and the final
        states stacked as (layers * directions, batch, size), like h0."""
        finals: list[State] = []
        for layer in range(self.num_layers):
            outputs = []
            for direction, suffix in enumerate(self._suffixes()):
                index = layer * len(self._suffixes()) + direction
                start = tuple(s[index] for s in states)
                out, last = self._direction(x, start, f"l{layer}{suffix}", reverse=direction == 1)
                outputs.append(out)
                finals.append(last)
            x = outputs[0] if len(outputs) == 1 else cat(outputs, 2)
            if layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, self.training)
        columns = zip(*(f if isinstance(f, tuple) else (f,) for f in finals), strict=True)
        return x, [stack(list(column)) for column in columns]

    def _direction(
        self, x: Tensor, start: tuple[Tensor, ...], tag: str, reverse: bool
    ) -> tuple[Tensor, State]:
        """One direction of one layer over the sequence: its outputs (seq, batch, size) and
        its last state (h, or (h, c) for an LSTM)."""
        weights = self._parameters
        hidden_weights = [weights["weight_hh_" + tag], weights.get("bias_hh_" + tag)]
        if self.proj_size:
            hidden_weights.append(weights["weight_hr_" + tag])
        gates_in = F.linear(x, weights["weight_ih_" + tag], weights.get("bias_ih_" + tag))
        step = STEPS[self.mode][1]
        state: State = start if len(start) == 2 else start[0]
        outputs: list[Tensor] = [None] * x.shape[0]  # type: ignore[list-item]
        steps = gates_in.unbind(0)
        for t in reversed(range(len(steps))) if reverse else range(len(steps)):
            state = step(steps[t], state, *hidden_weights)
            outputs[t] = state[0] if isinstance(state, tuple) else state
        return stack(outputs), state


class RNN(RNNBase):
    """Elman RNN: h_t = tanh (or relu)(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)."""

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        nonlinearity: str = "tanh",
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        if nonlinearity not in NONLINEARITY_MODES:
            raise ValueError(
                f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'."
            )
        super().__init__(
            NONLINEARITY_MODES[nonlinearity],
            input_size,
            hidden_size,
            num_layers,
            bias,
            batch_first,
            dropout,
            bidirectional,
            device=device,
            dtype=dtype,
        )
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> tuple[Tensor, Tensor]:
        return self._run(input, hx)


class LSTM(RNNBase):
    """Returns (output, (h_n, c_n)); proj_size > 0 projects h (and so the output) to that size."""

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        proj_size: int = 0,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(
            "LSTM",
            input_size,
            hidden_size,
            num_layers,
            bias,
            batch_first,
            dropout,
            bidirectional,
            proj_size,
            device,
            dtype,
        )

    def forward(
        self, input: Tensor, hx: tuple[Tensor, Tensor] | None = None
    ) -> tuple[Tensor, tuple[Tensor, Tensor]]:
        return self._run(input, hx)


class GRU(RNNBase):
    """Gated recurrent unit; returns (output, h_n)."""

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(
            "GRU",
            input_size,
            hidden_size,
            num_layers,
            bias,
            batch_first,
            dropout,
            bidirectional,
            device=device,
            dtype=dtype,
        )

    def forward(self, input: Tensor, hx: Tensor | None = None) -> tuple[Tensor, Tensor]:
        return self._run(input, hx)
