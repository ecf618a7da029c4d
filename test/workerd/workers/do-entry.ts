/**
 * The Worker the Durable Object tests run in workerd: the run object hosting
 * crash scenarios (a crash plan that resets the object with state.abort()),
 * the index, the HTTP app, and a route that exposes the Store over RPC to the
 * conformance suite running in Node.
 *
 * Two worlds (the list the tool appends to, and the log of executions):
 * - in the isolate's memory, outside the object (runs without "gate" in
 *   their id): a reset throws away the object's unconfirmed writes, not the
 *   world's, as a real crash would not undo an effect elsewhere. No output
 *   gate stands between the tool and that memory, so these runs use
 *   durability "sync".
 * - in another Durable Object reached over RPC (runs with "gate" in their
 *   id): the effect is a message leaving the object, held by the output gate
 *   until the call's start is confirmed, so these runs use the default,
 *   durability "output-gate".
 * The marks of crashes already made are in memory (the harness's, not the run's).
 */
import { DurableObject } from "cloudflare:workers";
import { runObjectClass, sqlWorkspace, durableObjectStore, RunIndex, workerApp, wire, type HostContext, type WorkerEnv } from "../../../adapters/durable-object/index.js";
import {
  call,
  calls,
  createDriver,
  defineTool,
  final,
  scriptedAgent,
  isIsoagentError,
  rulesPolicy,
  strictObject,
  string,
  type RunId,
  type JournalEvent,
  type JsonValue,
  type SideEffect,
  type Store,
  type Tool,
} from "../../../src/index.js";
import { SIDE_EFFECTS } from "../../../src/tools/index.js";
import { seal, type RunCreated } from "../../../src/journal/index.js";
import type { FaultPoint } from "../../../src/testkit/index.js";
import { listScenario, type WorldStorage } from "../../../src/testkit/index.js";
import { RunSql } from "../../../adapters/durable-object/sql.js";
import type { Remote } from "./remote.js";

const FAULT: Record<string, FaultPoint> = {
  before_started: "before_start_append",
  after_started: "after_start_append",
  after_effect: "after_effect",
  after_finished: "after_finish_append",
};

/** The outside world, per run: survives the object's reset. */
const WORLD = new Map<string, string>();
const PLANS = new Map<string, string>();
const CRASHED = new Set<string>();
/** Operator crashes: a run's object is reset once at `<op>/<point>` of an operator's operation on it. */
const OP_PLANS = new Map<string, string>();
const OP_CRASHED = new Set<string>();
/** Drives held once they have finished their pass, until the test lets them go (`hold`, then `release`). */
const HOLDS = new Map<string, { promise: Promise<void>; release: () => void }>();
const LOGS = new Map<string, JsonValue[]>();

function world(runId: string): WorldStorage {
  return { getItem: (k) => WORLD.get(`${runId}/${k}`) ?? null, setItem: (k, v) => void WORLD.set(`${runId}/${k}`, v) };
}

/** Run ids or tasks say the scenario: crash_<side effect>_<point>, plain_<side effect>, or a task "ask <side effect>". */
function sideEffectOf(hc: HostContext<Env>): SideEffect {
  const said = `${hc.runId} ${JSON.stringify(hc.task)}`;
  return SIDE_EFFECTS.find((s) => said.includes(s)) ?? "read_only";
}

const scenario = (hc: HostContext<Env>) => listScenario(sideEffectOf(hc), { storage: world(hc.runId), prefix: "world" });

/** A conversation's agent (a task "ask chat ..."): "add <item>" adds it (an approval), anything else is answered by echoing it. */
const chatAgent = () =>
  scriptedAgent((view) => {
    const last = view.transcript[view.transcript.length - 1];
    if (last?.type !== "user") return final("added");
    const m = /^add (\w+)$/.exec(last.text);
    return m === null ? final(`you said: ${last.text}`) : calls(call("add_item", { item: m[1]! }));
  });
const chatting = (hc: HostContext<Env>): boolean => typeof hc.task === "string" && hc.task.startsWith("ask chat");

type Env = WorkerEnv & {
  readonly WORLD: DurableObjectNamespace<World>;
  readonly WORKSPACES: DurableObjectNamespace<WorkspaceObject>;
  readonly SQL_PROBE: DurableObjectNamespace<SqlProbe>;
  readonly SQL_PROBE_V2: DurableObjectNamespace<SqlProbeV2>;
  readonly INDEX_PROBE: DurableObjectNamespace<IndexProbe>;
};

/** A workspace in an object's SQLite storage, reached over RPC by the workspace tool cases running in Node. */
export class WorkspaceObject extends DurableObject {
  private ws = sqlWorkspace(this.ctx.storage);
  read(path: string) {
    return this.ws.read(path);
  }
  list(prefix: string) {
    return this.ws.list(prefix);
  }
  commit(changes: { path: string; bytes: Uint8Array | null }[], receipt?: { key: string; result: string }) {
    return this.ws.commit(changes, receipt);
  }
  receipt(key: string) {
    return this.ws.receipt(key);
  }
}
/**
 * An object whose storage is written as version 1 of the run store wrote it
 * (one event per row, the head in the meta row), then opened by today's
 * RunSql: what a deployed run object meets after an upgrade of the code.
 */
export class SqlProbe extends DurableObject {
  fromV1() {
    const sql = this.ctx.storage.sql;
    const runId = "v1_run" as RunId;
    const first = seal({ v: 1, at: 5, type: "run.created", runId, task: "from v1", tools: [], limits: { maxSteps: 1, maxConsecutiveFailures: 1, runTimeoutMs: 0 } }, 1, "") as RunCreated;
    const second = seal({ v: 1, at: 6, type: "run.cancelled", reason: "by v1" } as never, 2, first.hash);
    sql.exec("CREATE TABLE schema_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)");
    sql.exec("INSERT INTO schema_version (id, version) VALUES (1, 1)");
    sql.exec("CREATE TABLE meta (k TEXT PRIMARY KEY, v TEXT NOT NULL)");
    sql.exec("CREATE TABLE events (seq INTEGER PRIMARY KEY, body TEXT NOT NULL)");
    sql.exec("INSERT INTO events (seq, body) VALUES (1, ?), (2, ?)", JSON.stringify(first), JSON.stringify(second));
    sql.exec("INSERT INTO meta (k, v) VALUES ('run', ?)", JSON.stringify({ runId, status: "cancelled", createdAt: 5, updatedAt: 6, seq: 2, head: second.hash, tokens: 4 }));
    const opened = new RunSql(this.ctx.storage, () => 100);
    const before = { summary: opened.summary(), hashes: opened.read(runId).map((e) => e.hash) };
    // An append after the upgrade lands as one row, and a new incarnation reads its head from it.
    const third = seal({ v: 1, at: 7, type: "run.cancelled", reason: "after the upgrade" } as never, 3, second.hash);
    const head = opened.append(runId, [third as JournalEvent], { expectedSeq: 2 }, "failed");
    const reopened = new RunSql(this.ctx.storage, () => 100);
    return {
      before,
      head,
      after: { summary: reopened.summary(), seqs: reopened.read(runId, 2).map((e) => e.seq), rows: sql.exec<{ n: number }>("SELECT count(*) AS n FROM events").one().n },
      expected: { hashes: [first.hash, second.hash], third: third.hash },
    };
  }
}

/**
 * An object whose storage is written as version 2 of the run store wrote it
 * (one row per append, each a JSON array of whole events, with the status
 * after it), then opened by today's RunSql (v3, lean rows).
 */
export class SqlProbeV2 extends DurableObject {
  fromV2() {
    const sql = this.ctx.storage.sql;
    const runId = "v2_run" as RunId;
    const first = seal({ v: 2, at: 5, type: "run.created", runId, task: { from: "v2" }, tools: [], limits: { maxSteps: 9, maxConsecutiveFailures: 1, runTimeoutMs: 0 } }, 1, "") as RunCreated;
    const resumed = seal({ v: 2, at: 6, type: "run.resumed", owner: "o", token: 1 } as never, 2, first.hash);
    const decided = seal({ v: 2, at: 7, type: "step.decided", step: 1, decision: { kind: "calls", calls: [{ callId: "s1c1", name: "note", args: "{}" }] } } as never, 3, resumed.hash);
    sql.exec("CREATE TABLE schema_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)");
    sql.exec("INSERT INTO schema_version (id, version) VALUES (1, 2)");
    sql.exec("CREATE TABLE meta (k TEXT PRIMARY KEY, v TEXT NOT NULL)");
    sql.exec("CREATE TABLE events (seq INTEGER PRIMARY KEY, body TEXT NOT NULL, status TEXT)");
    sql.exec("INSERT INTO events (seq, body, status) VALUES (1, ?, 'running'), (2, ?, 'running')", JSON.stringify(first), JSON.stringify([resumed, decided]));
    sql.exec("INSERT INTO meta (k, v) VALUES ('run', ?)", JSON.stringify({ runId, status: "running", createdAt: 5, updatedAt: 5, seq: 1, head: first.hash, tokens: 1 }));
    const opened = new RunSql(this.ctx.storage, () => 100);
    const version = sql.exec<{ version: number }>("SELECT version FROM schema_version").one().version;
    const before = { summary: opened.summary(), events: opened.read(runId).map((e) => JSON.stringify(e)), task: opened.task() };
    // An append after the upgrade is one lean row; a new incarnation reads its head from it, and every row back exactly.
    const permission = seal({ v: 2, at: 8, type: "call.permission", step: 1, callId: "s1c1", permission: "allow", source: "spec", sideEffect: "read_only" } as never, 4, decided.hash);
    const started = seal({ v: 2, at: 8, type: "call.started", step: 1, callId: "s1c1", attempt: 1, idempotencyKey: "v2_run:1:s1c1" } as never, 5, permission.hash);
    const lease = opened.acquireLease(runId, "o", 60_000)!;
    const head = opened.append(runId, [permission, started] as JournalEvent[], { expectedSeq: 3, lease }, "running");
    const reopened = new RunSql(this.ctx.storage, () => 100);
    const row = sql.exec<{ body: string }>("SELECT body FROM events WHERE seq = 4").one();
    return {
      version,
      before,
      head,
      after: {
        summary: reopened.summary(),
        events: reopened.read(runId).map((e) => JSON.stringify(e)),
        fromMiddle: reopened.read(runId, 5).map((e) => e.seq),
        fromOld: reopened.read(runId, 3).map((e) => e.seq),
      },
      row: JSON.parse(row.body) as unknown,
      expected: {
        events: [first, resumed, decided].map((e) => JSON.stringify(e)),
        appended: [permission, started].map((e) => JSON.stringify(e)),
        hashes: [permission.hash, started.hash],
        prev: decided.hash,
      },
    };
  }
}

/**
 * An index whose table was made before runs had titles: opened by today's
 * RunIndex, which adds the column; old rows list without a title until
 * their run reports one, and a title, once kept, stays.
 */
export class IndexProbe extends RunIndex {
  constructor(ctx: DurableObjectState, env: Env) {
    // The table as the index made it before titles, with a run in it; then today's RunIndex opens it.
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS runs (runId TEXT PRIMARY KEY, status TEXT NOT NULL, createdAt INTEGER NOT NULL, updatedAt INTEGER NOT NULL, seq INTEGER NOT NULL)");
    // The columns named: constructed again (an alarm wakes the object), the table has today's columns too.
    ctx.storage.sql.exec("INSERT OR IGNORE INTO runs (runId, status, createdAt, updatedAt, seq) VALUES ('old_run', 'waiting', 1, 2, 3)");
    super(ctx, env);
  }
  async fromBeforeTitles() {
    const before = this.list();
    await this.report({ runId: "old_run" as RunId, status: "waiting", createdAt: 1, updatedAt: 3, seq: 4, title: "Summarise notes" });
    await this.report({ runId: "old_run" as RunId, status: "completed", createdAt: 1, updatedAt: 4, seq: 5, title: "another" });
    return { before, after: this.list() };
  }
}

const gated = (runId: string): boolean => runId.includes("gate");

/** The outside world as another object: the list, keyed by idempotency key, and the log of executions. */
export class World extends DurableObject {
  private kv(): WorldStorage {
    const sql = this.ctx.storage.sql;
    sql.exec("CREATE TABLE IF NOT EXISTS kv (k TEXT PRIMARY KEY, v TEXT NOT NULL)");
    return {
      getItem: (k) => sql.exec<{ v: string }>("SELECT v FROM kv WHERE k = ?", k).toArray()[0]?.v ?? null,
      setItem: (k, v) => void sql.exec("INSERT OR REPLACE INTO kv (k, v) VALUES (?, ?)", k, v),
    };
  }
  /** One execution of add_item: listScenario's own tool, on this object's storage (the world of `runId`). */
  async add(runId: string, key: string, item: string, sideEffect: SideEffect): Promise<JsonValue> {
    const kv = this.kv();
    kv.setItem(`${runId}:log`, JSON.stringify([...(JSON.parse(kv.getItem(`${runId}:log`) ?? "[]") as JsonValue[]), { tool: "add_item", key, sideEffect }]));
    const [tool] = listScenario(sideEffect, { storage: kv, prefix: runId }).setup().tools;
    return (await tool!.call({ item } as never, { idempotencyKey: key } as Parameters<Tool<never, unknown>["call"]>[1])) as JsonValue;
  }
  state(runId: string): { world: JsonValue; log: JsonValue } {
    const kv = this.kv();
    return { world: { items: JSON.parse(kv.getItem(`${runId}:items`) ?? "[]") as JsonValue }, log: JSON.parse(kv.getItem(`${runId}:log`) ?? "[]") as JsonValue };
  }
}

/** listScenario's add_item, acting on the World object over RPC. */
function gatedTools(hc: HostContext<Env>): Tool<never, unknown>[] {
  const sideEffect = sideEffectOf(hc);
  const world = hc.env.WORLD.getByName("world") as unknown as Remote<World>; // (RPC stub types recurse too deep for the compiler)
  const addItem = defineTool<{ item: string }>({
    name: "add_item",
    description: "Add an item to the list.",
    inputSchema: strictObject({ item: string("The item") }),
    sideEffect,
    ...(sideEffect === "read_only" ? {} : { permission: "allow" as const }),
    timeoutMs: 1000,
    call: async (args, ctx) => {
      const result = await world.add(hc.runId, ctx.idempotencyKey, args.item, sideEffect);
      crashOnce(hc, "during_effect");
      return result;
    },
  });
  return [addItem as Tool<never, unknown>];
}

/** Crashes (resets the object, losing what it has not confirmed) once, where the plan says. */
function crashOnce(hc: HostContext<Env>, point: string): void {
  if (PLANS.get(hc.runId) !== point || CRASHED.has(hc.runId)) return;
  CRASHED.add(hc.runId);
  hc.state.abort(`crash at ${point}`);
}

/** Runs whose next deployment offers one more tool (a changed shape): survives the object's reset. */
const RESHAPED = new Set<string>();

/** How far the run objects' store clock is ahead of the real one (the conformance suite moves it instead of sleeping). */
let CLOCK_AHEAD = 0;

const Base = runObjectClass<Env>({
  leaseTtlMs: 400,
  clock: () => Date.now() + CLOCK_AHEAD,
  // "unsafe_" runs: the output gate trusted with an effect it does not hold
  // back (the world in memory), to show that the crash matrix sees it.
  durability: (hc) => (gated(hc.runId) || hc.runId.startsWith("unsafe_") ? "output-gate" : "sync"),
  agent: (hc) => (chatting(hc) ? chatAgent() : scenario(hc).agent()),
  tools: (hc) =>
    gated(hc.runId)
      ? gatedTools(hc)
      : scenario(hc)
          .setup()
          .tools.map(
            (t) =>
              ({
                ...t,
                call: async (args: never, ctx: Parameters<Tool<never, unknown>["call"]>[1]) => {
                  LOGS.set(hc.runId, [...(LOGS.get(hc.runId) ?? []), { tool: t.name, key: ctx.idempotencyKey, sideEffect: t.sideEffect }]);
                  const result = await t.call(args, ctx);
                  crashOnce(hc, "during_effect");
                  return result;
                },
              }) as Tool<never, unknown>,
          )
          .concat(
            RESHAPED.has(hc.runId)
              ? [
                  defineTool({
                    name: "erase",
                    description: "Erase everything.",
                    inputSchema: strictObject({}),
                    sideEffect: "destructive",
                    permission: "ask",
                    timeoutMs: 1000,
                    call: () => "erased",
                  }) as Tool<never, unknown>,
                ]
              : [],
          ),
  policy: (hc) => rulesPolicy(typeof hc.task === "string" && hc.task.startsWith("ask ") ? [{ tool: "add_item", permission: "ask" }] : []),
  hostFaults: (hc) => ({
    at: async (point) => {
      const held = HOLDS.get(hc.runId);
      if (point === "drive/finished" && held !== undefined) await held.promise;
      if (OP_PLANS.get(hc.runId) !== point || OP_CRASHED.has(hc.runId)) return;
      OP_CRASHED.add(hc.runId);
      hc.state.abort(`crash at ${point}`);
    },
  }),
  faults: (hc) => ({
    at: (point, where) => {
      if (where.tool !== "add_item") return;
      const plan = PLANS.get(hc.runId);
      if (plan !== undefined && FAULT[plan] === point) crashOnce(hc, plan);
    },
  }),
});

export class RunObject extends Base {
  /** The Store the object's own host drives its run on, for the conformance suite (its runs are not hosted: no alarm drives them). */
  testLocal(method: string, args: unknown[]): Promise<unknown> {
    // (protected in the class runObjectClass returns, which its declared type does not show)
    const host = this as unknown as { localStore(sync: boolean, hosted: boolean): Record<string, (...a: unknown[]) => Promise<unknown>> };
    const store = host.localStore(false, false);
    return wire(() => store[method]!(...args));
  }
  /** Sets where the hosted run will crash: at a point around its tool's effect, or (`op/point`) in an operator's operation. */
  testPlan(runId: string, point: string | null): void {
    if (point === null) return;
    if (point.includes("/")) OP_PLANS.set(runId, point);
    else PLANS.set(runId, point);
  }
  /** Holds the run's next drive once it has finished its pass; `release` lets it go. */
  testHold(runId: string, release: boolean): void {
    if (release) return void HOLDS.get(runId)?.release();
    let let_go!: () => void;
    const promise = new Promise<void>((r) => (let_go = r));
    HOLDS.set(runId, {
      promise,
      release: () => {
        HOLDS.delete(runId);
        let_go();
      },
    });
  }
  /** The next incarnation of the run's object offers one more tool (a deployment that changed its tools): resets the object. */
  testReshape(runId: string): void {
    RESHAPED.add(runId);
    this.ctx.abort("reshaped");
  }
  /** Drops the object's alarm, as a lost one would be. */
  async testDropAlarm(): Promise<void> {
    await this.ctx.storage.deleteAlarm();
  }
  /** The scenario's world, the log of executions, and whether the planned crash happened. */
  async testWorld(runId: string): Promise<{ world: JsonValue; log: JsonValue; crashed: boolean; operatorCrashed?: boolean }> {
    if (gated(runId)) return { ...(await (this.env.WORLD.getByName("world") as unknown as Remote<World>).state(runId)), crashed: CRASHED.has(runId) };
    return { world: { items: JSON.parse(world(runId).getItem("world:items") ?? "[]") as JsonValue }, log: LOGS.get(runId) ?? [], crashed: CRASHED.has(runId), operatorCrashed: OP_CRASHED.has(runId) };
  }
}
export { RunIndex };

// ---- the Store over HTTP, for the conformance suite in Node ---------------------

function decode(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(decode);
  if (v !== null && typeof v === "object") {
    const o = v as Record<string, unknown>;
    if (typeof o["__bytes"] === "string") return Uint8Array.from(atob(o["__bytes"]), (c) => c.charCodeAt(0));
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, decode(x)]));
  }
  return v;
}
function encode(v: unknown): unknown {
  if (v instanceof Uint8Array) return { __bytes: btoa(String.fromCharCode(...v)) };
  if (Array.isArray(v)) return v.map(encode);
  if (v !== null && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, encode(x)]));
  return v;
}

export default {
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname.startsWith("/test/store/")) {
      const method = url.pathname.slice("/test/store/".length) as keyof Store;
      const store = durableObjectStore({ runs: env.RUNS, index: env.RUN_INDEX });
      const args = decode(await request.json()) as unknown[];
      try {
        const value = await (store[method] as (...a: unknown[]) => Promise<unknown>)(...args);
        return Response.json({ ok: true, value: encode(value ?? null) });
      } catch (e) {
        if (!isIsoagentError(e)) throw e;
        return Response.json({ ok: false, error: { code: e.code, message: e.message, actualSeq: (e as { actualSeq?: number }).actualSeq } });
      }
    }
    if (url.pathname.startsWith("/test/local/")) {
      // The run object's local store (its host's), reached in the object of
      // the run each call names: one run per object.
      const method = url.pathname.slice("/test/local/".length);
      const args = decode(await request.json()) as unknown[];
      const first = args[0] as { runId?: string } | string | undefined;
      const runId = typeof first === "string" ? first : (first?.runId ?? null);
      // A run-less call (artifacts, listing) may go to any object.
      const stub = env.RUNS.getByName(runId ?? "local-store-any") as unknown as Remote<RunObject>;
      const r = (await stub.testLocal(method, args)) as { ok: boolean; value?: unknown; error?: unknown };
      return Response.json(r.ok ? { ok: true, value: encode(r.value ?? null) } : r);
    }
    if (url.pathname.startsWith("/test/workspace/")) {
      const [, , , name, method] = url.pathname.split("/");
      const stub = env.WORKSPACES.getByName(name!) as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
      const args = decode(await request.json()) as unknown[];
      return Response.json({ value: encode((await stub[method!]!(...args)) ?? null) });
    }
    if (url.pathname === "/test/remote-drive") {
      // A driver in this Worker, not in the run's object: the store is reached over RPC, with leases.
      const s = listScenario("remote_mutation");
      const world = s.setup();
      const driver = createDriver({ store: durableObjectStore({ runs: env.RUNS, index: env.RUN_INDEX }), agent: s.agent(), tools: world.tools, owner: "worker-driver" });
      const outcome = await driver.start(s.task, { runId: url.searchParams.get("runId") as RunId });
      const events = await driver.events(outcome.runId);
      return Response.json({ status: outcome.status, world: world.state(), types: events.map((e) => e.type), owners: events.flatMap((e) => (e.type === "run.resumed" ? [e.owner] : [])) });
    }
    if (url.pathname === "/test/clock/advance") {
      CLOCK_AHEAD += Number(((await request.json()) as { ms: number }).ms);
      return Response.json({ ok: true });
    }
    if (url.pathname === "/test/index/stranded") {
      // The index's check of every run it lists as not ended (lease, alarm, journal status), healing nothing.
      return Response.json(await env.RUN_INDEX.getByName("index").stranded({ graceMs: Number(url.searchParams.get("grace") ?? 0) }));
    }
    if (url.pathname === "/test/index/sweep") {
      return Response.json(await env.RUN_INDEX.getByName("index").sweep());
    }
    if (url.pathname === "/test/sql-from-v2") {
      return Response.json(await (env.SQL_PROBE_V2.getByName(crypto.randomUUID()) as unknown as Remote<SqlProbeV2>).fromV2());
    }
    if (url.pathname === "/test/sql-from-v1") {
      return Response.json(await (env.SQL_PROBE.getByName(crypto.randomUUID()) as unknown as Remote<SqlProbe>).fromV1());
    }
    if (url.pathname === "/test/index-from-before-titles") {
      return Response.json(await (env.INDEX_PROBE.getByName(crypto.randomUUID()) as unknown as IndexProbe).fromBeforeTitles());
    }
    if (url.pathname === "/test/codegen") {
      try {
        return new Response(String(new Function("return 'allowed'")()));
      } catch (e) {
        return new Response(`refused: ${(e as Error).message}`);
      }
    }
    if (url.pathname.startsWith("/test/run/")) {
      const [, , , runId, action] = url.pathname.split("/");
      const stub = env.RUNS.getByName(runId!) as unknown as Remote<RunObject>;
      const body = request.method === "POST" ? ((await request.json()) as { point?: string; task?: JsonValue }) : {};
      if (action === "plan") await stub.testPlan(runId!, body.point ?? null);
      if (action === "world") return Response.json(await stub.testWorld(runId!));
      if (action === "hold" || action === "release") await stub.testHold(runId!, action === "release");
      if (action === "drop-alarm") await stub.testDropAlarm();
      if (action === "streams") return Response.json(await stub.hostStreams());
      if (action === "reshape") {
        // (The object resets itself: the call's reply is the reset's error.)
        try {
          await stub.testReshape(runId!);
        } catch {}
      }
      if (action === "host") {
        // The run is created before it is driven; a crash planned early may
        // reset the object before its reply leaves, which the caller sees.
        try {
          return Response.json(await stub.host(runId as never, body.task ?? "t"));
        } catch (e) {
          const message = String((e as Error).message);
          if (!message.startsWith("crash at ")) throw e;
          return Response.json({ ok: true, value: runId, resetBeforeReply: message });
        }
      }
      return Response.json({ ok: true });
    }
    return workerApp(env).fetch(request, env, ctx);
  },
};
