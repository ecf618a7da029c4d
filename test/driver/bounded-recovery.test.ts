/**
 * Issue 26, finding 3: recovery was unbounded. A call that crashed its
 * driver (or cost it its lease) every time it ran was run again on every
 * resume, and a model call that crashed the process was asked again on
 * every resume, each time paying for the model and the tool
 * (cloudflare/agents#1825). Now a call interrupted `maxInterruptions` times
 * (default 2) is run again only when an operator says so, and a run taken
 * over `maxResumesWithoutProgress` times (default 3) without a decision, a
 * call's outcome or an operator's answer fails with `no_progress`.
 */
import { describe, expect, it } from "vitest";
import { AgentError, call, calls, defineTool, final, strictObject, type Driver, type RunOutcome, type Tool } from "../../src/index.js";
import { Crash } from "../../src/testkit/index.js";
import { crashAt, eventsOf, harness, refusingStore, type Harness } from "./helpers.js";

const LEASE = 30_000;
const T0 = Date.UTC(2026, 0, 1);

/** Resumes a run that keeps dying: each time by a new driver (driver-2, driver-3, ...), once the last one's lease has expired, until it stops running or `rounds` resumes were made. */
async function resumeWhileRunning(h: Harness, first: RunOutcome, options: Parameters<Harness["driver"]>[0] = {}, rounds = 8): Promise<{ outcome: RunOutcome; driver: Driver; resumes: number }> {
  let outcome = first;
  let driver = h.driver(options);
  let resumes = 0;
  while (outcome.status === "running" && resumes < rounds) {
    h.clock.advance(LEASE + 1);
    resumes++;
    driver = h.driver({ ...options, owner: `driver-${resumes + 1}` });
    outcome = await driver.resume(first.runId);
  }
  return { outcome, driver, resumes };
}

const CAUSE_EXPIRED = (holder: string) => `Last time ${holder} stopped without releasing the run, and its lease expired.`;

describe("finding 3: a call that keeps crashing its driver", () => {
  it("read_only: is run 2 times, then the operator is asked (interrupted_side_effect, attempt 2, the cause); each answer lets it run exactly once more", async () => {
    const h = harness([calls(call("read_file", { path: "notes.md" })), final("ok")]);
    const faults = crashAt("after_effect", "read_file", Infinity);
    const { outcome, driver, resumes } = await resumeWhileRunning(h, await h.driver({ faults }).start("t"), { faults });
    expect([outcome.status, outcome.stopped, resumes]).toEqual(["waiting", undefined, 2]);
    expect(h.world.executions.map((x) => x.attempt)).toEqual([1, 2]);
    const [a] = outcome.approvals;
    expect(a!.request).toMatchObject({
      kind: "interrupted_side_effect",
      tool: "read_file",
      sideEffect: "read_only",
      attempt: 2,
      idempotencyKey: "run_1:1:s1c1",
      interrupted: { cause: "lease_expired", holder: "driver-2", expiresAt: T0 + 2 * LEASE + 1, startedAt: T0 + LEASE + 1, limit: 2 },
      note: `read_file was interrupted 2 times (recovery.maxInterruptions): it runs again only when an operator says so. ${CAUSE_EXPIRED("driver-2")}`,
    });
    // The run_again of the first interruption is the runtime's; the second is not run again: no reconciliation, an ask.
    const reconciled = (await eventsOf(h.store, "run_1")).filter((e) => e["type"] === "call.reconciled");
    expect(reconciled).toEqual([{ type: "call.reconciled", step: 1, callId: "s1c1", attempt: 1, resolution: "run_again", by: "runtime" }]);
    // Resuming while it waits runs nothing.
    h.clock.advance(LEASE + 1);
    expect((await h.driver({ owner: "driver-x", faults }).resume(outcome.runId)).status).toBe("waiting");
    expect(h.world.executions).toHaveLength(2);

    // The operator's answer: one more run, which crashes again; the next resume asks again (attempt 3).
    await driver.approve(outcome.runId, a!.approvalId, { requestHash: a!.requestHash, by: "ana" });
    expect((await h.driver({ owner: "driver-y", faults }).resume(outcome.runId)).stopped).toBe("crashed");
    expect(h.world.executions.map((x) => x.attempt)).toEqual([1, 2, 3]);
    h.clock.advance(LEASE + 1);
    const again = await h.driver({ owner: "driver-z", faults }).resume(outcome.runId);
    expect(again.status).toBe("waiting");
    expect(again.approvals[0]!.request).toMatchObject({ attempt: 3, interrupted: { cause: "lease_expired", holder: "driver-y", limit: 2 } });
    expect(h.world.executions).toHaveLength(3);
    // Answered once more, with the fault gone: it runs once, and the run completes.
    const b = again.approvals[0]!;
    await driver.settle(outcome.runId, b.approvalId, { requestHash: b.requestHash, by: "ana", resolution: "run_again" });
    const done = await h.driver({ owner: "driver-w" }).resume(outcome.runId);
    expect(done.status).toBe("completed");
    expect(h.world.executions.map((x) => x.attempt)).toEqual([1, 2, 3, 4]);
    expect(faults.crashes).toBe(3);
  });

  it("side-effecting, whose reconcile hook answers run_again: run 2 times, then the operator is asked, the hook's answer in the reason", async () => {
    const h = harness([calls(call("write_file", { path: "a.md", content: "x" })), final("ok")]);
    const faults = crashAt("after_effect", "write_file", Infinity);
    const hooked: number[] = [];
    const reconcile = (c: { attempt: number }) => {
      hooked.push(c.attempt);
      return { action: "run_again" as const };
    };
    const { outcome, driver } = await resumeWhileRunning(h, await h.driver({ faults, reconcile }).start("t"), { faults, reconcile });
    expect(outcome.status).toBe("waiting");
    expect(h.world.executions.map((x) => x.attempt)).toEqual([1, 2]);
    // The hook is still asked (it may know the outcome); only its run_again is held back.
    expect(hooked).toEqual([1, 2]);
    const note = `write_file was interrupted 2 times (recovery.maxInterruptions): it runs again only when an operator says so, though the reconcile hook answered run_again. ${CAUSE_EXPIRED("driver-2")}`;
    expect(outcome.approvals[0]!.request).toMatchObject({ kind: "interrupted_side_effect", attempt: 2, interrupted: { cause: "lease_expired", holder: "driver-2", limit: 2 }, note });
    const reconciled = (await eventsOf(h.store, "run_1")).filter((e) => e["type"] === "call.reconciled");
    expect(reconciled).toEqual([
      { type: "call.reconciled", step: 1, callId: "s1c1", attempt: 1, resolution: "run_again", by: "hook" },
      { type: "call.reconciled", step: 1, callId: "s1c1", attempt: 2, resolution: "ask_operator", by: "runtime", reason: note },
    ]);
    // The operator records that it took effect: nothing runs again.
    const [a] = outcome.approvals;
    await driver.settle(outcome.runId, a!.approvalId, { requestHash: a!.requestHash, by: "ana", resolution: "record_result", content: { written: 1 } });
    expect((await h.driver({ owner: "driver-9", faults, reconcile }).resume(outcome.runId)).status).toBe("completed");
    expect(h.world.executions).toHaveLength(2);
  });

  it("read_only, that costs its driver the lease every time (it stalls past the lease): run 2 times, then asked", async () => {
    const runs: number[] = [];
    const stall = defineTool({
      name: "stall",
      description: "Stalls past the lease.",
      inputSchema: strictObject({}),
      sideEffect: "read_only",
      timeoutMs: 1000,
      call: (_a, ctx) => {
        runs.push(ctx.attempt);
        h.clock.advance(LEASE + 1);
        return "late";
      },
    }) as Tool<never, unknown>;
    const h = harness([calls(call("stall")), final("ok")], { tools: [stall] });
    const first = await h.driver().start("t");
    expect(first.stopped).toBe("lease_lost");
    const { outcome } = await resumeWhileRunning(h, first);
    expect(outcome.status).toBe("waiting");
    expect(runs).toEqual([1, 2]);
    expect(outcome.approvals[0]!.request).toMatchObject({ tool: "stall", attempt: 2, interrupted: { cause: "lease_expired", holder: "driver-2", limit: 2 } });
  });
});

describe("finding 3: a model call that keeps crashing the process", () => {
  it("is asked 3 times, then the run fails with no_progress, without asking it again", async () => {
    let asked = 0;
    const h = harness([], {
      agent: {
        decide: async () => {
          asked++;
          throw new Crash("out of memory");
        },
      },
    });
    const first = await h.driver().start("t");
    expect(first.stopped).toBe("crashed");
    const { outcome, resumes } = await resumeWhileRunning(h, first);
    expect(resumes).toBe(3);
    expect(asked).toBe(3);
    expect(outcome).toMatchObject({
      status: "failed",
      failure: {
        reason: "no_progress",
        detail: "the run was taken over 3 times in a row without progress (recovery.maxResumesWithoutProgress): each drive stopped without releasing it, the last by driver-3: a crash loop",
      },
    });
    const types = (await eventsOf(h.store, "run_1")).map((e) => e["type"]);
    expect(types).toEqual(["run.created", "run.resumed", "run.resumed", "run.resumed", "run.failed"]);
    // A failed run is not driven again.
    h.clock.advance(LEASE + 1);
    expect((await h.driver({ owner: "driver-9" }).resume(first.runId)).status).toBe("failed");
    expect(asked).toBe(3);
  });

  it("after a read_only step: the read's second outcome is written before the model is asked, so the crash loop is the model's, not the read's", async () => {
    let asked = 0;
    const h = harness([], {
      agent: {
        decide: async (view) => {
          if (view.step === 1) return calls(call("read_file", { path: "notes.md" }));
          asked++;
          throw new Crash("out of memory");
        },
      },
    });
    const { outcome } = await resumeWhileRunning(h, await h.driver().start("t"));
    expect(outcome.status).toBe("failed");
    expect(outcome.failure?.reason).toBe("no_progress");
    // The first read's outcome died with the first crash (read_only outcomes ride with the next
    // decision); the second was written before step 2 was asked, which was progress: 3 asks after it.
    expect(h.world.executions.map((x) => x.attempt)).toEqual([1, 2]);
    expect(asked).toBe(4);
    expect(outcome.approvals).toEqual([]);
  });
});

describe("what never counts", () => {
  it("waiting for an approval: resumes that find the run waiting, even after drives that never let go, write nothing and count nothing", async () => {
    const h = harness([calls(call("write_file", { path: "a.md", content: "x" })), final("ok")], { policy: () => ({ permission: "ask" }) });
    // Every drive dies right after its last append: the lease is never released.
    const store = Object.assign(Object.create(null) as object, h.store, { releaseLease: async () => {} }) as typeof h.store;
    const waiting = await h.driver({ store }).start("t");
    expect(waiting.status).toBe("waiting");
    const seq = waiting.seq;
    for (let k = 0; k < 6; k++) {
      h.clock.advance(LEASE + 1);
      expect((await h.driver({ store, owner: `d${k}` }).resume(waiting.runId)).seq).toBe(seq);
    }
    const state = await h.driver().state(waiting.runId);
    expect(state.takeovers).toBeUndefined();
    const [a] = waiting.approvals;
    const d = h.driver({ store, owner: "d9" });
    await d.approve(waiting.runId, a!.approvalId, { requestHash: a!.requestHash, by: "ana" });
    h.clock.advance(LEASE + 1);
    expect((await d.resume(waiting.runId)).status).toBe("completed");
  });

  it("a drive that stopped cleanly (the model unavailable) released the run: 6 of them in a row count nothing", async () => {
    let offline = 6;
    const h = harness([], {
      agent: {
        decide: async () => {
          if (offline-- > 0) throw new AgentError("the network is down", { retryable: true });
          return final("ok");
        },
      },
    });
    let outcome = await h.driver().start("t");
    for (let k = 0; k < 6 && outcome.stopped === "agent_unavailable"; k++) outcome = await h.driver({ owner: `d${k}` }).resume(outcome.runId);
    expect(outcome.status).toBe("completed");
  });

  it("an operator's answer starts the count of resumes without progress anew", async () => {
    // Two takeovers up to the ask; after the answer, two more before the call starts: 4 in all,
    // over the limit of 3 were the answer not a new start.
    const plan: string[] = ["after_effect", "after_effect", "before_start_append", "before_start_append"];
    const faults = {
      at: (p: string, where: { tool: string }) => {
        if (where.tool === "read_file" && plan[0] === p) {
          plan.shift();
          throw new Crash();
        }
      },
    };
    const h = harness([calls(call("read_file", { path: "notes.md" })), final("ok")]);
    const { outcome: waiting, driver } = await resumeWhileRunning(h, await h.driver({ faults }).start("t"), { faults });
    expect(waiting.status).toBe("waiting");
    expect((await driver.state(waiting.runId)).takeovers).toBe(2);
    const [a] = waiting.approvals;
    await driver.approve(waiting.runId, a!.approvalId, { requestHash: a!.requestHash, by: "ana" });
    expect((await driver.state(waiting.runId)).takeovers).toBeUndefined();
    const { outcome } = await resumeWhileRunning(h, { ...waiting, status: "running" }, { faults });
    expect(outcome.status).toBe("completed");
    expect(plan).toEqual([]);
    expect(h.world.executions.map((x) => x.attempt)).toEqual([1, 2, 3]);
  });
});

describe("the cause of an interruption, as far as the journal and the store can tell", () => {
  it("released: the driver let the run go without recording the outcome (its store refused the write); taken over early: lease_broken", async () => {
    // Appends: 1 the write's start, 2 its outcome (refused: the drive stops, releasing the lease).
    const h = harness([calls(call("write_file", { path: "a.md", content: "x" })), final("ok")]);
    const { store } = refusingStore(2, "STORE_UNAVAILABLE", { only: true, inner: h.store });
    expect((await h.driver({ store }).start("t")).stopped).toBe("store_error");
    const waiting = await h.driver({ owner: "driver-2" }).resume("run_1" as never);
    expect(waiting.approvals[0]!.request).toMatchObject({ attempt: 1, interrupted: { cause: "released", startedAt: T0 } });
    expect(waiting.approvals[0]!.request.interrupted).not.toHaveProperty("holder");
    expect((await eventsOf(h.store, "run_1")).filter((e) => e["type"] === "run.resumed").at(-1)).toEqual({ type: "run.resumed", owner: "driver-2", token: 2 });

    // A driver started again under the same owner takes its own live lease over: lease_broken.
    const h2 = harness([calls(call("write_file", { path: "a.md", content: "x" })), final("ok")]);
    expect((await h2.driver({ faults: crashAt("after_effect", "write_file") }).start("t")).stopped).toBe("crashed");
    h2.clock.advance(1000);
    const again = await h2.driver().resume("run_1" as never);
    expect(again.approvals[0]!.request).toMatchObject({ interrupted: { cause: "lease_broken", holder: "driver-1", expiresAt: T0 + LEASE } });
  });
});

describe("the options", () => {
  it("0 means no limit (the old behaviour); anything but a finite number >= 0 is refused", async () => {
    const h = harness([calls(call("read_file", { path: "notes.md" })), final("ok")]);
    const faults = crashAt("after_effect", "read_file", 5);
    const recovery = { maxInterruptions: 0, maxResumesWithoutProgress: 0 };
    const { outcome } = await resumeWhileRunning(h, await h.driver({ faults, recovery }).start("t"), { faults, recovery });
    expect(outcome.status).toBe("completed");
    expect(h.world.executions).toHaveLength(6);
    expect(() => h.driver({ recovery: { maxInterruptions: -1 } })).toThrow("recovery.maxInterruptions must be a finite number >= 0 (0: no limit), not -1");
    expect(() => h.driver({ recovery: { maxResumesWithoutProgress: Number.NaN } })).toThrow("recovery.maxResumesWithoutProgress must be a finite number >= 0 (0: no limit), not NaN");
  });

  it("a higher limit lets the call run more times before the ask", async () => {
    const h = harness([calls(call("read_file", { path: "notes.md" })), final("ok")]);
    const faults = crashAt("after_effect", "read_file", Infinity);
    const recovery = { maxInterruptions: 4, maxResumesWithoutProgress: 5 };
    const { outcome } = await resumeWhileRunning(h, await h.driver({ faults, recovery }).start("t"), { faults, recovery });
    expect(outcome.status).toBe("waiting");
    expect(h.world.executions).toHaveLength(4);
    expect(outcome.approvals[0]!.request.interrupted?.limit).toBe(4);
  });
});
