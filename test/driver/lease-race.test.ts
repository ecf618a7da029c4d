import { describe, expect, it } from "vitest";
import { call, calls, createDriver, defineTool, final, integer, isIsoagentError, memoryStore, scriptedAgent, strictObject, type Store, type Tool } from "../../src/index.js";
import type { Lease } from "../../src/store/index.js";
import { manualClock, sequentialIds } from "../../src/testkit/index.js";
import { rng } from "../helpers/rng.js";
import { scaled } from "../helpers/time.js";

const RUNS = 100;
const STEPS = 5;
const DRIVERS = 8;
const TTL = 30_000;

describe("a lease race: 8 drivers, one store, 100 runs of 5 steps", () => {
  it(
    "completes every run, applies every effect once, and refuses every append by a stale owner",
    async () => {
      const clock = manualClock();
      const inner = memoryStore({ clock });
      // Watch the fencing: the newest token per run, and every append that
      // quotes an older one.
      const newest = new Map<string, number>();
      let staleAppends = 0;
      let staleRefused = 0;
      let staleAccepted = 0;
      const store: Store = {
        ...inner,
        async acquireLease(runId, owner, ttl) {
          const l = await inner.acquireLease(runId, owner, ttl);
          if (l !== null) newest.set(runId, Math.max(newest.get(runId) ?? 0, l.token));
          return l;
        },
        async append(runId, events, guard, status) {
          const stale = guard.lease !== undefined && guard.lease.token < (newest.get(runId) ?? 0);
          if (stale) staleAppends++;
          try {
            const head = await inner.append(runId, events, guard, status);
            if (stale) staleAccepted++;
            return head;
          } catch (e) {
            if (stale && isIsoagentError(e, "LEASE_NOT_HELD")) staleRefused++;
            throw e;
          }
        },
      };

      // The outside world: effects keyed by idempotency key.
      const applied = new Set<string>();
      const executions = new Map<string, number>();
      const random = rng(42);
      const stallPastLease = async (): Promise<void> => {
        clock.advance(TTL + 1);
        await new Promise((r) => setTimeout(r, 0));
      };
      const effect = defineTool<{ n: number }>({
        name: "record_step",
        description: "Record that a step happened.",
        inputSchema: strictObject({ n: integer("Step", { minimum: 1 }) }),
        sideEffect: "remote_mutation",
        permission: "allow",
        timeoutMs: 60_000,
        call: async (_args, ctx) => {
          executions.set(ctx.idempotencyKey, (executions.get(ctx.idempotencyKey) ?? 0) + 1);
          // Now and then the process stalls past its lease, before or after its
          // effect; the effect itself is keyed, so a second attempt adds nothing.
          const stall = random();
          if (stall < 0.05) await stallPastLease();
          applied.add(ctx.idempotencyKey);
          if (stall > 0.95) await stallPastLease();
          return { ok: true };
        },
      });
      const script = [...Array.from({ length: STEPS }, (_, k) => calls(call("record_step", { n: k + 1 }))), final("done")];
      const drivers = Array.from({ length: DRIVERS }, (_, k) =>
        createDriver({
          store,
          clock,
          agent: scriptedAgent(script),
          tools: [effect as Tool<never, unknown>],
          owner: `driver-${k}`,
          leaseTtlMs: TTL,
          // No bounds on recovery: this test's clock jumps expire every lease in
          // flight at once, over and over (a storm no process sees this often),
          // and it is about fencing. The bounds have their own tests
          // (bounded-recovery.test.ts).
          recovery: { maxInterruptions: 0, maxResumesWithoutProgress: 0 },
          // A call whose outcome was lost: the world knows whether it happened.
          reconcile: (c) => (applied.has(c.idempotencyKey) ? { action: "record_result", content: { ok: true } } : { action: "run_again" }),
        }),
      );
      const ids = sequentialIds("race_");
      // Runs are created without being driven: the drivers race for them below.
      for (let k = 0; k < RUNS; k++) await drivers[0]!.create({ k }, { runId: ids.runId() });
      for (let round = 0; round < 50; round++) {
        const open = await store.listRuns({ status: ["running"] });
        if (open.length === 0) break;
        await Promise.all(drivers.map((d) => d.driveAll({ concurrency: 4 })));
        clock.advance(TTL + 1); // whatever was abandoned can be taken over
      }

      const runs = await store.listRuns();
      expect(runs.length).toBe(RUNS);
      expect(runs.filter((r) => r.status !== "completed")).toEqual([]);
      // Every call's effect happened, once: one key per call.
      expect(applied.size).toBe(RUNS * STEPS);
      // Re-executions happened only after a reconciliation said run_again.
      let reconciledRunAgain = 0;
      for (const r of runs) {
        for (const e of await store.read(r.runId)) if (e.type === "call.reconciled" && e.resolution === "run_again") reconciledRunAgain++;
      }
      const extra = [...executions.values()].reduce((n, x) => n + x - 1, 0);
      expect(extra).toBeLessThanOrEqual(reconciledRunAgain);
      expect(reconciledRunAgain).toBeGreaterThan(0);
      // The race really had stale owners, and the store refused every one.
      expect(staleAppends).toBeGreaterThan(0);
      expect(staleRefused).toBe(staleAppends);
      expect(staleAccepted).toBe(0);
      console.log(`lease race: ${staleAppends} stale appends refused, ${reconciledRunAgain} run_again reconciliations, ${extra} re-executions`);
    },
    scaled(60_000),
  );
});

export type { Lease };
