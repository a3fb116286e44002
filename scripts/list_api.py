"""Write API.md: minigrad's public names, read from the library itself, so the page cannot
drift from the code (tests/test_api_page.py fails when it is stale).

Usage: python scripts/list_api.py [--check]
"""

from __future__ import annotations

import inspect
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import minigrad  # noqa: E402
import minigrad.autograd.functional  # noqa: E402, F401
import minigrad.nn.functional  # noqa: E402, F401
import minigrad.optim.lr_scheduler  # noqa: E402, F401
import minigrad.utils.checkpoint  # noqa: E402, F401

PAGE = ROOT / "API.md"
INTRO = """# minigrad's public API

minigrad answers to PyTorch's names (`import minigrad as torch`). This page lists every public
name, generated from the library by `python scripts/list_api.py`; `tests/test_api_page.py`
fails when it is out of date. What differs from PyTorch on purpose is listed in the README
("What differs from PyTorch on purpose").
"""
# the library's own floors, reachable as attributes but not part of torch's surface
INTERNAL_MODULES = {"core", "creation", "ops", "kernels"}
LAZY = ["load", "save"]  # loaded on first use (minigrad/__init__.py's __getattr__)


def _public(names: list[str]) -> list[str]:
    return sorted(n for n in names if not n.startswith("_"))


def _section(title: str, names: list[str]) -> str:
    return f"## {title}\n\n" + ", ".join(f"`{n}`" for n in names) + "\n"


def _members(module: ModuleType, want) -> list[str]:
    """What `module` offers of a kind: its __all__, else what it defines itself (not the
    helpers it imported for its own use)."""
    if hasattr(module, "__all__"):
        return _public([n for n in module.__all__ if want(getattr(module, n, None))])
    return _public(
        [
            n
            for n, obj in vars(module).items()
            if want(obj) and getattr(obj, "__module__", "").startswith(module.__name__)
        ]
    )


def _is_module(obj) -> bool:
    return isinstance(obj, ModuleType)


def sections() -> list[str]:
    top = [n for n in _public(dir(minigrad)) if n not in INTERNAL_MODULES] + LAZY
    modules = [n for n in top if _is_module(getattr(minigrad, n))] + ["nn", "optim", "utils"]
    dtypes = [n for n in top if isinstance(getattr(minigrad, n), minigrad.dtype)]
    functions = sorted(n for n in top if n not in modules and n not in dtypes)
    tensor = _public(dir(minigrad.Tensor))
    nn = minigrad.nn
    modules_nn = [n for n in _public(nn.modules.__all__)]
    return [
        _section("`torch` (module level): functions and classes", functions),
        _section("dtypes", dtypes),
        _section("submodules", sorted(set(modules))),
        _section("`Tensor` methods, operators and properties", tensor),
        _section("`torch.autograd`", _public(minigrad.autograd.__all__)),
        _section("`torch.autograd.graph`", _public(minigrad.autograd.graph.__all__)),
        _section(
            "`torch.autograd.functional`",
            _members(minigrad.autograd.functional, inspect.isfunction),
        ),
        _section("`torch.nn` modules", modules_nn + ["Parameter"]),
        _section("`torch.nn.functional`", _members(nn.functional, inspect.isfunction)),
        _section("`torch.nn.init`", _members(nn.init, inspect.isfunction)),
        _section("`torch.nn.utils`", _members(nn.utils, callable)),
        _section("`torch.optim`", _members(minigrad.optim, inspect.isclass)),
        _section(
            "`torch.optim.lr_scheduler`", _members(minigrad.optim.lr_scheduler, inspect.isclass)
        ),
        _section("`torch.utils.checkpoint`", ["checkpoint"]),
        _section("`torch.utils.hooks`", _public(minigrad.utils.hooks.__all__)),
        _section("`torch.cuda`", _members(minigrad.cuda, inspect.isfunction)),
    ]


def render() -> str:
    return INTRO + "\n" + "\n".join(sections())


def main(argv: list[str]) -> int:
    text = render()
    if "--check" in argv:
        return 0 if PAGE.exists() and PAGE.read_text() == text else 1
    PAGE.write_text(text)
    print(f"wrote {PAGE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
