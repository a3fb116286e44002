// The graph player (anywidget front end). The kernel sends the laid-out SVG and every frame
// once; stepping only folds frame changes into a small state and changes the class of the few
// SVG elements whose look differs from the previous frame. No layout, no kernel round trip.
//
// Frame fields (see widgets/frames.py): kind, text, node, edge, grad, queue, deps, done, freed,
// leaf, hook, error, show, pass. Model ids map to SVG element ids through `alias` (collapsed
// modules stand for the nodes inside them).
//
// Keyboard, with the focus anywhere in the player: ←/→ step, Home/End first/last, space plays
// and pauses. The same file runs in a saved replay (widgets/replay.py), with a stand-in model.

const SPEEDS = [0.25, 0.5, 1, 2, 4, 8];
const ZOOMS = ["fit", "50%", "100%", "200%"];
const BASE_DELAY_MS = 700;
const MAX_LINES = 40; // longer panel lists are cut (a big graph waits on hundreds of nodes)
// when several things happen to one element, the later one in this list wins
const PRIORITY = ["mg-hidden", "mg-done", "mg-ready", "mg-freed-now", "mg-current", "mg-updated",
                  "mg-active", "mg-error"];
const RANK = new Map(PRIORITY.map((cls, i) => [cls, i]));

function h(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

function button(cls, label, title) {
  const b = h("button", `mg-btn ${cls}`, label);
  b.type = "button";
  b.title = title;
  b.setAttribute("aria-label", title);
  return b;
}

function emptyState() {
  return { queue: [], deps: new Map(), done: new Set(), freed: new Set(), leaves: new Map(),
           hooks: [], error: null, shown: new Set() };
}

// fold one frame's changes into the running state
function fold(state, f) {
  if (f.kind === "backward_start") { // a new pass: .grad and freed tensors carry over
    state.done = new Set();
    state.deps = new Map();
    state.hooks = [];
    state.error = null;
  }
  if (f.queue) state.queue = f.queue;
  if (f.deps) for (const [id, n] of Object.entries(f.deps)) state.deps.set(id, n);
  if (f.done) state.done.add(f.done);
  if (f.freed) for (const id of f.freed) state.freed.add(id);
  if (f.leaf) state.leaves.set(f.leaf.id, f.leaf);
  if (f.hook) state.hooks.push(f.hook);
  if (f.error) state.error = f;
  if (f.show) for (const id of f.show) state.shown.add(id);
}

// --- the page --------------------------------------------------------------------------------
const FORWARD_SECTIONS = [["created", "Created so far"]];
const BACKWARD_SECTIONS = [["grad", "Gradient at this step"], ["queue", "Ready queue"],
                           ["deps", "Waiting for gradients (dependency count)"],
                           ["leaves", ".grad of leaves"], ["hooks", "Hooks fired (this pass)"],
                           ["freed", "Freed saved tensors"], ["error", "Error"]];

function speedMenu(value) {
  const speed = h("select", "mg-speed");
  speed.setAttribute("aria-label", "playing speed");
  for (const s of SPEEDS) {
    const o = h("option", "", `${s}×`);
    o.value = String(s);
    speed.appendChild(o);
  }
  speed.value = String(value);
  return speed;
}

function zoomMenu() {
  const zoom = h("select", "mg-zoom");
  zoom.setAttribute("aria-label", "zoom");
  for (const z of ZOOMS) zoom.appendChild(h("option", "", z));
  return zoom;
}

// the toolbar and its controls, by name
function toolbar(speedValue) {
  const controls = {
    bar: h("div", "mg-toolbar"),
    first: button("mg-first", "« first", "first step (Home)"),
    prev: button("mg-prev", "◀", "previous step (←)"),
    play: button("mg-play", "▶ play", "play (space)"),
    next: button("mg-step", "step ▶", "next step (→)"),
    last: button("mg-last", "last »", "last step (End)"),
    slider: h("input", "mg-slider"),
    counter: h("span", "mg-counter"),
    speed: speedMenu(speedValue),
    zoom: zoomMenu(),
  };
  const { bar, first, prev, play, next, last, slider, counter, speed, zoom } = controls;
  bar.setAttribute("role", "toolbar");
  bar.setAttribute("aria-label", "player controls");
  slider.type = "range";
  slider.min = "0";
  slider.setAttribute("aria-label", "step");
  counter.setAttribute("aria-hidden", "true"); // the slider announces the same
  bar.append(first, prev, play, next, last, slider, counter,
             h("span", "mg-label", "speed"), speed, h("span", "mg-label", "zoom"), zoom);
  return controls;
}

// the side panel: one titled section per kind of engine state; `sections` maps key -> content
function sidePanel(mode) {
  const panel = h("div", "mg-panel");
  const sections = {};
  for (const [key, title] of mode === "forward" ? FORWARD_SECTIONS : BACKWARD_SECTIONS) {
    const box = h("div", `mg-section mg-sec-${key}`);
    const content = h("div", "mg-content");
    box.append(h("div", "mg-title", title), content);
    panel.appendChild(box);
    sections[key] = content;
  }
  return { panel, sections };
}

// one view of the player: its page, the recorded frames (set by `reload`) and how far it has got
function buildView(model, el) {
  const mode = model.get("mode");
  const root = h("div", "mg-player");
  root.dataset.mode = mode;
  root.tabIndex = 0; // focusable, so the keys work right after a click on the picture
  root.setAttribute("role", "group");
  root.setAttribute("aria-label", `${mode} pass player: ← → step, space play or pause, ` +
                    "Home and End first and last step");
  el.appendChild(root);
  const controls = toolbar(model.get("speed"));
  const summary = h("div", "mg-summary");
  const stepText = h("div", "mg-step-text");
  stepText.setAttribute("aria-live", "polite"); // each step is read out
  stepText.setAttribute("role", "status");
  const body = h("div", "mg-body");
  const graph = h("div", "mg-graph");
  const { panel, sections } = sidePanel(mode);
  body.append(graph, panel);
  root.append(controls.bar, summary, stepText, body);
  return {
    model, mode, root, ...controls, summary, stepText, graph, sections,
    shownLines: {}, // section -> the text it shows now (unchanged sections are not touched)
    frames: [],
    titles: {},
    alias: {},
    elements: new Map(), // element id -> {el, base}
    applied: new Map(), // element id -> class we added
    hideable: new Set(), // ids that some frame shows being created
    state: emptyState(),
    current: -1,
    timer: null,
  };
}

// --- the picture -----------------------------------------------------------------------------
function drawSvg(view) {
  const t0 = performance.now();
  const { model, graph, root } = view;
  const message = model.get("message");
  graph.textContent = "";
  if (message) {
    graph.appendChild(h("pre", "mg-message", message));
  } else {
    graph.innerHTML = model.get("svg"); // Graphviz output; every label was escaped in Python
  }
  view.elements = new Map();
  view.applied = new Map();
  for (const g of graph.querySelectorAll("svg g[id]")) {
    view.elements.set(g.id, { el: g, base: g.getAttribute("class") || "" });
  }
  view.summary.textContent = model.get("summary");
  applyZoom(view);
  graph.getBoundingClientRect(); // include style and layout in the measured time
  root.dataset.drawMs = (performance.now() - t0).toFixed(1);
  root.dataset.elements = String(view.elements.size);
  root.dataset.timings = JSON.stringify(model.get("timings"));
  // wall-clock time of the first frame painted with this picture (for end-to-end timing)
  requestAnimationFrame(() => { root.dataset.paintedAt = String(Date.now()); });
}

function applyZoom(view) {
  const svg = view.graph.querySelector("svg");
  if (!svg) return;
  const z = view.zoom.value;
  if (z === "fit") {
    svg.style.maxWidth = "100%";
    svg.style.width = "";
  } else {
    const natural = svg.viewBox.baseVal ? svg.viewBox.baseVal.width : 0;
    svg.style.maxWidth = "none";
    svg.style.width = `${(natural * parseFloat(z)) / 100}pt`;
  }
}

// elements created during the trace (forward ops, create_graph) stay faint until then
function hideableIds(frames) {
  const ids = new Set();
  for (const f of frames) if (f.show) for (const id of f.show) ids.add(id);
  return ids;
}

// --- stepping --------------------------------------------------------------------------------
function goto(view, k) {
  const t0 = performance.now();
  const { frames } = view;
  k = Math.max(0, Math.min(frames.length - 1, k));
  if (k !== view.current + 1 || view.current < 0) {
    view.state = emptyState();
    for (let i = 0; i <= k; i++) fold(view.state, frames[i]);
  } else {
    fold(view.state, frames[k]);
  }
  view.current = k;
  applyClasses(view, desiredClasses(view));
  paintPanel(view);
  view.root.dataset.stepMs = (performance.now() - t0).toFixed(2);
}

// element id -> the one state class it should have at the current frame
function desiredClasses(view) {
  const { alias, state } = view;
  const want = new Map();
  const mark = (id, cls) => {
    if (id === undefined || id === null) return;
    const target = alias[id] || id;
    const old = want.get(target);
    if (old === undefined || RANK.get(cls) >= RANK.get(old)) want.set(target, cls);
  };
  const f = view.frames[view.current] || {};
  // an element is faint while nothing it stands for exists yet (a box: none of its nodes)
  const visible = new Set();
  for (const id of state.shown) visible.add(alias[id] || id);
  for (const id of view.hideable) if (!visible.has(alias[id] || id)) mark(id, "mg-hidden");
  if (view.mode === "forward") {
    if (f.show) for (const id of f.show) mark(id, "mg-current");
    return want;
  }
  for (const id of state.done) mark(id, "mg-done");
  for (const id of state.queue) mark(id, "mg-ready");
  for (const id of state.freed) mark(id, "mg-freed-now");
  mark(f.node, "mg-current");
  if (f.leaf) mark(f.leaf.id, "mg-updated");
  mark(f.edge, "mg-active");
  if (state.error) mark(state.error.node, "mg-error");
  return want;
}

// change only the elements whose class differs from what the previous frame left
function applyClasses(view, want) {
  const { elements, applied } = view;
  for (const [id, cls] of applied) {
    if (want.get(id) !== cls) {
      const item = elements.get(id);
      if (item) item.el.setAttribute("class", item.base);
      applied.delete(id);
    }
  }
  for (const [id, cls] of want) {
    if (applied.get(id) === cls) continue;
    const item = elements.get(id);
    if (!item) continue;
    item.el.setAttribute("class", `${item.base} ${cls}`);
    applied.set(id, cls);
  }
}

// --- the panel -------------------------------------------------------------------------------
function title(view, id) {
  return view.titles[id] || id;
}

function fill(view, key, lines, empty) {
  const box = view.sections[key];
  const text = lines.join("\n");
  if (!box || view.shownLines[key] === text) return;
  view.shownLines[key] = text;
  box.textContent = "";
  if (!lines.length) {
    box.appendChild(h("div", "mg-empty", empty));
    return;
  }
  for (const line of lines.slice(0, MAX_LINES)) box.appendChild(h("div", "mg-line", line));
  if (lines.length > MAX_LINES) {
    box.appendChild(h("div", "mg-empty", `… and ${lines.length - MAX_LINES} more`));
  }
}

function paintPanel(view) {
  const { frames, current, root } = view;
  const f = frames[current] || {};
  view.counter.textContent = `${current + 1} / ${frames.length}`;
  view.slider.value = String(current);
  view.slider.setAttribute("aria-valuetext", `step ${current + 1} of ${frames.length}`);
  view.stepText.textContent = f.text || "";
  root.dataset.frame = String(current);
  root.dataset.kind = f.kind || "";
  if (view.mode === "forward") paintCreated(view);
  else paintEngineState(view, f);
}

function paintCreated(view) {
  const made = view.frames.slice(0, view.current + 1).filter((x) => x.node);
  const created = made.map((x) => title(view, x.node));
  fill(view, "created", [`${created.length} node(s): ${created.join(", ")}`], "nothing yet");
}

function paintEngineState(view, f) {
  const { state } = view;
  const name = (id) => title(view, id);
  fill(view, "grad", f.grad ? [f.grad] : [], "—");
  fill(view, "queue", state.queue.map(name), "(empty)");
  const waiting = [...state.deps].filter(([, n]) => n > 0).map(([id, n]) => `${name(id)}: ${n}`);
  fill(view, "deps", waiting, "none");
  const grads = [...state.leaves.values()].map((l) => `${l.name}.grad: ${l.before} → ${l.after}`);
  fill(view, "leaves", grads, "no .grad written yet");
  fill(view, "hooks", state.hooks, "none");
  fill(view, "freed", [...state.freed].map(name), "none");
  fill(view, "error", state.error ? [state.error.error] : [], "none");
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
  view.play.textContent = playing ? "❚❚ pause" : "▶ play";
  view.play.setAttribute("aria-label", playing ? "pause (space)" : "play (space)");
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
  return tag === "BUTTON" && (key === " " || key === "Enter");
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

function wireControls(view) {
  const { model, root, play, next, prev, first, last, slider, speed, zoom, graph } = view;
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
  zoom.addEventListener("change", () => applyZoom(view));
  graph.addEventListener("click", (event) => {
    const box = event.target.closest("g.mg-box, g.mg-cluster");
    if (box && graph.contains(box)) model.send({ toggle: box.id });
  });
}

// --- kernel-side changes (a module opened or closed: a new picture) --------------------------
function reload(view) {
  const { model } = view;
  view.frames = model.get("frames");
  view.titles = model.get("titles");
  view.alias = model.get("alias");
  view.slider.max = String(Math.max(0, view.frames.length - 1));
  view.hideable = hideableIds(view.frames);
  drawSvg(view);
  const k = view.current >= 0 ? view.current : model.get("frame");
  view.current = -1;
  if (view.frames.length) goto(view, k);
  else paintPanel(view);
}

function followKernel(view) { // `player.frame = k` in Python moves this view too
  const k = view.model.get("frame");
  if (k !== view.current && view.frames.length) goto(view, k);
}

// the picture output displayed with this player (widgets/player.py) is not needed while it lives
function hidePictures(model) {
  const key = model.get("key");
  const hidden = [];
  if (!key) return hidden;
  for (const picture of document.querySelectorAll(`.mg-fallback[data-mg-player="${key}"]`)) {
    const output = picture.closest(".jp-OutputArea-child") || picture;
    hidden.push([output, output.style.display]);
    output.style.display = "none";
  }
  return hidden;
}

function render({ model, el }) {
  const view = buildView(model, el);
  wireControls(view);
  const hidden = hidePictures(model);
  const onSvg = () => reload(view);
  const onFrame = () => followKernel(view);
  model.on("change:svg", onSvg);
  model.on("change:frame", onFrame);
  reload(view);
  return () => { // the view is gone (output cleared): stop the timer, drop the listeners
    if (view.timer !== null) clearTimeout(view.timer);
    model.off("change:svg", onSvg);
    model.off("change:frame", onFrame);
    for (const [output, display] of hidden) output.style.display = display;
  };
}

export default { render };
