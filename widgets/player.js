// The graph player (anywidget front end). The kernel sends the laid-out SVG and every frame
// once; stepping only folds frame changes into a small state and changes the class of the few
// SVG elements whose look differs from the previous frame. No layout, no kernel round trip.
//
// Frame fields (see widgets/frames.py): kind, text, node, edge, edge_label, grad, grad_full,
// queue, deps, done, freed, leaf, hook, error, show, pass. Model ids map to SVG element ids
// through `alias` (a collapsed module's box stands for the nodes inside it; `boxes` lists them).
//
// The view: node labels stay readable (at least MIN_LABEL_PX on screen at the default zoom, a
// bigger graph scrolls), ctrl+wheel or pinch zooms around the pointer, a drag pans, a minimap
// above the side panel (never over the drawing) shows where the view is, and the node being
// played is kept in view. Numbers are drawn where they happen: the gradient on the active edge,
// `.grad` by each leaf, a badge where a hook fired. A hover on a node says what it is (kind,
// shape, dtype, what it saved: `tips`, written in Python) and its .grad or tangent so far.
// The drawing takes JupyterLab's theme (player.css): light or dark paper. Under it, a backward
// player shows its memory timeline (traits memory_svg, memory_json: widgets/memory.py), with a
// marker at the frame, the bytes held then, and the band of the frame's node outlined; a node
// pointed at in the drawing brings out its own bands there.
//
// Keyboard, with the focus anywhere in the player: ←/→ step, Home/End first/last, space plays
// and pauses. The same file runs in a saved replay (widgets/replay.py), with a stand-in model.
//
// The engine state the panel shows is folded frame by frame in player_state.mjs (tested on its
// own with node --test); widgets/front_end.py inlines it here, so both run as one module.

import { emptyState, fold, hookOf } from "./player_state.mjs";

const SVG_NS = "http://www.w3.org/2000/svg";
const SPEEDS = [0.25, 0.5, 1, 2, 4, 8];
// "auto": natural size, shrunk to fit the view only while node labels stay readable
const ZOOMS = ["auto", "fit", "50%", "75%", "100%", "150%", "200%"];
const NATURAL = 4 / 3; // CSS px per Graphviz unit (its SVG is in pt) at 100%
const MIN_LABEL_PX = 11; // node titles are never smaller than this at the default zoom
const SCALE_RANGE = [0.02, 8];
const WHEEL_ZOOM = 0.0025; // zoom factor per wheel delta unit (exp(-delta * this))
const PAD = 24; // paper added around the drawing, in units: badges at its edges stay visible
const BASE_DELAY_MS = 700;
const SHORT_LIST = 8; // panel lists show this many lines, then a "… N more" button
const LONG_LIST = 1000; // an opened list stops here (a big graph waits on thousands of nodes)
const PAN_START_PX = 4; // a press that moves less than this is a click (a module box toggles)
// the minimap, above the side panel (never over the drawing): its largest box, and the least
// width or height it keeps (a very tall or wide graph is stretched to that, not drawn as a sliver)
const MINIMAP = { width: 280, height: 180, min: 56 };
// badges drawn on the paper (units): monospace, so a label's width is known without measuring
const BADGE = { font: 11, height: 16, charWidth: 11 * 0.62, pad: 4, maxChars: 40 };
// when several things happen to one element, the later one in this list wins
const PRIORITY = ["mg-hidden", "mg-done", "mg-ready", "mg-freed-now", "mg-current", "mg-updated",
                  "mg-active", "mg-error"];
const RANK = new Map(PRIORITY.map((cls, i) => [cls, i]));
const REDUCED_MOTION = typeof matchMedia === "function" &&
                       matchMedia("(prefers-reduced-motion: reduce)").matches;

// Every word shown comes with the player's data, in its language (widgets/texts.py, keys without
// their `ui.` prefix): `say(texts, "more", { n: 3 })` fills the template's `{n}`.
function say(texts, key, values = {}) {
  const text = texts[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => String(values[name]));
}

function h(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

function s(tag, attrs = {}) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  return node;
}

function button(cls, label, title) {
  const b = h("button", `mg-btn ${cls}`, label);
  b.type = "button";
  b.title = title;
  b.setAttribute("aria-label", title);
  return b;
}

function clamp(x, lo, hi) {
  return Math.max(lo, Math.min(hi, x));
}

function shorten(text, max) {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

// --- the page --------------------------------------------------------------------------------
const FORWARD_SECTIONS = ["created"];
const BACKWARD_SECTIONS = ["grad", "queue", "deps", "leaves", "hooks", "freed", "error"];

function menu(cls, label, values, text) {
  const select = h("select", cls);
  select.setAttribute("aria-label", label);
  for (const v of values) {
    const o = h("option", "", text(v));
    o.value = String(v);
    select.appendChild(o);
  }
  return select;
}

// the toolbar and its controls, by name
function toolbar(speedValue, texts) {
  const t = (key) => say(texts, key);
  const controls = {
    bar: h("div", "mg-toolbar"),
    first: button("mg-first", t("first"), t("first_tip")),
    prev: button("mg-prev", "◀", t("prev_tip")),
    play: button("mg-play", t("play"), t("play_tip")),
    next: button("mg-step", t("next"), t("next_tip")),
    last: button("mg-last", t("last"), t("last_tip")),
    slider: h("input", "mg-slider"),
    counter: h("span", "mg-counter"),
    speed: menu("mg-speed", t("speed_tip"), SPEEDS, (v) => `${v}×`),
    zoom: menu("mg-zoom", t("zoom"), ZOOMS, (v) => (v.endsWith("%") ? v : t(`zoom.${v}`))),
    zoomOut: button("mg-zoom-out", "−", t("zoom_out_tip")),
    zoomIn: button("mg-zoom-in", "+", t("zoom_in_tip")),
    fit: button("mg-fit", t("fit"), t("fit_tip")),
  };
  const { bar, first, prev, play, next, last, slider, counter, speed, zoom } = controls;
  bar.setAttribute("role", "toolbar");
  bar.setAttribute("aria-label", t("controls"));
  slider.type = "range";
  slider.min = "0";
  slider.setAttribute("aria-label", t("step"));
  counter.setAttribute("aria-hidden", "true"); // the slider announces the same
  speed.value = String(speedValue);
  zoom.appendChild(h("option", "mg-custom-zoom")); // shows a wheel zoom's percentage
  zoom.lastChild.hidden = true;
  bar.append(first, prev, play, next, last, slider, counter, h("span", "mg-label", t("speed")),
             speed, h("span", "mg-label", t("zoom")), controls.zoomOut, zoom, controls.zoomIn,
             controls.fit);
  return controls;
}

// the side panel: one titled section per kind of engine state; `sections` maps key -> content
function sidePanel(mode, texts) {
  const panel = h("div", "mg-panel");
  const sections = {};
  for (const key of mode === "forward" ? FORWARD_SECTIONS : BACKWARD_SECTIONS) {
    const box = h("div", `mg-section mg-sec-${key}`);
    const content = h("div", "mg-content");
    box.append(h("div", "mg-title", say(texts, `section.${key}`)), content);
    panel.appendChild(box);
    sections[key] = content;
  }
  return { panel, sections };
}

// the drawing's scroll area, and the minimap (placed above the side panel by buildView)
function stage(texts) {
  const wrap = h("div", "mg-stage");
  const graph = h("div", "mg-graph");
  const minimap = h("div", "mg-minimap");
  minimap.setAttribute("aria-hidden", "true"); // a pointer shortcut; scrolling does the same
  minimap.title = say(texts, "minimap");
  minimap.hidden = true;
  const image = h("img", "mg-minimap-image");
  image.alt = "";
  image.draggable = false;
  const frame = h("div", "mg-minimap-view");
  minimap.append(image, frame);
  wrap.append(graph);
  return { wrap, graph, minimap, minimapImage: image, minimapView: frame };
}

// one view of the player: its page, the recorded frames (set by `reload`) and how far it has got
function buildView(model, el) {
  const mode = model.get("mode");
  const texts = model.get("texts") || {};
  const root = h("div", "mg-player");
  root.dataset.mode = mode;
  root.tabIndex = 0; // focusable, so the keys work right after a click on the picture
  root.setAttribute("role", "group");
  root.setAttribute("aria-label", say(texts, `player.${mode}`));
  el.appendChild(root);
  const controls = toolbar(model.get("speed"), texts);
  const summary = h("div", "mg-summary");
  const stepText = h("div", "mg-step-text");
  stepText.setAttribute("aria-live", "polite"); // each step is read out
  stepText.setAttribute("role", "status");
  const body = h("div", "mg-body");
  const main = h("div", "mg-main");
  const parts = stage(texts);
  const legend = h("div", "mg-legend");
  legend.setAttribute("role", "note");
  legend.setAttribute("aria-label", say(texts, "legend"));
  const memory = memoryPanel(texts);
  main.append(parts.wrap, memory.box, legend);
  const { panel, sections } = sidePanel(mode, texts);
  const side = h("div", "mg-side");
  side.append(parts.minimap, panel);
  body.append(main, side);
  root.append(controls.bar, summary, stepText, body);
  return {
    model, mode, texts, root, ...controls, summary, stepText, ...parts, legend, sections, memory,
    shownLines: {}, // section -> the text it shows now (unchanged sections are not touched)
    opened: {}, // section -> true when its "… N more" was clicked
    frames: [],
    titles: {},
    tips: {},
    alias: {},
    groups: new Map(), // element id -> model ids it stands for (a box, a merged edge)
    doable: new Set(), // model ids that some frame marks done (a box is done when all are)
    hideable: new Set(), // element ids that some frame shows being created
    elements: new Map(), // element id -> {el, base, box}
    applied: new Map(), // element id -> class we added
    flashes: new Map(), // element id -> what happens to it at this frame (current, active, ...)
    changes: [], // frame index -> {touched, undo} of its fold
    state: emptyState(),
    current: -1,
    timer: null,
    svg: null,
    zoomMode: "auto",
    scale: NATURAL,
    port: { w: 0, h: 0, maxH: 0 }, // the scroll area's visible size and its largest height
    scrollPos: { x: 0, y: 0 }, // kept from scroll events: stepping reads no layout
    geometry: new Map(), // element id -> its box (or an edge's midpoint) in paper units
    badges: { leaf: new Map(), hook: new Map(), spots: new Map(), planned: false },
  };
}

// --- the memory panel (widgets/memory.py): bytes held per step, a marker at the frame ---------
function memoryPanel(texts) {
  const box = h("div", "mg-memory");
  box.hidden = true;
  const readout = h("div", "mg-memory-readout");
  const chart = h("div", "mg-memory-chart");
  chart.setAttribute("role", "img");
  chart.setAttribute("aria-label", say(texts, "memory.chart"));
  box.append(h("div", "mg-title", say(texts, "memory.title")), readout, chart);
  return { box, readout, chart, data: null, marker: null, front: null, bands: new Map(),
           hot: [], pointed: [] };
}

function loadMemory(view) {
  const { memory, model } = view;
  const packed = model.get("memory_json");
  memory.data = packed ? JSON.parse(packed) : null;
  memory.box.hidden = !memory.data;
  memory.chart.innerHTML = memory.data ? model.get("memory_svg") : ""; // escaped in Python
  const svg = memory.chart.querySelector("svg");
  memory.marker = svg ? svg.querySelector(".mg-mem-marker") : null;
  memory.front = svg ? svg.querySelector(".mg-mem-axis") : null; // the first thing after bands
  memory.geometry = svg ? { x0: Number(svg.dataset.x0), w: Number(svg.dataset.w),
                            steps: Number(svg.dataset.steps) } : null;
  memory.bands = new Map();
  memory.hot = [];
  memory.pointed = [];
  memory.chart.classList.remove("mg-mem-pointing");
  for (const band of memory.chart.querySelectorAll(".mg-mem-band[data-node]")) {
    const id = band.dataset.node;
    if (!memory.bands.has(id)) memory.bands.set(id, []);
    memory.bands.get(id).push(band);
  }
}

// outlined bands go last among the bands: their outline is not hidden under their neighbours'
// (stacked bands never overlap, so their order changes nothing else)
function raiseBands(memory, bands) {
  if (memory.front) for (const band of bands) memory.front.before(band);
}

function bytes(n) {
  return `${n.toLocaleString("en-US")} B`;
}

// the marker at the frame, the readout of its bytes, the band(s) of its node highlighted
function paintMemory(view, f) {
  const { memory, current } = view;
  if (!memory.data || !memory.geometry) return;
  const [saved, grads, buffers] = memory.data.totals.map((column) => column[current] ?? 0);
  memory.readout.textContent = say(view.texts, "memory.readout", {
    step: current + 1, saved: bytes(saved), grads: bytes(grads), buffers: bytes(buffers),
    total: bytes(saved + grads + buffers) });
  const { x0, w, steps } = memory.geometry;
  const x = (x0 + ((current + 0.5) * w) / steps).toFixed(1);
  if (memory.marker) {
    memory.marker.setAttribute("x1", x);
    memory.marker.setAttribute("x2", x);
  }
  memory.chart.dataset.markerX = x;
  for (const band of memory.hot) band.classList.remove("mg-mem-hot");
  memory.hot = memory.bands.get(f.node) || [];
  for (const band of memory.hot) band.classList.add("mg-mem-hot");
  raiseBands(memory, memory.hot);
  raiseBands(memory, memory.pointed);
}

// a node pointed at in the drawing (a box: the nodes it stands for): its bands in the memory
// panel stand out, the others fade, until the pointer leaves it
function wireMemoryPointing(view) {
  const point = (ids) => {
    const { memory } = view;
    for (const band of memory.pointed) band.classList.remove("mg-mem-pointed");
    memory.pointed = ids.flatMap((id) => memory.bands.get(id) || []);
    for (const band of memory.pointed) band.classList.add("mg-mem-pointed");
    raiseBands(memory, memory.pointed);
    memory.chart.classList.toggle("mg-mem-pointing", memory.pointed.length > 0);
  };
  view.graph.addEventListener("pointerover", (event) => {
    const g = event.target instanceof Element ? event.target.closest("g.node") : null;
    point(g ? [...(view.groups.get(g.id) || [g.id])] : []);
  });
  view.graph.addEventListener("pointerleave", () => point([]));
}

// --- the picture -----------------------------------------------------------------------------
function drawSvg(view) {
  const t0 = performance.now();
  const { model, graph, root } = view;
  const message = model.get("message");
  dropMinimap(view);
  graph.textContent = "";
  if (message) {
    graph.appendChild(h("pre", "mg-message", message));
  } else {
    graph.innerHTML = model.get("svg"); // Graphviz output; every label was escaped in Python
  }
  view.svg = graph.querySelector("svg");
  view.elements = new Map();
  view.applied = new Map();
  view.geometry = new Map();
  view.sized = false; // no zoom applied to this picture yet (nothing to keep in view)
  view.badges = { leaf: new Map(), hook: new Map(), spots: new Map(), planned: false };
  for (const g of graph.querySelectorAll("svg g[id]")) {
    const base = g.getAttribute("class") || "";
    view.elements.set(g.id, { el: g, base, box: /\bmg-box\b/.test(base) });
  }
  if (view.svg) preparePaper(view, model.get("svg"));
  view.summary.textContent = model.get("summary");
  fillLegend(view);
  measurePort(view);
  planBadges(view);
  setZoom(view, view.zoomMode);
  graph.getBoundingClientRect(); // include style and layout in the measured time
  root.dataset.drawMs = (performance.now() - t0).toFixed(1);
  root.dataset.elements = String(view.elements.size);
  root.dataset.timings = JSON.stringify(model.get("timings"));
  // wall-clock time of the first frame painted with this picture (for end-to-end timing)
  requestAnimationFrame(() => { root.dataset.paintedAt = String(Date.now()); });
}

// Paper around the drawing (badges at its edges), a layer for the badges, the names of nodes
// as their hover titles, and the minimap's copy of the picture.
function preparePaper(view, svgText) {
  const { svg } = view;
  const vb = svg.viewBox.baseVal;
  view.vb0 = { x: vb.x, y: vb.y, w: vb.width, h: vb.height };
  view.vb = { x: vb.x - PAD, y: vb.y - PAD, w: vb.width + 2 * PAD, h: vb.height + 2 * PAD };
  svg.setAttribute("viewBox", `${view.vb.x} ${view.vb.y} ${view.vb.w} ${view.vb.h}`);
  svg.removeAttribute("width"); // the zoom sets the size
  svg.removeAttribute("height");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", say(view.texts, "graph", { summary: view.model.get("summary") }));
  const paper = svg.querySelector("g.graph") || svg;
  // Graphviz titles the paper `%3`: a hover on it says what the graph is
  const paperTitle = paper.querySelector(":scope > title");
  if (paperTitle) paperTitle.textContent = svg.getAttribute("aria-label");
  const m = paper.transform && paper.transform.baseVal.consolidate();
  view.toSvg = m ? m.matrix : svg.createSVGMatrix(); // paper units -> SVG units
  const { a, d, e, f } = view.toSvg; // Graphviz only translates its paper (a = d = 1)
  view.paper = { x: (view.vb.x - e) / a, y: (view.vb.y - f) / d, w: view.vb.w / a,
                 h: view.vb.h / d };
  view.overlay = s("g", { class: "mg-overlay" });
  view.edgeLabel = makeBadge("mg-edge-label");
  view.hookFlash = makeBadge("mg-hook-flash");
  view.errorBadge = makeBadge("mg-error-badge");
  view.overlay.append(view.edgeLabel, view.hookFlash, view.errorBadge);
  paper.appendChild(view.overlay);
  const title = svg.querySelector("g.node text[font-weight=bold]") ||
                svg.querySelector("g.node text");
  view.labelUnits = parseFloat(title && title.getAttribute("font-size")) || 11;
  nameElements(view);
  view.svgText = svgText; // the minimap's picture is made when it is first shown
}

// the minimap's image in the theme's colours as they are now (read once the player is in the
// page: a view rendered before it is attached has no theme yet); remade when they change
function paintMinimap(view) {
  const style = getComputedStyle(view.root);
  const key = ["--jp-layout-color0", "--jp-ui-font-color1"]
    .map((name) => style.getPropertyValue(name).trim()).join("|");
  if (view.minimapUrl && view.minimapKey === key) return;
  if (view.minimapUrl) URL.revokeObjectURL(view.minimapUrl);
  const mini = minimapSvg(view.svgText, style);
  view.minimapUrl = URL.createObjectURL(new Blob([mini], { type: "image/svg+xml" }));
  view.minimapKey = key;
  view.minimapImage.src = view.minimapUrl;
}

// The minimap's picture: the drawing, stretched to the minimap's box (preserveAspectRatio none:
// a very tall graph keeps a usable width), on the theme's paper with its lines in the theme's
// text colour (an image does not see the page's CSS, so the colours are written into it).
function minimapSvg(svgText, style) {
  const paper = style.getPropertyValue("--jp-layout-color0").trim() || "#fff";
  const ink = style.getPropertyValue("--jp-ui-font-color1").trim() || "#000";
  const css = `<style>g.graph > polygon { fill: ${paper}; }
    g.edge path[stroke="black"] { stroke: ${ink}; }
    g.edge polygon[stroke="black"] { fill: ${ink}; stroke: ${ink}; }</style>`;
  return svgText.replace(/<svg\b([^>]*)>/, (tag, attrs) => {
    const kept = attrs.replace(/\spreserveAspectRatio="[^"]*"/, "");
    return `<svg${kept} preserveAspectRatio="none">${css}`;
  });
}

// Graphviz titles a node by its DOT id (`n3`): a hover should say what the node is (its name,
// kind, shape, dtype, what it saved: `tips`, written in Python), plus what the play has shown so
// far (`liveTip`, added when the pointer comes over it). textContent: no name becomes markup.
function nameElements(view) {
  const name = (id) => view.titles[id] || id;
  for (const [id, item] of view.elements) {
    const title = item.el.firstElementChild;
    if (!title || title.tagName !== "title") continue;
    if (item.base.startsWith("node") && (view.tips[id] || view.titles[id])) {
      title.textContent = view.tips[id] || name(id);
    } else if (item.base.startsWith("edge")) {
      const ends = title.textContent.split("->");
      if (ends.length === 2) title.textContent = `${name(ends[0])} → ${name(ends[1])}`;
    }
  }
}

// a node's hover text at the current frame: its tip, then its .grad so far and its tangent
function liveTip(view, id) {
  const lines = [view.tips[id] || view.titles[id] || id];
  const leaf = view.state.leaves.get(id);
  if (leaf) lines.push(say(view.texts, "tip.grad_now", { grad: leaf.after }));
  const tangent = view.tangents && view.tangents.get(id);
  if (tangent !== undefined && view.state.shown.has(id)) {
    lines.push(say(view.texts, "tip.tangent", { tangent }));
  }
  return lines.join("\n");
}

function wireTips(view) {
  view.graph.addEventListener("pointerover", (event) => {
    const g = event.target instanceof Element ? event.target.closest("g.node") : null;
    const item = g && view.elements.get(g.id);
    const title = item && item.el.firstElementChild;
    if (!title || title.tagName !== "title" || !view.tips[g.id]) return;
    title.textContent = liveTip(view, g.id);
  });
}

function dropMinimap(view) {
  if (view.minimapUrl) URL.revokeObjectURL(view.minimapUrl);
  view.minimapUrl = null;
  view.minimapKey = null;
  view.svgText = null;
  view.minimap.hidden = true;
}

// elements created during the trace (forward ops, create_graph) stay faint until then
function hideableElements(view) {
  const ids = new Set();
  for (const f of view.frames) for (const id of f.show || []) ids.add(elementOf(view, id));
  return ids;
}

function doableIds(frames) {
  const ids = new Set();
  for (const f of frames) if (f.done !== undefined) ids.add(f.done);
  return ids;
}

// element id -> the model ids it stands for, where that is more than itself
function groupMembers(alias, boxes) {
  const groups = new Map();
  const add = (el, id) => {
    if (!groups.has(el)) groups.set(el, new Set());
    groups.get(el).add(id);
  };
  for (const [id, el] of Object.entries(alias)) if (id !== el) add(el, id);
  for (const [el, ids] of Object.entries(boxes)) for (const id of ids) add(el, id);
  return groups;
}

function elementOf(view, id) {
  return view.alias[id] || id;
}

// --- the legend (HTML, outside the drawing, drawn with the drawing's own CSS) --------------
// fill and shape of each node kind: the same as NODE_STYLE in widgets/dot.py
const KINDS = [
  ["tensor", "#caff70", "box"],
  ["leaf", "#add8e6", "box"],
  ["constant", "#f2f2f2", "dashed"],
  ["backward", "#e8e8e8", "rounded"],
  ["accumulate", "#d9d2e9", "rounded"],
  ["saved", "#ffcc99", "note"],
  ["module", "#fff2cc", "box3d"],
];
// A swatch's class is `mg-key-<state>`: player.css styles it with the same rule as an element
// of the drawing in that state, while a query for the drawing's `g.node.mg-current` finds none.
// [state, its words (texts key `state.<words>`), shape, fill]
const STATES = {
  backward: [
    ["current", "current", "rounded", "#e8e8e8"],
    ["ready", "ready", "rounded", "#e8e8e8"],
    ["done", "done", "rounded", "#e8e8e8"],
    ["freed-now", "freed-now", "note", "#ffcc99"],
    ["active", "active", "edge"],
    ["updated", "updated", "box", "#add8e6"],
    ["hook", "hook", "hook"],
    ["error", "error", "rounded", "#e8e8e8"],
  ],
  forward: [
    ["current", "created", "rounded", "#e8e8e8"],
    ["hidden", "hidden", "rounded", "#e8e8e8"],
  ],
};
const SHAPES = {
  box: [["polygon", { points: "4,4 30,4 30,16 4,16" }]],
  dashed: [["polygon", { points: "4,4 30,4 30,16 4,16", stroke: "#888888",
                         "stroke-dasharray": "3,2" }]],
  rounded: [["path", { d: "M8,4 H26 Q30,4 30,8 V12 Q30,16 26,16 H8 Q4,16 4,12 V8 Q4,4 8,4 Z" }]],
  note: [["polygon", { points: "4,4 25,4 30,9 30,16 4,16" }],
         ["polyline", { points: "25,4 25,9 30,9", fill: "none" }]],
  box3d: [["polygon", { points: "4,7 27,7 27,17 4,17" }],
          ["polygon", { points: "4,7 7,4 30,4 30,14 27,17 27,7" }]],
  edge: [["path", { d: "M3,10 H25", fill: "none" }],
         ["polygon", { points: "25,6.5 31,10 25,13.5", fill: "black" }]],
};

function swatch(cls, shape, fill) {
  const svg = s("svg", { class: "mg-swatch", viewBox: "0 0 34 20", width: 34, height: 20,
                         "aria-hidden": "true" });
  if (shape === "hook") {
    const mark = makeBadge("mg-hook-mark");
    placeBadge(mark, "⚑", 17, 10, 0.5, 0.5);
    svg.appendChild(mark);
    return svg;
  }
  const g = s("g", { class: cls });
  for (const [tag, attrs] of SHAPES[shape]) {
    g.appendChild(s(tag, { fill, stroke: "black", "stroke-width": 1.2, ...attrs }));
  }
  svg.appendChild(g);
  return svg;
}

function legendItem(svg, text) {
  const item = h("span", "mg-legend-item");
  item.setAttribute("role", "listitem");
  item.append(svg, h("span", "", text));
  return item;
}

function legendRow(title, colon, items) {
  const row = h("div", "mg-legend-row");
  row.setAttribute("role", "list");
  row.setAttribute("aria-label", title);
  row.append(h("span", "mg-legend-title", `${title}${colon}`), ...items);
  return row;
}

// node kinds drawn in this graph, and what the animation's looks mean
function fillLegend(view) {
  const { legend, graph, mode, texts } = view;
  legend.textContent = "";
  legend.hidden = !view.svg || view.model.get("legend") === false; // player(legend=False)
  if (legend.hidden) return;
  const kinds = KINDS.filter(([kind]) => graph.querySelector(`g.node.mg-n-${kind}`));
  const states = STATES[mode];
  const shapeNote = h("span", "mg-legend-item mg-shape-note", say(texts, "legend.shape"));
  shapeNote.setAttribute("role", "listitem");
  const nodes = legendRow(say(texts, "legend.nodes"), say(texts, "colon"),
                          kinds.map(([kind, fill, shape]) =>
                            legendItem(swatch(`mg-key mg-key-${kind}`, shape, fill),
                                       say(texts, `kind.${kind}`))));
  nodes.appendChild(shapeNote);
  legend.append(
    nodes,
    legendRow(say(texts, mode === "forward" ? "legend.steps" : "legend.engine"),
              say(texts, "colon"), states.map(([state, words, shape, fill]) =>
                legendItem(swatch(`mg-key mg-key-${state}`, shape, fill),
                           say(texts, `state.${words}`)))),
  );
}

// --- zoom, pan, minimap ----------------------------------------------------------------------
function measurePort(view) {
  const { graph } = view;
  const max = parseFloat(getComputedStyle(graph).maxHeight);
  view.port = { w: graph.clientWidth, h: graph.clientHeight,
                maxH: Number.isFinite(max) ? max : graph.clientHeight };
}

// the whole drawing in view (never larger than natural size: a small graph stays small)
function fitScale(view) {
  const { vb, port } = view;
  if (!port.w || !port.maxH) return NATURAL;
  return Math.min(NATURAL, (port.w - 2) / vb.w, (port.maxH - 2) / vb.h);
}

function scaleFor(view, mode) {
  if (mode === "fit") return fitScale(view);
  if (mode === "auto") return Math.max(fitScale(view), MIN_LABEL_PX / view.labelUnits);
  if (typeof mode === "number") return mode;
  return (NATURAL * parseFloat(mode)) / 100; // "50%": of natural size
}

// where a point of the drawing shows in the scroll area, to keep it there across a zoom
function anchorAt(view, clientX, clientY) {
  const r = view.svg.getBoundingClientRect();
  const g = view.graph.getBoundingClientRect();
  return { u: (clientX - r.left) / view.scale, v: (clientY - r.top) / view.scale,
           x: clientX - g.left - view.graph.clientLeft, y: clientY - g.top - view.graph.clientTop };
}

function viewCenter(view) {
  const g = view.graph.getBoundingClientRect();
  return anchorAt(view, g.left + view.port.w / 2, g.top + view.port.h / 2);
}

function setZoom(view, mode, anchor) {
  if (!view.svg) return;
  const keep = anchor || (view.sized ? viewCenter(view) : null);
  view.zoomMode = mode;
  const scale = clamp(scaleFor(view, mode), ...SCALE_RANGE);
  view.scale = scale;
  view.size = { w: view.vb.w * scale, h: view.vb.h * scale };
  view.svg.style.width = `${view.size.w}px`;
  view.svg.style.height = `${view.size.h}px`;
  view.sized = true;
  showZoom(view);
  measurePort(view);
  if (keep) {
    const r = view.svg.getBoundingClientRect();
    const g = view.graph.getBoundingClientRect();
    const left = r.left - g.left - view.graph.clientLeft + view.graph.scrollLeft;
    const top = r.top - g.top - view.graph.clientTop + view.graph.scrollTop;
    scrollToPx(view, left + keep.u * scale - keep.x, top + keep.v * scale - keep.y);
  } else {
    noteScroll(view);
  }
  updateMinimap(view);
}

function showZoom(view) {
  const { zoom, root, zoomMode, scale } = view;
  const custom = zoom.querySelector(".mg-custom-zoom");
  const named = typeof zoomMode === "string";
  custom.hidden = named;
  if (!named) {
    custom.textContent = `${Math.round((100 * scale) / NATURAL)}%`;
    custom.value = "custom";
  }
  zoom.value = named ? zoomMode : "custom";
  root.dataset.zoom = named ? zoomMode : "custom";
  root.dataset.scale = scale.toFixed(4);
  root.dataset.labelPx = (view.labelUnits * scale).toFixed(2);
}

function zoomBy(view, factor, anchor) {
  setZoom(view, clamp(view.scale * factor, ...SCALE_RANGE), anchor);
}

// scroll there, clamped here: reading the scroll position back would force a layout mid-step
function scrollToPx(view, left, top) {
  const { graph, size, port } = view;
  const x = Math.round(clamp(left, 0, Math.max(0, size.w - port.w)));
  const y = Math.round(clamp(top, 0, Math.max(0, size.h - port.h)));
  graph.scrollLeft = x;
  graph.scrollTop = y;
  view.scrollPos = { x, y };
  moveMinimapView(view);
}

function noteScroll(view) {
  view.scrollPos = { x: view.graph.scrollLeft, y: view.graph.scrollTop };
  moveMinimapView(view);
}

// the drawing's left/top inside the scroll area (a narrow drawing is centred)
function paperOffset(view) {
  return { x: Math.max(0, (view.port.w - view.size.w) / 2), y: 0 };
}

function updateMinimap(view) {
  const { minimap, minimapImage, vb0, size, port, root } = view;
  const larger = size.w > port.w + 1 || size.h > port.maxH + 1;
  minimap.hidden = !larger || !view.svgText;
  if (!minimap.hidden) paintMinimap(view);
  root.dataset.minimap = minimap.hidden ? "hidden" : "shown";
  if (minimap.hidden) return;
  const fit = Math.min(MINIMAP.width / vb0.w, MINIMAP.height / vb0.h);
  const w = clamp(vb0.w * fit, MINIMAP.min, MINIMAP.width);
  const hgt = clamp(vb0.h * fit, MINIMAP.min, MINIMAP.height);
  view.miniScale = { x: w / vb0.w, y: hgt / vb0.h };
  minimapImage.style.width = `${w}px`;
  minimapImage.style.height = `${hgt}px`;
  moveMinimapView(view);
}

// the view's rectangle on the minimap
function moveMinimapView(view) {
  if (!view.svg || view.minimap.hidden) return;
  const { vb, vb0, scale, port, scrollPos, miniScale, minimapView } = view;
  const off = paperOffset(view);
  const u = vb.x + (scrollPos.x - off.x) / scale - vb0.x;
  const v = vb.y + (scrollPos.y - off.y) / scale - vb0.y;
  const w = Math.min(port.w / scale, vb0.w);
  const hgt = Math.min(port.h / scale, vb0.h);
  Object.assign(minimapView.style, {
    left: `${clamp(u, 0, vb0.w) * miniScale.x}px`, top: `${clamp(v, 0, vb0.h) * miniScale.y}px`,
    width: `${w * miniScale.x}px`, height: `${hgt * miniScale.y}px`,
  });
}

// a press on the minimap: centre the view on that point of the drawing
function minimapJump(view, event) {
  const r = view.minimapImage.getBoundingClientRect();
  const u = view.vb0.x + (event.clientX - r.left) / view.miniScale.x;
  const v = view.vb0.y + (event.clientY - r.top) / view.miniScale.y;
  const off = paperOffset(view);
  scrollToPx(view, off.x + (u - view.vb.x) * view.scale - view.port.w / 2,
             off.y + (v - view.vb.y) * view.scale - view.port.h / 2);
}

// --- the look of each element ----------------------------------------------------------------
// element id -> what happens to it at this frame (outranks what it has become so far)
function frameFlashes(view, f) {
  const flashes = new Map();
  const mark = (id, cls) => {
    if (id === undefined || id === null) return;
    const el = elementOf(view, id);
    const old = flashes.get(el);
    if (old === undefined || RANK.get(cls) >= RANK.get(old)) flashes.set(el, cls);
  };
  if (view.mode === "forward") {
    for (const id of f.show || []) mark(id, "mg-current");
    return flashes;
  }
  mark(f.node, "mg-current");
  if (f.leaf) mark(f.leaf.id, "mg-updated");
  mark(f.edge, "mg-active");
  if (view.state.error) mark(view.state.error.node, "mg-error");
  return flashes;
}

// the one state class an element has at the current frame ("" for none)
function classFor(view, el) {
  const flash = view.flashes.get(el);
  if (flash) return flash;
  const members = view.groups.get(el);
  if (members) return groupClass(view, el, members);
  const { state } = view;
  if (state.freed.has(el)) return "mg-freed-now";
  if (state.queued.has(el)) return "mg-ready";
  if (state.done.has(el)) return "mg-done";
  if (view.hideable.has(el) && !state.shown.has(el)) return "mg-hidden";
  return "";
}

// a box (or merged edge): ready while any member waits in the queue, done once every member
// that runs has run; never "freed" (its members' saved tensors are not what it shows)
function groupClass(view, el, members) {
  const { state } = view;
  let runs = 0;
  let ran = 0;
  let shown = false;
  for (const id of members) {
    if (state.queued.has(id)) return "mg-ready";
    if (view.doable.has(id)) {
      runs += 1;
      if (state.done.has(id)) ran += 1;
    }
    if (state.shown.has(id)) shown = true;
  }
  if (runs && ran === runs) return "mg-done";
  return view.hideable.has(el) && !shown ? "mg-hidden" : "";
}

// give each of `els` its class; only the ones that change are written
function repaint(view, els) {
  const { elements, applied } = view;
  for (const el of els) {
    const item = elements.get(el);
    if (!item) continue;
    const cls = classFor(view, el);
    if ((applied.get(el) || "") === cls) continue;
    item.el.setAttribute("class", cls ? `${item.base} ${cls}` : item.base);
    if (cls) applied.set(el, cls);
    else applied.delete(el);
  }
}

// --- badges on the paper: gradient on the active edge, .grad by each leaf, hooks, error -----
function makeBadge(cls) {
  const g = s("g", { class: `mg-badge ${cls}` });
  g.append(s("title"), s("rect", { rx: 3, ry: 3 }), s("text"));
  g.style.display = "none";
  return g;
}

// a badge's width in paper units (its font is monospace: no measuring, no layout); a CJK
// character takes two columns
function badgeWidth(text) {
  const wide = (text.match(/[\u2e80-\u9fff\uff00-\uffef]/g) || []).length;
  return Math.min(text.length + wide, BADGE.maxChars) * BADGE.charWidth + 2 * BADGE.pad;
}

// write `text` in badge `g` with its box's point (ax, ay) (fractions of its size) at (x, y),
// kept inside `paper` (what the drawing shows, in paper units) when given
function placeBadge(g, text, x, y, ax, ay, full, paper) {
  const [title, rect, label] = g.children;
  const shown = shorten(text, BADGE.maxChars);
  const w = badgeWidth(shown);
  let left = x - ax * w;
  let top = y - ay * BADGE.height;
  if (paper) {
    left = clamp(left, paper.x, paper.x + paper.w - w);
    top = clamp(top, paper.y, paper.y + paper.h - BADGE.height);
  }
  title.textContent = full || text;
  label.textContent = shown;
  rect.setAttribute("x", left.toFixed(1));
  rect.setAttribute("y", top.toFixed(1));
  rect.setAttribute("width", w.toFixed(1));
  rect.setAttribute("height", BADGE.height);
  label.setAttribute("x", (left + w / 2).toFixed(1));
  label.setAttribute("y", (top + BADGE.height / 2).toFixed(1));
  g.style.display = "";
}

function hideBadge(g) {
  g.style.display = "none";
  delete g.dataset.for;
}

// an element's box in paper units (what badges are placed by), measured once
function boxOf(view, el) {
  if (!view.geometry.has(el)) {
    const item = view.elements.get(el);
    view.geometry.set(el, item ? item.el.getBBox() : null);
  }
  return view.geometry.get(el);
}

function midpointOf(view, el) {
  const key = `mid:${el}`;
  if (!view.geometry.has(key)) {
    const item = view.elements.get(el);
    const path = item && item.el.querySelector("path");
    view.geometry.set(key, path ? path.getPointAtLength(path.getTotalLength() / 2) : null);
  }
  return view.geometry.get(key);
}

function drawEdgeLabel(view, f) {
  const badge = view.edgeLabel;
  if (view.mode === "forward") return drawTangent(view, f);
  const el = f.edge === undefined ? null : elementOf(view, f.edge);
  const text = f.edge_label ?? f.grad;
  const mid = el && text ? midpointOf(view, el) : null;
  if (!mid) return hideBadge(badge);
  placeBadge(badge, text, mid.x, mid.y, 0.5, 0.5, f.grad_full || f.grad || text, view.paper);
  badge.dataset.for = el;
}

// forward mode in a dual level: the tangent the new node's output carries, under the node
function drawTangent(view, f) {
  const badge = view.edgeLabel;
  const el = f.tangent && f.node !== undefined ? elementOf(view, f.node) : null;
  const box = el ? boxOf(view, el) : null;
  if (!box) return hideBadge(badge);
  const text = say(view.texts, "tangent_badge", { tangent: f.tangent });
  placeBadge(badge, text, box.x + box.width / 2, box.y + box.height + 2, 0.5, 0,
             f.tangent_full || text, view.paper);
  badge.dataset.for = el;
}

function drawHookFlash(view, f) {
  const hook = hookOf(f);
  const el = hook ? elementOf(view, hook.target) : null;
  const box = el ? boxOf(view, el) : null;
  if (!box) return hideBadge(view.hookFlash);
  const kind = say(view.texts, `hook.${hook.kind}`); // every kind has its word (texts.py)
  // above the node, ending left of the ⚑ mark centred on its top right corner (syncHookMark),
  // and above the mark's top too: pushed right by the paper's edge, it still leaves it clear
  const markHalf = badgeWidth("⚑") / 2 + 3;
  placeBadge(view.hookFlash, `⚑ ${kind}`, box.x + box.width - markHalf,
             box.y - BADGE.height / 2 - 2, 1, 1, hook.text, view.paper);
  view.hookFlash.dataset.for = el;
  view.hookFlash.dataset.kind = hook.kind || "";
  if (!REDUCED_MOTION && view.hookFlash.animate) { // blinks three times (no reflow needed)
    view.hookFlash.animate([{ opacity: 1 }, { opacity: 0.3 }],
                           { duration: 300, iterations: 4, direction: "alternate" });
  }
}

function drawErrorBadge(view) {
  const { error } = view.state;
  const el = error ? elementOf(view, error.node) : null;
  const box = el ? boxOf(view, el) : null;
  if (!box) return hideBadge(view.errorBadge);
  placeBadge(view.errorBadge, say(view.texts, "error_badge"), box.x, box.y, 0.3, 1, error.error,
             view.paper);
  view.errorBadge.dataset.for = el;
}

// the `.grad = …` badge under a leaf, as the state has it (none before the first write), at
// its planned spot (planLeafBadges; a leaf inside a box has none: its .grad is in the panel)
function syncLeafBadge(view, id) {
  const { leaf, spots } = view.badges;
  const info = view.state.leaves.get(id);
  const spot = info ? spots.get(id) : null;
  if (!spot) {
    if (leaf.has(id)) leaf.get(id).remove();
    leaf.delete(id);
    return;
  }
  if (!leaf.has(id)) {
    const badge = makeBadge("mg-leaf-badge");
    badge.dataset.for = id;
    view.overlay.insertBefore(badge, view.overlay.firstChild);
    leaf.set(id, badge);
  }
  const text = `.grad = ${info.after}`;
  const full = `${info.name}.grad = ${info.after_full || info.after}`;
  placeBadge(leaf.get(id), text, spot.x, spot.y, 0.5, 0, full, view.paper);
}

// Plan the leaves' badges once the drawing is shown (one not in the page, or hidden, measures
// every box as empty), and give the paper the room they need below the drawing. `shown`: it
// was just shown: positions measured before are void, the badges drawn so far move.
function planBadges(view, shown) {
  const { svg, vb, paper } = view;
  if (!svg || !svg.isConnected || !view.port.w) return;
  if (shown) view.geometry = new Map();
  view.badges.planned = true;
  const below = planLeafBadges(view);
  if (below > 0) {
    vb.h += below * view.toSvg.d;
    paper.h += below;
    svg.setAttribute("viewBox", `${vb.x} ${vb.y} ${vb.w} ${vb.h}`);
    if (view.sized) {
      view.size.h = vb.h * view.scale;
      svg.style.height = `${view.size.h}px`;
    }
  }
  if (shown && view.current >= 0) {
    const ids = badgeIds(view, null);
    measure(view, view.frames[view.current] || {}, ids);
    redecorate(view, ids);
  }
}

// Where each leaf's `.grad` badge goes, planned once for the whole replay (a badge never jumps
// while stepping): under its leaf, lowered below the badge of any leaf beside it (leaves often
// sit side by side and their values are wider than they are), as wide as its widest value.
// Returns how far (paper units) the lowest badge reaches below the paper: the paper grows by it.
function planLeafBadges(view) {
  const widths = new Map(); // leaf id -> its widest badge
  for (const f of view.frames) {
    const id = f.leaf ? f.leaf.id : undefined;
    if (id === undefined || elementOf(view, id) !== id) continue; // in a box: panel only
    const w = badgeWidth(shorten(`.grad = ${f.leaf.after}`, BADGE.maxChars));
    widths.set(id, Math.max(w, widths.get(id) || 0));
  }
  const leaves = [...widths]
    .map(([id, w]) => ({ id, w, box: boxOf(view, id) }))
    .filter((leaf) => leaf.box)
    .sort((p, q) => p.box.y + p.box.height - (q.box.y + q.box.height) || p.box.x - q.box.x);
  const { paper } = view;
  const column = badgeWidth("x".repeat(BADGE.maxChars)); // badges in columns ±1 apart may meet
  const columns = new Map(); // column -> the spots placed in it
  let bottom = paper.y + paper.h;
  for (const { id, w, box } of leaves) {
    const x = clamp(box.x + box.width / 2, paper.x + w / 2, paper.x + paper.w - w / 2);
    const c = Math.floor(x / column);
    const near = [c - 1, c, c + 1].flatMap((k) => columns.get(k) || []);
    let y = box.y + box.height + 2;
    for (let moved = true; moved;) { // y only grows: this ends
      moved = false;
      for (const spot of near) {
        if (Math.abs(spot.x - x) < (spot.w + w) / 2 && Math.abs(spot.y - y) < BADGE.height + 1) {
          y = spot.y + BADGE.height + 1;
          moved = true;
        }
      }
    }
    const spot = { x, y, w };
    view.badges.spots.set(id, spot);
    if (!columns.has(c)) columns.set(c, []);
    columns.get(c).push(spot);
    bottom = Math.max(bottom, y + BADGE.height + 2);
  }
  return bottom - (paper.y + paper.h);
}

// the small ⚑ left on an element whose hook fired, for the rest of the pass
function syncHookMark(view, id) {
  const { hook } = view.badges;
  const info = view.state.hooked.get(id);
  const el = elementOf(view, id);
  const box = info ? boxOf(view, el) : null;
  if (!box) {
    if (hook.has(id)) hook.get(id).remove();
    hook.delete(id);
    return;
  }
  if (!hook.has(id)) {
    const badge = makeBadge("mg-hook-mark");
    badge.dataset.for = el;
    view.overlay.insertBefore(badge, view.overlay.firstChild);
    hook.set(id, badge);
  }
  placeBadge(hook.get(id), "⚑", box.x + box.width, box.y, 0.5, 0.5, info.text);
}

// the ids whose leaf badge or hook mark may change (`touched` by a step; null: all of them)
function badgeIds(view, touched) {
  const { leaves, hooked } = view.state;
  const { leaf, hook } = view.badges;
  const ids = touched || [...leaf.keys(), ...hook.keys(), ...leaves.keys(), ...hooked.keys()];
  return ids.filter((id) => leaves.has(id) || hooked.has(id) || leaf.has(id) || hook.has(id));
}

// Read every position this frame needs before anything is written: a read after a write makes
// the browser lay the whole drawing out again (once per read, at 10,000 nodes that is seconds).
function measure(view, f, ids) {
  if (!view.svg) return;
  const box = (id) => id !== undefined && id !== null && boxOf(view, elementOf(view, id));
  box(f.node);
  if (f.edge !== undefined) midpointOf(view, elementOf(view, f.edge));
  const hook = hookOf(f);
  if (hook) box(hook.target);
  if (view.state.error) box(view.state.error.node);
  for (const id of ids) box(id);
}

// badges after a step: on the edge, the hook, the error; leaves and hook marks among `ids`
function redecorate(view, ids) {
  if (!view.svg) return;
  const f = view.frames[view.current] || {};
  drawEdgeLabel(view, f);
  drawHookFlash(view, f);
  drawErrorBadge(view);
  const { leaves, hooked } = view.state;
  for (const id of ids) {
    if (leaves.has(id) || view.badges.leaf.has(id)) syncLeafBadge(view, id);
    if (hooked.has(id) || view.badges.hook.has(id)) syncHookMark(view, id);
  }
}

// --- following the play ----------------------------------------------------------------------
// the node the replay shows at this frame or, with `ahead`, the next one it will show (a pass
// starts with a frame that names none: the view opens on its first node, not on empty paper)
function focusNode(view, ahead) {
  const { frames, current } = view;
  const end = Math.min(frames.length, ahead ? current + 50 : current + 1);
  for (let i = Math.max(0, current); i < end; i++) {
    if (frames[i].node !== undefined) return frames[i].node;
  }
  return undefined;
}

// scroll the node being played (or the box standing for it) into view when it is outside it
function follow(view, ahead) {
  const id = focusNode(view, ahead);
  if (!view.svg || id === undefined || view.dragging || !view.port.w) return;
  const { size, port, scale, vb, toSvg: m, scrollPos } = view;
  if (size.w <= port.w && size.h <= port.h) return; // everything is in view
  const box = boxOf(view, elementOf(view, id));
  if (!box) return;
  const off = paperOffset(view);
  // Graphviz's paper is translated (and scaled by 1): paper units -> SVG units -> px
  const x = off.x + (m.a * box.x + m.e - vb.x) * scale;
  const y = off.y + (m.d * box.y + m.f - vb.y) * scale;
  const w = m.a * box.width * scale;
  const hgt = m.d * box.height * scale;
  const inside = x >= scrollPos.x && y >= scrollPos.y && x + w <= scrollPos.x + port.w &&
                 y + hgt <= scrollPos.y + port.h;
  if (!inside) scrollToPx(view, x + w / 2 - port.w / 2, y + hgt / 2 - port.h / 2);
}

// --- stepping --------------------------------------------------------------------------------
function goto(view, k) {
  const t0 = performance.now();
  const { frames } = view;
  k = clamp(k, 0, frames.length - 1);
  const before = view.flashes;
  let touched = null; // null: the state was refolded, every element is looked at
  if (view.current >= 0 && k === view.current + 1) {
    view.changes[k] = fold(view.state, frames[k]);
    touched = view.changes[k].touched;
  } else if (view.current >= 0 && k === view.current - 1 && view.changes[view.current]) {
    view.changes[view.current].undo();
    touched = view.changes[view.current].touched;
  } else if (k !== view.current) {
    view.state = emptyState();
    for (let i = 0; i <= k; i++) view.changes[i] = fold(view.state, frames[i]);
  } else {
    touched = [];
  }
  view.current = k;
  view.flashes = frameFlashes(view, frames[k]);
  const badged = badgeIds(view, touched);
  measure(view, frames[k], badged);
  if (touched === null) {
    repaint(view, view.elements.keys());
  } else {
    const dirty = new Set([...before.keys(), ...view.flashes.keys()]);
    for (const id of touched) dirty.add(elementOf(view, id));
    repaint(view, dirty);
  }
  redecorate(view, badged);
  paintPanel(view);
  paintMemory(view, frames[k]);
  follow(view, touched === null);
  view.root.dataset.stepMs = (performance.now() - t0).toFixed(2);
}

// --- the panel -------------------------------------------------------------------------------
function title(view, id) {
  return view.titles[id] || id;
}

// the first lines of a list (all of it, up to LONG_LIST, once opened): [{text, title?}]
function firstLines(view, key, items, line) {
  const limit = view.opened[key] ? LONG_LIST : SHORT_LIST;
  const lines = [];
  for (const item of items) {
    if (lines.length >= limit) break;
    lines.push(line(item));
  }
  return lines;
}

// a section's content: its lines, then "… N more" (a button that opens the whole list)
function fill(view, key, lines, total, empty) {
  const box = view.sections[key];
  const text = `${total}|${view.opened[key]}|${lines.map((l) => `${l.text}|${l.full}`).join("\n")}`;
  if (!box || view.shownLines[key] === text) return;
  view.shownLines[key] = text;
  box.textContent = "";
  if (!total) {
    box.appendChild(h("div", "mg-empty", empty));
    return;
  }
  for (const { text: line, full } of lines) {
    const div = h("div", "mg-line", line);
    if (full && full !== line) {
      div.title = full; // the whole array on hover, and on a click:
      const more = h("details", "mg-full");
      more.append(h("summary", "", say(view.texts, "all_values")), h("pre", "", full));
      box.append(div, more);
    } else {
      box.appendChild(div);
    }
  }
  const rest = total - lines.length;
  if (view.opened[key] && rest > 0) {
    box.appendChild(h("div", "mg-empty", say(view.texts, "not_listed", { n: rest })));
  }
  if (rest > 0 || view.opened[key]) box.appendChild(moreButton(view, key, rest));
}

// "… N more" opens a list (up to LONG_LIST lines); once open, "show fewer" closes it again
function moreButton(view, key, rest) {
  const open = Boolean(view.opened[key]);
  const t = (key) => say(view.texts, key, { n: rest });
  const more = open ? button("mg-more", t("fewer"), t("fewer_tip"))
                    : button("mg-more", t("more"), t("more_tip"));
  more.addEventListener("click", () => {
    view.opened[key] = !open;
    paintPanel(view);
  });
  return more;
}

function paintPanel(view) {
  const { frames, current, root } = view;
  const f = frames[current] || {};
  view.counter.textContent = `${current + 1} / ${frames.length}`;
  view.slider.value = String(current);
  view.slider.setAttribute("aria-valuetext",
                           say(view.texts, "step_of", { k: current + 1, n: frames.length }));
  view.stepText.textContent = f.text || "";
  root.dataset.frame = String(current);
  root.dataset.kind = f.kind || "";
  if (view.mode === "forward") paintCreated(view);
  else paintEngineState(view, f);
}

function paintCreated(view) {
  const { created } = view.state;
  const recent = created.slice(-(view.opened.created ? LONG_LIST : SHORT_LIST)).reverse();
  const line = (id) => {
    const tangent = view.tangents.get(id);
    return tangent === undefined ? title(view, id)
      : say(view.texts, "created_with_tangent", { node: title(view, id), tangent });
  };
  const lines = recent.map((id) => ({ text: line(id) }));
  fill(view, "created", lines, created.length, say(view.texts, "nothing_yet"));
  const head = view.sections.created.parentElement.querySelector(".mg-title");
  head.textContent = say(view.texts, "section.created_count", { n: created.length });
}

function paintEngineState(view, f) {
  const { state } = view;
  const none = say(view.texts, "none");
  const named = (id) => ({ text: title(view, id) });
  const list = (key, items, total, line, empty) =>
    fill(view, key, firstLines(view, key, items, line), total, empty);
  fill(view, "grad", f.grad ? [{ text: f.grad, full: f.grad_full }] : [], f.grad ? 1 : 0, "—");
  list("queue", state.queue, state.queue.length, named, say(view.texts, "empty"));
  list("deps", state.waiting, state.waiting.size,
       (id) => ({ text: `${title(view, id)}: ${state.deps.get(id)}` }), none);
  list("leaves", state.leaves.values(), state.leaves.size,
       (l) => ({ text: `${l.name}.grad: ${l.before} → ${l.after}`, full: l.after_full }),
       say(view.texts, "no_grad_yet"));
  list("hooks", state.hooks, state.hooks.length, (k) => ({ text: k.text }), none);
  list("freed", state.freed, state.freed.size, named, none);
  fill(view, "error", state.error ? [{ text: state.error.error }] : [], state.error ? 1 : 0,
       none);
  view.sections.error.parentElement.classList.toggle("mg-has-error", Boolean(state.error));
}

// --- playing ---------------------------------------------------------------------------------
function syncFrame(view) {
  view.model.set("frame", view.current);
  view.model.save_changes();
}

function stepDelay(view) {
  return BASE_DELAY_MS / parseFloat(view.speed.value);
}

function showPlaying(view, playing) {
  view.play.textContent = say(view.texts, playing ? "pause" : "play");
  view.play.setAttribute("aria-label", say(view.texts, playing ? "pause_tip" : "play_tip"));
  view.play.title = view.play.getAttribute("aria-label");
  view.play.setAttribute("aria-pressed", String(playing));
  view.root.dataset.playing = String(playing);
}

function stop(view) {
  if (view.timer !== null) clearTimeout(view.timer);
  view.timer = null;
  showPlaying(view, false);
  syncFrame(view);
}

function tick(view) {
  if (view.current >= view.frames.length - 1) {
    stop(view);
    return;
  }
  goto(view, view.current + 1);
  view.timer = setTimeout(() => tick(view), stepDelay(view));
}

function togglePlay(view) {
  if (view.timer !== null) {
    stop(view);
    return;
  }
  if (view.current >= view.frames.length - 1) goto(view, 0);
  showPlaying(view, true);
  view.timer = setTimeout(() => tick(view), stepDelay(view));
}

function stepTo(view, k) {
  if (view.timer !== null) stop(view);
  goto(view, k);
  syncFrame(view);
}

// --- controls --------------------------------------------------------------------------------
// the keys a control keeps for itself: a menu's and the slider's arrows, a button's space
function ownKey(target, key) {
  const tag = target.tagName;
  if (tag === "SELECT" || tag === "INPUT" || tag === "TEXTAREA") return true;
  return (tag === "BUTTON" || tag === "SUMMARY") && (key === " " || key === "Enter");
}

function onKey(view, event) {
  if (event.altKey || event.ctrlKey || event.metaKey || ownKey(event.target, event.key)) return;
  const last = view.frames.length - 1;
  const actions = {
    ArrowRight: () => stepTo(view, view.current + 1),
    ArrowLeft: () => stepTo(view, view.current - 1),
    Home: () => stepTo(view, 0),
    End: () => stepTo(view, last),
    " ": () => togglePlay(view),
  };
  const action = actions[event.key];
  if (!action || !view.frames.length) return;
  event.preventDefault(); // no page scroll on space, no notebook command
  event.stopPropagation();
  action();
}

// Notebook 7 reads every key on the way down (a capturing listener on the document) and takes
// the arrows for itself; a capturing listener on the window hears them first. One per page: it
// hands a key pressed inside a player to that player (`mgOnKey`); all other keys go on as usual.
function keysFirst(event) {
  const root = event.target instanceof Element ? event.target.closest(".mg-player") : null;
  if (root && root.mgOnKey) root.mgOnKey(event);
}

function wireSteps(view) {
  const { root, play, next, prev, first, last, slider, speed, model } = view;
  root.mgOnKey = (event) => onKey(view, event);
  if (!window.mgPlayerKeys) {
    window.mgPlayerKeys = true;
    window.addEventListener("keydown", keysFirst, true);
  }
  play.addEventListener("click", () => togglePlay(view));
  next.addEventListener("click", () => stepTo(view, view.current + 1));
  prev.addEventListener("click", () => stepTo(view, view.current - 1));
  first.addEventListener("click", () => stepTo(view, 0));
  last.addEventListener("click", () => stepTo(view, view.frames.length - 1));
  slider.addEventListener("input", () => stepTo(view, parseInt(slider.value, 10)));
  speed.addEventListener("change", () => {
    model.set("speed", parseFloat(speed.value));
    model.save_changes();
  });
}

function wireZoom(view) {
  const { zoom, zoomIn, zoomOut, fit, graph } = view;
  zoom.addEventListener("change", () => {
    if (zoom.value !== "custom") setZoom(view, zoom.value);
  });
  zoomIn.addEventListener("click", () => zoomBy(view, 1.25));
  zoomOut.addEventListener("click", () => zoomBy(view, 0.8));
  fit.addEventListener("click", () => setZoom(view, "fit"));
  // ctrl + wheel (and a touchpad pinch, which the browser reports so) zooms around the pointer;
  // a plain wheel scrolls the drawing as usual
  graph.addEventListener("wheel", (event) => {
    if (!view.svg || !(event.ctrlKey || event.metaKey)) return;
    event.preventDefault(); // not the browser's page zoom
    const factor = Math.exp(-clamp(event.deltaY, -100, 100) * WHEEL_ZOOM);
    zoomBy(view, factor, anchorAt(view, event.clientX, event.clientY));
  }, { passive: false });
  graph.addEventListener("scroll", () => noteScroll(view), { passive: true });
}

// a drag on the drawing pans it; a press that barely moves stays a click (module boxes toggle)
function wirePan(view) {
  const { graph, root } = view;
  let drag = null;
  graph.addEventListener("pointerdown", (event) => {
    const onBar = event.offsetX >= graph.clientWidth || event.offsetY >= graph.clientHeight;
    if (event.button !== 0 || event.pointerType === "touch" || onBar || !view.svg) return;
    drag = { id: event.pointerId, x: event.clientX, y: event.clientY, left: graph.scrollLeft,
             top: graph.scrollTop, moved: false };
  });
  graph.addEventListener("pointermove", (event) => {
    if (!drag || event.pointerId !== drag.id) return;
    const dx = event.clientX - drag.x;
    const dy = event.clientY - drag.y;
    if (!drag.moved && Math.hypot(dx, dy) < PAN_START_PX) return;
    if (!drag.moved) {
      drag.moved = true;
      view.dragging = true;
      graph.setPointerCapture(event.pointerId);
      root.classList.add("mg-panning");
    }
    scrollToPx(view, drag.left - dx, drag.top - dy);
  });
  const end = () => {
    if (!drag) return;
    if (drag.moved) {
      view.panned = true; // the click that ends this drag is not a click on a box
      setTimeout(() => { view.panned = false; }, 0);
    }
    drag = null;
    view.dragging = false;
    root.classList.remove("mg-panning");
  };
  graph.addEventListener("pointerup", end);
  graph.addEventListener("pointercancel", end);
  graph.addEventListener("click", (event) => {
    if (view.panned) return;
    const box = event.target.closest("g.mg-box, g.mg-cluster");
    if (box && graph.contains(box)) view.model.send({ toggle: box.id });
  });
}

function wireMinimap(view) {
  const { minimap } = view;
  minimap.addEventListener("pointerdown", (event) => {
    if (event.button !== 0) return;
    event.preventDefault();
    minimap.setPointerCapture(event.pointerId);
    minimapJump(view, event);
  });
  minimap.addEventListener("pointermove", (event) => {
    if (minimap.hasPointerCapture(event.pointerId)) minimapJump(view, event);
  });
}

// a new width (the notebook resized, the output scrolled into being) refits "auto" and "fit"
function watchSize(view) {
  if (typeof ResizeObserver === "undefined") return null;
  const observer = new ResizeObserver(() => {
    if (view.hidden) hidePictures(view); // shown or resized: its picture may have come since
    const { w, maxH } = view.port;
    measurePort(view);
    if (!view.svg) return;
    if (!view.badges.planned) planBadges(view, true); // first shown: the drawing measures now
    const refit = typeof view.zoomMode === "string" && view.zoomMode !== "custom" &&
                  (view.port.w !== w || view.port.maxH !== maxH);
    if (refit) setZoom(view, view.zoomMode);
    else updateMinimap(view);
    if (!w && view.port.w) follow(view, true); // first shown: open on the node being played
  });
  observer.observe(view.graph);
  return observer;
}

// --- kernel-side changes (a module opened or closed: a new picture) --------------------------
function reload(view) {
  const { model } = view;
  const packed = model.get("frames_json"); // a live player's; a saved replay has `frames`
  view.frames = packed ? JSON.parse(packed) : model.get("frames") || [];
  view.titles = model.get("titles") || {};
  view.tips = model.get("tips") || {};
  view.tangents = new Map(view.frames.filter((f) => f.tangent).map((f) => [f.node, f.tangent]));
  view.alias = model.get("alias") || {};
  view.groups = groupMembers(view.alias, model.get("boxes") || {});
  view.doable = doableIds(view.frames);
  view.hideable = hideableElements(view);
  view.slider.max = String(Math.max(0, view.frames.length - 1));
  loadMemory(view);
  drawSvg(view);
  const k = view.current >= 0 ? view.current : model.get("frame");
  view.current = -1;
  view.flashes = new Map();
  if (view.frames.length) goto(view, k);
  else paintPanel(view);
}

function followKernel(view) { // `player.frame = k` in Python moves this view too
  const k = view.model.get("frame");
  if (k !== view.current && view.frames.length) goto(view, k);
}

// The picture output displayed with this player (widgets/player.py) is not needed while it lives.
// It is hidden whenever it is found: at render, once the view is in the page (an output area is
// often built before it is attached), and whenever the output area changes (a notebook reopened
// with its kernel alive renders its widgets while its outputs are still being put in place).
// player.css hides it too, by the page's structure alone (a picture followed by a live player).
function fallbacks(view) {
  const key = view.model.get("key");
  if (!key) return [];
  const mine = `.mg-fallback[data-mg-player="${key}"]`;
  const found = new Set(document.querySelectorAll(mine));
  const area = view.root.closest(".jp-OutputArea");
  if (area) for (const picture of area.querySelectorAll(mine)) found.add(picture);
  return [...found];
}

function hidePictures(view) {
  for (const picture of fallbacks(view)) {
    const output = picture.closest(".jp-OutputArea-child") || picture;
    if (view.hidden.has(output)) continue;
    view.hidden.set(output, output.style.display);
    output.style.display = "none";
  }
  view.root.dataset.fallbacksHidden = String(view.hidden.size);
}

function showPictures(view) {
  for (const [output, display] of view.hidden) output.style.display = display;
  view.hidden.clear();
}

// hide the pictures now, on every frame until the view is in the page, then on every change of
// its output area (a MutationObserver: outputs added, replaced or removed)
function watchPictures(view) {
  hidePictures(view);
  let tries = 0;
  let observer = null;
  const attach = () => {
    if (view.gone) return;
    hidePictures(view);
    const area = view.root.isConnected ? view.root.closest(".jp-OutputArea") : null;
    if (area && typeof MutationObserver !== "undefined") {
      observer = new MutationObserver(() => hidePictures(view));
      observer.observe(area, { childList: true }); // its outputs, not the player's own steps
      return;
    }
    if (view.root.isConnected) return; // in a page without output areas (a saved replay)
    if (tries++ < 600) requestAnimationFrame(attach); // ~10 s: a saved replay has no area
  };
  requestAnimationFrame(attach);
  return () => { if (observer) observer.disconnect(); };
}

function render({ model, el }) {
  const view = buildView(model, el);
  wireSteps(view);
  wireZoom(view);
  wirePan(view);
  wireMinimap(view);
  wireTips(view);
  wireMemoryPointing(view);
  view.hidden = new Map(); // fallback picture output -> its display before it was hidden
  const unwatch = watchPictures(view);
  const onSvg = () => reload(view);
  const onFrame = () => followKernel(view);
  model.on("change:svg", onSvg);
  model.on("change:frame", onFrame);
  reload(view);
  const observer = watchSize(view);
  return () => { // the view is gone (output cleared): stop the timer, drop the listeners
    view.gone = true;
    if (view.timer !== null) clearTimeout(view.timer);
    if (observer) observer.disconnect();
    unwatch();
    dropMinimap(view);
    model.off("change:svg", onSvg);
    model.off("change:frame", onFrame);
    showPictures(view);
  };
}

export default { render };
