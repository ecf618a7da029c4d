/**
 * The gate (src/call/gate.ts) where the driver area's mutation run left
 * survivors: the agent's answer as a journal decision, a crash inside what a
 * tool works out before any effect (its resources, its preview), a preview's
 * timer, the approval request of an interrupted side effect, and which calls
 * a changed policy identity reopens. Timers are vitest's fake ones where
 * time matters.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { toDecision } from "../../src/call/gate.js";
import { call, calls, defineTool, final, strictObject, string, type Agent, type Tool, type ToolContext } from "../../src/index.js";
import { Crash } from "../../src/testkit/index.js";
import { JOURNAL_VERSION } from "../../src/journal/index.js";
import { crashAt, eventsOf, harness } from "./helpers.js";

const input = strictObject({ text: string("Text") });
function tool(name: string, extra: Record<string, unknown>, body: (args: { text: string }, ctx: ToolContext) => unknown = () => "ok"): Tool<never, unknown> {
  return defineTool({ name, description: `The ${name} tool.`, inputSchema: input, sideEffect: "local_mutation", permission: "ask", timeoutMs: 1000, call: body, ...extra } as never) as Tool<
    never,
    unknown
  >;
}
const types = (events: Record<string, unknown>[]): unknown[] => events.map((e) => e["type"]);
const LEASE = 30_000;

afterEach(() => {
  vi.useRealTimers();
});

describe("the agent's answer as a journal decision", () => {
  // mutation: gate.ts toDecision, `answer === undefined ? {} : { answer }` -> always `{ answer }`
  it("carries who answered only when the agent said so: no answer key at all otherwise", () => {
    expect(toDecision({ kind: "final", output: 1 }, 1)).toStrictEqual({ decision: { kind: "final", output: 1 } });
    expect(toDecision(calls(call("t", { text: "x" })), 2)).toStrictEqual({ decision: { kind: "calls", calls: [{ callId: "s2c1", name: "t", args: '{"text":"x"}' }] } });
    const answer = { provider: "p", model: "m" };
    expect(toDecision({ kind: "final", output: 1, answer }, 1)).toStrictEqual({ decision: { kind: "final", output: 1 }, answer });
  });

  // mutation: gate.ts toDecision, "unknown" -> "" (a non-Error thrown while the output is read)
  // mutation: gate.ts toDecision, `d.kind !== "calls" || ...` -> false
  it("fails the run, saying why, for an output that throws something other than an Error when read, and for an unknown kind", async () => {
    const trap = Object.defineProperty({}, "secret", {
      enumerable: true,
      get: () => {
        throw "not an error";
      },
    });
    const decisions: unknown[] = [
      { kind: "final", output: trap },
      { kind: "maybe", calls: [call("read_file", { path: "notes.md" })] },
    ];
    const details: unknown[] = [];
    for (const d of decisions) {
      const agent: Agent = { decide: async () => d as never };
      const h = harness([], { agent });
      const out = await h.driver().start("t");
      expect(out.status).toBe("failed");
      const events = await eventsOf(h.store, "run_1");
      expect(types(events)).toEqual(["run.created", "run.resumed", "run.failed"]);
      details.push(events[2]!["detail"]);
    }
    expect(details).toEqual([
      "the agent returned a decision the runtime cannot use: its output is not JSON (unknown)",
      'the agent returned a decision the runtime cannot use: it is neither "final" nor a non-empty list of calls',
    ]);
  });
});

describe("a crash inside the gate", () => {
  // mutation: gate.ts evaluate, `if (isCrash(e)) throw e;` (resources) -> false
  it("in a tool's resources() stops the drive as crashed: nothing is denied or rejected", async () => {
    const t = tool("touchy", {
      permission: "allow",
      resources: () => {
        throw new Crash("died working out resources");
      },
    });
    const h = harness([calls(call("touchy", { text: "x" })), final("ok")], { tools: [t] });
    const out = await h.driver().start("t");
    expect(out).toMatchObject({ status: "running", stopped: "crashed" });
    expect(types(await eventsOf(h.store, "run_1"))).toEqual(["run.created"]);
  });

  // mutation: gate.ts previewOf, `if (isCrash(e)) throw e;` -> false
  it("in a tool's preview stops the drive as crashed: no approval is asked without the preview", async () => {
    const t = tool("shown", {
      preview: () => {
        throw new Crash("died previewing");
      },
    });
    const h = harness([calls(call("shown", { text: "x" })), final("ok")], { tools: [t] });
    const out = await h.driver().start("t");
    expect(out).toMatchObject({ status: "running", stopped: "crashed", approvals: [] });
    expect(types(await eventsOf(h.store, "run_1"))).toEqual(["run.created"]);
  });
});

describe("a preview", () => {
  // mutation: gate.ts previewOf, `typeof text !== "string"` -> false
  it("that answers a list of strings is left out: a preview is text", async () => {
    const t = tool("listy", { preview: () => ["line 1", "line 2"] });
    const h = harness([calls(call("listy", { text: "x" })), final("ok")], { tools: [t] });
    const out = await h.driver().start("t");
    expect(out.status).toBe("waiting");
    expect(out.approvals).toHaveLength(1);
    expect(out.approvals[0]!.request).not.toHaveProperty("preview");
  });

  // mutation: gate.ts previewOf, `new Error("timeout")` -> `new Error("")` (the signal's reason)
  it("outliving the tool's timeout has its signal aborted with the reason 'timeout', and the call still asks", async () => {
    vi.useFakeTimers();
    let signal: ToolContext["signal"] | undefined;
    let previewing!: () => void;
    const started = new Promise<void>((r) => (previewing = r));
    const t = tool("slow", { timeoutMs: 500, preview: (_a: unknown, ctx: { signal: ToolContext["signal"] }) => ((signal = ctx.signal), previewing(), new Promise(() => {})) });
    const h = harness([calls(call("slow", { text: "x" })), final("ok")], { tools: [t] });
    const run = h.driver().start("t");
    await started;
    await vi.advanceTimersByTimeAsync(499);
    expect(signal!.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const out = await run;
    expect(signal!.aborted).toBe(true);
    expect((signal!.reason as Error).message).toBe("timeout");
    expect(out.status).toBe("waiting");
    expect(out.approvals[0]!.request).not.toHaveProperty("preview");
  });

  // mutation: gate.ts previewOf, `finally { cancelTimer(); }` -> `finally {}`; and `cancelTimer();` removed
  it("that answers in time leaves no timer behind, and its signal is never aborted later", async () => {
    vi.useFakeTimers();
    let signal: ToolContext["signal"] | undefined;
    const t = tool("quick", { timeoutMs: 500, preview: (_a: unknown, ctx: { signal: ToolContext["signal"] }) => ((signal = ctx.signal), "will write x") });
    const h = harness([calls(call("quick", { text: "x" })), final("ok")], { tools: [t] });
    const out = await h.driver().start("t");
    expect(out.approvals[0]!.request.preview).toBe("will write x");
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(1000);
    expect(signal!.aborted).toBe(false);
  });
});

describe("the approval request of an interrupted side effect", () => {
  // mutation: gate.ts requestApproval, `kind === "call" && wantsAnswer` -> `true && wantsAnswer`
  it("of a tool that wants a person's answer does not want one: the operator approves it without an answer", async () => {
    const ask = tool("ask", { wantsAnswer: true }, (_a, ctx) => `answered ${ctx.answer?.text ?? "nothing"}`);
    const h = harness([calls(call("ask", { text: "q" })), final("ok")], { tools: [ask] });
    const waiting = await h.driver({ faults: crashAt("after_effect", "ask") }).start("t");
    const [asked] = waiting.approvals;
    expect(asked!.request.wantsAnswer).toBe(true);
    await h.driver().approve(waiting.runId, asked!.approvalId, { requestHash: asked!.requestHash, by: "ana", answer: "blue" });
    const crashed = await h.driver({ faults: crashAt("after_effect", "ask") }).resume(waiting.runId);
    expect(crashed.stopped).toBe("crashed");
    h.clock.advance(LEASE + 1);
    const driver2 = h.driver({ owner: "driver-2" });
    const interrupted = await driver2.resume(waiting.runId);
    expect(interrupted.status).toBe("waiting");
    const a = interrupted.approvals.find((x) => x.request.kind === "interrupted_side_effect")!;
    expect(a.request).not.toHaveProperty("wantsAnswer");
    // mutation: gate.ts requestApproval, the version stamp `interrupted === undefined ? 2 : JOURNAL_VERSION`:
    // a request with what bounded recovery records is a v4 event; a plain one keeps its v2 stamp.
    const requested = (await h.store.read(waiting.runId)).filter((e) => e.type === "approval.requested");
    expect(requested.map((e) => [e.type === "approval.requested" && e.request.kind, e.v])).toEqual([
      ["call", 2],
      ["interrupted_side_effect", JOURNAL_VERSION],
    ]);
    await driver2.approve(waiting.runId, a.approvalId, { requestHash: a.requestHash, by: "ana" });
    expect((await driver2.resume(waiting.runId)).status).toBe("completed");
  });
});

describe("a changed policy identity", () => {
  // mutation: gate.ts stale, `(approved || awaiting_approval) && attempt === 0` -> `... || attempt === 0`
  // mutation: gate.ts stale, `(approved || awaiting_approval)` -> true
  // mutation: gate.ts hasStale, `current.calls.some(stale)` -> `current.calls.every(stale)`
  it("reopens the waiting call of a step, and leaves a call already answered in that step alone", async () => {
    const write = tool("write", {});
    const h = harness([calls(call("nope", { text: "x" }), call("write", { text: "x" })), final("ok")], { tools: [write] });
    const waiting = await h.driver({ policyVersion: "v1" }).start("t");
    expect(waiting.status).toBe("waiting");
    const seen = (await eventsOf(h.store, "run_1")).length;
    const out = await h.driver({ policyVersion: "v2" }).resume(waiting.runId);
    expect(out.status).toBe("waiting");
    const after = (await eventsOf(h.store, "run_1")).slice(seen);
    expect(types(after)).toEqual(["run.resumed", "call.reopened", "call.permission", "approval.requested"]);
    expect(after[1]).toEqual({ type: "call.reopened", step: 1, callId: "s1c2", reason: 'the policy changed from "v1" to "v2" since this call was asked' });
    expect(out.approvals.map((a) => [a.approvalId, a.status])).toEqual([["apr.1.s1c2.2", "pending"]]);
  });

  // mutation: gate.ts stale, `call.attempt === 0` -> true
  it("does not reopen a call an operator let run again after a crash: it runs again under the new policy as it was", async () => {
    const h = harness([calls(call("write_file", { path: "a.md", content: "x" })), final("ok")]);
    const crashed = await h.driver({ faults: crashAt("after_effect", "write_file") }).start("t");
    expect(crashed.stopped).toBe("crashed");
    h.clock.advance(LEASE + 1);
    const driver2 = h.driver({ owner: "driver-2" });
    const waiting = await driver2.resume(crashed.runId);
    const [a] = waiting.approvals;
    await driver2.approve(crashed.runId, a!.approvalId, { requestHash: a!.requestHash, by: "ana" });
    const seen = (await eventsOf(h.store, "run_1")).length;
    const done = await h.driver({ owner: "driver-3", policyVersion: "v2" }).resume(crashed.runId);
    expect(done.status).toBe("completed");
    const after = (await eventsOf(h.store, "run_1")).slice(seen);
    expect(types(after).slice(0, 3)).toEqual(["run.resumed", "call.started", "call.finished"]);
    expect(after[1]).toEqual({ type: "call.started", step: 1, callId: "s1c1", attempt: 2, idempotencyKey: "run_1:1:s1c1" });
  });
});
