/**
 * One call's execution (src/call/execute.ts) where the driver area's
 * mutation run left survivors: a driver's signal aborted before the tool
 * starts, what a finished call leaves behind (its signal, its progress),
 * and a result that is not JSON from a tool with an activity line.
 */
import { describe, expect, it } from "vitest";
import { runTool } from "../../src/call/execute.js";
import { Gate } from "../../src/call/gate.js";
import { ProgressBoard } from "../../src/driver/progress.js";
import type { DriverContext } from "../../src/driver/context.js";
import { call, calls, defineTool, final, memoryStore, strictObject, string, type Agent, type StepProgress, type Tool, type ToolContext } from "../../src/index.js";
import { redactor } from "../../src/driver/index.js";
import { compileTool } from "../../src/tools/index.js";
import type { CallState } from "../../src/journal/index.js";
import { eventsOf, harness } from "./helpers.js";

const input = strictObject({ text: string("Text") });
function tool(name: string, body: (args: { text: string }, ctx: ToolContext) => unknown, extra: Record<string, unknown> = {}): Tool<never, unknown> {
  return defineTool({ name, description: `The ${name} tool.`, inputSchema: input, sideEffect: "read_only", timeoutMs: 1000, call: body, ...extra } as never) as Tool<never, unknown>;
}
const finished = async (h: ReturnType<typeof harness>): Promise<Record<string, unknown>[]> => (await eventsOf(h.store, "run_1")).filter((e) => e["type"] === "call.finished");

describe("a driver's signal aborted before the tool starts", () => {
  // mutation: execute.ts runTool, `if (x.signal?.aborted === true) onDriverAbort();` -> `if (false) ...`; and the call removed
  it("the tool is never called: the call is journaled as interrupted and the drive stops for the signal", async () => {
    const ran: string[] = [];
    const t = tool("probe", (a) => (ran.push(a.text), "ran"));
    const h = harness([calls(call("probe", { text: "x" })), final("ok")], { tools: [t] });
    const controller = new AbortController();
    // Aborted after the call's start is journaled, before the tool is invoked (listeners added later hear nothing of it).
    const faults = { at: (point: string) => void (point === "after_start_append" && controller.abort(new Error("stop"))) };
    const out = await h.driver({ faults: faults as never }).start("t", { signal: controller.signal });
    expect(out).toMatchObject({ status: "running", stopped: "signal" });
    expect(ran).toEqual([]);
    const [f] = await finished(h);
    expect(f).toEqual({
      type: "call.finished",
      step: 1,
      callId: "s1c1",
      attempt: 1,
      observation: {
        type: "interrupted",
        error: "Error: probe was interrupted before it reported back.\n[Next: Call probe again if you still need its answer.]\n[Recovery: If calls keep being interrupted, stop and report it.]",
      },
    });
  });
});

describe("a finished call", () => {
  // mutation: execute.ts runTool, `finally { removeEventListener; endCall }` -> `finally {}`; and `removeEventListener("abort", ...)` -> `removeEventListener("", ...)`
  it("no longer hears the driver's signal: aborting the run later does not abort the signal the tool was given", async () => {
    const controller = new AbortController();
    let kept: ToolContext["signal"] | undefined;
    const t = tool("keeper", (_a, ctx) => ((kept = ctx.signal), "kept"));
    const agent: Agent = {
      decide: async (view) => {
        if (view.step === 1) return calls(call("keeper", { text: "x" }));
        controller.abort(new Error("stop"));
        return final("done");
      },
    };
    const h = harness([], { tools: [t], agent });
    const out = await h.driver().start("t", { signal: controller.signal });
    expect(controller.signal.aborted).toBe(true);
    expect(out.status).toBe("completed");
    expect(kept!.aborted).toBe(false);
  });

  // mutation: execute.ts runTool, `x.ctx.progress.endCall(...)` removed (and the finally block emptied)
  it("leaves no progress behind: while the next step is decided, nothing is in flight", async () => {
    const t = tool("worker", (_a, ctx) => (ctx.progress({ progress: 1, total: 2, message: "half way" }), "worked"));
    const during: { step: number; progress: StepProgress | undefined }[] = [];
    let driver!: ReturnType<ReturnType<typeof harness>["driver"]>;
    const agent: Agent = {
      decide: async (view) => {
        during.push({ step: view.step, progress: driver.progress("run_1" as never) });
        return view.step === 1 ? calls(call("worker", { text: "x" })) : final("done");
      },
    };
    const h = harness([], { tools: [t], agent });
    driver = h.driver();
    expect((await driver.start("t")).status).toBe("completed");
    expect(during).toEqual([
      { step: 1, progress: undefined },
      { step: 2, progress: undefined },
    ]);
  });
});

describe("a result that is not JSON", () => {
  // mutation: execute.ts runTool, `if (!content.ok) return { observation }` -> `if (false) ...`
  it("has no activity line, though the tool has one: the line describes a success", async () => {
    const t = tool("odd", () => 10n, { activity: () => "counted to ten" });
    const h = harness([calls(call("odd", { text: "x" })), final("ok")], { tools: [t] });
    await h.driver().start("t");
    const [f] = await finished(h);
    expect(f).not.toHaveProperty("activity");
    expect(f!["observation"]).toMatchObject({ type: "tool_error", failure: "invalid_content", reason: "a BigInt is not JSON at the root" });
  });
});

describe("runTool's outcome", () => {
  // mutation: execute.ts runTool, `activity === undefined ? {} : { activity }` -> always `{ activity }`
  it("for a success without an activity line is the observation alone, with no activity key", async () => {
    const t = tool("echo", (a) => a.text);
    const ctx = { store: memoryStore(), redact: redactor(), progress: new ProgressBoard(), policy: undefined } as unknown as DriverContext;
    const gate = new Gate({ ctx, state: () => ({ runId: "run_1" }) as never, push: () => {} });
    const started = { callId: "s1c1", name: "echo", args: '{"text":"hi"}', status: "started", attempt: 1 } as CallState;
    const x = { ctx, gate, runId: "run_1", lease: { token: 1 } as never, signal: undefined, answer: undefined, artifacts: () => [] };
    const out = await runTool(x, 1, started, 1, "run_1:1:s1c1", { tool: t, compiled: compileTool(t) });
    expect(out).toStrictEqual({ observation: { type: "result", content: "hi" } });
  });
});
