import { describe, expect, it } from "vitest";
import { call, calls, createDriver, defineTool, final, memoryStore, scriptedAgent, strictObject, type AgentView, type RunId, type Store, type Tool } from "../../src/index.js";
import { manualClock, sequentialIds } from "../../src/testkit/index.js";
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
  it("with a context budget carry the transcript, so a resume that asks the agent reads the snapshot and the tail only, and the agent sees what an uninterrupted run shows", async () => {
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
    const opts = { store, agent, tools: [noop], clock: manualClock(), ids: sequentialIds(), snapshotEvery: 5, context: { budgetTokens: 1_000_000 } };
    const first = await createDriver({ ...opts, owner: "a" }).start("t", { signal: controller.signal });
    expect(first.status).toBe("running");
    const snap = await store.getSnapshot(first.runId);
    expect(snap!.state.transcript.length).toBeGreaterThan(1);
    expect(snap!.state.transcriptPartial).toBeUndefined();
    expect(snap!.state.transcriptOmitted).toBeUndefined();
    store.reads.length = 0;
    const second = await createDriver({ ...opts, owner: "b" }).resume(first.runId);
    expect(second.status).toBe("completed");
    // The resume read from the snapshot on, never the whole journal.
    expect(store.reads.length).toBeGreaterThan(0);
    expect(Math.min(...store.reads)).toBeGreaterThan(1);
    // What the resumed driver showed the agent is what an uninterrupted run shows.
    const straightViews: AgentView[] = [];
    const straight = createDriver({
      ...opts,
      store: memoryStore(),
      ids: sequentialIds(),
      owner: "c",
      agent: { decide: async (v: AgentView) => (straightViews.push({ ...v, transcript: [...v.transcript] }), v.step <= 10 ? calls(call("noop")) : final("done")) },
    });
    await straight.start("t");
    const last = views.at(-1)!;
    expect(last.step).toBe(11);
    expect(last.transcript).toEqual(straightViews.at(-1)!.transcript);
    // Full verification, on demand, from the first event: the chain and the snapshot agree.
    expect(await verifyRun(inner, first.runId)).toEqual({ ok: true, events: (await inner.read(first.runId)).length, problems: [] });
  });

  it("without a context budget leave the transcript out: a resume that waits reads the snapshot and the tail only; one that asks rebuilds the transcript from the journal once, and the agent sees what an uninterrupted run shows", async () => {
    const ask = defineTool({
      name: "ask",
      description: "Wait for a person.",
      inputSchema: strictObject({}),
      sideEffect: "local_mutation",
      permission: "ask",
      timeoutMs: 1000,
      call: () => "ok",
    }) as Tool<never, unknown>;
    const inner = memoryStore();
    const store = readsOf(inner);
    const views: AgentView[] = [];
    const script = (v: AgentView) => (v.step <= 8 ? calls(call("noop")) : v.step === 9 ? calls(call("ask")) : final("done"));
    const agent = { decide: async (view: AgentView) => (views.push({ ...view, transcript: [...view.transcript] }), script(view)) };
    const opts = { store, agent, tools: [noop, ask], clock: manualClock(), ids: sequentialIds(), snapshotEvery: 5 };
    const first = await createDriver({ ...opts, owner: "a" }).start("t");
    expect(first.status).toBe("waiting");
    const snap = (await store.getSnapshot(first.runId))!;
    expect([snap.state.transcriptOmitted, snap.state.transcript]).toEqual([true, []]);
    // A resume of the waiting run reads the snapshot's tail only.
    store.reads.length = 0;
    expect((await createDriver({ ...opts, owner: "b" }).resume(first.runId)).status).toBe("waiting");
    expect(Math.min(...store.reads)).toBe(snap.seq);
    // Approved, a resume asks the agent: the transcript is rebuilt from the first event, once.
    const pending = (await createDriver(opts).state(first.runId)).approvals;
    const [approvalId, a] = Object.entries(pending).find(([, x]) => x.status === "pending")!;
    await createDriver(opts).approve(first.runId, approvalId as never, { requestHash: a.requestHash, by: "op" });
    store.reads.length = 0;
    expect((await createDriver({ ...opts, owner: "c" }).resume(first.runId)).status).toBe("completed");
    expect(store.reads.filter((r) => r === 1)).toHaveLength(1);
    const straightViews: AgentView[] = [];
    const straightAgent = { decide: async (v: AgentView) => (straightViews.push({ ...v, transcript: [...v.transcript] }), script(v)) };
    const straight = createDriver({ ...opts, store: memoryStore(), ids: sequentialIds(), owner: "d", agent: straightAgent });
    const s = await straight.start("t");
    const sp = Object.entries((await straight.state(s.runId)).approvals).find(([, x]) => x.status === "pending")!;
    await straight.approve(s.runId, sp[0] as never, { requestHash: sp[1].requestHash, by: "op" });
    await straight.resume(s.runId);
    expect(views.at(-1)!.step).toBe(10);
    expect(views.at(-1)!.transcript).toEqual(straightViews.at(-1)!.transcript);
    // The state a driver hands out is whole; verifyRun agrees with the snapshot.
    expect((await createDriver(opts).state(first.runId)).transcript).toEqual((await straight.state(s.runId)).transcript);
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
