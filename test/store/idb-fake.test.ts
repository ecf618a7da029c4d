import "fake-indexeddb/auto";
import { openDB } from "idb";
import { describe, expect, it } from "vitest";
import { idbStore } from "../../adapters/idb/index.js";
import { DB_VERSION, UPGRADES, type IsoagentDB, type IsoagentDBv2 } from "../../adapters/idb/schema.js";
import { manualClock, seal, type JournalEvent, type RunCreated, type RunId } from "../../src/index.js";
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
    const v1 = await openDB<IsoagentDBv2>(name, 1, { upgrade: (d, _o, _n, tx) => UPGRADES[1]!(d, tx) });
    await v1.put("runs", { runId: "old_run" as RunId, status: "running", createdAt: 5, updatedAt: 5, seq: 1, head: first.hash, tokens: 3 });
    await v1.put("events", { runId: "old_run", seq: 1, event: first });
    expect([...v1.objectStoreNames].sort()).toEqual(["artifacts", "events", "leases", "runs", "snapshots"]);
    v1.close();

    const store = idbStore({ name, clock: manualClock() });
    expect(await store.listRuns()).toEqual([{ runId: "old_run", status: "running", createdAt: 5, updatedAt: 5, seq: 1, lease: null }]);
    expect((await store.read("old_run" as never))[0]!.hash).toBe(first.hash);
    // The fencing counter carried over: the next token is larger.
    expect((await store.acquireLease("old_run" as never, "me", 1000))!.token).toBe(4);
    store.close();
    const reopened = await openDB<IsoagentDB>(name);
    expect(reopened.version).toBe(DB_VERSION);
    expect([...reopened.transaction("runs").store.indexNames]).toEqual(["byUpdated"]);
    reopened.close();
  });

  it("opens a version 2 database: its events read one per record, its lease moves into the run's record and still fences", async () => {
    const name = `upgrade-${++db}`;
    const runId = "v2_run" as RunId;
    const first = seal({ v: 1, at: 5, type: "run.created", runId, task: "from v2", tools: [], limits: { maxSteps: 1, maxConsecutiveFailures: 1, runTimeoutMs: 0 } }, 1, "") as RunCreated;
    const note = seal({ v: 1, at: 6, type: "run.cancelled", reason: "by v2" } as never, 2, first.hash);
    const v2 = await openDB<IsoagentDBv2>(name, 2, { upgrade: (d, _o, _n, tx) => [1, 2].forEach((v) => UPGRADES[v]!(d, tx)) });
    await v2.put("runs", { runId, status: "cancelled", createdAt: 5, updatedAt: 6, seq: 2, head: note.hash, tokens: 7 });
    await v2.put("events", { runId, seq: 1, event: first });
    await v2.put("events", { runId, seq: 2, event: note });
    await v2.put("leases", { runId, owner: "old tab", token: 7, expiresAt: Number.MAX_SAFE_INTEGER });
    v2.close();

    const store = idbStore({ name, clock: manualClock() });
    expect((await store.read(runId)).map((e) => e.hash)).toEqual([first.hash, note.hash]);
    expect((await store.read(runId, 2)).map((e) => e.seq)).toEqual([2]);
    // The old tab's lease is still held: nobody else gets it.
    expect(await store.acquireLease(runId, "new tab", 1000)).toBeNull();
    // ... and it can be seen: who holds it, until when.
    expect(await store.lease(runId)).toEqual({ holder: "old tab", expiresAt: Number.MAX_SAFE_INTEGER });
    store.close();
    const reopened = await openDB<IsoagentDB>(name);
    expect([...reopened.objectStoreNames].sort()).toEqual(["artifacts", "events", "runs", "snapshots"]);
    expect((await reopened.get("runs", runId))!.lease).toEqual({ runId, owner: "old tab", token: 7, expiresAt: Number.MAX_SAFE_INTEGER });
    reopened.close();
  });
});

describe("two stores on one database (two tabs)", () => {
  const created = (runId: RunId): RunCreated =>
    seal({ v: 1, at: 1, type: "run.created", runId, task: "t", tools: [], limits: { maxSteps: 9, maxConsecutiveFailures: 1, runTimeoutMs: 0 } }, 1, "") as RunCreated;
  const next = (prev: JournalEvent, at: number): JournalEvent => seal({ v: 1, at, type: "run.failed", reason: "agent_error", detail: `at ${at}` } as never, prev.seq + 1, prev.hash);

  it("an append trusting a record the other tab changed writes nothing and is judged on the real one", async () => {
    const name = `tabs-${++db}`;
    const clock = manualClock();
    const a = idbStore({ name, clock });
    const b = idbStore({ name, clock });
    const runId = "two_tabs" as RunId;
    const first = created(runId);
    await a.createRun(first);
    const leaseA = (await a.acquireLease(runId, "a", 100))!;
    const e2 = next(first, 2);
    expect(await a.append(runId, [e2], { expectedSeq: 1, lease: leaseA }, "running")).toEqual({ seq: 2, hash: e2.hash });
    // A's lease expires; B takes the run over and appends.
    clock.advance(200);
    const leaseB = (await b.acquireLease(runId, "b", 100))!;
    expect(leaseB.token).toBe(leaseA.token + 1);
    const e3 = next(e2, 3);
    await b.append(runId, [e3], { expectedSeq: 2, lease: leaseB }, "running");
    // A still remembers the run at event 2 with its own lease.
    const late = next(e2, 4);
    await expect(a.append(runId, [late], { expectedSeq: 2, lease: leaseA }, "running")).rejects.toMatchObject({ code: "LEASE_NOT_HELD" });
    // With B's lease but A's view of the head, the sequence check refuses.
    await expect(a.append(runId, [late], { expectedSeq: 2, lease: leaseB }, "running")).rejects.toMatchObject({ code: "JOURNAL_CONFLICT" });
    expect((await b.read(runId)).map((e) => e.hash)).toEqual([first.hash, e2.hash, e3.hash]);
    // A read refreshes A's view; an append from it lands.
    const e4 = next(e3, 5);
    expect((await a.read(runId, 3)).map((e) => e.seq)).toEqual([3]);
    await a.append(runId, [e4], { expectedSeq: 3, lease: leaseB }, "failed");
    expect((await b.read(runId, 2)).map((e) => e.seq)).toEqual([2, 3, 4]);
    expect((await b.listRuns())[0]).toMatchObject({ runId, seq: 4, status: "failed" });
    a.close();
    b.close();
  });

  it("a store hears the appends the other tab's store made (watch, over a BroadcastChannel), and stops hearing once it stops or closes", async () => {
    const name = `tabs-${++db}`;
    const a = idbStore({ name });
    const b = idbStore({ name });
    const runId = "heard" as RunId;
    const first = created(runId);
    await a.createRun(first);
    const lease = (await a.acquireLease(runId, "a", 60_000))!;
    const heard: number[] = [];
    let wake: () => void = () => {};
    const stop = b.watch!(runId, () => void b.read(runId).then((events) => (heard.push(events.length), wake())));
    const told = () => new Promise<void>((r) => (wake = r));
    let head: JournalEvent = first;
    for (let k = 2; k <= 3; k++) {
      const was = told();
      const e = next(head, k);
      await a.append(runId, [e], { expectedSeq: k - 1, lease }, "running");
      head = e;
      await was;
    }
    expect(heard).toEqual([2, 3]);
    stop();
    // Stopped: an append is not heard (b's own watch on another run, told after it, shows the message went by).
    const other = "other" as RunId;
    await a.createRun(created(other));
    const otherLease = (await a.acquireLease(other, "a", 60_000))!;
    const after = new Promise<void>((r) => b.watch!(other, r));
    await a.append(runId, [next(head, 4)], { expectedSeq: 3, lease }, "running");
    await a.append(other, [next(created(other), 2)], { expectedSeq: 1, lease: otherLease }, "running");
    await after;
    expect(heard).toEqual([2, 3]);
    a.close();
    b.close();
  });

  it("a refused append on trust leaves the journal and the run as they were", async () => {
    const name = `tabs-${++db}`;
    const clock = manualClock();
    const a = idbStore({ name, clock });
    const runId = "refused" as RunId;
    const first = created(runId);
    await a.createRun(first);
    const lease = (await a.acquireLease(runId, "a", 100))!;
    const e2 = next(first, 2);
    await a.append(runId, [e2], { expectedSeq: 1, lease }, "running");
    clock.advance(500);
    await expect(a.append(runId, [next(e2, 3)], { expectedSeq: 2, lease }, "failed")).rejects.toMatchObject({ code: "LEASE_NOT_HELD" });
    expect((await a.read(runId)).map((e) => e.seq)).toEqual([1, 2]);
    expect((await a.listRuns())[0]).toMatchObject({ seq: 2, status: "running" });
    a.close();
  });
});
