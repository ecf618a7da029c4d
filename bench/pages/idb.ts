/**
 * The IndexedDB bench, in the page. Contenders, each on a fresh database:
 * - `raw`: n transactions of one ~100-byte put each (the baseline);
 * - `append`: n appends of the store, each the batch a read-only step
 *   writes (four sealed events), with the lease held: the journal write itself;
 * - `driver`: a run of n steps of one call class (read_only, or
 *   local_mutation), every event journaled with its hash chain.
 * Every readwrite transaction the page opens is counted, so a driver run says
 * how many transactions its steps took. The node side alternates them round
 * by round.
 */
import { openDB } from "idb";
import { idbStore } from "../../adapters/idb/index.js";
import { encodeRecord } from "../../adapters/idb/schema.js";
import { call, calls, createDriver, defineTool, final, parseRunId, scriptedAgent, strictObject, type JournalEvent, type SideEffect, type Tool } from "../../src/index.js";
import { seal, type RunCreated, type UnsealedEvent } from "../../src/journal/index.js";

declare global {
  interface Window {
    bench: typeof bench;
    scale: typeof scale;
  }
}

type Durability = "strict" | "relaxed";

// Every readwrite transaction, whoever opens it (idb calls the native method).
let transactions = 0;
const native = IDBDatabase.prototype.transaction;
IDBDatabase.prototype.transaction = function (this: IDBDatabase, ...args: Parameters<IDBDatabase["transaction"]>) {
  if (args[1] === "readwrite") transactions++;
  return native.apply(this, args);
} as IDBDatabase["transaction"];

const tool = (sideEffect: SideEffect): Tool<never, unknown> =>
  defineTool({ name: "touch", description: "Do nothing.", inputSchema: strictObject({}), sideEffect, permission: "allow", timeoutMs: 10_000, call: () => "ok" }) as Tool<never, unknown>;
let round = 0;

/** A ~100-byte record. */
const small = (k: number) => ({ k, text: "a small value of about one hundred bytes, as a run's record or a counter would be" });

/** Deletes a database and waits until it is gone, so the next sample does not pay for it. */
const drop = (name: string): Promise<void> =>
  new Promise((resolve) => {
    const r = indexedDB.deleteDatabase(name);
    r.onsuccess = r.onerror = r.onblocked = () => resolve();
  });

/** The four events a read-only step appends (the previous call's outcome, the decision, its permission, its start), sealed after `head`. */
function stepBatch(runId: string, step: number, head: { seq: number; hash: string }): JournalEvent[] {
  const callId = `s${step}c1`;
  const at = 1_800_000_000_000 + step;
  const events: UnsealedEvent[] = [
    { v: 2, at, type: "call.finished", step: step - 1, callId: `s${step - 1}c1`, attempt: 1, observation: { type: "result", content: "ok" } } as unknown as UnsealedEvent,
    { v: 2, at, type: "step.decided", step, decision: { kind: "calls", calls: [{ callId, name: "touch", args: "{}" }] } } as unknown as UnsealedEvent,
    { v: 2, at, type: "call.permission", step, callId, permission: "allow", source: "spec", sideEffect: "read_only" } as unknown as UnsealedEvent,
    { v: 2, at, type: "call.started", step, callId, attempt: 1, idempotencyKey: `${runId}:${step}:${callId}` } as unknown as UnsealedEvent,
  ];
  const out: JournalEvent[] = [];
  let prev = head;
  for (const e of events) {
    const s = seal(e, prev.seq + 1, prev.hash);
    out.push(s);
    prev = s;
  }
  return out;
}

const bench = {
  /** ms for `n` transactions of one ~100-byte put each. */
  async raw(n: number, durability: Durability): Promise<number> {
    const name = `raw-${durability}-${++round}`;
    const db = await openDB(name, 1, { upgrade: (d) => void d.createObjectStore("kv") });
    const t = performance.now();
    for (let k = 0; k < n; k++) {
      const tx = db.transaction("kv", "readwrite", { durability });
      void tx.store.put(small(k), k);
      await tx.done;
    }
    const ms = performance.now() - t;
    db.close();
    await drop(name);
    return ms;
  },

  /**
   * ms for `n` transactions each shaped as an append is, without the store:
   * the run's ~100-byte record read (`withRead`) and the same lean journal
   * record the append writes (a read-only step's four events) added, keyed
   * [run, seq]; built before the clock starts. Where an append's time goes:
   * against a raw put, the record's size and shape; against the append, the
   * store's own work.
   */
  async shaped(n: number, durability: Durability, withRead: boolean): Promise<number> {
    const name = `shaped-${durability}-${++round}`;
    const db = await openDB(name, 1, {
      upgrade: (d) => {
        d.createObjectStore("runs");
        d.createObjectStore("journal");
      },
    });
    const runId = `run_shaped_${round}`;
    await db.put("runs", small(0), runId);
    const records = [];
    let head = { seq: 1, hash: "0".repeat(64) };
    for (let k = 1; k <= n; k++) {
      const b = stepBatch(runId, k, head);
      records.push({ key: [runId, b[0]!.seq], record: encodeRecord(b, "running") });
      head = b[b.length - 1]!;
    }
    const t = performance.now();
    for (const r of records) {
      const tx = db.transaction(["runs", "journal"], "readwrite", { durability });
      if (withRead) void tx.objectStore("runs").get(runId);
      void tx.objectStore("journal").add(r.record, r.key);
      await tx.done;
    }
    const ms = performance.now() - t;
    db.close();
    await drop(name);
    return ms;
  },

  /** ms for `n` appends of a read-only step's batch (four events, ~1.2 KB as the driver hands them over), the lease held; sealed before the clock starts. */
  async append(n: number, durability: Durability): Promise<number> {
    const name = `append-${durability}-${++round}`;
    const store = idbStore({ name, durability });
    const runId = parseRunId(`run_bench_${round}`);
    const first = seal(
      { v: 2, at: 1, type: "run.created", runId, task: "bench", tools: [{ name: "touch", specHash: "0".repeat(64) }], limits: { maxSteps: 0, maxConsecutiveFailures: 3, runTimeoutMs: 0 } },
      1,
      "",
    ) as RunCreated;
    await store.createRun(first);
    const lease = (await store.acquireLease(runId, "bench", 600_000))!;
    const batches: JournalEvent[][] = [];
    let head = { seq: first.seq, hash: first.hash };
    for (let k = 1; k <= n; k++) {
      const b = stepBatch(runId, k, head);
      batches.push(b);
      head = b[b.length - 1]!;
    }
    const t = performance.now();
    for (const b of batches) await store.append(runId, b, { expectedSeq: b[0]!.seq - 1, lease }, "running");
    const ms = performance.now() - t;
    store.close();
    await drop(name);
    return ms;
  },

  /** A run of `n` steps of one call class: its time (ms) and the readwrite transactions it took. */
  async driver(n: number, durability: Durability, sideEffect: SideEffect): Promise<{ ms: number; transactions: number }> {
    const name = `driver-${durability}-${++round}`;
    const store = idbStore({ name, durability });
    // The database is opened (and made) before the clock starts, as for the other contenders.
    await store.listRuns({ limit: 1 });
    const agent = scriptedAgent((view) => (view.step <= n ? calls(call("touch")) : final("done")));
    const driver = createDriver({ store, agent, tools: [tool(sideEffect)], limits: { maxSteps: n + 1 } });
    const before = transactions;
    const t = performance.now();
    const outcome = await driver.start("bench");
    const ms = performance.now() - t;
    const counted = transactions - before;
    if (outcome.status !== "completed" || outcome.seq < 4 * n) throw new Error(`bench run ended ${outcome.status} at event ${outcome.seq}`);
    store.close();
    await drop(name);
    return { ms, transactions: counted };
  },
};

/** What a scale run found wrong with its runs (none when every step is there and every lease was honoured). */
function problemsOf(runId: string, events: readonly JournalEvent[], steps: number, owner: string): string[] {
  const out: string[] = [];
  let prev = "";
  events.forEach((e, k) => {
    if (e.seq !== k + 1 || e.prev !== prev) out.push(`${runId}: the chain breaks at event ${k + 1}`);
    prev = e.hash;
  });
  const count = (type: string) => events.filter((e) => e.type === type).length;
  if (count("call.started") !== steps || count("call.finished") !== steps) out.push(`${runId}: ${count("call.started")} starts and ${count("call.finished")} outcomes for ${steps} steps`);
  if (count("run.completed") !== 1) out.push(`${runId}: not completed once`);
  // One session, by this tab's driver: no other tab appended under a lease of its own.
  const resumed = events.filter((e) => e.type === "run.resumed") as unknown as { owner: string }[];
  if (resumed.length !== 1 || resumed[0]!.owner !== owner) out.push(`${runId}: resumed by ${resumed.map((r) => r.owner).join(", ")}`);
  return out;
}

const scale = {
  /**
   * `runs` runs of `steps` read_only steps each, on database `name`, driven
   * at once from this tab (created first, outside the clock): by one store
   * and driver (`shared`: their appends share commits), or one store and
   * driver per run (no sharing: the contrast). Returns the time, the
   * readwrite transactions and commits of appends, and what is wrong.
   */
  async driver(
    name: string,
    prefix: string,
    runs: number,
    steps: number,
    durability: Durability,
    shared: boolean,
  ): Promise<{ ms: number; transactions: number; appendCommits: number; appends: number; problems: string[] }> {
    let appendCommits = 0;
    let appends = 0;
    const onAppendCommit = (n: number) => {
      appendCommits++;
      appends += n;
    };
    const owner = `tab-${prefix}`;
    const agent = scriptedAgent((view) => (view.step <= steps ? calls(call("touch")) : final("done")));
    const make = () => {
      const store = idbStore({ name, durability, onAppendCommit });
      return { store, driver: createDriver({ store, agent, tools: [tool("read_only")], owner, limits: { maxSteps: steps + 1 } }) };
    };
    const one = make();
    const each = Array.from({ length: runs }, (_, k) => (shared || k === 0 ? one : make()));
    const ids = [];
    for (let k = 0; k < runs; k++) ids.push(await each[k]!.driver.create("scale", { runId: parseRunId(`run_${prefix}_${k}`) }));
    for (const e of each) await e.store.listRuns({ limit: 1 });
    appendCommits = appends = 0;
    const before = transactions;
    const t = performance.now();
    const outcomes = await Promise.all(ids.map((id, k) => each[k]!.driver.resume(id)));
    const ms = performance.now() - t;
    const counted = transactions - before;
    const problems: string[] = [];
    for (let k = 0; k < runs; k++) {
      if (outcomes[k]!.status !== "completed") problems.push(`${ids[k]}: ${outcomes[k]!.status}${outcomes[k]!.stopped === undefined ? "" : ` (${outcomes[k]!.stopped})`}`);
      problems.push(...problemsOf(ids[k]!, await one.store.read(ids[k]!), steps, owner));
    }
    for (const e of new Set(each)) e.store.close();
    return { ms, transactions: counted, appendCommits, appends, problems };
  },

  /** `runs` concurrent loops of `perRun` transactions of one ~100-byte put each, on database `name` (the baseline, at the same concurrency). */
  async raw(name: string, prefix: string, runs: number, perRun: number, durability: Durability): Promise<number> {
    const db = await openDB(name, 1, { upgrade: (d) => void d.createObjectStore("kv") });
    const t = performance.now();
    await Promise.all(
      Array.from({ length: runs }, async (_, r) => {
        for (let k = 0; k < perRun; k++) {
          const tx = db.transaction("kv", "readwrite", { durability });
          void tx.store.put(small(k), `${prefix}-${r}-${k}`);
          await tx.done;
        }
      }),
    );
    const ms = performance.now() - t;
    db.close();
    return ms;
  },

  drop,
};

window.bench = bench;
window.scale = scale;
document.body.dataset["ready"] = "yes";
