/**
 * Crash tests: a run is crashed at every boundary around a tool's effect and
 * resumed by a new driver (a new owner, after the dead one's lease expired),
 * answering as the operator where the runtime asks one. Each crash is checked
 * against an uncrashed run of the same scenario:
 *
 * - no step lost: the run ends as the uncrashed one did, with every step;
 * - no tool that is not read_only run twice without a reconciliation or an
 *   operator's approval (counted from the tool's own executions);
 * - the hash chain intact;
 * - the final state (status, output and the outside world) equal to the
 *   uncrashed run's, where the effect is idempotent;
 * - no call started more than the driver's `recovery.maxInterruptions`
 *   times plus once per operator's run_again for it (a run crashed more
 *   than once at its point, `crashes`, is a crash loop).
 */
import type { Agent } from "../agents/index.js";
import { manualClock, type ManualClock } from "../clock.js";
import { createDriver, type ReconcileHook, type RunOutcome } from "../driver/index.js";
import { Crash, type Faults } from "../driver/types.js";
import { canonicalJson, type JsonValue } from "../json/index.js";
import { verifyChain, type ApprovalRequest, type JournalEvent, type Resolution } from "../journal/index.js";
import type { Store } from "../store/index.js";
import type { SideEffect, Tool } from "../tools/index.js";

/** Where a run is crashed, relative to the target tool's effect. */
export type CrashPoint = "before_started" | "after_started" | "during_effect" | "after_effect" | "after_finished";

/** Every crash point, in the order they come. */
export const CRASH_POINTS: readonly CrashPoint[] = ["before_started", "after_started", "during_effect", "after_effect", "after_finished"];

/** One world of a scenario: fresh tools acting on fresh state. */
export interface ScenarioWorld {
  readonly tools: readonly Tool<never, unknown>[];
  /** The outside world's state, compared with the uncrashed run's. */
  state(): JsonValue;
  readonly reconcile?: ReconcileHook;
}

/** A run to crash: its task, the tool whose first call the crashes surround, whether that tool is idempotent, and a fresh world and agent for each try. */
export interface CrashScenario {
  readonly name: string;
  readonly task: JsonValue;
  /** The tool whose first call the crashes surround. */
  readonly tool: string;
  /** True when running the tool again with the same idempotency key has no second effect. */
  readonly idempotent: boolean;
  setup(): ScenarioWorld;
  /** A fresh agent (one per driver). */
  agent(): Agent;
  /** How the operator answers an interrupted side effect. Default: run it again. */
  operator?(request: ApprovalRequest): { resolution: Resolution; content?: JsonValue };
}

/** How `crashTest` runs a scenario: the store to crash against, the lease's length, the points to crash at, and how many times at each. */
export interface CrashTestOptions {
  /** A fresh store, judging leases by `clock`. */
  createStore(clock: ManualClock): Store | Promise<Store>;
  readonly leaseTtlMs?: number;
  readonly points?: readonly CrashPoint[];
  /**
   * How many times the run is crashed at the point (each time the target's
   * first call reaches it, whichever driver runs it): above 1, a crash loop,
   * judged against the drivers' default `recovery.maxInterruptions` (2).
   * Default 1.
   */
  readonly crashes?: number;
}

/** What one crash at one point left, judged against a run without one: whether it crashed, how the run ended, steps lost, effects run again unreconciled, the hash chain intact. */
export interface CrashResult {
  readonly scenario: string;
  readonly point: CrashPoint;
  /** Whether the crash happened (a point can be unreachable in a scenario). */
  readonly crashed: boolean;
  readonly status: string;
  readonly lostSteps: number;
  readonly unreconciledReruns: number;
  readonly chainIntact: boolean;
  /** Compared only for idempotent effects. */
  readonly finalEqual: boolean | null;
  /** How the interrupted call was settled: "none", "runtime", "hook" or "operator". */
  readonly recovery: string;
  readonly executions: number;
  /** The most times one call was started. */
  readonly maxAttempts: number;
  /** Starts of a call beyond `maxInterruptions` plus one per operator's run_again for it: 0 when recovery held its bound. */
  readonly unboundedReruns: number;
  /** Operator asks about a call that reached `maxInterruptions` (its request's `interrupted.limit`). */
  readonly limitAsks: number;
}

/** One execution of a tool, as the crash tests log it. */
export interface Execution {
  readonly tool: string;
  readonly key: string;
  readonly sideEffect: SideEffect;
}

/** Crashes left to make, and the call they are made at (the target's first). */
interface Armed {
  left: number;
  callId?: string;
}

/** Whether to crash now: at the target's first call, while crashes are left. */
function fire(armed: Armed, callId: string): boolean {
  armed.callId ??= callId;
  if (armed.left <= 0 || armed.callId !== callId) return false;
  armed.left--;
  return true;
}

function instrument(world: ScenarioWorld, target: string, crashDuring: Armed, log: Execution[]): Tool<never, unknown>[] {
  return world.tools.map((tool) => ({
    ...tool,
    call: async (args: never, ctx) => {
      log.push({ tool: tool.name, key: ctx.idempotencyKey, sideEffect: tool.sideEffect });
      const result = await tool.call(args, ctx);
      if (tool.name === target && fire(crashDuring, ctx.callId)) throw new Crash("crash during the effect");
      return result;
    },
  }));
}

function faultsFor(point: CrashPoint, target: string, crashes: number): Faults | undefined {
  const at = { before_started: "before_start_append", after_started: "after_start_append", after_effect: "after_effect", after_finished: "after_finish_append" } as const;
  if (point === "during_effect") return undefined;
  const armed: Armed = { left: crashes };
  return {
    at: (p, where) => {
      if (p === at[point] && where.tool === target && fire(armed, where.callId)) throw new Crash(`crash at ${point}`);
    },
  };
}

async function runToEnd(
  scenario: CrashScenario,
  store: Store,
  clock: ManualClock,
  ttl: number,
  point: CrashPoint | null,
  crashes = 1,
): Promise<{ outcome: RunOutcome; crashed: boolean; events: JournalEvent[]; world: ScenarioWorld; log: Execution[] }> {
  const world = scenario.setup();
  const log: Execution[] = [];
  const during: Armed = { left: point === "during_effect" ? crashes : 0 };
  const tools = instrument(world, scenario.tool, during, log);
  // One set of faults for every driver: each crash is spent once, whichever driver reaches it.
  const faults = point === null ? undefined : faultsFor(point, scenario.tool, crashes);
  let owner = 0;
  const driver = () =>
    createDriver({ store, clock, agent: scenario.agent(), tools, reconcile: world.reconcile, owner: `owner-${++owner}`, leaseTtlMs: ttl, ...(faults === undefined ? {} : { faults }) });
  let outcome = await driver().start(scenario.task);
  const crashed = outcome.stopped === "crashed";
  for (let round = 0; round < 10 + 3 * crashes && outcome.status !== "completed" && outcome.status !== "failed" && outcome.status !== "cancelled"; round++) {
    clock.advance(ttl + 1); // the dead driver's lease expires
    const d = driver();
    outcome = await d.resume(outcome.runId);
    for (const a of outcome.approvals) {
      if (a.request.kind !== "interrupted_side_effect") continue;
      const answer = scenario.operator?.(a.request) ?? { resolution: "run_again" as const };
      await d.settle(outcome.runId, a.approvalId, {
        requestHash: a.requestHash,
        by: "testkit-operator",
        resolution: answer.resolution,
        ...(answer.content === undefined ? {} : { content: answer.content }),
      });
    }
  }
  return { outcome, crashed, events: await store.read(outcome.runId), world, log };
}

/** What a finished run left, for judging a crash against the uncrashed run. */
export interface RunRecord {
  readonly status: string;
  readonly output: JsonValue | undefined;
  readonly events: readonly JournalEvent[];
  /** Every execution of every tool: its idempotency key and side effect. */
  readonly log: readonly Execution[];
  /** The outside world's state. */
  readonly world: JsonValue;
}

/** What a crashed run is compared with. */
export interface Baseline {
  readonly steps: readonly string[];
  readonly final: string;
  readonly status: string;
}

const decisions = (events: readonly JournalEvent[]): string[] =>
  events.filter((e) => e.type === "step.decided").map((e) => canonicalJson((e as Extract<JournalEvent, { type: "step.decided" }>).decision));

/** The uncrashed run, as the crashed ones are judged against it. */
export function baselineOf(run: RunRecord): Baseline {
  return { steps: decisions(run.events), final: canonicalJson({ status: run.status, output: run.output ?? null, world: run.world }), status: run.status };
}

/** How the interrupted call was settled, from the journal. */
function recoveryOf(events: readonly JournalEvent[]): string {
  for (const e of events) if (e.type === "call.reconciled") return e.by === "runtime" ? "runtime" : e.by === "hook" ? "hook" : "operator";
  return "none";
}

/** Judges one crashed run against the baseline (see the module's checks), its drivers' `maxInterruptions` being `maxInterruptions` (default 2, the drivers' default). */
export function judge(scenario: { name: string; tool: string; idempotent: boolean }, point: CrashPoint, crashed: boolean, baseline: Baseline, run: RunRecord, maxInterruptions = 2): CrashResult {
  const steps = decisions(run.events);
  const lostSteps = baseline.steps.filter((s) => !steps.includes(s)).length + (run.status === baseline.status ? 0 : 1);
  // Executions beyond the first of a call that is not read_only must each
  // follow a run_again reconciliation (by a hook or an operator).
  let unreconciledReruns = 0;
  const byKey = new Map<string, Execution[]>();
  for (const x of run.log) byKey.set(x.key, [...(byKey.get(x.key) ?? []), x]);
  for (const [key, xs] of byKey) {
    if (xs[0]!.sideEffect === "read_only") continue;
    const parts = key.split(":");
    const callId = parts[parts.length - 1];
    const step = parts[parts.length - 2];
    const allowed = run.events.filter((e) => e.type === "call.reconciled" && e.resolution === "run_again" && e.by !== "runtime" && String(e.step) === step && e.callId === callId).length;
    unreconciledReruns += Math.max(0, xs.length - 1 - allowed);
  }
  // Starts of each call, against the bound: maxInterruptions, plus one per operator's run_again.
  const starts = new Map<string, number>();
  const allowed = new Map<string, number>();
  let limitAsks = 0;
  for (const e of run.events) {
    if (e.type === "call.started") starts.set(`${e.step}:${e.callId}`, (starts.get(`${e.step}:${e.callId}`) ?? 0) + 1);
    if (e.type === "call.reconciled" && e.resolution === "run_again" && e.by !== "runtime" && e.by !== "hook") allowed.set(`${e.step}:${e.callId}`, (allowed.get(`${e.step}:${e.callId}`) ?? 0) + 1);
    if (e.type === "approval.requested" && e.request.interrupted?.limit !== undefined) limitAsks++;
  }
  let unboundedReruns = 0;
  for (const [k, n] of starts) unboundedReruns += Math.max(0, n - maxInterruptions - (allowed.get(k) ?? 0));
  let chainIntact = true;
  try {
    verifyChain(run.events);
  } catch {
    chainIntact = false;
  }
  const final = canonicalJson({ status: run.status, output: run.output ?? null, world: run.world });
  return {
    scenario: scenario.name,
    point,
    crashed,
    status: run.status,
    lostSteps,
    unreconciledReruns,
    chainIntact,
    finalEqual: scenario.idempotent ? final === baseline.final : null,
    recovery: recoveryOf(run.events),
    executions: run.log.filter((x) => x.tool === scenario.tool).length,
    maxAttempts: Math.max(0, ...starts.values()),
    unboundedReruns,
    limitAsks,
  };
}

/** Runs the scenario uncrashed, then crashed at each point; one result per point. */
export async function crashTest(scenario: CrashScenario, options: CrashTestOptions): Promise<CrashResult[]> {
  const ttl = options.leaseTtlMs ?? 30_000;
  const record = (r: Awaited<ReturnType<typeof runToEnd>>): RunRecord => ({ status: r.outcome.status, output: r.outcome.output, events: r.events, log: r.log, world: r.world.state() });
  const baseClock = manualClock();
  const baseline = baselineOf(record(await runToEnd(scenario, await options.createStore(baseClock), baseClock, ttl, null)));
  const results: CrashResult[] = [];
  for (const point of options.points ?? CRASH_POINTS) {
    const clock = manualClock();
    const run = await runToEnd(scenario, await options.createStore(clock), clock, ttl, point, options.crashes);
    results.push(judge(scenario, point, run.crashed, baseline, record(run)));
  }
  return results;
}
