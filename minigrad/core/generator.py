"""torch.Generator: a seedable stream of random numbers, and the default one every random op
draws from unless handed its own (`generator=`). Each wraps a numpy PCG64 generator, so equal
seeds give equal streams in minigrad (not PyTorch's numbers: its engine is an MT19937)."""

from __future__ import annotations

import secrets
from typing import Any

import numpy as np

from . import dtypes
from .device import CPU, as_device
from .device import device as Device
from .tensor import Tensor

DEFAULT_SEED = 67280421310721  # what a fresh PyTorch generator reports as its initial seed
_U64 = 2**64
# the state, as bytes: PCG64's state and increment (16 each), its buffered 32-bit half and the
# flag saying one is buffered (4 each), then the seed it started from (8)
_FIELDS = (("state", 16), ("inc", 16), ("uinteger", 4), ("has_uint32", 4), ("seed", 8))
STATE_SIZE = sum(n for _, n in _FIELDS)


class Generator:
    """`Generator(device="cpu")`; `manual_seed(s)` returns the generator itself, as PyTorch's
    does, so `Generator().manual_seed(0)` can be passed straight to a DataLoader."""

    def __init__(self, device: Any = "cpu") -> None:
        where = as_device(device)
        if where is None or where.type != "cpu":
            kind = where.type.upper() if where is not None else repr(device)
            raise RuntimeError(f"{kind} device type not an accelerator.")
        self._reseed(DEFAULT_SEED)

    @property
    def device(self) -> Device:
        return CPU

    def _reseed(self, seed: int) -> None:
        self._seed = seed
        self.rng = np.random.default_rng(seed)

    def manual_seed(self, seed: int) -> Generator:
        """Any Python int from -2**63 to 2**64 - 1; negative ones wrap as PyTorch's uint64."""
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise RuntimeError(f"manual_seed expected a long, but got {_kind(seed)}")
        if not -(2**63) <= seed < _U64:
            raise ValueError("Overflow when unpacking long long")
        self._reseed(seed % _U64)
        return self

    def seed(self) -> int:
        """Reseed from the operating system's entropy and return that seed."""
        self._reseed(secrets.randbits(63))
        return self._seed

    def initial_seed(self) -> int:
        return self._seed

    def get_state(self) -> Tensor:
        """The whole state as a uint8 tensor (a copy: writing it changes nothing here)."""
        inner = self.rng.bit_generator.state
        values = {**inner, **inner["state"], "seed": self._seed}
        raw = b"".join(int(values[k]).to_bytes(n, "little") for k, n in _FIELDS)
        return Tensor._wrap(np.frombuffer(raw, dtype=np.uint8).copy())

    def set_state(self, new_state: Tensor) -> Generator:
        if not isinstance(new_state, Tensor):
            raise TypeError(f"expected a torch.ByteTensor, but got {_kind(new_state)}")
        if new_state.dtype is not dtypes.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        if new_state.numel() != STATE_SIZE:
            raise RuntimeError(
                f"Expected a CPUGeneratorImplState of size {STATE_SIZE} but found the input RNG "
                f"state size to be {new_state.numel()}"
            )
        raw, values = new_state._data.reshape(-1).tobytes(), {}
        start = 0
        for key, n in _FIELDS:
            values[key] = int.from_bytes(raw[start : start + n], "little")
            start += n
        bits = np.random.PCG64()
        bits.state = {
            "bit_generator": "PCG64",
            "state": {"state": values["state"], "inc": values["inc"]},
            "has_uint32": values["has_uint32"],
            "uinteger": values["uinteger"],
        }
        self._seed, self.rng = values["seed"], np.random.Generator(bits)
        return self


def _kind(value: Any) -> str:
    return "Tensor" if isinstance(value, Tensor) else type(value).__name__


default_generator = Generator()


def generator_of(generator: Generator | None, fn: str = "random") -> np.random.Generator:
    """The numpy stream op `fn` draws from: its `generator=`, else the default one."""
    if generator is None:
        return default_generator.rng
    if not isinstance(generator, Generator):
        raise TypeError(
            f"{fn}(): argument 'generator' must be torch.Generator, not {_kind(generator)}"
        )
    return generator.rng
