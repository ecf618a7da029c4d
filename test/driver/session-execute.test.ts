/**
 * What a step's execution appends, and when (issue 21: survivors of the
 * driver area's mutation run in src/driver/session.ts's execute): the
 * outcome of a read-only call that ends the run, or that the driver's
 * signal interrupted, is appended at once, before the point after its
 * append (where a process may die); a drive interrupted while another call
 * of its group completed the run stops as "signal"; a run cancelled before
 * a start was appended runs nothing.
 */
import { describe, expect, it } from "vitest";
import { abortRun, call, calls, defineTool, final, strictObject, type Tool } from "../../src/index.js";
import { Crash, type Faults } from "../../src/testkit/index.js";
import type { AbortSignalLike } from "../../src/web.js";
import { harness } from "./helpers.js";

/** Dies right after the outcome's append, as a closed tab does. */
const dieAfterTheFinish: Faults = {
  at: (p) => {
    if (p === "after_finish_append") throw new Crash();
  },
};

const readOnly = (name: string, run: (signal: AbortSignalLike) => unknown, more: { terminal?: boolean; parallelSafe?: boolean } = {}): Tool<never, unknown> =>
  defineTool({ name, description: `The ${name} tool.`, inputSchema: strictObject({}), sideEffect: "read_only", timeoutMs: 60_000, ...more, call: (_a, ctx) => run(ctx.signal) }) as Tool<
    never,
    unknown
  >;

/** A tool that answers only when the driver's signal stops it. */
const waitForSignal = (signal: AbortSignalLike, started: () => void): Promise<never> =>
  new Promise((_, reject) => {
    started();
    signal.addEventListener("abort", () => reject(signal.reason as Error), { once: true });
  });

const STARTED = ["run.created", "run.resumed", "step.decided", "call.permission", "call.started"];

describe("a read-only call's outcome is appended before the point after its append", () => {
  // mutation: session.ts execute, flushNow when "o.abort !== undefined" -> "false"
  it("when the call aborts the run", async () => {
    const stop = readOnly("stop", () => {
      throw abortRun("nothing more to do");
    });
    const h = harness([calls(call("stop"))], { tools: [stop] });
    const outcome = await h.driver({ faults: dieAfterTheFinish }).start("t");
    expect(outcome.stopped).toBe("crashed");
    expect((await h.store.read(outcome.runId)).map((e) => e.type)).toEqual([...STARTED, "call.finished", "run.failed"]);
    expect(h.store.batches.at(-1)).toEqual(["call.finished", "run.failed"]);
  });

  // mutation: session.ts execute, flushNow when "o.complete !== undefined" -> "false"
  it("when the call completes the run (a terminal tool)", async () => {
    const done = readOnly("done", () => "all done", { terminal: true });
    const h = harness([calls(call("done"))], { tools: [done] });
    const outcome = await h.driver({ faults: dieAfterTheFinish }).start("t");
    expect(outcome.stopped).toBe("crashed");
    expect((await h.store.read(outcome.runId)).map((e) => e.type)).toEqual([...STARTED, "call.finished", "run.completed"]);
    expect(h.store.batches.at(-1)).toEqual(["call.finished", "run.completed"]);
  });

  // mutation: session.ts execute, "if (o.interrupted === true) interrupted = true" -> "if (false)" /
  // "o.interrupted === false" / "interrupted = false"
  it("when the driver's signal interrupted the call", async () => {
    const controller = new AbortController();
    const slow = readOnly("slow", (signal) => waitForSignal(signal, () => controller.abort(new Error("stop"))));
    const h = harness([calls(call("slow"))], { tools: [slow] });
    const outcome = await h.driver({ faults: dieAfterTheFinish }).start("t", { signal: controller.signal });
    expect(outcome.stopped).toBe("crashed");
    const events = await h.store.read(outcome.runId);
    expect(events.map((e) => e.type)).toEqual([...STARTED, "call.finished"]);
    expect(events.at(-1)).toMatchObject({ type: "call.finished", observation: { type: "interrupted" } });
  });
});

describe("a drive interrupted while another call of its group completed the run", () => {
  // mutation: session.ts execute, "if (interrupted) throw new Interrupted()" -> "if (false)" / the throw removed
  it('stops as "signal", the run completed and both outcomes appended', async () => {
    const controller = new AbortController();
    let finish!: () => void;
    const finished = new Promise<void>((r) => (finish = r));
    const done = readOnly("done", () => (finish(), "all done"), { terminal: true, parallelSafe: true });
    const slow = readOnly("slow", (signal) => waitForSignal(signal, () => void finished.then(() => controller.abort(new Error("stop")))), { parallelSafe: true });
    const h = harness([calls(call("done"), call("slow"))], { tools: [done, slow] });
    const outcome = await h.driver().start("t", { signal: controller.signal });
    expect(outcome).toMatchObject({ status: "completed", output: "all done", stopped: "signal" });
    expect((await h.store.read(outcome.runId)).map((e) => e.type)).toEqual([
      "run.created",
      "run.resumed",
      "step.decided",
      "call.permission",
      "call.permission",
      "call.started",
      "call.started",
      "call.finished",
      "run.completed",
      "call.finished",
    ]);
  });
});

describe("a run cancelled before a start was appended", () => {
  // Pins the live filter after the start's append (session.ts execute); its
  // surviving mutants are equivalent (see session-results.json).
  it("runs nothing: the step's events are dropped, the run ends cancelled", async () => {
    const h = harness([calls(call("write_file", { path: "a.md", content: "x" })), final("ok")]);
    let driver!: ReturnType<typeof h.driver>;
    driver = h.driver({
      faults: {
        at: async (p, where) => {
          if (p === "before_start_append") await driver.cancel(where.runId, { by: "ana", reason: "enough" });
        },
      },
    });
    const outcome = await driver.start("t");
    expect(outcome).toMatchObject({ status: "cancelled" });
    expect(outcome.stopped).toBeUndefined();
    expect(h.world.executions).toEqual([]);
    expect((await h.store.read(outcome.runId)).map((e) => e.type)).toEqual(["run.created", "run.cancelled"]);
  });
});
