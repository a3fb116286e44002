"""Helpers shared by the semantics snippets: describe graphs in library-independent terms."""

from __future__ import annotations

from typing import Any


def edges(node: Any) -> list:
    """next_functions as (name or None, input_nr) pairs."""
    return [(n.name() if n is not None else None, nr) for n, nr in node.next_functions]


def collect(module_globals: dict) -> list:
    """Every snip_* function of a module, for pytest parametrization by name."""
    return [fn for name, fn in sorted(module_globals.items()) if name.startswith("snip_")]
