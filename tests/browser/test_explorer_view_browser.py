"""The player's view in a real JupyterLab 4 + headless Chromium: readable, zoomable, explained.

A learner's notebook (a small graph, a hook, an 8-layer MLP, a 1,000-node chain) is run in a fresh
kernel; the players are then measured as drawn: node labels at least 11 px on screen at the
default zoom (a big graph scrolls instead of shrinking), ctrl+wheel zooms around the pointer, a
drag pans without opening a module, "fit" and the minimap move the view, and playing keeps the
current node in view. The numbers are on the drawing (the active edge's gradient, `.grad` by each
leaf, a badge naming the hook that fired, on the element it belongs to), the legend is HTML outside
the drawing and every text around it keeps a readable contrast in the light and the dark theme.
Stepping is timed on a 10,000-node graph in a saved replay, offline (reported against its targets,
not asserted: tests/browser/targets.py). Expected texts come from the
same players built in this process (frames are made in Python, so the whole path is checked).
Screenshots go to artifacts/explorer-view-*.png.
"""

from __future__ import annotations

import statistics
from pathlib import Path

import nbformat
import pytest
from notebook_runner import artifact, run_notebook, set_theme
from targets import report as timing_report

from widgets.replay import replay_html
from widgets.texts import front_end

expect = pytest.importorskip("playwright.sync_api").expect  # skip cleanly without it

OUT = ".jp-OutputArea-output"
WIDGETS = Path(__file__).resolve().parents[2] / "widgets"
MIN_LABEL_PX = 11

SETUP = """import minigrad as mg
from widgets import record_backward, record_forward"""
SMALL = """a = mg.tensor([1.0, 2.0], requires_grad=True)
b = mg.tensor([3.0, 4.0], requires_grad=True)
y = (a * b + a * 2).sum()
with record_backward(y, names={"a": a, "b": b}) as small_trace:
    y.backward()
small = small_trace.player()
small"""
HOOKED = """x = mg.tensor([1.0, -1.0], requires_grad=True)
h = x * 3


def double(grad):
    return grad * 2


h.register_hook(double)
z = (h**2).sum()
with record_backward(z, names={"x": x, "h": h}) as hooked_trace:
    z.backward()
hooked = hooked_trace.player()
hooked"""
MLP = """layers = []
for _ in range(8):
    layers += [mg.nn.Linear(4, 4), mg.nn.Tanh()]
mlp_model = mg.nn.Sequential(*layers)
with mg.no_grad():
    for i, p in enumerate(mlp_model.parameters()):
        p.copy_(mg.linspace(-0.5, 0.5, p.numel()).reshape(p.shape) * (1 + i % 3))
batch = mg.ones(2, 4)
with record_forward(mlp_model, names={"batch": batch}) as mlp_forward:
    mlp_loss = mlp_model(batch).pow(2).mean()
with record_backward(mlp_loss, forward=mlp_forward) as mlp_trace:
    mlp_loss.backward()
mlp = mlp_trace.player()
mlp"""
CHAIN = """x0 = mg.tensor([0.5, -0.25], requires_grad=True)
hc = x0
for _ in range(125):  # 8 drawn nodes a step: a 1,000-node graph
    w = mg.tensor([0.9, 1.1], requires_grad=True)
    hc = (hc * w).tanh() + hc
chain_loss = hc.sum()
with record_backward(chain_loss) as chain_trace:
    chain_loss.backward()
chain = chain_trace.player()
chain"""
SMALL_I, HOOKED_I, MLP_I, CHAIN_I = range(4)  # players, in the order the cells show them


def notebook(*cells: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])


def built(*cells: str) -> dict:
    """The same cells run here: the players' frames are what the browser was sent."""
    scope: dict = {}
    for cell in (SETUP, *cells):
        exec(cell, scope)  # noqa: S102 - our own cell sources
    return scope


def player(page, index: int):
    found = page.locator(f"{OUT} .mg-player").nth(index)
    found.scroll_into_view_if_needed()
    return found


def goto_frame(root, k: int) -> None:
    """The slider jumps anywhere (a step back or forward costs one fold either way)."""
    root.locator("input.mg-slider").fill(str(k))
    expect(root).to_have_attribute("data-frame", str(k))


def step(root) -> None:
    frame = int(root.get_attribute("data-frame"))
    root.locator("button.mg-step").click()
    expect(root).to_have_attribute("data-frame", str(frame + 1))


def first_index(frames: list[dict], test) -> int:
    return next(i for i, f in enumerate(frames) if test(f))


# the smallest node title on screen: its font size times the drawing's scale, and its box
LABEL_PX = """root => {
  const titles = [...root.querySelectorAll('.mg-graph g.node text[font-weight=bold]')];
  return {
    font: Math.min(...titles.map((t) => parseFloat(t.getAttribute('font-size')) *
                                        t.getScreenCTM().a)),
    box: Math.min(...titles.map((t) => t.getBoundingClientRect().height)),
  };
}"""
# the scroll area: what it shows and how far it scrolls
AREA = """root => { const g = root.querySelector('.mg-graph');
  return {left: g.scrollLeft, top: g.scrollTop, width: g.clientWidth, height: g.clientHeight,
          scrollWidth: g.scrollWidth, scrollHeight: g.scrollHeight,
          scale: parseFloat(root.dataset.scale)}; }"""
# the point of the drawing (SVG units) under a point of the screen
UNDER = """([root, x, y]) => { const svg = root.querySelector('.mg-graph svg');
  const p = new DOMPoint(x, y).matrixTransform(svg.getScreenCTM().inverse());
  return [p.x, p.y]; }"""
# is the element `id` of the drawing entirely inside the visible part of the scroll area?
IN_VIEW = """([root, id]) => {
  const el = root.querySelector(`.mg-graph svg [id="${id}"]`);
  const a = el.getBoundingClientRect(), v = root.querySelector('.mg-graph').getBoundingClientRect();
  return a.left >= v.left - 1 && a.right <= v.right + 1 && a.top >= v.top - 1 &&
         a.bottom <= v.bottom + 1;
}"""
# the geometric boxes (no stroke) of a leaf and of its .grad badge, on screen
BELOW = """(root, id) => {
  const box = (el) => { const r = el.getBoundingClientRect();
    return {top: r.top, bottom: r.bottom, left: r.left, right: r.right}; };
  return {node: box(root.querySelector(`.mg-graph g.node[id="${id}"] > :is(polygon, path)`)),
          badge: box(root.querySelector(`.mg-leaf-badge[data-for="${id}"] rect`))};
}"""
# a point of the scroll area where a module's frame (a click there closes the module) is hit
ON_A_FRAME = """root => {
  const v = root.querySelector('.mg-graph').getBoundingClientRect();
  for (const frame of root.querySelectorAll('.mg-graph g.mg-cluster')) {
    const r = frame.getBoundingClientRect();
    const x = Math.max(r.left, v.left) + 4;
    const y = (Math.max(r.top, v.top) + Math.min(r.bottom, v.bottom - 20)) / 2;
    const hit = document.elementFromPoint(x, y);
    if (x < v.right - 20 && hit && hit.closest('g.mg-cluster') === frame) return [x, y];
  }
  throw new Error('no module frame in view');
}"""
# WCAG contrast of an element's text against the first opaque background behind it
CONTRAST = """el => {
  const rgb = (c) => (c.match(/[0-9.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => [r, g, b].map((v) => { v /= 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
    .reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
  let bg = null;
  for (let e = el; e && !bg; e = e.parentElement) {
    const c = rgb(getComputedStyle(e).backgroundColor);
    if (c.length === 3 || c[3] > 0.9) bg = c;
  }
  bg = bg || [255, 255, 255];
  const fg = rgb(getComputedStyle(el).color);
  const alpha = fg.length === 4 ? fg[3] : 1; // a translucent text colour shows the background
  const seen = [0, 1, 2].map((i) => alpha * fg[i] + (1 - alpha) * bg[i]);
  const [a, b] = [lum(seen), lum(bg)];
  return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
}"""
# the texts around the drawing that a learner reads
READ = [
    ".mg-step-text",
    ".mg-summary",
    ".mg-title",
    ".mg-line",
    ".mg-empty",
    ".mg-legend-item span",
    ".mg-legend-title",
    "button.mg-step",
    "select.mg-zoom",
    ".mg-counter",
]


def check_contrast(root) -> dict[str, float]:
    ratios = {}
    for selector in READ:
        found = root.locator(selector).first
        if found.count():
            ratios[selector] = round(found.evaluate(CONTRAST), 2)
    low = {k: v for k, v in ratios.items() if v < 4.5}
    assert not low, f"text below WCAG AA contrast: {low}"
    return ratios


def check_legend(root) -> None:
    """HTML outside the drawing: node kinds and every animation state, told apart without
    colour (the swatches' borders differ in width or dashes, or carry a glyph)."""
    legend = root.locator(".mg-legend")
    expect(legend).to_be_visible()
    assert legend.evaluate("l => !l.closest('svg') && !l.closest('.mg-graph')")
    expect(root.locator(".mg-graph svg text", has_text="leaf requiring grad")).to_have_count(0)
    text = legend.inner_text()
    for words in (
        "backward node",
        "current",
        "ready",
        "done",
        "freed",
        "active edge",
        "hook",
        "error",
    ):
        assert words in text, (words, text)
    looks = root.evaluate(
        """root => ['current', 'ready', 'done', 'freed-now', 'updated', 'error'].map((state) => {
          const shape = root.querySelector(`.mg-legend g.mg-key-${state} > :is(path, polygon)`);
          const s = getComputedStyle(shape);
          return [state, s.strokeWidth, s.strokeDasharray, s.opacity,
                  getComputedStyle(shape.parentElement).opacity];
        })"""
    )
    borders = {tuple(look[1:]) for look in looks}
    # "updated" shares the current node's border: it is told apart by its .grad badge
    assert len(borders) >= len(looks) - 1, looks
    expect(legend.locator(".mg-hook-mark text")).to_have_text("⚑")
    # the swatches are not elements of the drawing: a query for the drawing's states skips them
    assert legend.locator("g.node, g.edge, g.mg-hidden, [id]").count() == 0


def test_readable_zoomable_and_numbers_on_the_drawing(lab, lab_page):
    page = lab_page
    run_notebook(page, lab, notebook(SETUP, SMALL, HOOKED, MLP, CHAIN), "explorer-view")
    here = built(SMALL, HOOKED)

    # --- readable: labels >= 11 px at the default zoom; a big graph scrolls at that size ------
    for index in (SMALL_I, HOOKED_I, MLP_I, CHAIN_I):
        root = player(page, index)
        expect(root).to_have_attribute("data-zoom", "auto")
        size = root.evaluate(LABEL_PX)
        assert size["font"] >= MIN_LABEL_PX - 0.01 and size["box"] >= MIN_LABEL_PX, (index, size)
        area = root.evaluate(AREA)
        bigger = (
            area["scrollWidth"] > area["width"] + 1 or area["scrollHeight"] > area["height"] + 1
        )
        expect(root).to_have_attribute("data-minimap", "shown" if bigger else "hidden")
    for index in (MLP_I, CHAIN_I):  # too big for the view: scrolls, with a minimap
        expect(player(page, index).locator(".mg-minimap")).to_be_visible()

    # --- zoom: ctrl+wheel around the pointer, plain wheel scrolls, fit, menu, minimap ---------
    mlp = player(page, MLP_I)
    graph = mlp.locator(".mg-graph")
    box = graph.bounding_box()
    x, y = box["x"] + box["width"] * 0.4, box["y"] + box["height"] * 0.5
    page.mouse.move(x, y)
    before = mlp.evaluate(AREA)
    under = page.evaluate(UNDER, [mlp.element_handle(), x, y])
    page.keyboard.down("Control")
    page.mouse.wheel(0, -200)
    page.keyboard.up("Control")
    expect(mlp).to_have_attribute("data-zoom", "custom")
    after = mlp.evaluate(AREA)
    assert after["scale"] > before["scale"] * 1.2, (before, after)
    still = page.evaluate(UNDER, [mlp.element_handle(), x, y])
    assert abs(still[0] - under[0]) < 3 and abs(still[1] - under[1]) < 3, (under, still)
    assert mlp.locator("select.mg-zoom").evaluate("s => s.selectedOptions[0].textContent") == (
        f"{round(100 * after['scale'] / (4 / 3))}%"
    )
    page.mouse.wheel(0, 300)  # no ctrl: the drawing scrolls, the zoom stays
    page.wait_for_function(
        "([g, top]) => g.scrollTop > top", arg=[graph.element_handle(), after["top"]]
    )
    assert mlp.evaluate(AREA)["scale"] == after["scale"]

    mlp.locator("button.mg-fit").click()
    expect(mlp).to_have_attribute("data-zoom", "fit")
    fitted = mlp.evaluate(AREA)
    assert fitted["scrollWidth"] <= fitted["width"] + 1
    assert fitted["scrollHeight"] <= fitted["height"] + 1
    expect(mlp).to_have_attribute("data-minimap", "hidden")
    mlp.locator("select.mg-zoom").select_option("auto")
    assert mlp.evaluate(LABEL_PX)["font"] >= MIN_LABEL_PX - 0.01
    expect(mlp).to_have_attribute("data-minimap", "shown")

    # a drag pans, even one that starts on a module's frame, and opens or closes nothing
    summary = mlp.locator(".mg-summary").inner_text()
    mlp.evaluate("r => r.querySelector('.mg-graph').scrollTo(0, 0)")
    sx, sy = mlp.evaluate(ON_A_FRAME)
    top0 = mlp.evaluate(AREA)["top"]
    page.mouse.move(sx, sy)
    page.mouse.down()
    page.mouse.move(sx - 10, sy - 60, steps=4)
    page.mouse.move(sx - 20, sy - 120, steps=4)
    page.mouse.up()
    panned = mlp.evaluate(AREA)
    assert panned["top"] >= top0 + 100, (top0, panned)
    page.wait_for_timeout(500)  # a click would have asked the kernel for a new layout by now
    expect(mlp.locator(".mg-summary")).to_have_text(summary)
    expect(page.locator(f"{OUT} .mg-player")).to_have_count(4)

    # the minimap: a click moves the view there
    minimap = mlp.locator(".mg-minimap-image")
    minimap.scroll_into_view_if_needed()
    mbox = minimap.bounding_box()
    minimap.click(position={"x": mbox["width"] - 2, "y": mbox["height"] - 2})
    mbox = minimap.bounding_box()
    moved = mlp.evaluate(AREA)
    assert moved["top"] >= moved["scrollHeight"] - moved["height"] - 2, moved
    frame_box = mlp.locator(".mg-minimap-view").bounding_box()
    assert frame_box["y"] + frame_box["height"] >= mbox["y"] + mbox["height"] - 4

    # --- playing keeps the current node in view --------------------------------------------
    mlp.evaluate("r => r.querySelector('.mg-graph').scrollTo(0, 0)")
    mlp.locator("button.mg-first").click()
    misses = []
    for _ in range(60):
        step(mlp)
        current = mlp.locator(".mg-graph g.mg-current")
        if current.count():
            ident = current.first.get_attribute("id")
            if not page.evaluate(IN_VIEW, [mlp.element_handle(), ident]):
                misses.append((mlp.get_attribute("data-frame"), ident))
    assert misses == []
    assert mlp.evaluate(AREA)["top"] > 0  # it did scroll: the pass starts at the top
    mlp.screenshot(path=artifact("explorer-view-mlp-light.png"))

    # --- numbers where they happen ------------------------------------------------------------
    small = player(page, SMALL_I)
    frames = here["small"].frames
    k = first_index(frames, lambda f: f.get("edge"))
    goto_frame(small, k)
    label = small.locator(".mg-edge-label")
    expect(label).to_be_visible()
    expect(label).to_have_attribute("data-for", frames[k]["edge"])
    expect(label.locator("text")).to_have_text(frames[k].get("edge_label") or frames[k]["grad"])
    edge = small.locator(f'.mg-graph g.edge[id="{frames[k]["edge"]}"]').bounding_box()
    mark = label.locator("rect").bounding_box()
    cx, cy = mark["x"] + mark["width"] / 2, mark["y"] + mark["height"] / 2
    assert edge["x"] - 2 <= cx <= edge["x"] + edge["width"] + 2, (edge, mark)
    assert edge["y"] - 2 <= cy <= edge["y"] + edge["height"] + 2, (edge, mark)

    k = first_index(frames, lambda f: f.get("leaf"))
    leaf = frames[k]["leaf"]
    goto_frame(small, k - 1)
    expect(small.locator(f'.mg-leaf-badge[data-for="{leaf["id"]}"]')).to_have_count(0)
    step(small)
    badge = small.locator(f'.mg-leaf-badge[data-for="{leaf["id"]}"]')
    expect(badge.locator("text")).to_have_text(f".grad = {leaf['after']}")
    under = small.evaluate(BELOW, leaf["id"])  # the badge hangs under its leaf
    assert under["badge"]["top"] >= under["node"]["bottom"] - 1, under
    assert under["badge"]["left"] < under["node"]["right"], under
    assert under["badge"]["right"] > under["node"]["left"], under
    small.locator("button.mg-last").click()  # the badge stays for the rest of the replay
    expect(badge.locator("text")).to_have_text(f".grad = {leaf['after']}")
    small.locator("button.mg-prev").click()
    small.locator("button.mg-first").click()  # back to the start: no .grad written yet
    expect(small.locator(".mg-leaf-badge")).to_have_count(0)
    goto_frame(small, len(frames) - 1)
    small.screenshot(path=artifact("explorer-view-small-light.png"))

    hooked = player(page, HOOKED_I)
    frames = here["hooked"].frames
    k = first_index(frames, lambda f: f.get("hook"))
    hook = frames[k]["hook"]
    target = here["hooked"].alias.get(hook["target"], hook["target"])
    goto_frame(hooked, k)
    flash = hooked.locator(".mg-hook-flash")
    expect(flash).to_be_visible()
    expect(flash).to_have_attribute("data-for", target)
    expect(flash).to_have_attribute("data-kind", hook["kind"])
    expect(flash.locator("text")).to_contain_text(f"{hook['kind']} hook")
    on = hooked.locator(f'.mg-graph g.node[id="{target}"]').bounding_box()
    spot = flash.locator("rect").bounding_box()
    assert on["x"] <= spot["x"] + spot["width"] and spot["x"] <= on["x"] + on["width"] + 20
    assert on["y"] - 2 * spot["height"] <= spot["y"] <= on["y"]
    expect(hooked.locator(".mg-sec-hooks .mg-line")).to_have_text(hook["text"])
    hooked.screenshot(path=artifact("explorer-view-hook-light.png"))
    step(hooked)  # the flash ends; a small mark stays for the rest of the pass
    expect(flash).to_be_hidden()
    expect(hooked.locator(f'.mg-hook-mark[data-for="{target}"]')).to_have_count(1)
    goto_frame(hooked, k - 1)
    expect(hooked.locator(".mg-graph .mg-hook-mark")).to_have_count(0)

    check_legend(small)
    check_contrast(small)
    chain = player(page, CHAIN_I)
    chain.screenshot(path=artifact("explorer-view-1000-nodes-light.png"))
    page.screenshot(path=artifact("explorer-view-light.png"))
    assert page.js_errors == []


def test_legend_and_texts_readable_in_the_dark_theme(lab, lab_page):
    page = lab_page
    set_theme(lab, "JupyterLab Dark")
    try:
        run_notebook(page, lab, notebook(SETUP, SMALL, HOOKED), "explorer-view-dark")
        expect(page.locator("body")).to_have_attribute("data-jp-theme-light", "false")
        here = built(SMALL, HOOKED)
        hooked = player(page, 1)
        frames = here["hooked"].frames
        goto_frame(hooked, first_index(frames, lambda f: f.get("hook")))
        check_legend(hooked)
        expect(hooked.locator(".mg-hook-flash")).to_be_visible()
        hooked.screenshot(path=artifact("explorer-view-hook-dark.png"))
        ratios = check_contrast(hooked)
        # the panel and the step text sit on the dark page, not on white paper
        assert (
            hooked.locator(".mg-step-text").evaluate("e => getComputedStyle(e).backgroundColor")
            != "rgb(255, 255, 255)"
        )
        small = player(page, 0)
        goto_frame(small, first_index(here["small"].frames, lambda f: f.get("edge")))
        expect(small.locator(".mg-edge-label")).to_be_visible()
        check_contrast(small)
        page.screenshot(path=artifact("explorer-view-dark.png"))
        print("\n[contrast, dark theme]", ratios)
    finally:
        set_theme(lab, None)
    assert page.js_errors == []


# --- 10,000 nodes, in a saved replay (offline): stepping stays under a frame ------------------
def synthetic_state(drawn: int, boxes: int = 0, box_size: int = 0) -> dict:
    """A player's state for a big backward pass, made up so that its size is exact: `drawn`
    nodes on a grid (every 10th a leaf) in a binary tree of gradient edges, and `boxes`
    collapsed modules of `box_size` hidden nodes each. Each node takes 4 frames (edge, ready,
    run, done), as the engine's do. The SVG has the classes and ids dot.py writes."""
    cols, dx, dy = 100, 100, 50
    rows = -(-drawn // cols) + (1 if boxes else 0)
    width, height = cols * dx + 20, rows * dy + 20
    pos = {i: (10 + (i % cols) * dx, 30 + (i // cols) * dy - height) for i in range(drawn)}
    parts = [
        f'<svg width="{width}pt" height="{height}pt" viewBox="0.00 0.00 {width}.00 {height}.00" '
        'xmlns="http://www.w3.org/2000/svg"><g id="graph0" class="graph" '
        f'transform="scale(1 1) rotate(0) translate(4 {height - 4})">'
    ]

    def node(ident, kind, fill, x, y, text, extra=""):
        parts.append(
            f'<g id="{ident}" class="node mg-n-{kind}{extra}"><title>{ident}</title>'
            f'<polygon fill="{fill}" stroke="black" points="{x},{y - 12} {x + 80},{y - 12} '
            f'{x + 80},{y + 10} {x},{y + 10}"/><text text-anchor="middle" x="{x + 40}" '
            f'y="{y + 3}" font-family="Helvetica,sans-Serif" font-weight="bold" '
            f'font-size="11.00">{text}</text></g>'
        )

    for i in range(1, drawn):
        (x0, y0), (x1, y1) = pos[(i - 1) // 2], pos[i]
        parts.append(
            f'<g id="e{i}" class="edge mg-e-grad"><title>n{(i - 1) // 2}-&gt;n{i}</title>'
            f'<path fill="none" stroke="black" d="M{x0 + 40},{y0 + 10}L{x1 + 40},{y1 - 12}"/></g>'
        )
    for i in range(drawn):
        leaf = i % 10 == 9
        node(
            f"n{i}",
            "leaf" if leaf else "backward",
            "#add8e6" if leaf else "#e8e8e8",
            *pos[i],
            f"node {i}",
        )
    for b in range(boxes):
        node(
            f"m{b}", "module", "#fff2cc", 10 + b * dx, height - 30 - height, f"block {b}", " mg-box"
        )
    parts.append("</g></svg>")
    members = {f"m{b}": [f"b{b}_{j}" for j in range(box_size)] for b in range(boxes)}
    alias = {m: box for box, ms in members.items() for m in ms}
    order = [f"n{i}" for i in range(drawn)] + [m for ms in members.values() for m in ms]
    frames = [
        {
            "kind": "backward_start",
            "pass": 1,
            "deps": dict.fromkeys(order, 1),
            "queue": [],
            "text": f"backward #1: {len(order)} nodes wait for gradients",
        }
    ]
    for k, ident in enumerate(order):
        i = int(ident[1:]) if ident[0] == "n" else None
        grad = f"[{k % 7}., {k % 5}.]"
        edge = {"edge": f"e{i}", "edge_label": grad} if i else {}
        frames += [
            {
                "kind": "edge",
                "pass": 1,
                "node": ident,
                "deps": {ident: 0},
                "grad": grad,
                "text": f"gradient {grad} to {ident}",
                **edge,
            },
            {"kind": "ready", "pass": 1, "node": ident, "queue": [ident], "text": "ready"},
            {"kind": "node_start", "pass": 1, "node": ident, "queue": [], "text": "run"},
        ]
        if i is not None and i % 10 == 9:
            frames.append(
                {
                    "kind": "accumulate",
                    "pass": 1,
                    "node": ident,
                    "done": ident,
                    "leaf": {"id": ident, "name": f"w{i}", "before": "None", "after": grad},
                    "text": f"w{i}.grad = {grad}",
                }
            )
        else:
            frames.append(
                {
                    "kind": "node_run",
                    "pass": 1,
                    "node": ident,
                    "done": ident,
                    "freed": [ident] if ident[0] == "b" else [],
                    "text": "returned",
                }
            )
    frames.append({"kind": "backward_end", "pass": 1, "queue": [], "text": "finished"})
    titles = {ident: ident for ident in order}
    return {
        "mode": "backward",
        "svg": "".join(parts),
        "message": "",
        "frames": frames,
        "titles": titles,
        "alias": alias,
        "boxes": members,
        "timings": {},
        "frame": 0,
        "speed": 1.0,
        "key": "",
        "legend": True,
        "texts": front_end("en"),  # the words player.js shows (widgets/texts.py)
        "summary": f"{len(order)} nodes: {drawn} drawn, {boxes} boxes of {box_size}",
    }


# per click: the player's own work (data-step-ms: fold, classes, badges, panel) and the
# browser's style, layout and paint after it (from the frame's start to the task after it)
STEP_TIMES = """async ([n, selector]) => {
  const root = document.querySelector('.mg-player');
  const button = root.querySelector(selector);
  const out = {work: [], render: []};
  for (let i = 0; i < n; i++) {
    button.click();
    out.work.push(parseFloat(root.dataset.stepMs));
    await new Promise((r) => requestAnimationFrame(r));
    const t = performance.now();
    await new Promise((r) => setTimeout(r, 0));
    out.render.push(performance.now() - t);
  }
  return out;
}"""


def timing(series: dict[str, list[float]]) -> dict:
    out = {}
    for name, values in series.items():
        ordered = sorted(values)
        out[name] = {
            "median_ms": round(statistics.median(values), 2),
            "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))], 2),
            "max_ms": round(ordered[-1], 2),
        }
    return out


def open_replay(chromium, state: dict, path: Path):
    """The state as a saved replay, opened offline with every request refused (and noted)."""
    path.write_text(replay_html(state, state["summary"], WIDGETS), encoding="utf-8")
    ctx = chromium.new_context(viewport={"width": 1400, "height": 1000}, offline=True)
    refused, errors = [], []

    def refuse(route):
        if route.request.url != path.as_uri():
            refused.append(route.request.url)
            route.abort()
        else:
            route.continue_()

    ctx.route("**/*", refuse)
    page = ctx.new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(path.as_uri())
    root = page.locator(".mg-player")
    page.wait_for_function("() => document.querySelector('.mg-player')?.dataset.paintedAt")
    return ctx, page, root, refused, errors


def measure_steps(page, root) -> dict:
    """Steps from a quarter of the way in, forward and back, and one jump to the end."""
    frames = int(root.locator(".mg-counter").inner_text().split("/")[1])
    root.locator("input.mg-slider").fill(str(frames // 4))
    forward = page.evaluate(STEP_TIMES, [200, "button.mg-step"])
    back = page.evaluate(STEP_TIMES, [100, "button.mg-prev"])
    root.locator("button.mg-last").click()
    return {
        "frames": frames,
        "draw_ms": float(root.get_attribute("data-draw-ms")),
        "step": timing(forward),
        "step_back": timing(back),
        "jump_to_end_ms": float(root.get_attribute("data-step-ms")),
    }


def test_stepping_a_10000_node_graph_takes_under_a_frame(chromium, tmp_path):
    report = {}
    # as the kernel draws it: 1,500 nodes drawn, the other 8,500 in collapsed module boxes
    state = synthetic_state(1500, boxes=8, box_size=1063)
    ctx, page, root, refused, errors = open_replay(chromium, state, tmp_path / "boxed.html")
    try:
        expect(root).to_have_attribute("data-label-px", "11.00")
        expect(root.locator(".mg-minimap")).to_be_visible()  # blob: images pass the CSP
        # a box is current while a node inside it runs, done when all have run, never freed
        box_node = first_index(state["frames"], lambda f: f.get("node") == "b2_5")
        goto_frame(root, box_node + 2)  # b2_5 runs
        expect(root.locator("g.mg-box#m2")).to_have_class("node mg-n-module mg-box mg-current")
        expect(root.locator("g.mg-box#m1")).to_have_class("node mg-n-module mg-box mg-done")
        expect(root.locator("g.mg-box#m3")).to_have_class("node mg-n-module mg-box")
        step(root)  # b2_5 is done and frees its saved tensors: the box is not "freed"
        expect(root.locator("g.mg-box#m2")).to_have_class("node mg-n-module mg-box mg-current")
        freed = 2 * 1063 + 6
        lines = root.locator(".mg-sec-freed .mg-line")
        expect(lines).to_have_count(8)  # a long list shows its start
        more = root.locator(".mg-sec-freed button.mg-more")
        expect(more).to_have_text(f"… {freed - 8} more")
        more.click()  # opened: up to 1,000 lines
        expect(lines).to_have_count(1000)
        expect(root.locator(".mg-sec-freed .mg-empty")).to_have_text(
            f"… {freed - 1000} more not listed"
        )
        more.click()
        expect(lines).to_have_count(8)
        report["10000_nodes_1500_drawn"] = measure_steps(page, root)
        root.locator("button.mg-last").click()
        expect(root.locator(".mg-graph g.mg-box.mg-done")).to_have_count(8)
        expect(root.locator(".mg-graph g.mg-freed-now")).to_have_count(0)
        root.screenshot(path=artifact("explorer-view-10000-nodes.png"))
    finally:
        ctx.close()
    assert refused == [] and errors == []

    # the worst case, every one of the 10,000 nodes drawn (the kernel collapses such graphs)
    state = synthetic_state(10_000)
    ctx, page, root, refused, errors = open_replay(chromium, state, tmp_path / "drawn.html")
    try:
        report["10000_nodes_all_drawn"] = measure_steps(page, root)
    finally:
        ctx.close()
    assert refused == [] and errors == []

    boxed, drawn = report["10000_nodes_1500_drawn"], report["10000_nodes_all_drawn"]
    targets = {"10,000 nodes (1,500 drawn): draw ms": (boxed["draw_ms"], 2000.0)}
    for key in ("step", "step_back"):
        frame = boxed[key]["work"]["median_ms"] + boxed[key]["render"]["median_ms"]
        targets[f"10,000 nodes (1,500 drawn): {key} p95 work ms"] = (
            boxed[key]["work"]["p95_ms"],
            16.0,
        )
        targets[f"10,000 nodes (1,500 drawn): {key} median frame ms"] = (frame, 16.0)
    targets["10,000 nodes all drawn: step p95 work ms"] = (drawn["step"]["work"]["p95_ms"], 16.0)
    path = Path(artifact("explorer-view-performance.json"))
    timing_report(path, "explorer view performance", report, targets)
