/**
 * How a drive stops (issue 21: survivors of the driver area's mutation run
 * in src/driver/session.ts's drive): an error from the store that is not a
 * failure to take writes is thrown (after the last flush), a failure is a
 * store_error stop reported as the store holds the run (or as far as it was
 * committed, when the store cannot even be read), the lease is released
 * only when it is still the drive's, and a lease lost while the reconcile
 * hook or a tool ran stops the drive at once.
 */
import { describe, expect, it } from "vitest";
import { call, calls, final, memoryStore, type Store } from "../../src/index.js";
import { StoreError, type StoreErrorCode } from "../../src/store/index.js";
import { Crash, manualClock, type Faults, type FaultPoint } from "../../src/testkit/index.js";
import { harness, refusingStore } from "./helpers.js";

/** A memory store (or `inner`) whose `nth` append alone is refused with a StoreError of `code`; it counts appends and releases. */
const refusingOnce = (nth: number, code: StoreErrorCode, inner: Store = memoryStore()) => refusingStore(nth, code, { only: true, inner });

const write = calls(call("write_file", { path: "a.md", content: "x" }));

describe("a store error in the middle of a drive", () => {
  // mutation: session.ts drive, "else if (e instanceof Interrupted)" -> "else if (true)";
  // "else if (this.stoppedByStore(e))" -> "else if (true)"
  it("that is not a failure to take writes is thrown to the caller, once the last flush wrote what was pending", async () => {
    const { store, inner, counts } = refusingOnce(2, "STORE_INVALID_APPEND");
    const h = harness([write, final("ok")]);
    const driver = h.driver({ store });
    const runId = await driver.create("t");
    await expect(driver.resume(runId)).rejects.toSatisfy((e: unknown) => e instanceof StoreError && e.code === "STORE_INVALID_APPEND");
    expect((await inner.read(runId)).map((e) => e.type)).toEqual(["run.created", "run.resumed", "step.decided", "call.permission", "call.started", "call.finished"]);
    expect(counts).toEqual({ appends: 3, releases: 1 });
  });

  // mutation: session.ts drive, "else if (this.stoppedByStore(e))" -> "else if (false)"; stopped = "store_error" -> stopped = ""
  it("that is a failure to take writes stops the drive as store_error: nothing more is written, the lease is released", async () => {
    const { store, inner, counts } = refusingOnce(2, "STORE_QUOTA_EXCEEDED");
    const h = harness([write, final("ok")]);
    const outcome = await h.driver({ store }).start("t");
    expect(outcome).toEqual({
      runId: outcome.runId,
      status: "running",
      seq: 5,
      approvals: [],
      stopped: "store_error",
      error: { code: "STORE_QUOTA_EXCEEDED", message: "the store refused append 2 (STORE_QUOTA_EXCEEDED)" },
    });
    expect((await inner.read(outcome.runId)).map((e) => e.type).at(-1)).toBe("call.started");
    expect(counts).toEqual({ appends: 2, releases: 1 });
    expect(await inner.lease(outcome.runId)).toBeNull();
  });

  // mutation: session.ts drive, loadState(...).catch(() => ({ ...this.state, seq: this.committed.seq })) -> .catch(() => undefined) / .catch(() => ({}))
  it("when the store then cannot even be read, the run is reported as far as it was committed", async () => {
    const inner = memoryStore();
    let failing = false;
    const unreadable = Object.assign(Object.create(null) as object, inner, {
      async getSnapshot(...args: Parameters<Store["getSnapshot"]>) {
        if (failing) throw new StoreError("STORE_UNAVAILABLE", "the database is closed");
        return inner.getSnapshot(...args);
      },
      async read(...args: Parameters<Store["read"]>) {
        if (failing) throw new StoreError("STORE_UNAVAILABLE", "the database is closed");
        return inner.read(...args);
      },
    }) as Store;
    const { store } = refusingOnce(2, "STORE_UNAVAILABLE", unreadable);
    const h = harness([write, final("ok")]);
    const driver = h.driver({
      store,
      faults: {
        at: (p: FaultPoint) => {
          if (p === "after_effect") failing = true;
        },
      },
    });
    const outcome = await driver.start("t");
    // Committed: run.created and the first append (run.resumed to call.started).
    expect(outcome).toEqual({
      runId: outcome.runId,
      status: "running",
      seq: 5,
      approvals: [],
      stopped: "store_error",
      error: { code: "STORE_UNAVAILABLE", message: "the store refused append 2 (STORE_UNAVAILABLE)" },
    });
  });
});

describe("the lease at the end of a drive", () => {
  // Old mutants of the release after the last flush (before the release was
  // moved after it, commit 259a7f9): "if (this.failed === undefined && !this.lost)
  // release" -> "if (true)" / "if (!this.lost)" / "||". Now: session.ts drive,
  // "if (this.failed !== undefined) release.catch(...)" -> "if (false)".
  it("a last flush the store fails, and a release it refuses too: the drive stops as store_error, releasing once, without a throw", async () => {
    const { store: failing, inner, counts } = refusingOnce(2, "STORE_QUOTA_EXCEEDED");
    let releases = 0;
    const store = Object.assign(Object.create(null) as object, failing, {
      async releaseLease() {
        releases++;
        throw new StoreError("STORE_QUOTA_EXCEEDED", "the store refused the release");
      },
    }) as Store;
    // A read, then the end: the last flush holds the read's outcome and the run's completion.
    const h = harness([calls(call("read_file", { path: "notes.md" })), final("ok")]);
    const outcome = await h.driver({ store }).start("t");
    expect(outcome).toMatchObject({ status: "running", stopped: "store_error", error: { code: "STORE_QUOTA_EXCEEDED", message: "the store refused append 2 (STORE_QUOTA_EXCEEDED)" } });
    expect(outcome.seq).toBe((await inner.read(outcome.runId)).length);
    expect(counts.appends).toBe(2);
    expect(releases).toBe(1);
  });

  // mutation (same rewrite): session.ts drive, "else if (!this.crashed && !this.lost) release" -> "else if (true)" / "!this.crashed || !this.lost"
  it("a drive that crashed does not release its lease: the run stays held by the dead driver", async () => {
    const clock = manualClock();
    // (An append number never reached: a store that only counts releases.)
    const { store, inner, counts } = refusingOnce(0, "STORE_QUOTA_EXCEEDED", memoryStore({ clock }));
    const h = harness([write, final("ok")]);
    const crash: Faults = {
      at: (p) => {
        if (p === "after_start_append") throw new Crash();
      },
    };
    const outcome = await h.driver({ store, clock, leaseTtlMs: 30_000, faults: crash }).start("t");
    expect(outcome.stopped).toBe("crashed");
    expect(counts.releases).toBe(0);
    expect(await inner.lease(outcome.runId)).toEqual({ holder: "driver-1", expiresAt: clock.now() + 30_000 });
  });

  // The last flush runs only for a drive that neither crashed nor lost its lease. (Its mutant
  // "this.failed === undefined" -> "true" is equivalent: a store failure empties what is pending,
  // so that flush has nothing to write; see session-results.json.)
  it("a drive that crashed before a start was appended leaves nothing of the step in the journal", async () => {
    const h = harness([write, final("ok")]);
    const crash: Faults = {
      at: (p) => {
        if (p === "before_start_append") throw new Crash();
      },
    };
    const outcome = await h.driver({ faults: crash }).start("t");
    expect(outcome.stopped).toBe("crashed");
    expect((await h.store.read(outcome.runId)).map((e) => e.type)).toEqual(["run.created"]);
    expect(h.world.executions).toEqual([]);
  });
});

/** A store whose lease renewals are refused; `refused` settles once one was, after the session has taken it in. */
function losingRenewals(inner: Store): { store: Store; refused: Promise<void> } {
  let tell!: () => void;
  const refused = new Promise<void>((r) => (tell = r));
  const store = Object.assign(Object.create(null) as object, inner, {
    async renewLease() {
      // Told on the next macrotask: the session has then lost the lease.
      setTimeout(tell, 0);
      return null;
    },
  }) as Store;
  return { store, refused };
}

describe("a lease lost through renewal", () => {
  // (Written against session.ts recoverCall's checkLease mutants; since a lease_lost outcome is
  // read from the store, the journal and the outcome no longer tell them apart: the test that
  // does is in recovery-survivors.test.ts, by the tool's code run after the hook answered.)
  it("while the reconcile hook decides: the drive stops as lease_lost and journals nothing of the hook's answer", async () => {
    const clock = manualClock();
    const inner = memoryStore({ clock });
    const h = harness([write, final("ok")]);
    const crash: Faults = {
      at: (p) => {
        if (p === "after_start_append") throw new Crash();
      },
    };
    const dead = await h.driver({ store: inner, clock, leaseTtlMs: 30_000, faults: crash }).start("t");
    const journaled = (await inner.read(dead.runId)).length;
    clock.advance(30_001);
    const { store, refused } = losingRenewals(inner);
    const outcome = await h
      .driver({
        store,
        clock,
        owner: "driver-2",
        leaseTtlMs: 30,
        reconcile: async () => {
          await refused;
          return { action: "ask_operator" };
        },
      })
      .resume(dead.runId);
    expect(outcome).toMatchObject({ status: "running", stopped: "lease_lost", approvals: [] });
    // Only the takeover, written before anything is recovered (issue 26): nothing of the hook's answer.
    expect((await inner.read(dead.runId)).slice(journaled).map((e) => e.type)).toEqual(["run.resumed"]);
  });

  // mutation: session.ts execute, "if (this.lost) throw new LeaseLost()" after the tools ran -> "if (false)" / the throw removed
  it("while a tool runs: the drive stops as soon as the tool returns, before the point after its effect", async () => {
    const inner = memoryStore();
    const { store, refused } = losingRenewals(inner);
    const points: FaultPoint[] = [];
    const slowWrite = {
      name: "slow_write",
      description: "Write, slowly.",
      inputSchema: { type: "object", properties: {}, additionalProperties: false },
      sideEffect: "local_mutation",
      permission: "allow",
      timeoutMs: 60_000,
      call: async () => {
        await refused;
        return "written";
      },
    } as const;
    const outcome = await harness([calls(call("slow_write")), final("ok")], { tools: [slowWrite as never] })
      .driver({
        store,
        leaseTtlMs: 30,
        faults: {
          at: (p) => {
            points.push(p);
            // A crash at the point after the effect: reached only by a drive that goes on.
            if (p === "after_effect") throw new Crash();
          },
        },
      })
      .start("t");
    expect(outcome.stopped).toBe("lease_lost");
    expect(points).toEqual(["before_start_append", "after_start_append"]);
    expect((await inner.read(outcome.runId)).map((e) => e.type)).toEqual(["run.created", "run.resumed", "step.decided", "call.permission", "call.started"]);
  });
});
