/**
 * Writes the v1 journal fixtures under test/fixtures/journals/, from
 * deterministic runs (manual clock, sequential ids, fixed owners). Fixtures
 * are never edited: this script refuses to overwrite one. A new journal
 * version gets new fixtures beside the old ones.
 */
import { existsSync, writeFileSync } from "node:fs";
import { call, calls, createDriver, Crash, defineTool, final, manualClock, memoryStore, rulesPolicy, scriptedAgent, sequentialIds, strictObject, string, abortRun, type Tool } from "../src/index.js";

const dir = "test/fixtures/journals";
const files: Record<string, string> = { "notes.md": "hello" };
const read = defineTool<{ path: string }>({ name: "read_file", description: "Read a file.", inputSchema: strictObject({ path: string() }), sideEffect: "read_only", timeoutMs: 1000, call: (a) => files[a.path] ?? null });
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
const publish = defineTool({ name: "publish", description: "Publish.", inputSchema: strictObject({}), sideEffect: "remote_mutation", permission: "allow", timeoutMs: 1000, call: () => { throw abortRun("checksum mismatch"); } });
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

await save("v1-completed", async () => {
  const clock = manualClock();
  const store = memoryStore({ clock });
  const d = createDriver({ store, clock, ids: sequentialIds(), owner: "driver-a", tools, agent: scriptedAgent([calls(call("read_file", { path: "notes.md" })), final({ summary: "read" })]) });
  return { store, runId: (await d.start({ goal: "read" })).runId };
});

await save("v1-approval", async () => {
  const clock = manualClock();
  const store = memoryStore({ clock });
  const d = createDriver({ store, clock, ids: sequentialIds(), owner: "driver-a", tools, policy: rulesPolicy([{ tool: "write_file", permission: "ask" }]), agent: scriptedAgent([calls(call("write_file", { path: "a.md", content: "x" })), final("written")]) });
  const w = await d.start("write a.md");
  const [a] = w.approvals;
  clock.advance(1000);
  await d.approve(w.runId, a!.approvalId, { requestHash: a!.requestHash, by: "ana" });
  return { store, runId: (await d.resume(w.runId)).runId };
});

await save("v1-reconciled", async () => {
  const clock = manualClock();
  const store = memoryStore({ clock });
  let crash = true;
  const faults = { at: (p: string) => { if (crash && p === "after_effect") { crash = false; throw new Crash(); } } };
  const agent = () => scriptedAgent([calls(call("write_file", { path: "b.md", content: "y" })), final("ok")]);
  const d1 = createDriver({ store, clock, ids: sequentialIds(), owner: "driver-a", tools, agent: agent(), faults });
  const crashed = await d1.start("write b.md");
  clock.advance(31_000);
  const d2 = createDriver({ store, clock, owner: "driver-b", tools, agent: agent() });
  const waiting = await d2.resume(crashed.runId);
  const [a] = waiting.approvals;
  await d2.settle(waiting.runId, a!.approvalId, { requestHash: a!.requestHash, by: "ana", resolution: "record_result", content: { written: 1 } });
  return { store, runId: (await d2.resume(waiting.runId)).runId };
});

await save("v1-failed-abort", async () => {
  const clock = manualClock();
  const store = memoryStore({ clock });
  const d = createDriver({ store, clock, ids: sequentialIds(), owner: "driver-a", tools, agent: scriptedAgent([calls(call("publish")), final("never")]) });
  return { store, runId: (await d.start("publish")).runId };
});

await save("v1-cancelled", async () => {
  const clock = manualClock();
  const store = memoryStore({ clock });
  const d = createDriver({ store, clock, ids: sequentialIds(), owner: "driver-a", tools, policy: rulesPolicy([{ tool: "write_file", permission: "ask" }]), agent: scriptedAgent([calls(call("write_file", { path: "c.md", content: "z" })), final("never")]) });
  const w = await d.start("write c.md");
  clock.advance(500);
  await d.cancel(w.runId, { by: "ana", reason: "not needed" });
  return { store, runId: w.runId };
});
