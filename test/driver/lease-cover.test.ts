/**
 * A call that runs up to its timeout never costs the run its lease, even when
 * it blocks the event loop the whole time (issue 26, finding 2): no renewal
 * timer can fire while the loop is blocked, so the driver extends the lease
 * to cover the call's timeout (plus the lease's own time to live) before the
 * call starts, and keeps that cover in every renewal until the call ends.
 *
 * On the old code the lease expired during the block and the drive stopped
 * with `lease_lost` and no observation; `resume` ran the call again, lost the
 * lease again, for ever.
 */
import { describe, expect, it } from "vitest";
import { until } from "../helpers/time.js";
import { call, calls, createDriver, defineTool, final, memoryStore, rulesPolicy, scriptedAgent, strictObject, ToolError, type Store, type Tool } from "../../src/index.js";

/** Blocks the event loop (no await, no timer can fire) for `ms` of wall time. */
function block(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    // busy: a tool that computes synchronously
  }
}

const TTL = 200;
const TIMEOUT = 3000;
/** Most of the tool's timeout, and many times the lease's time to live. */
const BLOCK = 1500;

/** A memory store that records the time to live of each renewal asked of it. */
function renewalsStore(): Store & { ttls: number[] } {
  const inner = memoryStore();
  const ttls: number[] = [];
  return Object.assign(Object.create(null) as object, inner, {
    ttls,
    renewLease: (lease: Parameters<Store["renewLease"]>[0], ttlMs: number) => (ttls.push(ttlMs), inner.renewLease(lease, ttlMs)),
  }) as Store & { ttls: number[] };
}

/** A tool that blocks the loop for BLOCK ms, recording the longest renewal asked before it started. */
function blocker(
  store: Store & { ttls: number[] },
  seen: { covered?: number },
  options: { parallelSafe?: boolean; name?: string; preview?: boolean; blockMs?: number } = {},
): Tool<Record<string, never>, string> {
  return defineTool<Record<string, never>, string>({
    name: options.name ?? "crunch",
    description: "Computes for a while, synchronously.",
    inputSchema: strictObject({}),
    sideEffect: "read_only",
    timeoutMs: TIMEOUT,
    ...(options.parallelSafe === true ? { parallelSafe: true } : {}),
    ...(options.preview === true
      ? {
          permission: "ask" as const,
          preview: () => {
            block(BLOCK);
            return "it computes";
          },
        }
      : {}),
    call: async () => {
      seen.covered = Math.max(0, ...store.ttls);
      block(options.blockMs ?? BLOCK);
      return "computed";
    },
  });
}

describe("the lease covers a call up to its timeout", () => {
  it("a tool that blocks the loop for most of its timeout, under a lease far shorter than that: the run keeps its lease and records the observation", async () => {
    const store = renewalsStore();
    const seen: { covered?: number } = {};
    const driver = createDriver({ store, leaseTtlMs: TTL, tools: [blocker(store, seen) as Tool<never, unknown>], agent: scriptedAgent([calls(call("crunch", {})), final("done")]) });
    const outcome = await driver.start("t");
    expect(outcome.stopped).toBeUndefined();
    expect(outcome.status).toBe("completed");
    const finished = (await driver.events(outcome.runId)).filter((e) => e.type === "call.finished");
    expect(finished.map((e) => (e.type === "call.finished" ? e.observation : undefined))).toEqual([{ type: "result", content: "computed" }]);
    // The cover: before the call started, the lease was renewed for its timeout and a renewal period more.
    expect(seen.covered).toBeGreaterThanOrEqual(TIMEOUT);
    expect(seen.covered).toBeLessThanOrEqual(TIMEOUT + Math.floor(TTL / 3));
  });

  it("covers the longest timeout of a parallel group", async () => {
    const store = renewalsStore();
    const a: { covered?: number } = {};
    const b: { covered?: number } = {};
    // The two block the loop one after the other (synchronous code runs whole), so together they
    // take 2 s of the one cover (the longest timeout, 3 s): 1.5 s each left no slack on a loaded machine.
    const tools = [blocker(store, a, { parallelSafe: true, name: "crunch_a", blockMs: 1000 }), blocker(store, b, { parallelSafe: true, name: "crunch_b", blockMs: 1000 })] as Tool<never, unknown>[];
    const driver = createDriver({ store, leaseTtlMs: TTL, tools, agent: scriptedAgent([calls(call("crunch_a", {}), call("crunch_b", {})), final("done")]) });
    const outcome = await driver.start("t");
    expect([outcome.status, outcome.stopped]).toEqual(["completed", undefined]);
    const finished = (await driver.events(outcome.runId)).filter((e) => e.type === "call.finished");
    expect(finished).toHaveLength(2);
    // One cover for the group, before either starts.
    expect(a.covered).toBe(b.covered);
    expect(a.covered).toBeGreaterThanOrEqual(TIMEOUT);
  });

  it("a preview that blocks the loop (it runs under the tool's timeout too) does not cost the lease: the run waits for its approval", async () => {
    const store = renewalsStore();
    const driver = createDriver({
      store,
      leaseTtlMs: TTL,
      tools: [blocker(store, {}, { preview: true }) as Tool<never, unknown>],
      policy: rulesPolicy([{ tool: "crunch", permission: "ask" }]),
      agent: scriptedAgent([calls(call("crunch", {})), final("done")]),
    });
    const outcome = await driver.start("t");
    expect([outcome.status, outcome.stopped]).toEqual(["waiting", undefined]);
    expect(outcome.approvals.map((a) => a.request.preview)).toEqual(["it computes"]);
  });

  it("the cover ends with the call: the next renewal after it is back to the lease's own time to live", async () => {
    const store = renewalsStore();
    let after: number | undefined;
    const driver = createDriver({
      store,
      leaseTtlMs: TTL,
      tools: [blocker(store, {}) as Tool<never, unknown>],
      agent: {
        async decide(view) {
          if (view.step === 1) return calls(call("crunch", {}));
          // The step after the call: wait for the next renewal (a timer, a third of the time to live apart), then look.
          const runId = (await store.listRuns())[0]!.runId;
          const before = (await store.lease(runId))!.expiresAt;
          const renewed = await until("a renewal after the call", async () => {
            const l = await store.lease(runId);
            return l !== null && l.expiresAt !== before ? l : undefined;
          });
          after = renewed.expiresAt - Date.now();
          return final("done");
        },
      },
    });
    expect((await driver.start("t")).status).toBe("completed");
    expect(after).toBeDefined();
    expect(after!).toBeLessThanOrEqual(TTL);
  });
});

describe("a tool that stops itself at its deadline", () => {
  it('throws ToolError with timedOut: the observation is failure "timeout", in the tool\'s words; without it, failure "error"', async () => {
    const stops = (timedOut: boolean) =>
      defineTool<Record<string, never>, string>({
        name: timedOut ? "stops" : "fails",
        description: "Stops itself.",
        inputSchema: strictObject({}),
        sideEffect: "read_only",
        timeoutMs: 1000,
        call: async () => {
          throw new ToolError("the work did not finish within its time limit and was stopped; nothing was changed", { next: "Ask for less.", ...(timedOut ? { timedOut: true } : {}) });
        },
      }) as Tool<never, unknown>;
    const driver = createDriver({ store: memoryStore(), tools: [stops(true), stops(false)], agent: scriptedAgent([calls(call("stops", {}), call("fails", {})), final("done")]) });
    const outcome = await driver.start("t");
    const observations = (await driver.events(outcome.runId)).flatMap((e) => (e.type === "call.finished" ? [e.observation] : []));
    const text =
      "Error: the work did not finish within its time limit and was stopped; nothing was changed\n[Next: Ask for less.]\n[Recovery: If the same error comes back, stop and report it instead of retrying.]";
    expect(observations).toEqual([
      { type: "tool_error", failure: "timeout", error: text },
      { type: "tool_error", failure: "error", error: text },
    ]);
  });
});
