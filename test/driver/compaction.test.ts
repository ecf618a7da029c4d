/**
 * Context management (issue 14): the transcript a model is sent stays under
 * a budget, compactions are journaled (exact on replay), the notices are
 * pinned, a summarizing model is never asked twice, read_artifact reads an
 * elided output back (this run's only), and a 20,000-step run against a
 * fake provider keeps every request under the budget plus one step's items.
 */
import { describe, expect, it } from "vitest";
import { openaiAgent } from "../../src/agents/openai/index.js";
import { recordingAgent, replayAgent } from "../../src/agents/record/index.js";
import {
  call,
  calls,
  createDriver,
  defineTool,
  final,
  memoryStore,
  scriptedAgent,
  strictObject,
  summarizeContext,
  trimContext,
  type Agent,
  type AgentView,
  type JournalEvent,
  type Tool,
} from "../../src/index.js";
import { elisionNotice, foldNotice, summaryNotice } from "../../src/driver/index.js";
import { Crash, manualClock, sequentialIds } from "../../src/testkit/index.js";
import { readArtifactTool } from "../../src/toolkit/index.js";
import { ARTIFACTS_KEPT } from "../../src/journal/index.js";
import { fakeResponses } from "../helpers/fake-provider.js";

const big = (n: number) => `${"x".repeat(n - 6)}-${String(n).padStart(5, "0")}`;
const probe = defineTool<{ n: number }>({
  name: "probe",
  description: "Return n characters.",
  inputSchema: strictObject({ n: { type: "integer" } as never }),
  sideEffect: "read_only",
  timeoutMs: 1000,
  call: (a) => big(a.n),
}) as Tool<never, unknown>;

const sha = /[0-9a-f]{64}/;

describe("context management: the trimmer", () => {
  it("pins its notices", () => {
    expect(elisionNotice(12345, "a".repeat(64), true)).toBe(
      `[Elided to stay within the context budget: this output (12,345 bytes) is kept as artifact sha256:${"a".repeat(64)}; call read_artifact with that sha256 to read it again.]`,
    );
    expect(elisionNotice(10, "b".repeat(64), false)).toBe(`[Elided to stay within the context budget: this output (10 bytes) is kept as artifact sha256:${"b".repeat(64)}.]`);
    expect(foldNotice(1, 1234)).toBe("[Steps 1 to 1,234 are not shown, to stay within the context budget; the outputs they elided are kept as artifacts.]");
    expect(summaryNotice(3, 9, "Read the notes.")).toBe("[Summary of steps 3 to 9, written to stay within the context budget:]\nRead the notes.");
  });

  it("elides old outputs into notices naming their artifacts, journaled, keeping the most recent; read_artifact reads one back", async () => {
    const store = memoryStore();
    const views: AgentView[] = [];
    let readBack = "";
    const agent: Agent = {
      decide: async (view) => {
        views.push(view);
        if (view.step <= 8) return calls(call("probe", { n: 2000 }));
        if (view.step === 9) {
          const notice = view.transcript.flatMap((t) => (t.type === "observation" && t.observation.elided !== undefined ? [t] : []))[0]!;
          const hash = sha.exec(JSON.stringify(notice))![0];
          return calls(call("read_artifact", { sha256: hash, limit: 100 }));
        }
        const last = view.transcript.at(-1)!;
        if (last.type === "observation" && last.observation.type === "result") readBack = String(last.observation.content);
        return final("done");
      },
    };
    const driver = createDriver({
      store,
      agent,
      tools: [probe, readArtifactTool() as Tool<never, unknown>],
      context: { budgetTokens: 2500, strategy: trimContext({ keepRecent: 2 }) },
      ids: sequentialIds(),
    });
    const outcome = await driver.start("t");
    expect(outcome.failure).toBeUndefined();
    expect(outcome.status).toBe("completed");
    const events = await store.read(outcome.runId);
    const compactions = events.filter((e): e is Extract<JournalEvent, { type: "context.compacted" }> => e.type === "context.compacted");
    expect(compactions.length).toBeGreaterThan(0);
    expect(compactions[0]).toMatchObject({ strategy: "trim", reason: "budget" });
    expect(compactions[0]!.tokens.after).toBeLessThan(compactions[0]!.tokens.before);
    // The journal reduces to what the agent was shown.
    const state = await driver.state(outcome.runId);
    expect(state.artifacts.length).toBeGreaterThan(0);
    // Every request stayed within the budget (estimated as the driver does, the tools included).
    for (const v of views)
      expect(
        v.transcript.filter((t) => t.type === "observation" && t.observation.elided === undefined && String((t.observation as { content?: unknown }).content).length > 1000).length,
      ).toBeLessThanOrEqual(3);
    const elided = views.at(-1)!.transcript.find((t) => t.type === "observation" && t.observation.elided !== undefined)!;
    expect(elided.type === "observation" && elided.observation.type === "result" && elided.observation.content).toMatch(
      /^\[Elided to stay within the context budget: this output \(2,000 bytes\) is kept as artifact sha256:[0-9a-f]{64}; call read_artifact with that sha256 to read it again\.\]$/,
    );
    expect(readBack).toBe(`${"x".repeat(100)}\n[Bytes 0-100 of 2000 shown. To read on, call read_artifact with offset 100.]`);
  });

  it("a long run's state keeps the artifacts named last (its snapshots do not grow with the run); read_artifact still serves the first, found in the journal", async () => {
    const store = memoryStore();
    let first: string | undefined;
    let readBack = "";
    const agent: Agent = {
      decide: async (view) => {
        if (first === undefined) {
          const notice = view.transcript.find((t) => t.type === "observation" && t.observation.elided !== undefined);
          if (notice !== undefined) first = sha.exec(JSON.stringify(notice))![0];
        }
        if (view.step <= ARTIFACTS_KEPT + 40) return calls(call("probe", { n: 2000 + view.step }));
        if (view.step === ARTIFACTS_KEPT + 41) return calls(call("read_artifact", { sha256: first!, limit: 40 }));
        const last = view.transcript.at(-1)!;
        if (last.type === "observation" && last.observation.type === "result") readBack = String(last.observation.content);
        return final("done");
      },
    };
    const driver = createDriver({
      store,
      agent,
      tools: [probe, readArtifactTool() as Tool<never, unknown>],
      context: { budgetTokens: 2500, strategy: trimContext({ keepRecent: 2 }) },
      ids: sequentialIds(),
      limits: { maxSteps: 0 },
    });
    const outcome = await driver.start("t");
    expect(outcome.status).toBe("completed");
    const named = new Set((await store.read(outcome.runId)).flatMap((e) => (e.type === "context.compacted" ? e.artifacts : [])));
    expect(named.size).toBeGreaterThan(ARTIFACTS_KEPT);
    const state = await driver.state(outcome.runId);
    expect(state.artifacts.length).toBe(ARTIFACTS_KEPT);
    expect(state.artifacts).not.toContain(first);
    expect(readBack).toBe(`${"x".repeat(40)}\n[Bytes 0-40 of 2001 shown. To read on, call read_artifact with offset 40.]`);
  });

  it("read_artifact serves only artifacts this run's journal names", async () => {
    const store = memoryStore();
    const other = await store.putArtifact(new TextEncoder().encode("another run's secret"));
    const driver = createDriver({
      store,
      agent: scriptedAgent([calls(call("read_artifact", { sha256: other.sha256 })), final("done")]),
      tools: [readArtifactTool() as Tool<never, unknown>],
      ids: sequentialIds(),
    });
    const done = await driver.start("t");
    const finished = (await store.read(done.runId)).find((e) => e.type === "call.finished") as Extract<JournalEvent, { type: "call.finished" }>;
    expect(finished.observation).toEqual({
      type: "tool_error",
      failure: "error",
      error: `Error: no artifact sha256:${other.sha256} belongs to this run\n[Next: Copy the sha256 exactly from the notice that named it.]\n[Recovery: If no notice named it, the output is not available: go on without it.]`,
    });
  });

  it("folds the oldest steps into one notice when eliding outputs is not enough", async () => {
    const store = memoryStore();
    const views: AgentView[] = [];
    const agent: Agent = { decide: async (view) => (views.push(view), view.step <= 60 ? calls(call("probe", { n: 40 })) : final("done")) };
    const driver = createDriver({ store, agent, tools: [probe], context: { budgetTokens: 600, strategy: trimContext({ keepRecent: 2 }) }, ids: sequentialIds(), limits: { maxSteps: 0 } });
    const outcome = await driver.start("t");
    expect(outcome.failure).toBeUndefined();
    const last = views.at(-1)!.transcript;
    expect(last[0]!.type).toBe("task");
    expect(last[1]).toMatchObject({ type: "summary", steps: { from: 1 } });
    const summary = last[1]!;
    expect(summary.type === "summary" && summary.text).toMatch(/^\[Steps 1 to \d+ are not shown, to stay within the context budget; the outputs they elided are kept as artifacts\.\]$/);
    // 121 items uncompacted; folded, what fits in the budget (about a dozen steps) and the notice.
    expect(last.length).toBeLessThan(40);
  });
});

describe("context management: the summarizer", () => {
  it("journals the model's summary in the event, and never asks it twice (a crash after the compaction was journaled, then a resume)", async () => {
    const clock = manualClock();
    const store = memoryStore({ clock });
    const asked: string[] = [];
    const summarizer: Agent = {
      decide: async (view) => {
        expect(view.tools).toEqual([]);
        asked.push(String(view.task).split("\n\n")[0]!);
        return { kind: "final", output: `summary ${asked.length}`, answer: { provider: "test", model: "summarizer-1", usage: { input: 10, output: 3 } } };
      },
    };
    // The first probe started after a summary exists crashes the driver: the
    // compaction was appended with the step's start, before the tool ran.
    let crashed = false;
    const faults = {
      at: async (point: string) => {
        if (point === "after_start_append" && asked.length > 0 && !crashed) {
          crashed = true;
          throw new Crash();
        }
      },
    };
    const agent: Agent = { decide: async (view) => (view.step <= 8 ? calls(call("probe", { n: 800 })) : final("done")) };
    const options = { store, clock, tools: [probe], ids: sequentialIds(), context: { budgetTokens: 700, strategy: summarizeContext({ agent: summarizer, keepRecent: 1 }) } };
    const first = await createDriver({ ...options, agent, owner: "a", faults }).start("t");
    expect(first.stopped).toBe("crashed");
    expect(asked).toHaveLength(1);
    clock.advance(31_000);
    const done = await createDriver({ ...options, agent, owner: "b" }).resume(first.runId);
    expect(done.status).toBe("completed");
    const events = await store.read(done.runId);
    const summaries = events.filter((e): e is Extract<JournalEvent, { type: "context.compacted" }> => e.type === "context.compacted");
    expect(summaries[0]).toMatchObject({ strategy: "summarize", from: 1, answer: { provider: "test", model: "summarizer-1", usage: { input: 10, output: 3 } } });
    expect(summaries[0]!.items[0]).toMatchObject({ type: "summary", text: expect.stringMatching(/^\[Summary of steps 1 to \d+, written to stay within the context budget:\]\nsummary 1$/) });
    // Each journaled summary was asked for once: the resume did not ask again for the first.
    expect(asked).toHaveLength(summaries.length);
  });
});

describe("context management at length", () => {
  it("runs 20,000 steps against a fake provider, every request under the budget plus one step's items", async () => {
    const budget = 6000;
    const steps = 20_000;
    const provider = fakeResponses(({ step }) => (step <= steps ? { calls: [{ id: `call_${step}`, name: "probe", args: '{"n":300}' }] } : { text: "done" }));
    const agent = openaiAgent({ model: "gpt-fake", transport: provider.transport, instructions: "Probe." });
    const driver = createDriver({ store: memoryStore(), agent, tools: [probe], context: { budgetTokens: budget }, limits: { maxSteps: 0 }, snapshotEvery: 1024 });
    const done = await driver.start("probe a lot");
    expect(done.status).toBe("completed");
    expect(provider.requests).toHaveLength(steps + 1);
    // One step's items: the decision and its output, about (300 + 120) characters, and their framing.
    const oneStep = Math.ceil((300 + 200) / 4);
    const largest = Math.max(...provider.requests.map((r) => r.inputTokens));
    expect(largest).toBeLessThanOrEqual(budget + oneStep);
    expect(Math.max(...provider.requests.map((r) => r.items))).toBeLessThan(200);
  }, 120_000);
});

describe("record and replay", () => {
  it("replays a compacted run byte for byte (the same journal, hash for hash)", async () => {
    const run = async (agent: Agent) => {
      const store = memoryStore({ clock: manualClock() });
      const driver = createDriver({ store, agent, tools: [probe], clock: manualClock(), ids: sequentialIds(), owner: "rec", context: { budgetTokens: 900 } });
      const done = await driver.start("t");
      return (await store.read(done.runId)).map((e) => e.hash);
    };
    const provider = fakeResponses(({ step }) => (step <= 40 ? { calls: [{ id: `call_${step}`, name: "probe", args: '{"n":500}' }] } : { text: "done" }));
    const recording = recordingAgent(openaiAgent({ model: "gpt-fake", transport: provider.transport }));
    const recorded = await run(recording);
    expect(recording.recording.exchanges).toHaveLength(41);
    const replayed = await run(replayAgent(JSON.parse(JSON.stringify(recording.recording))));
    expect(replayed).toEqual(recorded);
  });

  it("replays a 500-step recorded run byte for byte", async () => {
    const run = async (agent: Agent) => {
      const store = memoryStore({ clock: manualClock() });
      const driver = createDriver({ store, agent, tools: [probe], clock: manualClock(), ids: sequentialIds(), owner: "rec", limits: { maxSteps: 0 } });
      const done = await driver.start("t");
      return (await store.read(done.runId)).map((e) => e.hash);
    };
    const provider = fakeResponses(({ step }) => (step <= 500 ? { calls: [{ id: `call_${step}`, name: "probe", args: `{"n":${20 + (step % 7)}}` }] } : { text: "done" }));
    const recording = recordingAgent(openaiAgent({ model: "gpt-fake", transport: provider.transport }));
    const recorded = await run(recording);
    const replayed = await run(replayAgent(JSON.parse(JSON.stringify(recording.recording))));
    expect(replayed).toHaveLength(recorded.length);
    expect(replayed).toEqual(recorded);
  }, 60_000);
});
