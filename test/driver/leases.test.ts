import { describe, expect, it } from "vitest";
import { call, calls, createDriver, defineTool, final, memoryStore, rulesPolicy, scriptedAgent, strictObject, type Store, type Tool } from "../../src/index.js";
import { Crash, manualClock, type Faults } from "../../src/testkit/index.js";
import { findStranded } from "../../src/testkit/index.js";
import { scaled } from "../helpers/time.js";
import { harness } from "./helpers.js";

const TTL = 3_000;
const GRACE = 1_000;

/** Crashes the driver after the first call's start is journaled: it dies holding the lease, as a closed tab does. */
const dieHoldingTheLease: Faults = {
  at: (p) => {
    if (p === "after_start_append") throw new Crash();
  },
};

describe("leases you can see", () => {
  // Finding 2 of issue 13: a dead tab's lease could not be seen. `busy` said
  // neither who held the run nor until when, and a run summary had no lease:
  // "another tab holds it until T" looked the same as "stuck". On the old
  // code the outcome has no `lease`, and the store no `lease(runId)`.
  it("a busy outcome says who holds the run's lease and until when; the listing shows it; past its expiry and the grace period the run is found stranded, then taken over", async () => {
    const h = harness([calls(call("read_file", { path: "notes.md" })), final("read")]);
    const dead = await h.driver({ owner: "tab-a", leaseTtlMs: TTL, faults: dieHoldingTheLease }).start("t");
    expect(dead.stopped).toBe("crashed");
    const runId = dead.runId;
    const expiresAt = h.clock.now() + TTL;

    const other = h.driver({ owner: "tab-b", leaseTtlMs: TTL });
    const busy = await other.resume(runId);
    expect(busy).toMatchObject({ status: "running", stopped: "busy", lease: { holder: "tab-a", expiresAt } });
    expect(await h.store.lease(runId)).toEqual({ holder: "tab-a", expiresAt });
    expect((await other.listRuns()).map((r) => [r.runId, r.lease])).toEqual([[runId, { holder: "tab-a", expiresAt }]]);

    // Held: not stranded. Expired, within the grace period: not yet.
    expect(await findStranded(h.store, h.clock.now(), { grace: GRACE })).toEqual([]);
    h.clock.advance(TTL + GRACE);
    expect(await findStranded(h.store, h.clock.now(), { grace: GRACE })).toEqual([]);
    // Past it: stranded since the lease's expiry, the expired lease shown as it was.
    h.clock.advance(1);
    expect(await findStranded(h.store, h.clock.now(), { grace: GRACE })).toEqual([{ runId, status: "running", listedAs: "running", lease: { holder: "tab-a", expiresAt }, since: expiresAt }]);

    const done = await other.resume(runId);
    expect(done.status).toBe("completed");
    expect(done.lease).toBeUndefined();
    expect(await h.store.lease(runId)).toBeNull();
    expect(await findStranded(h.store, h.clock.now(), { grace: 0 })).toEqual([]);
  });

  it("findStranded judges each run by its journal, not by its listing: a run an index lists as waiting that an answer made runnable is found", async () => {
    const h = harness([calls(call("write_file", { path: "a", content: "x" })), final("ok")], { policy: rulesPolicy([{ tool: "write_file", permission: "ask" }]) });
    const waiting = await h.driver().start("t");
    expect(waiting.status).toBe("waiting");
    const [a] = waiting.approvals;
    await h.driver().approve(waiting.runId, a!.approvalId, { requestHash: a!.requestHash, by: "ana" });
    // An index that missed the answer's report still lists the run as waiting.
    const lagging: Store = {
      ...h.store,
      listRuns: async (f) => (await h.store.listRuns()).filter((r) => f?.status === undefined || f.status.includes("waiting")).map((r) => ({ ...r, status: "waiting" as const })),
    };
    h.clock.advance(GRACE + 1);
    expect(await findStranded(lagging, h.clock.now(), { grace: GRACE })).toMatchObject([{ runId: waiting.runId, status: "running", listedAs: "waiting", lease: null }]);
  });

  it("findStranded refuses a grace period that is not a number of ms", async () => {
    const h = harness([final("ok")]);
    await expect(findStranded(h.store, 0, { grace: Number.NaN })).rejects.toThrow("findStranded needs a grace period of 0 ms or more");
  });
});

describe("a lease renewed while the run never yields to timers", () => {
  // Found by the long-run bench: with an agent and tools that answer at once,
  // every await resolves as a microtask, the renewal timer never fires, and a
  // run longer than its lease lost it. Here each step moves the (shared)
  // clock by half the lease's time to live: renewing by timer alone, the run
  // loses its lease by the third step.
  it("is renewed inline when it is due, so a busy run keeps it", async () => {
    const clock = manualClock();
    const store = memoryStore({ clock });
    const tick = defineTool({ name: "tick", description: "Moves time.", inputSchema: strictObject({}), sideEffect: "read_only", timeoutMs: 60_000, call: () => (clock.advance(5_000), "ok") });
    const steps = 20;
    const agent = scriptedAgent((view) => (view.step <= steps ? calls(call("tick")) : final("done")));
    const driver = createDriver({ store, clock, agent, tools: [tick as Tool<never, unknown>], leaseTtlMs: 10_000 });
    const outcome = await driver.start("t");
    expect(outcome.failure).toBeUndefined();
    expect(outcome.status).toBe("completed");
    expect(clock.now() - Date.UTC(2026, 0, 1)).toBe(steps * 5_000);
  });
});

describe("a lease lost through renewal (issue 21, audit finding 4)", () => {
  // The renewal timer renews a third of the lease's time to live apart. When
  // the store refuses the renewal (another driver took the run) or fails,
  // the run in progress is aborted: the agent's decision is cancelled with
  // "lease lost" and the run stops as lease_lost, journaling nothing more.
  // Mutations this fails on (session.ts): loseLease without
  // agentAbort.abort; renew() ignoring a null renewal; renew()'s catch
  // swallowing the failure without losing the lease.
  const refusals: [string, () => Promise<never> | Promise<null>][] = [
    ["answers that the lease is gone", async () => null],
    ["fails", async () => Promise.reject(new Error("store unreachable"))],
  ];
  for (const [what, renewLease] of refusals) {
    it(`aborts the agent's decision in progress when a renewal ${what}`, async () => {
      const inner = memoryStore();
      // Renewals succeed until the agent is deciding, so the loss always
      // falls while it thinks, however slow the machine is to get there.
      let deciding = false;
      let renewals = 0;
      const store = new Proxy(inner, {
        get(target, p) {
          if (p === "renewLease") return (...a: Parameters<Store["renewLease"]>) => (deciding ? (renewals++, renewLease()) : target.renewLease(...a));
          const v = Reflect.get(target, p, target) as unknown;
          return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
        },
      }) as Store;
      let aborted: unknown;
      // An agent that thinks until it is told to stop; a deadline (not a
      // budget: the abort comes at the next renewal, within half a second)
      // so that a run that is never aborted fails the assertion below
      // instead of hanging.
      const agent = {
        decide: (_view: unknown, { signal }: { signal: AbortSignal }) =>
          new Promise<never>((_, reject) => {
            deciding = true;
            const stop = (): void => {
              clearTimeout(deadline);
              aborted = signal.reason;
              reject(signal.reason as Error);
            };
            const deadline = setTimeout(() => reject(new Error("never aborted")), scaled(20_000));
            if (signal.aborted) stop();
            else signal.addEventListener("abort", stop);
          }),
      };
      const driver = createDriver({ store, agent: agent as never, tools: [], leaseTtlMs: 1_500 });
      const outcome = await driver.start("t");
      expect(renewals).toBeGreaterThan(0);
      expect((aborted as Error | undefined)?.message).toBe("lease lost");
      expect(outcome.stopped).toBe("lease_lost");
      const events = await inner.read(outcome.runId);
      expect(events.map((e) => e.type)).toEqual(["run.created"]);
    });
  }
});
