/**
 * Bounded recovery, over random crash loops (issue 26, finding 3): runs of
 * random steps of reads and writes, whose drives die at random points (the
 * testkit's fault points around each call, inside the tool before or after
 * its effect, a stall past the lease inside the tool, the model's call, the
 * reconcile hook), resumed by a new driver each time and answered by a
 * random operator. With random bounds N (maxInterruptions) and L
 * (maxResumesWithoutProgress, above N):
 *
 * - no call is started more than N times plus once per operator's
 *   run_again for it, and none runs more often than it was started;
 * - no write runs again without a run_again (a hook's or an operator's);
 * - a read is asked about only at its limit, and every ask at the limit
 *   comes after N or more attempts;
 * - no step is lost: the run completes with every step of its script
 *   decided once, or fails no_progress only after L takeovers in a row
 *   with no progress between them;
 * - the chain verifies, and the stored journal reduces to the driver's state.
 */
import { describe, expect, it } from "vitest";
import { call, calls, createDriver, defineTool, final, memoryStore, strictObject, string, type AgentDecision, type JournalEvent, type Reconciliation, type Tool } from "../../src/index.js";
import { reduce, verifyChain } from "../../src/journal/index.js";
import { Crash, manualClock, sequentialIds, type FaultPoint } from "../../src/testkit/index.js";
import { rng } from "../helpers/rng.js";
import { scaled } from "../helpers/time.js";

const TTL = 30_000;
const CASES = 150;
const POINTS: FaultPoint[] = ["before_start_append", "after_start_append", "after_effect", "after_finish_append"];

interface Case {
  readonly n: number;
  readonly l: number;
  readonly hook: boolean;
  readonly script: readonly { name: "read" | "write"; arg: string }[][];
}

function randomCase(r: () => number): Case {
  const n = 1 + Math.floor(r() * 3);
  const l = n + 1 + Math.floor(r() * 3);
  const steps = 1 + Math.floor(r() * 4);
  const script = Array.from({ length: steps }, (_, s) => Array.from({ length: 1 + Math.floor(r() * 2) }, (_, c) => ({ name: r() < 0.5 ? ("read" as const) : ("write" as const), arg: `s${s}c${c}` })));
  return { n, l, hook: r() < 0.5, script };
}

const keyOf = (e: { step: number; callId: string }): string => `${e.step}:${e.callId}`;

describe("bounded recovery over random crash loops", () => {
  it(
    `${CASES} random runs: no call runs more than N times per operator's run_again, no step is lost`,
    async () => {
      const r = rng(26_3);
      const seen = { asks: 0, limited: 0, failedNoProgress: 0, completed: 0, faults: 0, operatorRunAgain: 0 };
      for (let k = 0; k < CASES; k++) {
        const c = randomCase(r);
        const where = `case ${k}: ${JSON.stringify(c)}`;
        const clock = manualClock();
        const store = memoryStore({ clock });
        // A budget of faults: once spent, the drives live, so every run can end.
        let budget = Math.floor(r() * 14);
        const fault = (p: number): boolean => {
          if (budget <= 0 || r() >= p) return false;
          budget--;
          seen.faults++;
          return true;
        };
        const runs: { key: string; attempt: number; name: string }[] = [];
        const tool = (name: "read" | "write"): Tool<never, unknown> =>
          defineTool<{ arg: string }>({
            name,
            description: `${name} something.`,
            inputSchema: strictObject({ arg: string() }),
            sideEffect: name === "read" ? "read_only" : "local_mutation",
            ...(name === "write" ? { permission: "allow" as const } : {}),
            timeoutMs: 1000,
            call: async (a, ctx) => {
              if (fault(0.1)) throw new Crash("died before the effect");
              runs.push({ key: ctx.idempotencyKey, attempt: ctx.attempt, name });
              if (fault(0.1)) throw new Crash("died after the effect");
              if (fault(0.1)) clock.advance(TTL + 1); // stalls past its lease
              return { done: a.arg };
            },
          }) as Tool<never, unknown>;
        const tools = [tool("read"), tool("write")];
        const decide = async (view: { step: number }): Promise<AgentDecision> => {
          if (fault(0.15)) throw new Crash("the model's call died");
          const step = c.script[view.step - 1];
          return step === undefined ? final("done") : calls(...step.map((x) => call(x.name, { arg: x.arg })));
        };
        const reconcile = (): Reconciliation => {
          if (fault(0.1)) throw new Crash("the hook died");
          return { action: "run_again" };
        };
        const faults = {
          at: () => {
            if (fault(0.06)) throw new Crash("died at a fault point");
          },
        };
        const driver = (owner: string) =>
          createDriver({
            store,
            clock,
            owner,
            ids: sequentialIds(),
            agent: { decide },
            tools,
            faults,
            leaseTtlMs: TTL,
            limits: { maxSteps: 20, maxConsecutiveFailures: 0 },
            recovery: { maxInterruptions: c.n, maxResumesWithoutProgress: c.l },
            ...(c.hook ? { reconcile } : {}),
          });

        const check = (events: readonly JournalEvent[]): void => {
          const started = new Map<string, number>();
          const rerunsAllowed = new Map<string, number>();
          const byOperator = new Map<string, number>();
          for (const e of events) {
            if (e.type === "call.started") started.set(keyOf(e), (started.get(keyOf(e)) ?? 0) + 1);
            if (e.type === "call.reconciled" && e.resolution === "run_again") {
              rerunsAllowed.set(keyOf(e), (rerunsAllowed.get(keyOf(e)) ?? 0) + 1);
              if (e.by !== "runtime" && e.by !== "hook") byOperator.set(keyOf(e), (byOperator.get(keyOf(e)) ?? 0) + 1);
            }
            if (e.type === "approval.requested" && e.request.kind === "interrupted_side_effect") {
              if (e.request.sideEffect === "read_only") expect(e.request.interrupted?.limit, where).toBe(c.n);
              if (e.request.interrupted?.limit !== undefined) expect(e.request.attempt, where).toBeGreaterThanOrEqual(c.n);
            }
          }
          for (const [key, n] of started) expect(n, `${where}: call ${key} started ${n} times`).toBeLessThanOrEqual(c.n + (byOperator.get(key) ?? 0));
          const executions = new Map<string, { n: number; name: string }>();
          for (const x of runs) executions.set(x.key, { n: (executions.get(x.key)?.n ?? 0) + 1, name: x.name });
          for (const [key, x] of executions) {
            const call = key.slice(key.indexOf(":") + 1);
            expect(x.n, `${where}: ${key} ran more often than it was started`).toBeLessThanOrEqual(started.get(call) ?? 0);
            if (x.name === "write") expect(x.n - 1, `${where}: ${key} ran again without a run_again`).toBeLessThanOrEqual(rerunsAllowed.get(call) ?? 0);
          }
        };

        const runId = await driver("d0").create({ k });
        let outcome = await driver("d1").resume(runId);
        for (let round = 2; outcome.status === "running" || outcome.status === "waiting"; round++) {
          expect(round, `${where}: the run never ended`).toBeLessThan(300);
          check(await store.read(runId));
          const d = driver(`d${round}`);
          for (const a of outcome.approvals) {
            seen.asks++;
            if (a.request.interrupted?.limit !== undefined) seen.limited++;
            const pick = r();
            const answer = { requestHash: a.requestHash, by: "operator" };
            if (pick < 0.3) await d.approve(runId, a.approvalId, answer);
            else if (pick < 0.55) await d.settle(runId, a.approvalId, { ...answer, resolution: "run_again" });
            else if (pick < 0.75) await d.settle(runId, a.approvalId, { ...answer, resolution: "record_result", content: { recorded: true } });
            else if (pick < 0.9) await d.settle(runId, a.approvalId, { ...answer, resolution: "record_failure" });
            else await d.deny(runId, a.approvalId, answer);
            if (pick < 0.55) seen.operatorRunAgain++;
          }
          clock.advance(TTL + 1); // whatever the last drive left, its lease runs out
          outcome = await d.resume(runId);
        }

        const events = await store.read(runId);
        verifyChain(events);
        check(events);
        const state = reduce(events);
        expect(state).toEqual(await driver("judge").state(runId));
        const decided = events.filter((e) => e.type === "step.decided").map((e) => (e.type === "step.decided" ? e.step : 0));
        expect(new Set(decided).size, `${where}: a step decided twice`).toBe(decided.length);
        if (outcome.status === "failed") {
          expect(state.failure?.reason, where).toBe("no_progress");
          expect(state.takeovers, where).toBeGreaterThanOrEqual(c.l);
          // The takeovers in a row at the end: nothing that is progress between them.
          const tail = events.slice(
            events.findLastIndex((e) => e.type === "step.decided" || e.type === "call.finished" || e.type === "approval.resolved" || (e.type === "call.reconciled" && e.observation !== undefined)) + 1,
          );
          expect(tail.filter((e) => e.type === "run.resumed" && e.took !== undefined).length, where).toBe(state.takeovers);
          seen.failedNoProgress++;
        } else {
          expect(outcome.status, where).toBe("completed");
          expect(decided, `${where}: a step was lost`).toEqual(Array.from({ length: c.script.length + 1 }, (_, s) => s + 1));
          seen.completed++;
        }
      }
      // The cases reached both bounds and the operator, many times.
      expect(seen.completed + seen.failedNoProgress).toBe(CASES);
      expect(seen.limited).toBeGreaterThan(20);
      expect(seen.failedNoProgress).toBeGreaterThan(3);
      expect(seen.operatorRunAgain).toBeGreaterThan(20);
      console.log(
        `bounded recovery: ${CASES} runs, ${seen.faults} faults, ${seen.asks} asks (${seen.limited} at the limit), ${seen.operatorRunAgain} operator run_again, ${seen.completed} completed, ${seen.failedNoProgress} failed no_progress`,
      );
    },
    scaled(120_000),
  );
});
