import "fake-indexeddb/auto";
import { openDB } from "idb";
import { describe, expect, it } from "vitest";
import { idbStore } from "../../adapters/idb/index.js";
import { DB_VERSION, upgrade, UPGRADES, type IsoagentDB, type IsoagentDBAny } from "../../adapters/idb/schema.js";
import { call, calls, createDriver, defineTool, final, memoryStore, scriptedAgent, strictObject, type JournalEvent, type RunId, type Tool } from "../../src/index.js";
import { seal, verifyChain, type RunCreated } from "../../src/journal/index.js";
import { manualClock, sequentialIds } from "../../src/testkit/index.js";
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
    const first = seal(
      { v: 1, at: 5, type: "run.created", runId: "old_run" as RunId, task: "from v1", tools: [], limits: { maxSteps: 1, maxConsecutiveFailures: 1, runTimeoutMs: 0 } },
      1,
      "",
    ) as RunCreated;
    // A database as version 1 of this code wrote it.
    const v1 = await openDB<IsoagentDBAny>(name, 1, { upgrade: (d, _o, _n, tx) => void UPGRADES[1]!(d, tx) });
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
    // v4 dropped the index of v2: listing sorts what it reads.
    expect([...reopened.transaction("runs").store.indexNames]).toEqual([]);
    reopened.close();
  });

  it("opens a version 2 database: its events read one per record, its lease moves into the run's record and still fences", async () => {
    const name = `upgrade-${++db}`;
    const runId = "v2_run" as RunId;
    const first = seal({ v: 1, at: 5, type: "run.created", runId, task: "from v2", tools: [], limits: { maxSteps: 1, maxConsecutiveFailures: 1, runTimeoutMs: 0 } }, 1, "") as RunCreated;
    const note = seal({ v: 1, at: 6, type: "run.cancelled", reason: "by v2" } as never, 2, first.hash);
    const v2 = await openDB<IsoagentDBAny>(name, 2, { upgrade: (d, _o, _n, tx) => [1, 2].forEach((v) => void UPGRADES[v]!(d, tx)) });
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
    expect([...reopened.objectStoreNames].sort()).toEqual(["artifacts", "journal", "runs", "snapshots"]);
    expect((await reopened.get("runs", runId))!.lease).toEqual({ runId, owner: "old tab", token: 7, expiresAt: Number.MAX_SAFE_INTEGER });
    reopened.close();
  });
});

describe("the v4 encoding and the upgrade from v3", () => {
  /** A real run's journal (a driver on the memory store: decisions, permissions, starts, outcomes, a completion). */
  async function journalOfARun(): Promise<JournalEvent[]> {
    const touch = defineTool({
      name: "touch",
      description: "Touch.",
      inputSchema: strictObject({}),
      sideEffect: "local_mutation",
      permission: "allow",
      timeoutMs: 1000,
      call: () => ({ touched: true }),
    }) as Tool<never, unknown>;
    const store = memoryStore({ clock: manualClock() });
    const driver = createDriver({ store, clock: manualClock(), ids: sequentialIds(), agent: scriptedAgent([calls(call("touch")), calls(call("touch")), final("done")]), tools: [touch] });
    const outcome = await driver.start("upgrade me");
    return store.read(outcome.runId);
  }

  it("opens a version 3 database: every record, v1's single events and v3's batches, reads back exactly; the lease still fences; a copy keeps its custody; appends go on", async () => {
    const events = await journalOfARun();
    const runId = events[0]!.type === "run.created" ? (events[0] as RunCreated).runId : ("" as RunId);
    const last = events[events.length - 1]!;
    const name = `upgrade-${++db}`;
    // A database as version 3 wrote it, once upgraded from v1: the first two
    // events one per record (as v1 wrote them), the rest in batches of three.
    const v3 = await openDB<IsoagentDBAny>(name, 3, { upgrade: (d, o, n, tx) => upgrade(d as never, o, n ?? 3, tx as never) });
    await v3.put("events", { runId, seq: 1, event: events[0]! });
    await v3.put("events", { runId, seq: 2, event: events[1]! });
    for (let k = 2; k < events.length; k += 3) await v3.put("events", { runId, seq: k + 1, events: events.slice(k, k + 3) });
    const lease = { runId, owner: "old tab", token: 4, expiresAt: Number.MAX_SAFE_INTEGER };
    await v3.put("runs", { runId, status: "completed", createdAt: events[0]!.at, updatedAt: last.at, seq: last.seq, head: last.hash, tokens: 4, lease });
    // A second run, with no lease: listed from its record.
    const other = seal({ v: 1, at: 1, type: "run.created", runId: "other" as RunId, task: "t", tools: [], limits: { maxSteps: 1, maxConsecutiveFailures: 1, runTimeoutMs: 0 } }, 1, "") as RunCreated;
    await v3.put("events", { runId: "other", seq: 1, events: [other] });
    await v3.put("runs", { runId: "other" as RunId, status: "running", createdAt: 1, updatedAt: 1, seq: 1, head: other.hash, tokens: 0 });
    // A third, a mirror of a run owned elsewhere (custody: v3's optional field, isoagent/move).
    const copy = seal({ v: 1, at: 0, type: "run.created", runId: "copy" as RunId, task: "t", tools: [], limits: { maxSteps: 1, maxConsecutiveFailures: 1, runTimeoutMs: 0 } }, 1, "") as RunCreated;
    const custody = { role: "mirror", received: 5 } as const;
    await v3.put("events", { runId: "copy", seq: 1, events: [copy] });
    await v3.put("runs", { runId: "copy" as RunId, status: "running", createdAt: 0, updatedAt: 0, seq: 1, head: copy.hash, tokens: 0, custody } as never);
    v3.close();

    const clock = manualClock();
    const store = idbStore({ name, clock });
    const read = await store.read(runId);
    expect(read.map((e) => JSON.stringify(e))).toEqual(events.map((e) => JSON.stringify(e)));
    verifyChain(read);
    // From inside a batch, and from its first event.
    expect((await store.read(runId, 4)).map((e) => e.seq)).toEqual(events.slice(3).map((e) => e.seq));
    expect((await store.read(runId, 6)).map((e) => e.hash)).toEqual(events.slice(5).map((e) => e.hash));
    expect(await store.listRuns()).toEqual([
      { runId, status: "completed", createdAt: events[0]!.at, updatedAt: last.at, seq: last.seq, lease: { holder: "old tab", expiresAt: Number.MAX_SAFE_INTEGER } },
      { runId: "other", status: "running", createdAt: 1, updatedAt: 1, seq: 1, lease: null },
      { runId: "copy", status: "running", createdAt: 0, updatedAt: 0, seq: 1, lease: null, custody },
    ]);
    // The copy keeps its custody through the upgrade: still nobody's to drive here.
    expect(await store.custody!("copy" as RunId)).toEqual(custody);
    await expect(store.acquireLease("copy" as RunId, "me", 1000)).rejects.toMatchObject({ code: "RUN_MIRROR" });
    expect(await store.acquireLease(runId, "new tab", 1000)).toBeNull();
    // The other run goes on: an append after the copied record.
    const l = (await store.acquireLease("other" as RunId, "me", 1000))!;
    expect(l.token).toBe(1);
    const next = seal({ v: 2, at: 9, type: "run.resumed", owner: "me", token: 1 } as never, 2, other.hash);
    expect(await store.append("other" as RunId, [next], { expectedSeq: 1, lease: l }, "running")).toEqual({ seq: 2, hash: next.hash });
    expect((await store.read("other" as RunId)).map((e) => e.hash)).toEqual([other.hash, next.hash]);
    store.close();

    const reopened = await openDB<IsoagentDB>(name);
    expect(reopened.version).toBe(DB_VERSION);
    expect([...reopened.objectStoreNames].sort()).toEqual(["artifacts", "journal", "runs", "snapshots"]);
    expect(await reopened.get("runs", runId)).toEqual({ runId, status: "completed", createdAt: events[0]!.at, updatedAt: last.at, seq: last.seq, tokens: 4, lease });
    reopened.close();
  });

  it("an append writes one journal record of the events without seq and prev, and leaves the run's record alone while the lease is held", async () => {
    const events = await journalOfARun();
    const name = `lean-${++db}`;
    const clock = manualClock();
    const store = idbStore({ name, clock });
    const first = events[0] as RunCreated;
    await store.createRun(first);
    const l = (await store.acquireLease(first.runId, "me", 60_000))!;
    const raw = await openDB<IsoagentDB>(name);
    const before = await raw.get("runs", first.runId);
    const batch = events.slice(1, 5);
    await store.append(first.runId, batch, { expectedSeq: 1, lease: l }, "running");
    const record = (await raw.get("journal", [first.runId, 2]))!;
    expect(record.p).toBe(first.hash);
    expect(record.h).toEqual(batch.map((e) => e.hash));
    expect(record.s).toBe("running");
    for (const [k, body] of record.e.entries()) {
      expect(body).not.toHaveProperty("seq");
      expect(body).not.toHaveProperty("prev");
      expect(body).not.toHaveProperty("hash");
      expect(body).toEqual(Object.fromEntries(Object.entries(batch[k]!).filter(([f]) => f !== "seq" && f !== "prev" && f !== "hash")));
    }
    expect(await raw.get("runs", first.runId)).toEqual(before);
    // Listed from the journal's tail while the lease is kept; exact in the record once it is released.
    expect((await store.listRuns())[0]).toMatchObject({ seq: 5, updatedAt: batch[3]!.at });
    await store.releaseLease(l);
    expect(await raw.get("runs", first.runId)).toMatchObject({ seq: 5, updatedAt: batch[3]!.at, status: "running" });
    expect((await raw.get("runs", first.runId))!.lease).toBeUndefined();
    raw.close();
    store.close();
  });

  it("appends of several runs waiting for one commit share its transaction, each judged on its own run", async () => {
    const name = `group-${++db}`;
    const clock = manualClock();
    const commits: number[] = [];
    const store = idbStore({ name, clock, onAppendCommit: (n) => commits.push(n) });
    const runs = await Promise.all(
      Array.from({ length: 6 }, async (_, k) => {
        const first = seal(
          { v: 1, at: 1, type: "run.created", runId: `group_${k}` as RunId, task: "t", tools: [], limits: { maxSteps: 1, maxConsecutiveFailures: 1, runTimeoutMs: 0 } },
          1,
          "",
        ) as RunCreated;
        await store.createRun(first);
        return { first, lease: (await store.acquireLease(first.runId, "me", k === 1 ? 1000 : 60_000))! };
      }),
    );
    const resumed = (r: (typeof runs)[number]) => seal({ v: 2, at: 2, type: "run.resumed", owner: "me", token: r.lease.token } as never, 2, r.first.hash);
    // Run 1's lease is taken over, and run 2's append follows another head:
    // each is refused; the others land.
    const other = idbStore({ name, clock });
    clock.advance(2000);
    await other.acquireLease(runs[1]!.first.runId, "other", 60_000);
    const refused = seal({ v: 2, at: 2, type: "run.resumed", owner: "me", token: runs[2]!.lease.token } as never, 3, "0".repeat(64));
    const results = await Promise.allSettled(
      runs.map((r, k) =>
        k === 2 ? store.append(r.first.runId, [refused], { expectedSeq: 2, lease: r.lease }, "running") : store.append(r.first.runId, [resumed(r)], { expectedSeq: 1, lease: r.lease }, "running"),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "rejected", "fulfilled", "fulfilled", "fulfilled"]);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ code: "LEASE_NOT_HELD" });
    expect((results[2] as PromiseRejectedResult).reason).toMatchObject({ code: "JOURNAL_CONFLICT", actualSeq: 1 });
    for (const [k, r] of runs.entries()) expect((await store.read(r.first.runId)).length).toBe(k === 1 || k === 2 ? 1 : 2);
    // Five appends went on trust in the same turn: one transaction.
    expect(commits).toContain(5);
    store.close();
    other.close();
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
