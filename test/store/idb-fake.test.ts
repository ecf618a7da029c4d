import "fake-indexeddb/auto";
import { openDB } from "idb";
import { describe, expect, it } from "vitest";
import { idbStore } from "../../adapters/idb/index.js";
import { UPGRADES, type IsoagentDB } from "../../adapters/idb/schema.js";
import { manualClock, seal, type RunCreated, type RunId } from "../../src/index.js";
import { runStoreConformance } from "../../src/testkit/index.js";

let db = 0;

describe("IndexedDB store under fake-indexeddb (Node)", () => {
  runStoreConformance({
    name: "idb (fake-indexeddb)",
    test: it,
    create: () => {
      const clock = manualClock();
      const store = idbStore({ name: `conformance-${++db}`, clock });
      return { store, advance: async (ms) => clock.advance(ms), dispose: async () => store.close() };
    },
  });
});

describe("the database's upgrade path", () => {
  it("opens a version 1 database, keeping its runs, and lists them through the index version 2 added", async () => {
    const name = `upgrade-${++db}`;
    const first = seal({ v: 1, at: 5, type: "run.created", runId: "old_run" as RunId, task: "from v1", tools: [], limits: { maxSteps: 1, maxConsecutiveFailures: 1, runTimeoutMs: 0 } }, 1, "") as RunCreated;
    // A database as version 1 of this code wrote it.
    const v1 = await openDB<IsoagentDB>(name, 1, { upgrade: (d, _o, _n, tx) => UPGRADES[1]!(d, tx) });
    await v1.put("runs", { runId: "old_run", status: "running", createdAt: 5, updatedAt: 5, seq: 1, head: first.hash, tokens: 3 });
    await v1.put("events", { runId: "old_run", seq: 1, event: first });
    expect([...v1.objectStoreNames].sort()).toEqual(["artifacts", "events", "leases", "runs", "snapshots"]);
    v1.close();

    const store = idbStore({ name, clock: manualClock() });
    expect(await store.listRuns()).toEqual([{ runId: "old_run", status: "running", createdAt: 5, updatedAt: 5, seq: 1 }]);
    expect((await store.read("old_run" as never))[0]!.hash).toBe(first.hash);
    // The fencing counter carried over: the next token is larger.
    expect((await store.acquireLease("old_run" as never, "me", 1000))!.token).toBe(4);
    store.close();
    const reopened = await openDB<IsoagentDB>(name);
    expect(reopened.version).toBe(2);
    expect([...reopened.transaction("runs").store.indexNames]).toEqual(["byUpdated"]);
    reopened.close();
  });
});
