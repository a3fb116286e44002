"""torch.device, for the boilerplate every tutorial opens with. minigrad computes on the CPU
only: naming another device is fine, putting a tensor there fails as PyTorch's CPU build does."""

from __future__ import annotations

from typing import Any

# the device types PyTorch knows (its error lists them); only "cpu" can hold a minigrad tensor
KNOWN_TYPES = (
    "cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, lazy, "
    "vulkan, mps, meta, hpu, mtia, privateuseone"
).split(", ")


class device:  # noqa: N801 - mirrors torch.device
    """A device name: `device("cpu")`, `device("cuda:0")`, `device("cuda", 0)`."""

    __slots__ = ("type", "index")

    def __init__(self, type: Any, index: int | None = None) -> None:  # noqa: A002
        if isinstance(type, device):
            type, index = type.type, type.index if index is None else index
        elif isinstance(type, str) and ":" in type:
            type, _, number = type.partition(":")
            if not number.isdigit():
                raise RuntimeError(f"Invalid device string: '{type}:{number}'")
            index = int(number)
        if type not in KNOWN_TYPES:
            raise RuntimeError(
                f"Expected one of {', '.join(KNOWN_TYPES)} device type at start of device "
                f"string: {type}"
            )
        self.type, self.index = type, index

    def __repr__(self) -> str:
        extra = "" if self.index is None else f", index={self.index}"
        return f"device(type='{self.type}'{extra})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))


CPU = device("cpu")


def as_device(value: Any) -> device | None:
    """A device from what `.to(...)` or `device=` was given (None: not a device)."""
    if isinstance(value, device):
        return value
    if isinstance(value, str):
        return device(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return device("cuda", value)  # PyTorch reads a bare integer as a CUDA device index
    return None


def check_cpu(value: Any) -> None:
    """Fail as PyTorch's CPU-only build does when a tensor is asked to live elsewhere."""
    where = as_device(value) if value is not None else CPU
    if where is None or where.type == "cpu":
        return
    if where.type == "cuda":
        raise AssertionError("Torch not compiled with CUDA enabled (minigrad runs on the CPU)")
    raise RuntimeError(
        f"PyTorch is not linked with support for {where.type} devices (minigrad runs on the CPU)"
    )


def device_of_to_args(args: tuple, kwargs: dict) -> Any:
    """The device asked for by `.to(...)`: device=, a device or name, or another tensor's."""
    if kwargs.get("device") is not None:
        return kwargs["device"]
    for a in args:
        if isinstance(a, (str, device)) or (isinstance(a, int) and not isinstance(a, bool)):
            return a
    return None


def set_default_device(value: Any) -> None:
    """Where factories put new tensors: the CPU is the only choice here."""
    check_cpu(value)


def get_default_device() -> device:
    return CPU
