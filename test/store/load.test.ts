/**
 * loadState (src/store/load.ts): a run's state from its store, from the
 * latest snapshot when it matches the journal, the chain verified either
 * way. Found through the store area's surviving mutants once loadState
 * moved into store/ (issue 28): no test of the area held that a forged
 * event is refused on either path, nor which snapshots are used.
 */
import { describe, expect, it } from "vitest";
import { call, calls, createDriver, defineTool, final, memoryStore, scriptedAgent, strictObject, type JournalEvent, type RunId, type Store, type Tool } from "../../src/index.js";
import { reduce, type RunState } from "../../src/journal/index.js";
import { loadState, loadStateAt } from "../../src/store/load.js";
import { manualClock, sequentialIds } from "../../src/testkit/index.js";
import { trimContext } from "../../src/driver/index.js";

const noop = defineTool({ name: "noop", description: "Do nothing.", inputSchema: strictObject({}), sideEffect: "read_only", timeoutMs: 1000, call: () => "ok" }) as Tool<never, unknown>;

/** A completed run of three calls, and its journal. */
async function aRun(): Promise<{ store: Store; runId: RunId; events: JournalEvent[] }> {
  const store = memoryStore();
  const driver = createDriver({
    store,
    agent: scriptedAgent([calls(call("noop")), calls(call("noop")), calls(call("noop")), final("done")]),
    tools: [noop],
    clock: manualClock(),
    ids: sequentialIds(),
  });
  const { runId } = await driver.start("t");
  return { store, runId, events: [...(await store.read(runId))] };
}

/** The state after the first `seq` events, as a snapshot at that event. */
const snapshotAt = (events: readonly JournalEvent[], seq: number, change: (s: RunState) => void = () => {}): { seq: number; hash: string; state: RunState } => {
  const state = reduce(events.slice(0, seq));
  change(state);
  return { seq, hash: events[seq - 1]!.hash, state };
};

/** The store, with the event at `seq` changed on every read (its hash left as it was). */
function forging(inner: Store, seq: number): Store {
  return Object.assign(Object.create(null) as object, inner, {
    read: async (runId: RunId, from?: number) => (await inner.read(runId, from)).map((e) => (e.seq === seq ? { ...e, at: e.at + 1 } : e)),
  }) as Store;
}

const refusedAsForged = { name: "JournalError", code: "JOURNAL_HASH_MISMATCH" };

describe("loadState", () => {
  it("without a snapshot reduces the whole journal, and refuses an event that does not match its hash", async () => {
    const { store, runId, events } = await aRun();
    const loaded = await loadStateAt(store, runId);
    expect(loaded.snapshotSeq).toBe(0);
    expect(loaded.state).toEqual(reduce(events));
    await expect(loadState(forging(store, 3), runId)).rejects.toMatchObject(refusedAsForged);
  });

  it("starts from a snapshot that matches the journal, and refuses a forged event after it", async () => {
    const { store, runId, events } = await aRun();
    await store.putSnapshot(runId, snapshotAt(events, 5));
    const loaded = await loadStateAt(store, runId);
    expect(loaded.snapshotSeq).toBe(5);
    expect(loaded.state).toEqual(reduce(events));
    // The event after the snapshot, and the last one.
    await expect(loadState(forging(store, 6), runId)).rejects.toMatchObject(refusedAsForged);
    await expect(loadState(forging(store, events.length), runId)).rejects.toMatchObject(refusedAsForged);
  });

  it("reads the whole journal when the snapshot does not match it: another hash at its seq, or a seq past the journal", async () => {
    const { store, runId, events } = await aRun();
    await store.putSnapshot(runId, { ...snapshotAt(events, 5, (s) => (s.step = 99)), hash: events[3]!.hash });
    expect(await loadStateAt(store, runId)).toEqual({ state: reduce(events), snapshotSeq: 0 });
    await store.putSnapshot(runId, { ...snapshotAt(events, 5, (s) => (s.step = 99)), seq: events.length + 3 });
    expect(await loadStateAt(store, runId)).toEqual({ state: reduce(events), snapshotSeq: 0 });
  });

  it("does not use a snapshot an earlier version wrote without the transcript, nor one without it when the transcript is asked for", async () => {
    // A store keeps its newest snapshot only: each case has a run of its own (the same journal).
    const partial = await aRun();
    await partial.store.putSnapshot(
      partial.runId,
      snapshotAt(partial.events, 5, (s) => (s.transcriptPartial = true)),
    );
    expect(await loadStateAt(partial.store, partial.runId)).toEqual({ state: reduce(partial.events), snapshotSeq: 0 });
    const { store, runId, events } = await aRun();
    await store.putSnapshot(
      runId,
      snapshotAt(events, 5, (s) => (s.transcriptOmitted = true)),
    );
    expect((await loadStateAt(store, runId)).snapshotSeq).toBe(5);
    expect((await loadStateAt(store, runId, { transcript: false })).snapshotSeq).toBe(5);
    expect(await loadStateAt(store, runId, { transcript: true })).toEqual({ state: reduce(events), snapshotSeq: 0 });
    // A snapshot with the transcript serves a caller that asks for it.
    const whole = await aRun();
    await whole.store.putSnapshot(whole.runId, snapshotAt(whole.events, 5));
    expect(await loadStateAt(whole.store, whole.runId, { transcript: true })).toEqual({ state: reduce(whole.events), snapshotSeq: 5 });
  });

  it("does not use a snapshot without the transcript when a compaction follows it (the compaction needs the whole transcript)", async () => {
    // Big results under a small context budget: the driver compacts.
    const big = defineTool({ name: "big", description: "A long text.", inputSchema: strictObject({}), sideEffect: "read_only", timeoutMs: 1000, call: () => "x".repeat(2000) }) as Tool<never, unknown>;
    const compactingRun = async (): Promise<{ store: Store; runId: RunId; events: JournalEvent[] }> => {
      const store = memoryStore();
      const agent = scriptedAgent([...Array.from({ length: 8 }, () => calls(call("big"))), final("done")]);
      const driver = createDriver({ store, agent, tools: [big], context: { budgetTokens: 2500, strategy: trimContext({ keepRecent: 2 }) }, clock: manualClock(), ids: sequentialIds() });
      const { runId, status } = await driver.start("t");
      expect(status).toBe("completed");
      return { store, runId, events: [...(await store.read(runId))] };
    };
    const { store, runId, events } = await compactingRun();
    const compactions = events.filter((e) => e.type === "context.compacted").map((e) => e.seq);
    expect(compactions.length).toBeGreaterThan(0);
    const before = compactions[0]! - 1;
    const after = events.length;
    expect(after).toBeGreaterThan(compactions.at(-1)!);
    await store.putSnapshot(
      runId,
      snapshotAt(events, before, (s) => (s.transcriptOmitted = true)),
    );
    expect(await loadStateAt(store, runId)).toEqual({ state: reduce(events), snapshotSeq: 0 });
    // After the last compaction, the same kind of snapshot is used.
    await store.putSnapshot(
      runId,
      snapshotAt(events, after, (s) => (s.transcriptOmitted = true)),
    );
    expect((await loadStateAt(store, runId)).snapshotSeq).toBe(after);
    // A snapshot with the transcript is used before a compaction too.
    const whole = await compactingRun();
    expect(whole.events.findIndex((e) => e.type === "context.compacted")).toBe(before);
    await whole.store.putSnapshot(whole.runId, snapshotAt(whole.events, before));
    expect(await loadStateAt(whole.store, whole.runId)).toEqual({ state: reduce(whole.events), snapshotSeq: before });
  });
});
