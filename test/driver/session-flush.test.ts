/**
 * The session's flush (issue 21: survivors of the driver area's mutation run
 * in src/driver/session.ts's flush): when it renews the lease, what a
 * renewal refused at a flush stops, what watchers hear, and how a batch that
 * compacts the transcript is replayed after the journal moved under it.
 */
import { describe, expect, it } from "vitest";
import { AgentError, call, calls, createDriver, defineTool, final, memoryStore, strictObject, trimContext, type Agent, type AgentDecision, type Store, type Tool } from "../../src/index.js";
import { StoreError } from "../../src/store/index.js";
import { manualClock, sequentialIds } from "../../src/testkit/index.js";
import { harness } from "./helpers.js";

const TTL = 30_000;
const RENEW_EVERY = TTL / 3;

/** A store whose lease renewals are all refused (another driver took the run), counting renewals and releases. */
function refusingRenewals(inner: Store): { store: Store; counts: { renewals: number; releases: number } } {
  const counts = { renewals: 0, releases: 0 };
  const store = Object.assign(Object.create(null) as object, inner, {
    async renewLease() {
      counts.renewals++;
      return null;
    },
    async releaseLease(...args: Parameters<Store["releaseLease"]>) {
      counts.releases++;
      return inner.releaseLease(...args);
    },
  }) as Store;
  return { store, counts };
}

describe("a flush renews the lease only when it has something to append", () => {
  // mutation: session.ts flush, "if (this.pending.length > 0)" -> "if (true)" / "this.pending.length >= 0"
  it("a drive whose last flush has nothing to append does not renew, and releases its lease though a renewal was due", async () => {
    const clock = manualClock();
    const { store, counts } = refusingRenewals(memoryStore({ clock }));
    let asked = 0;
    const agent: Agent = {
      decide: async () => {
        if (++asked === 1) return calls(call("write_file", { path: "a.md", content: "x" }));
        // The renewal falls due while the agent is down; nothing is left to append.
        clock.advance(RENEW_EVERY);
        throw new AgentError("provider down", { retryable: true });
      },
    };
    const h = harness([], { agent });
    const outcome = await h.driver({ store, clock, leaseTtlMs: TTL }).start("t");
    expect(outcome).toMatchObject({ status: "running", stopped: "agent_unavailable" });
    expect(counts).toEqual({ renewals: 0, releases: 1 });
    expect(await store.lease(outcome.runId)).toBeNull();
  });
});

describe("a renewal refused at a flush", () => {
  // mutation: session.ts flush, "if (this.lost) throw new LeaseLost()" -> "if (false) ..." / the throw removed
  it("stops the drive before anything is appended: the tool does not run", async () => {
    const clock = manualClock();
    const { store, counts } = refusingRenewals(memoryStore({ clock }));
    const h = harness([], {
      agent: {
        decide: async () => {
          clock.advance(RENEW_EVERY);
          return calls(call("write_file", { path: "a.md", content: "x" }));
        },
      },
    });
    const outcome = await h.driver({ store, clock, leaseTtlMs: TTL }).start("t");
    expect(outcome.stopped).toBe("lease_lost");
    expect(counts).toEqual({ renewals: 1, releases: 0 });
    expect((await store.read(outcome.runId)).map((e) => e.type)).toEqual(["run.created"]);
    expect(h.world.executions).toEqual([]);
  });
});

describe("watchers of a store that does not tell appends", () => {
  // mutation: session.ts flush, notify(runId, "append") -> notify(runId, "")
  it('hear "append" from the driver after each append', async () => {
    const { watch: _none, ...inner } = memoryStore();
    const store: Store = inner;
    const h = harness([calls(call("write_file", { path: "a.md", content: "x" })), final("ok")]);
    const driver = h.driver({ store });
    const runId = await driver.create("t");
    const heard: string[] = [];
    driver.watch(runId, (what) => heard.push(what));
    expect((await driver.resume(runId)).status).toBe("completed");
    // The start of the write, its outcome, the run's end.
    expect(heard).toEqual(["append", "append", "append"]);
  });
});

// ---- a batch that compacts the transcript, replayed after a conflict ----------

const output = (n: number) => "y".repeat(n);
const probe = defineTool<{ n: number }>({
  name: "probe",
  description: "Return n characters.",
  inputSchema: strictObject({ n: { type: "integer" } as never }),
  sideEffect: "read_only",
  timeoutMs: 1000,
  call: (a) => output(a.n),
}) as Tool<never, unknown>;
const note = defineTool<{ text: string }>({
  name: "note",
  description: "Note something down.",
  inputSchema: strictObject({ text: { type: "string" } as never }),
  sideEffect: "local_mutation",
  permission: "allow",
  timeoutMs: 1000,
  call: () => "noted",
}) as Tool<never, unknown>;

/** A store whose `nth` append is refused once as a conflict, though nothing moved. */
function conflictOnce(inner: Store, nth: number): Store {
  let appends = 0;
  return Object.assign(Object.create(null) as object, inner, {
    async append(...args: Parameters<Store["append"]>) {
      if (++appends === nth) throw new StoreError("JOURNAL_CONFLICT", "the journal moved", { actualSeq: args[2].expectedSeq });
      return inner.append(...args);
    },
  }) as Store;
}

/**
 * A run of four reads by a driver without a context budget, snapshotted
 * after every append (the snapshots leave the transcript out), stopped with
 * the agent unavailable: its last snapshot is at the journal's head.
 */
async function readsWithoutBudget(store: Store): Promise<string> {
  const agent: Agent = {
    decide: async (view) => {
      if (view.step <= 4) return calls(call("probe", { n: 1000 }));
      throw new AgentError("provider down", { retryable: true });
    },
  };
  const a = createDriver({ store, agent, tools: [probe, note], ids: sequentialIds(), snapshotEvery: 1 });
  const outcome = await a.start("t");
  expect(outcome.stopped).toBe("agent_unavailable");
  const snapshot = await store.getSnapshot(outcome.runId);
  expect(snapshot?.state.transcriptOmitted).toBe(true);
  expect(snapshot?.seq).toBe(outcome.seq);
  return outcome.runId;
}

/** An agent whose `exceeded`-th request passes the provider's window once; then it answers from `script` (by step), or is down. */
function windowedAgent(exceededAt: number, script: (step: number) => AgentDecision | undefined): Agent & { asked: number } {
  const agent = {
    asked: 0,
    decide: async (view: { step: number }) => {
      agent.asked++;
      if (agent.asked === exceededAt) throw new AgentError("context length exceeded", { contextExceeded: true });
      const d = script(view.step);
      if (d === undefined) throw new AgentError("provider down", { retryable: true });
      return d;
    },
  };
  return agent;
}

const budgeted = { budgetTokens: 2500, strategy: trimContext({ keepRecent: 1 }) };

describe("a batch that compacts the transcript, refused as a conflict", () => {
  // mutation: session.ts flush, loadState(..., { transcript: pending.some(compacted) }) -> {} / some(() => undefined) /
  // some(e => false) / every(e => compacted) / some(e => e.type === "")
  it("is replayed on the whole transcript, so a compaction among other events lands: the run completes", async () => {
    const inner = memoryStore();
    const runId = await readsWithoutBudget(inner);
    const before = (await inner.read(runId as never)).length;
    const agent = windowedAgent(1, (step) => (step === 5 ? final("done") : undefined));
    const b = createDriver({ store: conflictOnce(inner, 1), agent, tools: [probe, note], context: budgeted, snapshotEvery: 1000 });
    const outcome = await b.resume(runId as never);
    expect(outcome).toMatchObject({ status: "completed", output: "done" });
    expect(outcome.stopped).toBeUndefined();
    expect(agent.asked).toBe(2);
    const added = (await inner.read(runId as never)).slice(before).map((e) => e.type);
    expect(added).toEqual(["run.resumed", "context.compacted", "step.decided", "run.completed"]);
  });

  // mutation: session.ts flush, some(e => e.type === "context.compacted") -> some(e => e.type !== "context.compacted")
  it("is replayed on the whole transcript when the batch is only the compaction: it lands", async () => {
    const inner = memoryStore();
    const runId = await readsWithoutBudget(inner);
    const before = (await inner.read(runId as never)).length;
    // Step 5 writes a note (appended at its start and its end); step 6 passes
    // the window, is compacted, and the agent is down: the last flush is the
    // compaction alone, refused once as a conflict.
    const agent = windowedAgent(2, (step) => (step === 5 ? calls(call("note", { text: "n" })) : undefined));
    const b = createDriver({ store: conflictOnce(inner, 3), agent, tools: [probe, note], context: budgeted, snapshotEvery: 1000 });
    const outcome = await b.resume(runId as never);
    expect(outcome).toMatchObject({ status: "running", stopped: "agent_unavailable" });
    const added = (await inner.read(runId as never)).slice(before).map((e) => e.type);
    expect(added).toEqual(["run.resumed", "step.decided", "call.permission", "call.started", "call.finished", "context.compacted"]);
    expect(outcome.seq).toBe(before + added.length);
  });
});
