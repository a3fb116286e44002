// The player's engine state (widgets/player_state.mjs) under Node's test runner:
// `node --test tests/js/` (tests/widgets/test_player_state_js.py runs it with the rest).
import assert from "node:assert/strict";
import { test } from "node:test";

import { emptyState, fold, hookOf } from "../../widgets/player_state.mjs";

// a pass as frames.py makes it: y = a * b, one leaf hook, then a second pass that fails
const PASS = [
  { kind: "backward_start", pass: 1, deps: { n1: 1, n2: 1, n3: 1 }, queue: [] },
  { kind: "edge", node: "n1", edge: "e1", deps: { n1: 0 } },
  { kind: "ready", node: "n1", queue: ["n1"], deps: { n1: 0 } },
  { kind: "node_start", node: "n1", queue: [] },
  { kind: "node_run", node: "n1", done: "n1" },
  { kind: "edge", node: "n2", edge: "e2", deps: { n2: 0 } },
  { kind: "ready", node: "n2", queue: ["n2"], deps: { n2: 0 } },
  { kind: "node_start", node: "n2", queue: [] },
  { kind: "hook", node: "n2", hook: { kind: "tensor", target: "t1", text: "tensor hook" } },
  { kind: "accumulate", node: "n2", done: "n2", leaf: { id: "t1", name: "a", after: "[2.]" } },
  { kind: "freed", node: "n1", freed: ["s1"] },
  { kind: "backward_end", queue: [] },
];
const SECOND = [
  { kind: "backward_start", pass: 2, deps: { n1: 1 }, queue: [] },
  { kind: "node_start", node: "n1", queue: [] },
  { kind: "error", node: "n1", error: "RuntimeError in n1", text: "RuntimeError in n1" },
];

function run(frames) {
  const state = emptyState();
  const changes = frames.map((f) => fold(state, f));
  return { state, changes };
}

test("a pass leaves its leaves' .grad, its finished nodes, hooks and freed tensors", () => {
  const { state } = run(PASS);
  assert.deepEqual([...state.done], ["n1", "n2"]);
  assert.deepEqual([...state.deps], [["n1", 0], ["n2", 0], ["n3", 1]]);
  assert.deepEqual([...state.waiting], ["n3"]);
  assert.deepEqual(state.queue, []);
  assert.equal(state.leaves.get("t1").after, "[2.]");
  assert.deepEqual([...state.freed], ["s1"]);
  assert.deepEqual(state.hooks.map((h) => h.target), ["t1"]);
  assert.equal(state.error, null);
});

test("a new pass starts its counts, hooks and error afresh; .grad and freed carry over", () => {
  const { state } = run([...PASS, ...SECOND]);
  assert.deepEqual([...state.done], []);
  assert.deepEqual([...state.deps], [["n1", 1]]);
  assert.deepEqual(state.hooks, []);
  assert.equal(state.error.node, "n1");
  assert.ok(state.leaves.has("t1"));
  assert.ok(state.freed.has("s1"));
});

test("each step names the ids whose look it may change", () => {
  const { changes } = run([...PASS, ...SECOND]);
  const touched = changes.map((c) => new Set(c.touched));
  assert.ok(touched[2].has("n1")); // ready: joins the queue
  assert.ok(touched[4].has("n1")); // node_run: done
  assert.ok(touched[8].has("t1")); // the hook's badge sits on its tensor
  assert.ok(touched[10].has("s1")); // freed
  const restart = touched[PASS.length];
  assert.ok(restart.has("n1") && restart.has("n2") && restart.has("t1")); // done and hooked undone
  assert.ok(touched.at(-1).has("n1")); // the error
});

test("undo puts back exactly the state before the step, all the way back", () => {
  const frames = [...PASS, ...SECOND, ...PASS];
  const state = emptyState();
  const before = [];
  const changes = [];
  for (const f of frames) {
    before.push(structuredClone(state));
    changes.push(fold(state, f));
  }
  for (let k = frames.length - 1; k >= 0; k--) {
    changes[k].undo();
    assert.deepEqual(state, before[k], `after undoing step ${k} (${frames[k].kind})`);
  }
});

test("random walks back and forth end where they started", () => {
  let seed = 7;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const frames = [...PASS, ...SECOND, ...PASS];
  for (let trial = 0; trial < 50; trial++) {
    const state = emptyState();
    const done = [];
    for (let i = 0; i < 60; i++) {
      if (done.length && (random() < 0.4 || done.length === frames.length)) done.pop().undo();
      else done.push(fold(state, frames[done.length]));
    }
    const replayed = run(frames.slice(0, done.length)).state;
    assert.deepEqual(state, replayed);
  }
});

test("a forward step shows what it creates, once", () => {
  const frames = [
    { kind: "node_created", node: "n1", show: ["n1", "e1", "n2"] },
    { kind: "node_created", node: "n3", show: ["n3", "e1"] },
  ];
  const { state, changes } = run(frames);
  assert.deepEqual(state.created, ["n1", "n3"]);
  assert.deepEqual([...state.shown], ["n1", "e1", "n2", "n3"]);
  assert.deepEqual(changes[1].touched, ["n3"]);
});

test("a hook's badge goes to its own target, else to the frame's node", () => {
  assert.equal(hookOf({ kind: "edge" }), null);
  const own = hookOf({ node: "n1", text: "t", hook: { kind: "pre", target: "n9", text: "x" } });
  assert.deepEqual([own.target, own.text], ["n9", "x"]);
  const fallback = hookOf({ node: "n1", text: "panel", hook: { kind: "post", target: null } });
  assert.deepEqual([fallback.target, fallback.text], ["n1", "panel"]);
});
