/**
 * A page that drives runs on IndexedDB, for the end-to-end tests that kill it
 * (reload, close) at a boundary around a tool's effect, or race two pages.
 * Its world (the scenario's list, and a log of executions) lives in
 * localStorage, which survives the reload.
 */
import { idbStore } from "../../../adapters/idb/index.js";
import { call, calls, createDriver, defineTool, final, scriptedAgent, strictObject, integer, type JsonValue, type LeaseView, type RunId, type SideEffect, type Tool } from "../../../src/index.js";
import { sequentialIds, type FaultPoint } from "../../../src/testkit/index.js";
import { listScenario, type CrashPoint, type Execution, type RunRecord } from "../../../src/testkit/index.js";

declare global {
  interface Window {
    iso: typeof iso;
    __crashAt?: (point: string) => Promise<void>;
  }
}

const TTL = 400;
const FAULT: Record<Exclude<CrashPoint, "during_effect">, FaultPoint> = {
  before_started: "before_start_append",
  after_started: "after_start_append",
  after_effect: "after_effect",
  after_finished: "after_finish_append",
};
const never = (): Promise<never> => new Promise(() => {});
const owner = `page-${crypto.randomUUID()}`;

/** Waits until a lease (as a store shows it) has expired; now, when there is none. */
async function untilExpired(lease: LeaseView | null): Promise<void> {
  while (lease !== null && lease.expiresAt >= Date.now()) await new Promise((r) => setTimeout(r, lease.expiresAt - Date.now() + 1));
}

function log(): Execution[] {
  return JSON.parse(localStorage.getItem("log") ?? "[]") as Execution[];
}

/** The scenario's tools, logging every execution, and crashing during the effect when asked. */
function instrumented(sideEffect: SideEffect, crashDuring: boolean) {
  const scenario = listScenario(sideEffect, { storage: localStorage, prefix: "world" });
  const world = scenario.setup();
  const tools = world.tools.map((t) => ({
    ...t,
    call: async (args: never, ctx: Parameters<Tool<never, unknown>["call"]>[1]) => {
      localStorage.setItem("log", JSON.stringify([...log(), { tool: t.name, key: ctx.idempotencyKey, sideEffect: t.sideEffect }]));
      const result = await t.call(args, ctx);
      if (crashDuring) {
        await window.__crashAt!("during_effect");
        return never();
      }
      return result;
    },
  })) as Tool<never, unknown>[];
  return { scenario, world, tools };
}

async function finish(runId: RunId, sideEffect: SideEffect): Promise<RunRecord> {
  const { scenario, world, tools } = instrumented(sideEffect, false);
  const store = idbStore({ name: "crash" });
  const driver = createDriver({ store, agent: scenario.agent(), tools, owner, leaseTtlMs: TTL });
  let outcome = await driver.resume(runId);
  for (let round = 0; round < 10 && (outcome.status === "running" || outcome.status === "waiting"); round++) {
    for (const a of outcome.approvals) {
      if (a.request.kind === "interrupted_side_effect") await driver.settle(runId, a.approvalId, { requestHash: a.requestHash, by: "test-operator", resolution: "run_again" });
    }
    // Busy: the dead page's lease, until its expiry (which the outcome says).
    if (outcome.stopped === "busy") await untilExpired(outcome.lease ?? null);
    outcome = await driver.resume(runId);
  }
  const events = await store.read(runId);
  store.close();
  return { status: outcome.status, output: outcome.output, events, log: log(), world: world.state() };
}

const iso = {
  /** The uncrashed run. */
  async baseline(sideEffect: SideEffect): Promise<RunRecord> {
    const { scenario, tools } = instrumented(sideEffect, false);
    const store = idbStore({ name: "crash" });
    const outcome = await createDriver({ store, agent: scenario.agent(), tools, ids: sequentialIds(), owner, leaseTtlMs: TTL }).start(scenario.task);
    store.close();
    return finish(outcome.runId, sideEffect);
  },

  /** Starts a run that stops dead at `point` (the test then kills the page). */
  async start(sideEffect: SideEffect, point: CrashPoint): Promise<unknown> {
    const { scenario, tools } = instrumented(sideEffect, point === "during_effect");
    const store = idbStore({ name: "crash" });
    let armed = true;
    const driver = createDriver({
      store,
      agent: scenario.agent(),
      tools,
      ids: sequentialIds(),
      owner,
      leaseTtlMs: TTL,
      faults: {
        at: async (p, where) => {
          if (point !== "during_effect" && armed && where.tool === scenario.tool && p === FAULT[point]) {
            armed = false;
            await window.__crashAt!(point);
            await never();
          }
        },
      },
    });
    return driver.start(scenario.task);
  },

  /** After the kill: a new page resumes the run, answering as the operator. */
  async resume(runId: string, sideEffect: SideEffect): Promise<RunRecord> {
    // The dead page's lease expires: wait for its expiry, as the store says it.
    const store = idbStore({ name: "crash" });
    await untilExpired(await store.lease(runId as RunId));
    store.close();
    return finish(runId as RunId, sideEffect);
  },

  // ---- two pages racing --------------------------------------------------------

  raceTool(): Tool<never, unknown> {
    return defineTool<{ n: number }>({
      name: "mark",
      description: "Mark a step done.",
      inputSchema: strictObject({ n: integer() }),
      sideEffect: "remote_mutation",
      permission: "allow",
      timeoutMs: 10_000,
      call: async (_a, ctx) => {
        // One key per execution, so two pages never overwrite each other's.
        localStorage.setItem(`exec:${ctx.idempotencyKey}:${crypto.randomUUID()}`, owner);
        await new Promise((r) => setTimeout(r, 2));
        return { ok: true };
      },
    }) as Tool<never, unknown>;
  },

  raceDriver() {
    const script = [...Array.from({ length: 5 }, (_, k) => calls(call("mark", { n: k + 1 }))), final("done")];
    return createDriver({ store: idbStore({ name: "race" }), agent: scriptedAgent(script), tools: [iso.raceTool()], owner, leaseTtlMs: 10_000 });
  },

  async createRuns(n: number): Promise<void> {
    const d = iso.raceDriver();
    for (let k = 0; k < n; k++) await d.create({ k } as JsonValue, { runId: `race_${k}` as RunId });
  },

  /** Drives every runnable run until none is left; returns the runs this page advanced. */
  async driveUntilDone(): Promise<string[]> {
    const d = iso.raceDriver();
    const mine = new Set<string>();
    for (let round = 0; round < 200; round++) {
      const outcomes = await d.driveAll({ concurrency: 3 });
      for (const o of outcomes) if (o.stopped !== "busy") mine.add(o.runId);
      const left = outcomes.filter((o) => o.status === "running").length;
      if (outcomes.length === 0 || (left === 0 && outcomes.every((o) => o.stopped === undefined))) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    return [...mine];
  },

  async raceReport(): Promise<{ owner: string; runs: { runId: string; status: string; owners: string[] }[]; executions: Record<string, number> }> {
    const store = idbStore({ name: "race" });
    const runs = [];
    for (const r of await store.listRuns()) {
      const events = await store.read(r.runId);
      runs.push({ runId: r.runId, status: r.status, owners: [...new Set(events.flatMap((e) => (e.type === "run.resumed" ? [e.owner] : [])))] });
    }
    store.close();
    const executions: Record<string, number> = {};
    for (let k = 0; k < localStorage.length; k++) {
      const key = localStorage.key(k)!;
      if (!key.startsWith("exec:")) continue;
      const idem = key.slice(5, key.lastIndexOf(":"));
      executions[idem] = (executions[idem] ?? 0) + 1;
    }
    return { owner, runs, executions };
  },

  owner: () => owner,

  /** Whether this page may generate code from strings (its CSP forbids it). */
  codegen(): string {
    try {
      return String(new Function("return 'allowed'")());
    } catch (e) {
      return `refused: ${(e as Error).name}`;
    }
  },
};

window.iso = iso;
// Checked by the page itself at load: code run through the DevTools
// protocol (page.evaluate) is exempt from the CSP's eval rule.
document.body.dataset["codegen"] = iso.codegen();
document.body.dataset["ready"] = "yes";
