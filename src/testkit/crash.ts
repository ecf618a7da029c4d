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
 *   uncrashed run's, where the effect is idempotent.
 */
import type { Agent } from "../agents/index.js";
import { manualClock, type ManualClock } from "../clock.js";
import { createDriver, Crash, type Faults, type ReconcileHook, type RunOutcome } from "../driver/index.js";
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

export interface CrashTestOptions {
  /** A fresh store, judging leases by `clock`. */
  createStore(clock: ManualClock): Store | Promise<Store>;
  readonly leaseTtlMs?: number;
  readonly points?: readonly CrashPoint[];
}

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
}

/** One execution of a tool, as the crash tests log it. */
export interface Execution {
  readonly tool: string;
  readonly key: string;
  readonly sideEffect: SideEffect;
}

function instrument(world: ScenarioWorld, target: string, crashDuring: { armed: boolean }, log: Execution[]): Tool<never, unknown>[] {
  return world.tools.map((tool) => ({
    ...tool,
    call: async (args: never, ctx) => {
      log.push({ tool: tool.name, key: ctx.idempotencyKey, sideEffect: tool.sideEffect });
      const result = await tool.call(args, ctx);
      if (tool.name === target && crashDuring.armed) {
        crashDuring.armed = false;
        throw new Crash("crash during the effect");
      }
      return result;
    },
  }));
}

function faultsFor(point: CrashPoint, target: string): Faults | undefined {
  const at = { before_started: "before_start_append", after_started: "after_start_append", after_effect: "after_effect", after_finished: "after_finish_append" } as const;
  if (point === "during_effect") return undefined;
  let armed = true;
  return {
    at: (p, where) => {
      if (armed && p === at[point] && where.tool === target) {
        armed = false;
        throw new Crash(`crash at ${point}`);
      }
    },
  };
}

async function runToEnd(
  scenario: CrashScenario,
  store: Store,
  clock: ManualClock,
  ttl: number,
  point: CrashPoint | null,
): Promise<{ outcome: RunOutcome; crashed: boolean; events: JournalEvent[]; world: ScenarioWorld; log: Execution[] }> {
  const world = scenario.setup();
  const log: Execution[] = [];
  const during = { armed: point === "during_effect" };
  const tools = instrument(world, scenario.tool, during, log);
  let owner = 0;
  const driver = (faults?: Faults) =>
    createDriver({ store, clock, agent: scenario.agent(), tools, reconcile: world.reconcile, owner: `owner-${++owner}`, leaseTtlMs: ttl, ...(faults === undefined ? {} : { faults }) });
  let outcome = await driver(point === null ? undefined : faultsFor(point, scenario.tool)).start(scenario.task);
  const crashed = outcome.stopped === "crashed";
  for (let round = 0; round < 10 && outcome.status !== "completed" && outcome.status !== "failed" && outcome.status !== "cancelled"; round++) {
    clock.advance(ttl + 1); // the dead driver's lease expires
    const d = driver();
    outcome = await d.resume(outcome.runId);
    for (const a of outcome.approvals) {
      if (a.request.kind !== "interrupted_side_effect") continue;
      const answer = scenario.operator?.(a.request) ?? { resolution: "run_again" as const };
      await d.settle(outcome.runId, a.approvalId, { requestHash: a.requestHash, by: "testkit-operator", resolution: answer.resolution, ...(answer.content === undefined ? {} : { content: answer.content }) });
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
export function recoveryOf(events: readonly JournalEvent[]): string {
  for (const e of events) if (e.type === "call.reconciled") return e.by === "runtime" ? "runtime" : e.by === "hook" ? "hook" : "operator";
  return "none";
}

/** Judges one crashed run against the baseline (see the module's checks). */
export function judge(scenario: { name: string; tool: string; idempotent: boolean }, point: CrashPoint, crashed: boolean, baseline: Baseline, run: RunRecord): CrashResult {
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
    const run = await runToEnd(scenario, await options.createStore(clock), clock, ttl, point);
    results.push(judge(scenario, point, run.crashed, baseline, record(run)));
  }
  return results;
}
