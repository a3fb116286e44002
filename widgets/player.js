// The graph player (anywidget front end). The kernel sends the laid-out SVG and every frame
// once; stepping only folds frame changes into a small state and changes the class of the few
// SVG elements whose look differs from the previous frame. No layout, no kernel round trip.
//
// Frame fields (see widgets/frames.py): kind, text, node, edge, grad, queue, deps, done, freed,
// leaf, hook, error, show, pass. Model ids map to SVG element ids through `alias` (collapsed
// modules stand for the nodes inside them).

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

function render({ model, el }) {
  const root = h("div", "mg-player");
  const mode = model.get("mode");
  root.dataset.mode = mode;
  el.appendChild(root);

  // --- layout ---------------------------------------------------------------------------
  const bar = h("div", "mg-toolbar");
  const first = button("mg-first", "« first", "first step");
  const prev = button("mg-prev", "◀", "previous step");
  const play = button("mg-play", "▶ play", "play / pause");
  const next = button("mg-step", "step ▶", "next step");
  const slider = h("input", "mg-slider");
  slider.type = "range";
  slider.min = "0";
  const counter = h("span", "mg-counter");
  const speed = h("select", "mg-speed");
  for (const s of SPEEDS) {
    const o = h("option", "", `${s}×`);
    o.value = String(s);
    speed.appendChild(o);
  }
  speed.value = String(model.get("speed"));
  const zoom = h("select", "mg-zoom");
  for (const z of ZOOMS) zoom.appendChild(h("option", "", z));
  bar.append(first, prev, play, next, slider, counter, h("span", "mg-label", "speed"), speed,
             h("span", "mg-label", "zoom"), zoom);
  const summary = h("div", "mg-summary");
  const stepText = h("div", "mg-step-text");
  const body = h("div", "mg-body");
  const graph = h("div", "mg-graph");
  const panel = h("div", "mg-panel");
  body.append(graph, panel);
  root.append(bar, summary, stepText, body);

  const sections = {};
  const sectionNames = mode === "forward"
    ? [["created", "Created so far"]]
    : [["grad", "Gradient at this step"], ["queue", "Ready queue"],
       ["deps", "Waiting for gradients (dependency count)"], ["leaves", ".grad of leaves"],
       ["hooks", "Hooks fired (this pass)"], ["freed", "Freed saved tensors"],
       ["error", "Error"]];
  for (const [key, title] of sectionNames) {
    const box = h("div", `mg-section mg-sec-${key}`);
    const content = h("div", "mg-content");
    box.append(h("div", "mg-title", title), content);
    panel.appendChild(box);
    sections[key] = content;
  }

  // --- data -----------------------------------------------------------------------------
  let frames = model.get("frames");
  let titles = model.get("titles");
  let alias = model.get("alias");
  let elements = new Map(); // element id -> {el, base}
  let applied = new Map(); // element id -> class we added
  let hideable = new Set(); // ids that some frame shows being created
  let state = emptyState();
  let current = -1;
  let timer = null;

  const title = (id) => titles[id] || id;

  function drawSvg() {
    const t0 = performance.now();
    const message = model.get("message");
    graph.textContent = "";
    if (message) {
      graph.appendChild(h("pre", "mg-message", message));
    } else {
      graph.innerHTML = model.get("svg"); // Graphviz output; every label was escaped in Python
    }
    elements = new Map();
    applied = new Map();
    for (const g of graph.querySelectorAll("svg g[id]")) {
      elements.set(g.id, { el: g, base: g.getAttribute("class") || "" });
    }
    summary.textContent = model.get("summary");
    applyZoom();
    graph.getBoundingClientRect(); // include style and layout in the measured time
    root.dataset.drawMs = (performance.now() - t0).toFixed(1);
    root.dataset.elements = String(elements.size);
    root.dataset.timings = JSON.stringify(model.get("timings"));
    // wall-clock time of the first frame painted with this picture (for end-to-end timing)
    requestAnimationFrame(() => { root.dataset.paintedAt = String(Date.now()); });
  }

  function applyZoom() {
    const svg = graph.querySelector("svg");
    if (!svg) return;
    const z = zoom.value;
    if (z === "fit") {
      svg.style.maxWidth = "100%";
      svg.style.width = "";
    } else {
      const natural = svg.viewBox.baseVal ? svg.viewBox.baseVal.width : 0;
      svg.style.maxWidth = "none";
      svg.style.width = `${(natural * parseFloat(z)) / 100}pt`;
    }
  }

  function rebuildHideable() {
    // elements created during the trace (forward ops, create_graph) stay faint until then
    hideable = new Set();
    for (const f of frames) if (f.show) for (const id of f.show) hideable.add(id);
  }

  // --- stepping ---------------------------------------------------------------------------
  function goto(k) {
    const t0 = performance.now();
    k = Math.max(0, Math.min(frames.length - 1, k));
    if (k !== current + 1 || current < 0) {
      state = emptyState();
      for (let i = 0; i <= k; i++) fold(state, frames[i]);
    } else {
      fold(state, frames[k]);
    }
    current = k;
    paint();
    root.dataset.stepMs = (performance.now() - t0).toFixed(2);
  }

  function desiredClasses() {
    const want = new Map();
    const mark = (id, cls) => {
      if (id === undefined || id === null) return;
      const target = alias[id] || id;
      const old = want.get(target);
      if (old === undefined || RANK.get(cls) >= RANK.get(old)) want.set(target, cls);
    };
    const f = frames[current] || {};
    // an element is faint while nothing it stands for exists yet (a box: none of its nodes)
    const visible = new Set();
    for (const id of state.shown) visible.add(alias[id] || id);
    for (const id of hideable) if (!visible.has(alias[id] || id)) mark(id, "mg-hidden");
    if (mode === "forward") {
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

  function paint() {
    const want = desiredClasses();
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
    paintPanel();
  }

  const shownLines = {}; // section -> the text it shows now (unchanged sections are not touched)
  function fill(key, lines, empty) {
    const box = sections[key];
    const text = lines.join("\n");
    if (!box || shownLines[key] === text) return;
    shownLines[key] = text;
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

  function paintPanel() {
    const f = frames[current] || {};
    counter.textContent = `${current + 1} / ${frames.length}`;
    slider.value = String(current);
    stepText.textContent = f.text || "";
    root.dataset.frame = String(current);
    root.dataset.kind = f.kind || "";
    if (mode === "forward") {
      const created = frames.slice(0, current + 1).filter((x) => x.node).map((x) => title(x.node));
      fill("created", [`${created.length} node(s): ${created.join(", ")}`], "nothing yet");
      return;
    }
    fill("grad", f.grad ? [f.grad] : [], "—");
    fill("queue", state.queue.map(title), "(empty)");
    const waiting = [...state.deps].filter(([, n]) => n > 0).map(([id, n]) => `${title(id)}: ${n}`);
    fill("deps", waiting, "none");
    fill("leaves", [...state.leaves.values()].map((l) => `${l.name}.grad: ${l.before} → ${l.after}`),
         "no .grad written yet");
    fill("hooks", state.hooks, "none");
    fill("freed", [...state.freed].map(title), "none");
    fill("error", state.error ? [state.error.error] : [], "none");
    sections.error.parentElement.classList.toggle("mg-has-error", Boolean(state.error));
  }

  // --- controls ---------------------------------------------------------------------------
  function syncFrame() {
    model.set("frame", current);
    model.save_changes();
  }

  function stop() {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    play.textContent = "▶ play";
    root.dataset.playing = "false";
    syncFrame();
  }

  function tick() {
    if (current >= frames.length - 1) {
      stop();
      return;
    }
    goto(current + 1);
    timer = setTimeout(tick, BASE_DELAY_MS / parseFloat(speed.value));
  }

  play.addEventListener("click", () => {
    if (timer !== null) {
      stop();
      return;
    }
    if (current >= frames.length - 1) goto(0);
    play.textContent = "❚❚ pause";
    root.dataset.playing = "true";
    timer = setTimeout(tick, BASE_DELAY_MS / parseFloat(speed.value));
  });
  const stepTo = (k) => {
    if (timer !== null) stop();
    goto(k);
    syncFrame();
  };
  next.addEventListener("click", () => stepTo(current + 1));
  prev.addEventListener("click", () => stepTo(current - 1));
  first.addEventListener("click", () => stepTo(0));
  slider.addEventListener("input", () => stepTo(parseInt(slider.value, 10)));
  speed.addEventListener("change", () => {
    model.set("speed", parseFloat(speed.value));
    model.save_changes();
  });
  zoom.addEventListener("change", applyZoom);
  graph.addEventListener("click", (event) => {
    const box = event.target.closest("g.mg-box, g.mg-cluster");
    if (box && graph.contains(box)) model.send({ toggle: box.id });
  });

  // --- kernel-side changes (a module opened or closed: a new picture) ----------------------
  function reload() {
    frames = model.get("frames");
    titles = model.get("titles");
    alias = model.get("alias");
    slider.max = String(Math.max(0, frames.length - 1));
    rebuildHideable();
    drawSvg();
    const k = current >= 0 ? current : model.get("frame");
    current = -1;
    if (frames.length) goto(k);
    else paintPanel();
  }
  function followKernel() { // `player.frame = k` in Python moves this view too
    const k = model.get("frame");
    if (k !== current && frames.length) goto(k);
  }
  model.on("change:svg", reload);
  model.on("change:frame", followKernel);

  reload();
  return () => { // the view is gone (output cleared): stop the timer, drop the listeners
    if (timer !== null) clearTimeout(timer);
    model.off("change:svg", reload);
    model.off("change:frame", followKernel);
  };
}

export default { render };
