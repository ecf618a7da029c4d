import { describe, expect, it } from "vitest";
import { call, calls, final } from "../../src/index.js";
import { verifyChain } from "../../src/journal/index.js";
import { eventsOf, harness } from "./helpers.js";

describe("the step loop", () => {
  it("journals every decision before acting on it, and a read-only step costs one append", async () => {
    const h = harness([calls(call("read_file", { path: "notes.md" })), final({ summary: "read it" })]);
    const outcome = await h.driver().start({ goal: "read notes" });
    expect(outcome).toEqual({ runId: "run_1", status: "completed", seq: 8, approvals: [], output: { summary: "read it" } });
    expect(await eventsOf(h.store, "run_1")).toEqual([
      { type: "run.created", runId: "run_1", task: { goal: "read notes" }, tools: expect.any(Array), limits: { maxSteps: 50, maxConsecutiveFailures: 3, runTimeoutMs: 0 } },
      { type: "run.resumed", owner: "driver-1", token: 1 },
      { type: "step.decided", step: 1, decision: { kind: "calls", calls: [{ callId: "s1c1", name: "read_file", args: '{"path":"notes.md"}' }] } },
      { type: "call.permission", step: 1, callId: "s1c1", permission: "allow", source: "spec", sideEffect: "read_only" },
      { type: "call.started", step: 1, callId: "s1c1", attempt: 1, idempotencyKey: "run_1:1:s1c1" },
      { type: "call.finished", step: 1, callId: "s1c1", attempt: 1, observation: { type: "result", content: "hello" } },
      { type: "step.decided", step: 2, decision: { kind: "final", output: { summary: "read it" } } },
      { type: "run.completed", output: { summary: "read it" } },
    ]);
    // The decision and the call's start go in one append, before the tool runs;
    // the read-only outcome rides with the next decision.
    expect(h.store.batches).toEqual([
      ["run.resumed", "step.decided", "call.permission", "call.started"],
      ["call.finished", "step.decided", "run.completed"],
    ]);
    verifyChain(await h.store.read("run_1" as never));
  });

  it("shows the agent a transcript built from the journal, with nothing run-specific", async () => {
    const h = harness([calls(call("read_file", { path: "notes.md" })), final("ok")]);
    await h.driver().start("task");
    expect(h.views[1]).toEqual({
      task: "task",
      step: 2,
      tools: [
        { name: "read_file", description: "Read a file.", inputSchema: expect.any(Object) },
        { name: "write_file", description: "Write a file.", inputSchema: expect.any(Object) },
      ],
      transcript: [
        { type: "task", task: "task" },
        { type: "decision", step: 1, decision: { kind: "calls", calls: [{ callId: "s1c1", name: "read_file", args: '{"path":"notes.md"}' }] } },
        { type: "observation", step: 1, callId: "s1c1", name: "read_file", observation: { type: "result", content: "hello" } },
      ],
    });
    expect(JSON.stringify(h.views[1]!.transcript)).not.toContain("run_1");
  });

  it("flushes a side effect's outcome before asking the agent again", async () => {
    const h = harness([calls(call("write_file", { path: "a.md", content: "x" })), final("ok")]);
    await h.driver().start("t");
    expect(h.store.batches).toEqual([["run.resumed", "step.decided", "call.permission", "call.started"], ["call.finished"], ["step.decided", "run.completed"]]);
  });

  it("uses the provider's call ids when the agent gives them", async () => {
    const h = harness([calls(call("read_file", { path: "notes.md" }, "call_abc")), final("ok")]);
    await h.driver().start("t");
    const events = await eventsOf(h.store, "run_1");
    expect(events[2]).toEqual({ type: "step.decided", step: 1, decision: { kind: "calls", calls: [{ callId: "call_abc", name: "read_file", args: '{"path":"notes.md"}' }] } });
  });
});
