import { describe, expect, it } from "vitest";
import { call, calls, createDriver, defineTool, final, manualClock, memoryStore, scriptedAgent, sequentialIds, strictObject, type AgentView, type RunId, type Store, type Tool } from "../../src/index.js";
import { verifyRun } from "../../src/testkit/index.js";

const noop = defineTool({ name: "noop", description: "Do nothing.", inputSchema: strictObject({}), sideEffect: "read_only", timeoutMs: 1000, call: () => "ok" }) as Tool<never, unknown>;

/** A store that records from where each read started. */
function readsOf(inner: Store): Store & { reads: number[] } {
  const reads: number[] = [];
  return Object.assign(Object.create(null) as object, inner, {
    reads,
    read: (runId: RunId, from?: number) => {
      reads.push(from ?? 1);
      return inner.read(runId, from);
    },
  }) as Store & { reads: number[] };
}

describe("snapshots", () => {
  it("carry the transcript, so a resume that asks the agent reads the snapshot and the tail only, and the agent sees what an uninterrupted run shows", async () => {
    const inner = memoryStore();
    const store = readsOf(inner);
    const views: AgentView[] = [];
    // Ten calls; the driver is stopped (its signal aborted) after step 6, then another resumes.
    const controller = new AbortController();
    const agent = {
      decide: async (view: AgentView) => {
        views.push({ ...view, transcript: [...view.transcript] });
        if (view.step === 7 && views.length === 7) controller.abort();
        return view.step <= 10 ? calls(call("noop")) : final("done");
      },
    };
    const opts = { store, agent, tools: [noop], clock: manualClock(), ids: sequentialIds(), snapshotEvery: 5 };
    const first = await createDriver({ ...opts, owner: "a" }).start("t", { signal: controller.signal });
    expect(first.status).toBe("running");
    const snap = await store.getSnapshot(first.runId);
    expect(snap!.state.transcript.length).toBeGreaterThan(1);
    expect(snap!.state.transcriptPartial).toBeUndefined();
    store.reads.length = 0;
    const second = await createDriver({ ...opts, owner: "b" }).resume(first.runId);
    expect(second.status).toBe("completed");
    // The resume read from the snapshot on, never the whole journal.
    expect(store.reads.length).toBeGreaterThan(0);
    expect(Math.min(...store.reads)).toBeGreaterThan(1);
    // What the resumed driver showed the agent is what an uninterrupted run shows.
    const straightViews: AgentView[] = [];
    const straight = createDriver({ ...opts, store: memoryStore(), ids: sequentialIds(), owner: "c", agent: { decide: async (v: AgentView) => (straightViews.push({ ...v, transcript: [...v.transcript] }), v.step <= 10 ? calls(call("noop")) : final("done")) } });
    await straight.start("t");
    const last = views.at(-1)!;
    expect(last.step).toBe(11);
    expect(last.transcript).toEqual(straightViews.at(-1)!.transcript);
    // Full verification, on demand, from the first event: the chain and the snapshot agree.
    expect(await verifyRun(inner, first.runId)).toEqual({ ok: true, events: (await inner.read(first.runId)).length, problems: [] });
  });

  it("from an earlier version (without the transcript) are not used: the state is reduced from the journal", async () => {
    const store = memoryStore();
    const driver = createDriver({ store, agent: scriptedAgent([calls(call("noop")), calls(call("noop")), final("done")]), tools: [noop], ids: sequentialIds(), snapshotEvery: 2 });
    const done = await driver.start("t");
    const snap = (await store.getSnapshot(done.runId))!;
    // What version 1 of the driver wrote: the state without its transcript.
    const old = { ...store, getSnapshot: async () => ({ ...snap, state: { ...snap.state, transcript: [], transcriptPartial: true as const } }) } as Store;
    const state = await createDriver({ store: old, agent: scriptedAgent([]), tools: [noop] }).state(done.runId);
    expect(state.transcript).toEqual((await driver.state(done.runId)).transcript);
    expect(state.transcript.length).toBeGreaterThan(1);
  });

  it("verifyRun finds a snapshot that disagrees with the journal, and a broken chain", async () => {
    const store = memoryStore();
    const driver = createDriver({ store, agent: scriptedAgent([calls(call("noop")), calls(call("noop")), final("done")]), tools: [noop], ids: sequentialIds(), snapshotEvery: 2 });
    const done = await driver.start("t");
    const snap = (await store.getSnapshot(done.runId))!;
    const forged = { ...store, getSnapshot: async () => ({ ...snap, state: { ...snap.state, step: 99 } }) } as Store;
    expect(await verifyRun(forged, done.runId)).toMatchObject({ ok: false, problems: [`the snapshot at event ${snap.seq} is not the state the journal reduces to there`] });
    const tampered = { ...store, read: async (id: RunId) => (await store.read(id)).map((e) => (e.seq === 3 ? { ...e, at: e.at + 1 } : e)) } as Store;
    expect((await verifyRun(tampered, done.runId)).problems[0]).toBe("the hash chain breaks: event 3 does not match its hash");
  });
});
