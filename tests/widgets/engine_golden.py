"""Golden layouts from Graphviz's own C code, for test_explorer_engine.py.

The explorer lays graphs out with graphviz-pure (a Rust port of Graphviz 16.1.0). The reference is
Graphviz 16.1.0 itself, compiled to WebAssembly by @viz-js/viz 3.31.0 (npm). This script writes,
for a few DOT texts covering everything dot.py uses (HTML labels, clusters, box3d/note shapes,
styles, tooltips, names full of escapes, the fast settings above 400 nodes), the sha256 of the
SVG that viz-js makes. Regenerate (needs node and network once):

    npm pack @viz-js/viz@3.31.0 && tar xzf viz-js-viz-3.31.0.tgz
    python tests/widgets/engine_golden.py package/dist/viz.js
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[2]), str(Path(__file__).parent)]
from explorer_graphs import EVIL, abc, recorded_mlp  # noqa: E402

import minigrad as mg  # noqa: E402
from widgets import draw_graph  # noqa: E402
from widgets.svg import clean_svg  # noqa: E402

GOLDEN = Path(__file__).with_name("engine_golden.json")
VIZ_VERSION = "@viz-js/viz 3.31.0 (Graphviz 16.1.0)"

RENDER_JS = """
import(process.argv[1]).then(async ({ instance }) => {
  const viz = await instance();
  const sources = JSON.parse(require("fs").readFileSync(0, "utf8"));
  const out = {};
  for (const [name, dot] of Object.entries(sources)) {
    out[name] = viz.renderString(dot, { format: "svg" });
  }
  process.stdout.write(JSON.stringify(out));
});
"""


def sources() -> dict[str, str]:
    """DOT texts of the explorer's drawings (made with the current dot.py, then frozen)."""
    a, b, y = abc(mg)
    names = {"a\\N \\G": a, EVIL: b, "y \\\\ & &amp; \"'": y}
    fwd, _ = recorded_mlp(mg)
    x = mg.tensor([0.5, -0.25], requires_grad=True)
    h = x
    for _ in range(50):
        w = mg.tensor([0.9, 1.1], requires_grad=True)
        h = (h * w).tanh() + h
    big = draw_graph(h.sum())
    assert big.drawing().size > 400  # the fast layout settings are on
    return {
        "abc-escapes": draw_graph(y, names=names).source(),
        "mlp-boxes": fwd.draw(collapse=True).source(),
        "mlp-clusters": fwd.draw().source(),
        "chain-400": big.source(),
    }


def main(viz_js: str) -> None:
    dots = sources()
    done = subprocess.run(
        ["node", "-e", RENDER_JS, str(Path(viz_js).resolve())],
        input=json.dumps(dots),
        capture_output=True,
        text=True,
        check=True,
    )
    svgs = json.loads(done.stdout)
    golden = {
        "reference": VIZ_VERSION,
        "layouts": {
            name: {
                "dot": dot,
                "svg_sha256": hashlib.sha256(clean_svg(svgs[name]).encode()).hexdigest(),
            }
            for name, dot in dots.items()
        },
    }
    GOLDEN.write_text(json.dumps(golden, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {GOLDEN} ({GOLDEN.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main(sys.argv[1])
