"""torch.cuda as minigrad's CPU-only build answers it: so `device = "cuda" if
torch.cuda.is_available() else "cpu"` picks the CPU, as it does on a machine without a GPU.
Seeding and cache calls are the harmless no-ops PyTorch's CPU build makes of them; asking
about a current device fails as there."""

NOT_COMPILED = "Torch not compiled with CUDA enabled"


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def is_initialized() -> bool:
    return False


def manual_seed(seed: int) -> None:
    """Seeds nothing: there are no CUDA generators (the CPU one is torch.manual_seed's)."""


def manual_seed_all(seed: int) -> None:
    """Seeds nothing: there are no CUDA generators."""


def seed() -> None:
    """Seeds nothing: there are no CUDA generators."""


def seed_all() -> None:
    """Seeds nothing: there are no CUDA generators."""


def empty_cache() -> None:
    """Frees nothing: there is no CUDA cache."""


def memory_allocated(device: object = None) -> int:
    return 0


def max_memory_allocated(device: object = None) -> int:
    return 0


def is_bf16_supported(including_emulation: bool = True) -> bool:
    return False


def current_device() -> int:
    raise AssertionError(NOT_COMPILED)


def get_device_name(device: object = None) -> str:
    raise AssertionError(NOT_COMPILED)


def synchronize(device: object = None) -> None:
    raise AssertionError(NOT_COMPILED)
