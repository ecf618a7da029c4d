/**
 * Writes the journal of a run that has every kind of event a trace shows
 * (approvals, an interrupted side effect reconciled by an operator, a
 * compaction, a timeout, an abort), and the spans derived from it, under
 * test/fixtures/otel/. Like the journal fixtures, they are written once and
 * never rewritten: the test derives the spans again and compares.
 */
import { existsSync, writeFileSync } from "node:fs";
import { abortRun, call, calls, createDriver, defineTool, final, memoryStore, rulesPolicy, scriptedAgent, strictObject, string, trimContext, type AgentDecision, type Tool } from "../src/index.js";
import { Crash, manualClock, sequentialIds } from "../src/testkit/index.js";
import { journalSpans } from "../src/otel/index.js";

const dir = "test/fixtures/otel";
const journalFile = `${dir}/run-journal.json`;
const spansFile = `${dir}/run-spans.json`;
if (existsSync(journalFile) || existsSync(spansFile)) {
  console.log(`kept ${journalFile} and ${spansFile} (fixtures are never rewritten)`);
  process.exit(0);
}
const files: Record<string, string> = { "notes.md": "hello" };
const tools = [
  defineTool<{ path: string }>({
    name: "read_file",
    description: "Read a file.",
    inputSchema: strictObject({ path: string() }),
    sideEffect: "read_only",
    timeoutMs: 1000,
    call: (a) => files[a.path] ?? "",
  }),
  defineTool<{ path: string; content: string }>({
    name: "write_file",
    description: "Write a file.",
    inputSchema: strictObject({ path: string(), content: string() }),
    sideEffect: "local_mutation",
    permission: "allow",
    timeoutMs: 1000,
    resources: (a) => [{ kind: "path", value: a.path }],
    call: (a) => ((files[a.path] = a.content), { written: a.content.length }),
  }),
  defineTool({ name: "slow", description: "Never answers.", inputSchema: strictObject({}), sideEffect: "read_only", timeoutMs: 20, call: () => new Promise(() => {}) }),
  defineTool({ name: "dump", description: "A long output.", inputSchema: strictObject({}), sideEffect: "read_only", timeoutMs: 1000, call: () => "z".repeat(4000) }),
  defineTool({
    name: "publish",
    description: "Publish.",
    inputSchema: strictObject({}),
    sideEffect: "remote_mutation",
    permission: "allow",
    timeoutMs: 1000,
    call: () => {
      throw abortRun("checksum mismatch");
    },
  }),
] as Tool<never, unknown>[];
const answer = (n: number): AgentDecision["answer"] => ({ provider: "openai", model: "gpt-golden", finishReason: "tool_calls", usage: { input: 100 * n, output: 10, cached: 5 } });
const script = [
  { ...calls(call("read_file", { path: "notes.md" })), answer: answer(1) },
  { ...calls(call("write_file", { path: "a.md", content: "x" })), answer: answer(2) },
  { ...calls(call("slow")), answer: answer(3) },
  { ...calls(call("dump")), answer: answer(4) },
  { ...calls(call("dump")), answer: answer(5) },
  { ...calls(call("publish")), answer: answer(6) },
  final("never"),
];
const clock = manualClock();
const store = memoryStore({ clock });
const policy = rulesPolicy([{ tool: "write_file", permission: "ask" }]);
let crash = true;
const faults = {
  at: (p: string, where: { tool: string }) => {
    if (crash && p === "after_effect" && where.tool === "write_file") {
      crash = false;
      throw new Crash();
    }
  },
};
const options = { store, clock, ids: sequentialIds(), tools, policy, policyVersion: "p1", context: { budgetTokens: 1500, strategy: trimContext({ keepRecent: 1 }) } };
const d1 = createDriver({ ...options, owner: "driver-a", agent: scriptedAgent(script), faults });
const w = await d1.start("golden");
const [ask] = w.approvals;
clock.advance(1000);
await d1.approve(w.runId, ask!.approvalId, { requestHash: ask!.requestHash, by: "ana" });
await d1.resume(w.runId); // crashes after the write's effect
clock.advance(31_000);
const d2 = createDriver({ ...options, owner: "driver-b", agent: scriptedAgent(script) });
const waiting = await d2.resume(w.runId);
const [interrupted] = waiting.approvals;
await d2.settle(w.runId, interrupted!.approvalId, { requestHash: interrupted!.requestHash, by: "ana", resolution: "record_result", content: { written: 1 } });
const done = await d2.resume(w.runId);
if (done.status !== "failed") throw new Error(`the golden run ended ${done.status}`);
const events = await store.read(w.runId);
writeFileSync(journalFile, `${JSON.stringify(events, null, 1)}\n`);
writeFileSync(spansFile, `${JSON.stringify(journalSpans(events), null, 1)}\n`);
console.log(`wrote ${journalFile} (${events.length} events) and ${spansFile}`);
