// The live pass diff (widgets/diff_player.py): two recorded backward passes side by side, their
// aligned steps in a table, and controls to step through the rows. Each picture frames the nodes
// only its pass has (or where a gradient differs) and outlines the current row's node. Only
// classes change on Graphviz's <g> elements: nothing is laid out again. All words come from the
// kernel (`texts`); the same module runs in a saved page (replay.py's page, a stand-in model).

function make(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

function fill(template, values) {
  return template.replace(/\{(\w+)\}/g, (all, name) => (name in values ? values[name] : all));
}

function byId(box, id) {
  return id ? box.querySelector(`g[id="${CSS.escape(id)}"]`) : null;
}

function button(view, label, tip, onClick) {
  const b = make("button", "mg-diff-btn", label);
  b.title = tip;
  b.addEventListener("click", onClick);
  return b;
}

function buildSide(view, which) {
  const m = view.model;
  const side = make("div", "mg-diff-side");
  side.append(make("div", "mg-diff-caption", m.get("captions")[which === "a" ? 0 : 1] || ""));
  const text = make("div", "mg-diff-step");
  const graph = make("div", "mg-diff-graph");
  const svg = m.get(`svg_${which}`);
  if (svg) graph.innerHTML = svg; // our own drawing: every label escaped by dot.py
  else graph.append(make("pre", "mg-diff-message", m.get(`message_${which}`)));
  for (const [id, mark] of Object.entries(m.get(`marks_${which}`) || {})) {
    const g = byId(graph, id);
    if (g) g.classList.add(`mg-diff-${mark}`);
  }
  side.append(text, graph);
  return { side, text, graph, current: null };
}

function buildTable(view) {
  const t = view.texts;
  const box = make("div", "mg-diff-rows");
  const table = make("table", "mg-diff-table");
  const head = make("tr");
  const [la, lb] = view.labels;
  for (const h of ["#", la, "#", lb, t.status]) head.append(make("th", "", h));
  const thead = make("thead");
  thead.append(head);
  table.append(thead);
  const body = make("tbody");
  view.trs = view.rows.map((row, k) => {
    const tr = make("tr", `mg-diff-row mg-diff-${row.status}`);
    for (const step of [row.a, row.b]) {
      tr.append(make("td", "mg-diff-k", step ? String(step.k) : ""));
      tr.append(make("td", "mg-diff-text", step ? step.text : ""));
    }
    tr.append(make("td", "mg-diff-say", row.say));
    tr.addEventListener("click", () => goto(view, k, true));
    body.append(tr);
    return tr;
  });
  table.append(body);
  box.append(table);
  return box;
}

function showStep(view, side, step) {
  side.text.textContent = step ? step.text : view.texts.no_step;
  side.text.classList.toggle("mg-diff-missing", !step);
  if (side.current) side.current.classList.remove("mg-diff-current");
  side.current = step ? byId(side.graph, step.el) : null;
  if (side.current) side.current.classList.add("mg-diff-current");
}

function goto(view, k, save) {
  const n = view.rows.length;
  if (!n) return;
  k = Math.max(0, Math.min(n - 1, k));
  const row = view.rows[k];
  const before = view.trs[view.k];
  if (before) before.classList.remove("mg-diff-here");
  view.k = k;
  view.trs[k].classList.add("mg-diff-here");
  const box = view.rowBox;
  const tr = view.trs[k];
  if (tr.offsetTop < box.scrollTop || tr.offsetTop + tr.offsetHeight > box.scrollTop + box.clientHeight) {
    box.scrollTop = tr.offsetTop - box.clientHeight / 2;
  }
  showStep(view, view.sides.a, row.a);
  showStep(view, view.sides.b, row.b);
  view.status.textContent = row.say;
  view.status.className = `mg-diff-status mg-diff-${row.status}`;
  view.slider.value = String(k);
  view.counter.textContent = fill(view.texts.step_of, { k: k + 1, n });
  view.root.dataset.frame = String(k);
  if (save) {
    view.model.set("frame", k);
    view.model.save_changes();
  }
}

function stop(view) {
  if (view.timer !== null) clearInterval(view.timer);
  view.timer = null;
  view.play.textContent = view.texts.play;
  view.play.title = view.texts.play_tip;
}

function toggle(view) {
  if (view.timer !== null) return stop(view);
  if (view.k >= view.rows.length - 1) goto(view, 0, false);
  view.play.textContent = view.texts.pause;
  view.play.title = view.texts.pause_tip;
  view.timer = setInterval(() => {
    if (view.k >= view.rows.length - 1) return stop(view);
    goto(view, view.k + 1, false);
  }, 700);
}

function buildControls(view) {
  const t = view.texts;
  const bar = make("div", "mg-diff-controls");
  const last = view.rows.length - 1;
  view.play = button(view, t.play, t.play_tip, () => toggle(view));
  view.slider = make("input", "mg-diff-slider");
  Object.assign(view.slider, { type: "range", min: "0", max: String(Math.max(last, 0)), step: "1" });
  view.slider.addEventListener("input", () => goto(view, Number(view.slider.value), true));
  view.counter = make("span", "mg-diff-counter");
  bar.append(
    button(view, t.first, t.first_tip, () => goto(view, 0, true)),
    button(view, "◀", t.prev_tip, () => goto(view, view.k - 1, true)),
    view.play,
    button(view, t.next, t.next_tip, () => goto(view, view.k + 1, true)),
    button(view, t.last, t.last_tip, () => goto(view, last, true)),
    view.slider,
    view.counter,
  );
  return bar;
}

function legend(view) {
  const box = make("div", "mg-diff-legend");
  for (const kind of ["only", "grad", "current"]) {
    box.append(make("span", `mg-diff-swatch mg-diff-swatch-${kind}`), make("span", "", view.texts[`legend.${kind}`]));
  }
  return box;
}

// The static diff displayed before this widget (diff_player.py) is not needed while it lives:
// hide it (diff.css does too, by the page's structure), whenever the output area changes.
function hidePictures(view) {
  const key = view.model.get("key");
  if (!key) return;
  for (const picture of document.querySelectorAll(`.mg-diff-fallback[data-mg-diff="${key}"]`)) {
    const output = picture.closest(".jp-OutputArea-child") || picture;
    if (!view.hidden.has(output)) view.hidden.set(output, output.style.display);
    output.style.display = "none";
  }
}

function watchPictures(view) {
  let observer = null;
  let tries = 0;
  const attach = () => {
    if (view.gone) return;
    hidePictures(view);
    const area = view.root.isConnected ? view.root.closest(".jp-OutputArea") : null;
    if (area && typeof MutationObserver !== "undefined") {
      observer = new MutationObserver(() => hidePictures(view));
      observer.observe(area, { childList: true });
    } else if (!view.root.isConnected && tries++ < 600) requestAnimationFrame(attach);
  };
  requestAnimationFrame(attach);
  return () => { if (observer) observer.disconnect(); };
}

function render({ model, el }) {
  const view = { model, el, texts: model.get("texts"), timer: null, k: -1, hidden: new Map() };
  view.rows = JSON.parse(model.get("rows_json"));
  view.labels = model.get("labels");
  view.root = make("div", "mg-diff");
  view.root.append(make("pre", "mg-diff-summary", model.get("summary")));
  view.root.append(buildControls(view));
  view.status = make("div", "mg-diff-status");
  view.root.append(view.status);
  view.sides = { a: buildSide(view, "a"), b: buildSide(view, "b") };
  const pair = make("div", "mg-diff-pair");
  pair.append(view.sides.a.side, view.sides.b.side);
  view.root.append(pair, legend(view));
  view.rowBox = buildTable(view);
  view.root.append(view.rowBox);
  el.append(view.root);
  const unwatch = watchPictures(view);
  const follow = () => { if (model.get("frame") !== view.k) goto(view, model.get("frame"), false); };
  model.on("change:frame", follow);
  goto(view, model.get("frame") || 0, false);
  return () => {
    view.gone = true;
    stop(view);
    unwatch();
    model.off("change:frame", follow);
    for (const [output, display] of view.hidden) output.style.display = display;
  };
}

export default { render };
