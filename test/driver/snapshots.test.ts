import { describe, expect, it } from "vitest";
import { call, calls, createDriver, defineTool, final, manualClock, memoryStore, scriptedAgent, sequentialIds, strictObject, type AgentView, type Tool } from "../../src/index.js";

const noop = defineTool({ name: "noop", description: "Do nothing.", inputSchema: strictObject({}), sideEffect: "read_only", timeoutMs: 1000, call: () => "ok" }) as Tool<never, unknown>;

describe("snapshots", () => {
  it("leave the transcript out (a resume stays flat), and the agent still sees the whole transcript after a resume", async () => {
    const store = memoryStore();
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
    expect(snap?.state.transcript).toEqual([]);
    expect(snap?.state.transcriptPartial).toBe(true);
    const second = await createDriver({ ...opts, owner: "b" }).resume(first.runId);
    expect(second.status).toBe("completed");
    // What the resumed driver showed the agent is what an uninterrupted run shows.
    const straightViews: AgentView[] = [];
    const straight = createDriver({ ...opts, store: memoryStore(), ids: sequentialIds(), owner: "c", agent: { decide: async (v: AgentView) => (straightViews.push({ ...v, transcript: [...v.transcript] }), v.step <= 10 ? calls(call("noop")) : final("done")) } });
    await straight.start("t");
    const last = views.at(-1)!;
    expect(last.step).toBe(11);
    expect(last.transcript).toEqual(straightViews.at(-1)!.transcript);
    // Any driver reads the state back from the snapshot and the tail.
    const state = await createDriver({ ...opts, owner: "d" }).state(first.runId);
    expect(state.status).toBe("completed");
  });
});
