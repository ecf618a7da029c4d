/**
 * The IndexedDB bench, in the page: the driver's durable steps on idbStore
 * against a raw `idb` loop of one small put per transaction, with the same
 * durability. The node side alternates them round by round.
 */
import { openDB, type IDBPDatabase } from "idb";
import { idbStore } from "../../adapters/idb/index.js";
import { call, calls, createDriver, defineTool, final, scriptedAgent, strictObject, type Tool } from "../../src/index.js";

declare global {
  interface Window {
    bench: typeof bench;
  }
}

const noop = defineTool({ name: "noop", description: "Do nothing.", inputSchema: strictObject({}), sideEffect: "read_only", timeoutMs: 10_000, call: () => "ok" }) as Tool<never, unknown>;
let round = 0;

/** One journal event's worth of data, for the journal-shaped transaction. */
const event = (seq: number) => ({ v: 1, type: "call.finished", seq, at: Date.now(), step: seq, callId: `s${seq}c1`, attempt: 1, observation: { type: "result", content: "ok" }, prev: "a".repeat(64), hash: "b".repeat(64) });

/** ms for `n` calls of `one` on a fresh database (made by `upgrade`, seeded by `seed` before the clock starts, deleted after). */
async function timeTransactions(prefix: string, n: number, upgrade: (d: IDBPDatabase) => void, one: (db: IDBPDatabase, k: number) => Promise<void>, seed?: (db: IDBPDatabase) => Promise<unknown>): Promise<number> {
  const name = `${prefix}-${++round}`;
  const db = await openDB(name, 1, { upgrade });
  await seed?.(db);
  const t = performance.now();
  for (let k = 0; k < n; k++) await one(db, k);
  const ms = performance.now() - t;
  db.close();
  indexedDB.deleteDatabase(name);
  return ms;
}

const bench = {
  /** ms for `n` transactions of one small put each. */
  raw: (n: number, durability: "strict" | "relaxed"): Promise<number> =>
    timeTransactions(`raw-${durability}`, n, (d) => void d.createObjectStore("kv"), async (db, k) => {
      const tx = db.transaction("kv", "readwrite", { durability });
      void tx.objectStore("kv").put({ step: k, text: "a small value" }, k);
      await tx.done;
    }),

  /**
   * ms for `n` transactions of the journal's write shape, in one round trip
   * each as the store makes them: read one record, add a ~1 KB record of
   * four events, put a record that an index covers.
   */
  shape: (n: number, durability: "strict" | "relaxed"): Promise<number> =>
    timeTransactions(
      `shape-${durability}`,
      n,
      (d) => {
        d.createObjectStore("runs", { keyPath: "runId" }).createIndex("byUpdated", "updatedAt");
        d.createObjectStore("events", { keyPath: ["runId", "seq"] });
      },
      async (db, k) => {
        const tx = db.transaction(["runs", "events"], "readwrite", { durability });
        const read = tx.objectStore("runs").get("r").then((run) => {
          if (run === undefined) tx.abort();
        });
        const first = 4 * k + 1;
        void tx.objectStore("events").add({ runId: "r", seq: first, events: [event(first), event(first + 1), event(first + 2), event(first + 3)] });
        void tx.objectStore("runs").put({ runId: "r", seq: first + 3, updatedAt: k });
        await read;
        await tx.done;
      },
      (db) => db.put("runs", { runId: "r", seq: 0, updatedAt: 0 }),
    ),

  /** ms for a run of `n` read-only steps, every one journaled with its hash chain. */
  async driver(n: number, durability: "strict" | "relaxed"): Promise<number> {
    const name = `driver-${durability}-${++round}`;
    const store = idbStore({ name, durability });
    const agent = scriptedAgent((view) => (view.step <= n ? calls(call("noop")) : final("done")));
    const driver = createDriver({ store, agent, tools: [noop], limits: { maxSteps: n + 1 } });
    const t = performance.now();
    const outcome = await driver.start("bench");
    const ms = performance.now() - t;
    if (outcome.status !== "completed") throw new Error(`bench run ended ${outcome.status}`);
    store.close();
    indexedDB.deleteDatabase(name);
    return ms;
  },
};

window.bench = bench;
document.body.dataset["ready"] = "yes";
