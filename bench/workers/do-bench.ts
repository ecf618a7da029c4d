/**
 * The Worker of `npm run bench -- do`. Run objects host runs of one call
 * class (read_only or local_mutation) in one durability:
 * - "sync": the tool does nothing; the driver confirms its journal with
 *   `storage.sync()` before each effect (local_mutation only).
 * - "output-gate": the tool's effect is one RPC to another object, which the
 *   output gate holds until the journal before it is confirmed.
 * The baselines run in the same object as the run they are compared with, or,
 * for a driver in this Worker reaching the run's object over RPC, from this
 * Worker over the same hop. Each answer counts the journal writes (appends)
 * and the confirmations (a sync, or a gated message) the run made.
 */
import { runObjectClass, durableObjectStore, RunIndex, runObject, unwire, type WorkerEnv } from "../../adapters/durable-object/index.js";
import type { RunSql } from "../../adapters/durable-object/sql.js";
import { call, calls, createDriver, defineTool, final, scriptedAgent, strictObject, type JournalEvent, type RunId, type SideEffect, type Store, type Tool } from "../../src/index.js";
import { seal, type RunCreated, type UnsealedEvent } from "../../src/journal/index.js";

type Durability = "sync" | "output-gate";
interface BenchTask {
  readonly steps: number;
  readonly durability: Durability;
  readonly sideEffect: SideEffect;
}

/** What a run did, counted in this isolate (miniflare runs every object in one; the bench runs one run at a time). */
const counts = { appends: 0, confirms: 0 };
const reset = (): void => {
  counts.appends = 0;
  counts.confirms = 0;
};

/** Another object, for the effect that is a message. */
const peerOf = (env: WorkerEnv) => env.RUNS.getByName("peer") as unknown as RunObject;

/** A ~100-byte record. */
const SMALL = JSON.stringify({ k: 0, text: "a small value of about one hundred bytes, as a run's record or a counter would" });

function toolsFor(env: WorkerEnv, durability: Durability, sideEffect: SideEffect): Tool<never, unknown>[] {
  return [
    defineTool({
      name: "touch",
      description: "Nothing, or one message to another object.",
      inputSchema: strictObject({}),
      sideEffect,
      permission: "allow",
      timeoutMs: 5000,
      call: async () => {
        if (durability !== "output-gate" || sideEffect === "read_only") return "ok";
        counts.confirms++;
        return await peerOf(env).ping();
      },
    }) as Tool<never, unknown>,
  ];
}
const agentFor = (n: number) => scriptedAgent((view) => (view.step <= n ? calls(call("touch")) : final("done")));

/** The four events a read-only step appends, sealed after `head`. */
function stepBatch(runId: string, step: number, head: { seq: number; hash: string }): JournalEvent[] {
  const callId = `s${step}c1`;
  const at = 1_800_000_000_000 + step;
  const events = [
    { v: 2, at, type: "call.finished", step: step - 1, callId: `s${step - 1}c1`, attempt: 1, observation: { type: "result", content: "ok" } },
    { v: 2, at, type: "step.decided", step, decision: { kind: "calls", calls: [{ callId, name: "touch", args: "{}" }] } },
    { v: 2, at, type: "call.permission", step, callId, permission: "allow", source: "spec", sideEffect: "read_only" },
    { v: 2, at, type: "call.started", step, callId, attempt: 1, idempotencyKey: `${runId}:${step}:${callId}` },
  ] as unknown as UnsealedEvent[];
  const out: JournalEvent[] = [];
  let prev = head;
  for (const e of events) {
    const s = seal(e, prev.seq + 1, prev.hash);
    out.push(s);
    prev = s;
  }
  return out;
}

const task = (hc: { task: unknown }) => hc.task as BenchTask;
const Base = runObjectClass<WorkerEnv>({
  agent: (hc) => agentFor(task(hc).steps),
  tools: (hc) => toolsFor(hc.env, task(hc).durability, task(hc).sideEffect),
  durability: (hc) => task(hc).durability,
  limits: { maxSteps: 100_000 },
});

export class RunObject extends Base {
  constructor(ctx: DurableObjectState, env: WorkerEnv) {
    // Counts the confirmations the host waits for (a sync before an effect).
    const sync = ctx.storage.sync.bind(ctx.storage);
    (ctx.storage as { sync: () => Promise<void> }).sync = () => {
      counts.confirms++;
      return sync();
    };
    super(ctx, env);
    // Counts the journal writes: every append, the host's and the RPC callers', is the run's SQL append.
    const sql = (this as unknown as { sql: RunSql }).sql;
    const append = sql.append.bind(sql);
    (sql as { append: typeof append }).append = (...args: Parameters<typeof append>) => {
      counts.appends++;
      return append(...args);
    };
  }

  /**
   * The baseline: per step, `writes` small inserts, each its own
   * transaction; the first confirmed as the driver of that durability
   * confirms a call's start (a sync, or the effect's RPC held by the gate)
   * when `confirm`, the second left to be committed with what follows, as
   * the driver leaves a call's outcome.
   */
  async benchRaw(n: number, durability: Durability, writes: number, confirm: boolean): Promise<number> {
    reset();
    const sql = this.ctx.storage.sql;
    sql.exec("CREATE TABLE IF NOT EXISTS bench_raw (seq INTEGER PRIMARY KEY AUTOINCREMENT, body TEXT NOT NULL)");
    const peer = peerOf(this.env);
    for (let k = 0; k < n; k++) {
      this.ctx.storage.transactionSync(() => sql.exec("INSERT INTO bench_raw (body) VALUES (?)", SMALL));
      if (confirm) {
        if (durability === "sync") await this.ctx.storage.sync();
        else await peer.ping();
      } else await Promise.resolve();
      if (writes === 2) this.ctx.storage.transactionSync(() => sql.exec("INSERT INTO bench_raw (body) VALUES (?)", SMALL));
    }
    return n;
  }

  /** The journal write alone: `n` appends of a read-only step's four events, each confirmed as `durability` confirms (sealed before the first). */
  async benchAppend(runId: RunId, n: number, durability: Durability): Promise<number> {
    const first = seal(
      { v: 2, at: 1, type: "run.created", runId, task: "bench", tools: [{ name: "touch", specHash: "0".repeat(64) }], limits: { maxSteps: 0, maxConsecutiveFailures: 3, runTimeoutMs: 0 } },
      1,
      "",
    ) as RunCreated;
    const store = (this as unknown as { localStore(sync: boolean, hosted: boolean): Store }).localStore(durability === "sync", false);
    await store.createRun(first);
    const lease = (await store.acquireLease(runId, "bench", 600_000))!;
    const batches: JournalEvent[][] = [];
    let head = { seq: first.seq, hash: first.hash };
    for (let k = 1; k <= n; k++) {
      const b = stepBatch(runId, k, head);
      batches.push(b);
      head = b[b.length - 1]!;
    }
    const peer = peerOf(this.env);
    for (const b of batches) {
      await store.append(runId, b, { expectedSeq: b[0]!.seq - 1, lease }, "running");
      if (durability === "sync") await this.ctx.storage.sync();
      else await peer.ping();
    }
    return n;
  }

  /** One small insert, for a baseline driven from the Worker (the reply, held by the output gate, confirms it). */
  rawInsert(): number {
    const sql = this.ctx.storage.sql;
    sql.exec("CREATE TABLE IF NOT EXISTS bench_raw (seq INTEGER PRIMARY KEY AUTOINCREMENT, body TEXT NOT NULL)");
    this.ctx.storage.transactionSync(() => sql.exec("INSERT INTO bench_raw (body) VALUES (?)", SMALL));
    return 1;
  }

  /** What the runs in this object counted since the last call. */
  benchCounts(): { appends: number; confirms: number } {
    const c = { ...counts };
    reset();
    return c;
  }

  ping(): string {
    return "pong";
  }
}
export { RunIndex };

const ok = (seq: number, extra: Record<string, number> = {}) => Response.json({ status: "completed", seq, ...extra });

export default {
  async fetch(request: Request, env: WorkerEnv): Promise<Response> {
    const url = new URL(request.url);
    const name = url.searchParams.get("object")!;
    const n = Number(url.searchParams.get("steps"));
    const durability = (url.searchParams.get("durability") ?? "sync") as Durability;
    const sideEffect = (url.searchParams.get("class") ?? "local_mutation") as SideEffect;
    const object = env.RUNS.getByName(name) as unknown as RunObject;
    if (url.pathname === "/raw") {
      await object.benchRaw(n, durability, Number(url.searchParams.get("writes") ?? 1), url.searchParams.get("confirm") !== "no");
      return ok(3 + 4 * n + 1);
    }
    if (url.pathname === "/append") {
      await object.benchAppend(name as RunId, n, durability);
      return ok(3 + 4 * n + 1);
    }
    if (url.pathname === "/raw-rpc") {
      // The baseline of a driver over RPC: `writes` RPCs a step from this
      // Worker, each one insert in the run's object, answered once confirmed.
      const writes = Number(url.searchParams.get("writes") ?? 1);
      for (let k = 0; k < n * writes; k++) await object.rawInsert();
      return ok(3 + 4 * n + 1);
    }
    if (url.pathname === "/hosted") {
      // The object drives its own run: no RPC per step.
      const stub = runObject(env.RUNS, name);
      await object.benchCounts();
      unwire(await stub.host(name as RunId, { steps: n, durability, sideEffect }));
      const outcome = unwire(await stub.hostDrive());
      const state = outcome ?? unwire(await stub.hostState(name as RunId));
      const counted = await object.benchCounts();
      return Response.json({ status: state.status, seq: state.seq, appends: counted.appends, confirms: counted.confirms });
    }
    if (url.pathname === "/remote") {
      // A driver in this Worker: every append and lease call is an RPC to the run's object, whose reply the output gate holds.
      await object.benchCounts();
      const driver = createDriver({ store: durableObjectStore({ runs: env.RUNS, index: env.RUN_INDEX }), agent: agentFor(n), tools: toolsFor(env, "sync", sideEffect), limits: { maxSteps: n + 1 } });
      const outcome = await driver.start({ steps: n, durability: "sync", sideEffect }, { runId: name as RunId });
      // Each append's reply is held until it is confirmed: every append is a confirmation.
      const { appends } = await object.benchCounts();
      return Response.json({ status: outcome.status, seq: outcome.seq, appends, confirms: appends });
    }
    return new Response("not found", { status: 404 });
  },
};
