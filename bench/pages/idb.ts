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
import { call, calls, createDriver, defineTool, final, parseRunId, scriptedAgent, seal, strictObject, type JournalEvent, type RunCreated, type SideEffect, type Tool, type UnsealedEvent } from "../../src/index.js";

declare global {
  interface Window {
    bench: typeof bench;
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

  /** ms for `n` appends of a read-only step's batch (four events, ~1.2 KB as the driver hands them over), the lease held; sealed before the clock starts. */
  async append(n: number, durability: Durability): Promise<number> {
    const name = `append-${durability}-${++round}`;
    const store = idbStore({ name, durability });
    const runId = parseRunId(`run_bench_${round}`);
    const first = seal({ v: 2, at: 1, type: "run.created", runId, task: "bench", tools: [{ name: "touch", specHash: "0".repeat(64) }], limits: { maxSteps: 0, maxConsecutiveFailures: 3, runTimeoutMs: 0 } }, 1, "") as RunCreated;
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

window.bench = bench;
document.body.dataset["ready"] = "yes";
