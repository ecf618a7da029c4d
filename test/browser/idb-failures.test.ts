import { deleteDB, openDB } from "idb";
import { afterEach, describe, expect, it } from "vitest";
import { idbStore } from "../../adapters/idb/index.js";
import { UPGRADES, type IsoagentDBAny } from "../../adapters/idb/schema.js";
import { call, calls, createDriver, defineTool, final, isIsoagentError, scriptedAgent, strictObject, string, type Tool } from "../../src/index.js";
import { verifyChain } from "../../src/journal/index.js";
import { manualClock, sequentialIds } from "../../src/testkit/index.js";

let n = 0;
const names: string[] = [];
const fresh = (): string => {
  const name = `failures-${Date.now()}-${++n}`;
  names.push(name);
  return name;
};
afterEach(async () => {
  for (const name of names.splice(0)) await deleteDB(name).catch(() => {});
});

const note = (effect: () => void | Promise<void>) =>
  defineTool<{ text: string }>({
    name: "note",
    description: "Write a note.",
    inputSchema: strictObject({ text: string() }),
    sideEffect: "local_mutation",
    permission: "allow",
    timeoutMs: 5_000,
    call: async (a) => {
      await effect();
      return { noted: a.text };
    },
  }) as Tool<never, unknown>;

const script = () => scriptedAgent([calls(call("note", { text: "one" })), calls(call("note", { text: "two" })), final("ok")]);

describe("IndexedDB failures: typed errors, nothing half-written, the driver stops cleanly", () => {
  it("quota exhausted in the middle of an append", async () => {
    const name = fresh();
    const store = idbStore({ name });
    const original = IDBObjectStore.prototype.add;
    let calls = 0;
    const driver = createDriver({
      store,
      ids: sequentialIds(),
      agent: script(),
      tools: [
        note(() => {
          // From the first note's outcome on, the second event of any batch
          // fails as if the disk were full.
          IDBObjectStore.prototype.add = function (this: IDBObjectStore, ...args: Parameters<IDBObjectStore["add"]>) {
            if (++calls % 2 === 0) throw new DOMException("The quota has been exceeded.", "QuotaExceededError");
            return original.apply(this, args);
          };
        }),
      ],
    });
    let outcome;
    try {
      outcome = await driver.start("t");
    } finally {
      IDBObjectStore.prototype.add = original;
    }
    expect(outcome.stopped).toBe("store_error");
    expect(outcome.error?.code).toBe("STORE_QUOTA_EXCEEDED");
    const events = await store.read(outcome.runId);
    verifyChain(events);
    // The first note's outcome was written alone; the next batch failed at
    // its second event and left nothing of itself.
    expect(events.map((e) => e.type)).toEqual(["run.created", "run.resumed", "step.decided", "call.permission", "call.started", "call.finished"]);
    store.close();
  });

  it("the database deleted underneath by another tab", async () => {
    const name = fresh();
    const store = idbStore({ name });
    let deleted!: Promise<void>;
    const driver = createDriver({
      store,
      agent: script(),
      tools: [
        note(async () => {
          deleted = deleteDB(name);
          await deleted;
        }),
      ],
    });
    const outcome = await driver.start("t");
    expect(outcome.stopped).toBe("store_error");
    expect(outcome.error).toEqual({ code: "STORE_CLOSED", message: expect.stringContaining(`database ${name} was closed because another tab is upgrading or deleting it; reload the page`) });
    await expect(store.listRuns()).rejects.toSatisfy((e: unknown) => isIsoagentError(e, "STORE_CLOSED"));
  });

  it("an upgrade blocked by a tab holding an older version open", async () => {
    const name = fresh();
    const old = await openDB<IsoagentDBAny>(name, 1, { upgrade: (d, _o, _n, tx) => void UPGRADES[1]!(d, tx) });
    // This "tab" ignores versionchange, as an old page would.
    const store = idbStore({ name, clock: manualClock() });
    await expect(store.listRuns()).rejects.toSatisfy((e: unknown) => isIsoagentError(e, "STORE_BLOCKED"));
    old.close();
  });

  it("two connections (two tabs) on one database: exactly one holds a run", async () => {
    const name = fresh();
    const clock = manualClock();
    const tabA = idbStore({ name, clock });
    const tabB = idbStore({ name, clock });
    const runId = await createDriver({ store: tabA, agent: script(), tools: [note(() => {})], ids: sequentialIds() }).create("t");
    const a = await tabA.acquireLease(runId, "tab-a", 1000);
    expect(a).not.toBeNull();
    expect(await tabB.acquireLease(runId, "tab-b", 1000)).toBeNull();
    // Tab A is closed: its lease expires, and tab B takes the run over.
    tabA.close();
    clock.advance(1001);
    const b = await tabB.acquireLease(runId, "tab-b", 1000);
    expect(b!.token).toBeGreaterThan(a!.token);
    tabB.close();
  });
});
