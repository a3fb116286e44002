"""The layout engine: graphviz-pure from pip, byte for byte what Graphviz's C code draws.

The golden hashes come from Graphviz 16.1.0 compiled to WebAssembly (@viz-js/viz, see
engine_golden.py): the pip-only engine and the real Graphviz give the same pictures, so nothing
depends on which Graphviz, if any, the system has.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from widgets import svg as svg_module

GOLDEN = json.loads(Path(__file__).with_name("engine_golden.json").read_text(encoding="utf-8"))


def test_the_engine_is_the_pip_installed_graphviz_pure_never_a_system_dot():
    path = Path(svg_module.engine_path())
    assert path.name in ("graphviz-pure", "graphviz-pure.exe")
    assert path.is_file()


@pytest.mark.parametrize("name", sorted(GOLDEN["layouts"]))
def test_layouts_are_identical_to_graphviz_compiled_from_c(name):
    case = GOLDEN["layouts"][name]
    svg = svg_module.layout_svg(case["dot"])
    assert hashlib.sha256(svg.encode()).hexdigest() == case["svg_sha256"], GOLDEN["reference"]
