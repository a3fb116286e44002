// The player's engine state, folded frame by frame: the ready queue, dependency counts, nodes
// done, freed saved tensors, each leaf's .grad, the hooks fired, the error, what the forward has
// created. Pure data in, data out (no page): player.js draws from it, and
// tests/js/player_state.test.mjs runs it under node --test. widgets/front_end.py inlines this
// file into player.js (dropping `export`), so the widget and a saved replay stay one file.

export function emptyState() {
  return { queue: [], queued: new Set(), deps: new Map(), waiting: new Set(), done: new Set(),
           freed: new Set(), leaves: new Map(), hooks: [], hooked: new Map(), error: null,
           shown: new Set(), created: [] };
}

// a hook frame's hook, its badge on its own target (else the frame's node)
export function hookOf(f) {
  if (!f.hook) return null;
  return { ...f.hook, target: f.hook.target ?? f.node, text: f.hook.text ?? f.text };
}

function setDep(state, id, n) {
  if (n === undefined) state.deps.delete(id);
  else state.deps.set(id, n);
  if (n > 0) state.waiting.add(id);
  else state.waiting.delete(id);
}

// Each folder applies one kind of change, notes the model ids whose look it may change
// (`touch`) and pushes what puts the state back (`undo`), so a step back costs a step.
const FOLDERS = [
  function newPass(state, f, touch, undo) { // .grad and freed tensors carry over
    if (f.kind !== "backward_start") return;
    const old = { done: state.done, deps: state.deps, waiting: state.waiting,
                  hooks: state.hooks, hooked: state.hooked, error: state.error };
    touch(old.done);
    touch(old.hooked.keys());
    if (old.error) touch([old.error.node]);
    Object.assign(state, { done: new Set(), deps: new Map(), waiting: new Set(), hooks: [],
                           hooked: new Map(), error: null });
    undo.push(() => Object.assign(state, old));
  },
  function queue(state, f, touch, undo) {
    if (!f.queue) return;
    const old = { queue: state.queue, queued: state.queued };
    touch(old.queue);
    touch(f.queue);
    state.queue = f.queue;
    state.queued = new Set(f.queue);
    undo.push(() => Object.assign(state, old));
  },
  function deps(state, f, touch, undo) {
    if (!f.deps) return;
    for (const [id, n] of Object.entries(f.deps)) {
      const old = state.deps.get(id);
      setDep(state, id, n);
      undo.push(() => setDep(state, id, old));
    }
  },
  function done(state, f, touch, undo) {
    if (f.done === undefined || state.done.has(f.done)) return;
    state.done.add(f.done);
    touch([f.done]);
    undo.push(() => state.done.delete(f.done));
  },
  function freed(state, f, touch, undo) {
    for (const id of f.freed || []) {
      if (state.freed.has(id)) continue;
      state.freed.add(id);
      touch([id]);
      undo.push(() => state.freed.delete(id));
    }
  },
  function leaf(state, f, touch, undo) {
    if (!f.leaf) return;
    const { id } = f.leaf;
    const old = state.leaves.get(id);
    state.leaves.set(id, f.leaf);
    touch([id]);
    undo.push(() => (old === undefined ? state.leaves.delete(id) : state.leaves.set(id, old)));
  },
  function hook(state, f, touch, undo) {
    const info = hookOf(f);
    if (!info) return;
    const old = state.hooked.get(info.target);
    state.hooks.push(info);
    state.hooked.set(info.target, info);
    touch([info.target]);
    undo.push(() => {
      state.hooks.pop();
      if (old === undefined) state.hooked.delete(info.target);
      else state.hooked.set(info.target, old);
    });
  },
  function error(state, f, touch, undo) {
    if (!f.error) return;
    const old = state.error;
    state.error = f;
    touch([f.node]);
    if (old) touch([old.node]);
    undo.push(() => { state.error = old; });
  },
  function show(state, f, touch, undo) {
    for (const id of f.show || []) {
      if (state.shown.has(id)) continue;
      state.shown.add(id);
      touch([id]);
      undo.push(() => state.shown.delete(id));
    }
  },
  function created(state, f, touch, undo) {
    if (f.kind !== "node_created" || !f.node) return;
    state.created.push(f.node);
    undo.push(() => state.created.pop());
  },
];

// fold one frame's changes into the running state: {touched model ids, undo()}
export function fold(state, f) {
  const touched = [];
  const steps = [];
  const touch = (ids) => {
    for (const id of ids) if (id !== undefined && id !== null) touched.push(id);
  };
  for (const folder of FOLDERS) folder(state, f, touch, steps);
  const undo = () => {
    for (let i = steps.length - 1; i >= 0; i--) steps[i]();
  };
  return { touched, undo };
}
