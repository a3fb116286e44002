"""torch.use_deterministic_algorithms: minigrad's numpy kernels are deterministic already, so
the switch is only remembered (the usual reproducibility preamble runs unchanged)."""

from __future__ import annotations

_state = {"mode": False, "warn_only": False}


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    for name, value in (("mode", mode), ("warn_only", warn_only)):
        if not isinstance(value, bool):
            where = "'mode' (position 1)" if name == "mode" else "'warn_only'"
            raise TypeError(
                f"_set_deterministic_algorithms(): argument {where} must be bool, not "
                f"{type(value).__name__}"
            )
    _state.update(mode=mode, warn_only=warn_only)


def are_deterministic_algorithms_enabled() -> bool:
    return _state["mode"]


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    return _state["warn_only"]
