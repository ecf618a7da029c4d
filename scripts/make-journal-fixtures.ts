/**
 * Writes the journal fixtures of the version this code writes (v5) under
 * test/fixtures/journals/, from deterministic runs (manual clock, sequential
 * ids, fixed owners). Fixtures are never edited: this script refuses to
 * overwrite one. The v1 fixtures were written by version 1 of this script
 * (git history has it) and are kept as they are; a new journal version gets
 * new fixtures beside the old ones.
 */
import { existsSync, writeFileSync } from "node:fs";
import { call, calls, createDriver, defineTool, final, integer, memoryStore, rulesPolicy, scriptedAgent, strictObject, string, abortRun, trimContext, type Tool } from "../src/index.js";
import { Crash, manualClock, sequentialIds } from "../src/testkit/index.js";
import { localPlace, moveRun, toolShapes } from "../src/move/index.js";
import { noteTool } from "../test/helpers/conversation.js";

const dir = "test/fixtures/journals";
const files: Record<string, string> = { "notes.md": "hello", "colour.txt": "\u001b[31mred\u001b[0m", "long.md": "long ".repeat(400) };
const read = defineTool<{ path: string }>({
  name: "read_file",
  description: "Read a file.",
  inputSchema: strictObject({ path: string() }),
  sideEffect: "read_only",
  timeoutMs: 1000,
  call: (a) => files[a.path] ?? null,
});
const write = defineTool<{ path: string; content: string }>({
  name: "write_file",
  description: "Write a file.",
  inputSchema: strictObject({ path: string(), content: string() }),
  sideEffect: "local_mutation",
  permission: "allow",
  timeoutMs: 1000,
  resources: (a) => [{ kind: "path", value: a.path }],
  call: (a) => {
    files[a.path] = a.content;
    return { written: a.content.length };
  },
});
const publish = defineTool({
  name: "publish",
  description: "Publish.",
  inputSchema: strictObject({}),
  sideEffect: "remote_mutation",
  permission: "allow",
  timeoutMs: 1000,
  call: () => {
    throw abortRun("checksum mismatch");
  },
});
const tools = [read, write, publish] as Tool<never, unknown>[];

async function save(name: string, make: () => Promise<{ store: ReturnType<typeof memoryStore>; runId: string }>): Promise<void> {
  const path = `${dir}/${name}.json`;
  if (existsSync(path)) {
    console.log(`kept ${path} (fixtures are never rewritten)`);
    return;
  }
  const { store, runId } = await make();
  writeFileSync(path, `${JSON.stringify(await store.read(runId as never), null, 1)}\n`);
  console.log(`wrote ${path}`);
}

// v2: an approval asked under one policy, asked again under the next
// (call.reopened), with the tool's shape and the policy's identity in the
// requests.
await save("v2-reopened", async () => {
  const clock = manualClock();
  const store = memoryStore({ clock });
  const ask = rulesPolicy([{ tool: "write_file", permission: "ask" }]);
  const agent = () => scriptedAgent([calls(call("write_file", { path: "a.md", content: "x" })), final("written")]);
  const d1 = createDriver({ store, clock, ids: sequentialIds(), owner: "driver-a", tools, policy: ask, policyVersion: "policy-1", agent: agent() });
  const w = await d1.start("write a.md");
  clock.advance(1000);
  const d2 = createDriver({ store, clock, owner: "driver-b", tools, policy: ask, policyVersion: "policy-2", agent: agent() });
  const again = await d2.resume(w.runId);
  const [a] = again.approvals;
  await d2.approve(w.runId, a!.approvalId, { requestHash: a!.requestHash, by: "ana" });
  return { store, runId: (await d2.resume(w.runId)).runId };
});

// v2: an interrupted side effect whose outcome an operator could not tell
// (mark_unknown), with its idempotency key in the request; a result whose
// terminal escapes were cleaned.
await save("v2-unknown", async () => {
  const clock = manualClock();
  const store = memoryStore({ clock });
  let crash = true;
  const faults = {
    at: (p: string) => {
      if (crash && p === "after_effect") {
        crash = false;
        throw new Crash();
      }
    },
  };
  const agent = () => scriptedAgent([calls(call("write_file", { path: "b.md", content: "y" })), calls(call("read_file", { path: "colour.txt" })), final("ok")]);
  const d1 = createDriver({ store, clock, ids: sequentialIds(), owner: "driver-a", tools, agent: agent(), faults });
  const crashed = await d1.start("write b.md");
  clock.advance(31_000);
  const d2 = createDriver({ store, clock, owner: "driver-b", tools, agent: agent() });
  const waiting = await d2.resume(crashed.runId);
  const [a] = waiting.approvals;
  await d2.deny(waiting.runId, a!.approvalId, { requestHash: a!.requestHash, by: "ana", reason: "cannot tell" });
  return { store, runId: (await d2.resume(waiting.runId)).runId };
});

// v2: a run whose transcript was compacted (outputs elided into notices
// naming their artifacts), with decisions that record who answered.
await save("v2-compacted", async () => {
  const clock = manualClock();
  const store = memoryStore({ clock });
  const step = () => ({ ...calls(call("read_file", { path: "long.md" })), answer: { provider: "fixture", model: "fixture-1", finishReason: "tool_calls", usage: { input: 700, output: 9 } } });
  const agent = scriptedAgent([step(), step(), step(), step(), final("read")]);
  const d = createDriver({ store, clock, ids: sequentialIds(), owner: "driver-a", tools, agent, context: { budgetTokens: 900, strategy: trimContext({ keepRecent: 1 }) } });
  return { store, runId: (await d.start("read long.md four times")).runId };
});

// v3: a run moved from one place to another (run.moved, the seal of the
// source), approved and continued there, moved back and completed where it
// began: two seals, lease tokens rising across both.
await save("v3-moved", async () => {
  const clock = manualClock();
  const tab = memoryStore({ clock });
  const edge = memoryStore({ clock });
  const ask = rulesPolicy([{ tool: "write_file", permission: "ask" }]);
  const agent = () => scriptedAgent([calls(call("write_file", { path: "m.md", content: "moved" })), final("written after two moves")]);
  const shapes = toolShapes(tools);
  const here = localPlace(tab, { name: "tab:fixture", tools: shapes, clock });
  const there = localPlace(edge, { name: "edge", tools: shapes, clock });
  const inTab = createDriver({ store: tab, clock, ids: sequentialIds(), owner: "tab-driver", tools, policy: ask, policyVersion: "p1", agent: agent() });
  const waiting = await inTab.start("write m.md, wherever you are");
  clock.advance(1000);
  await moveRun(waiting.runId, here, there);
  clock.advance(1000);
  const atEdge = createDriver({ store: edge, clock, owner: "edge-host", tools, policy: ask, policyVersion: "p1", agent: agent() });
  const [a] = waiting.approvals;
  await atEdge.approve(waiting.runId, a!.approvalId, { requestHash: a!.requestHash, by: "console" });
  clock.advance(1000);
  await moveRun(waiting.runId, there, here);
  clock.advance(1000);
  await inTab.resume(waiting.runId);
  return { store: tab, runId: waiting.runId };
});

// v4: a read that crashes its driver each time it runs (after its effect),
// run again once by the runtime, then asked about (the limit of
// interruptions: the request says how its last attempt ended), approved
// by an operator, run a third time and completed. Each resume after a crash
// records the lease it took over.
await save("v4-interrupted", async () => {
  const clock = manualClock();
  const store = memoryStore({ clock });
  let crashes = 0;
  const faults = {
    at: (p: string) => {
      if (p === "after_effect" && crashes < 2) {
        crashes++;
        throw new Crash();
      }
    },
  };
  const agent = () => scriptedAgent([calls(call("read_file", { path: "notes.md" })), final("read at last")]);
  const driver = (owner: string) => createDriver({ store, clock, ids: sequentialIds(), owner, tools, agent: agent(), faults });
  const crashed = await driver("driver-a").start("read notes.md");
  clock.advance(31_000);
  await driver("driver-b").resume(crashed.runId);
  clock.advance(31_000);
  const c = driver("driver-c");
  const waiting = await c.resume(crashed.runId);
  const [a] = waiting.approvals;
  await c.approve(waiting.runId, a!.approvalId, { requestHash: a!.requestHash, by: "ana" });
  return { store, runId: (await c.resume(waiting.runId)).runId };
});

// v4: a model call that crashes the process every time it is asked: the
// run is taken over three times in a row without progress, and fails
// no_progress instead of asking it a fourth time.
await save("v4-no-progress", async () => {
  const clock = manualClock();
  const store = memoryStore({ clock });
  const agent = {
    decide: async () => {
      throw new Crash("out of memory");
    },
  };
  const driver = (owner: string) => createDriver({ store, clock, ids: sequentialIds(), owner, tools, agent });
  let outcome = await driver("driver-a").start("never decided");
  for (const owner of ["driver-b", "driver-c", "driver-d"]) {
    clock.advance(31_000);
    outcome = await driver(owner).resume(outcome.runId);
  }
  return { store, runId: outcome.runId };
});

// v5: a conversation of three turns. The second is stopped while its write
// waits for an approval (the call is closed without running); the third
// asks again, is approved, answered, then regenerated from its message;
// then the conversation is closed. The second message carries a file.
await save("v5-conversation", async () => {
  const clock = manualClock();
  const store = memoryStore({ clock });
  const note = noteTool;
  const agent = scriptedAgent([final("hello"), calls(call("write_note", { text: "X" })), calls(call("write_note", { text: "X" })), final("noted"), final("noted again")]);
  const driver = createDriver({ store, clock, ids: sequentialIds(), owner: "driver-a", agent, tools: [note] });
  const chat = await driver.create("Be brief.", { conversation: true });
  await driver.send(chat, { id: "m1", text: "hi", metadata: { client: "fixture" } });
  await driver.resume(chat);
  await driver.send(chat, { id: "m2", text: "note X", files: [{ mediaType: "text/plain", data: new TextEncoder().encode("X"), name: "x.txt" }] });
  await driver.resume(chat);
  await driver.stopTurn(chat, { by: "ana" });
  await driver.send(chat, { id: "m3", text: "note X, please" });
  const waiting = await driver.resume(chat);
  const [a] = waiting.approvals;
  await driver.approve(chat, a!.approvalId, { requestHash: a!.requestHash, by: "ana" });
  await driver.resume(chat);
  await driver.regenerate(chat, { by: "ana" });
  await driver.resume(chat);
  await driver.close(chat, { by: "ana", reason: "done" });
  return { store, runId: chat };
});

// v5: structured output. A task whose answer must match a schema: the
// first answer (text, not JSON) is refused and shown to the agent, the
// second (JSON text) is taken as the JSON it holds.
await save("v5-output", async () => {
  const clock = manualClock();
  const store = memoryStore({ clock });
  const agent = scriptedAgent([final("two, I think"), final('{"count":2}')]);
  const driver = createDriver({ store, clock, ids: sequentialIds(), owner: "driver-a", agent, tools: [] });
  const outcome = await driver.start("How many things are on the list?", { outputSchema: strictObject({ count: integer() }) });
  return { store, runId: outcome.runId };
});
