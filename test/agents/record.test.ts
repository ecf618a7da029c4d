import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { anthropicAgent } from "../../src/agents/anthropic/index.js";
import { openaiAgent } from "../../src/agents/openai/index.js";
import { firstDifference, recordingAgent, replayAgent, ReplayDriftError, type Recording } from "../../src/agents/record/index.js";
import { createDriver, defineTool, memoryStore, strictObject, string, type Agent, type Tool } from "../../src/index.js";
import { manualClock, sequentialIds } from "../../src/testkit/index.js";
import { anthropicStream, mockModelServer, responsesStream, type MockModelServer } from "../helpers/mock-model.js";

const KEY = "sk-test-secret-0123456789";
const tool = (description: string) =>
  defineTool<{ path: string }>({
    name: "read_file",
    description,
    inputSchema: strictObject({ path: string("Path") }),
    sideEffect: "read_only",
    timeoutMs: 1000,
    call: (a) => (a.path === "notes.md" ? "hello" : null),
  }) as Tool<never, unknown>;

let server: MockModelServer;
beforeEach(async () => {
  server = await mockModelServer();
});
afterEach(async () => {
  await server.close();
});

async function run(agent: Agent, description = "Read a file.") {
  const driver = createDriver({ agent, tools: [tool(description)], clock: manualClock(1_700_000_000_000), ids: sequentialIds(), store: memoryStore(), owner: "driver-1" });
  const outcome = await driver.start("Summarise notes.md");
  return { outcome, journal: JSON.stringify(await driver.events(outcome.runId)) };
}

describe("recordingAgent and replayAgent", () => {
  it.each([
    ["openai", (url: string) => openaiAgent({ apiKey: KEY, model: "gpt-mock", baseUrl: url }), responsesStream],
    ["anthropic", (url: string) => anthropicAgent({ apiKey: KEY, model: "claude-mock", baseUrl: url }), anthropicStream],
  ] as const)("%s: a recorded run replays byte for byte with no server; a changed tool description is drift", async (_name, make, stream) => {
    server.answer({ chunks: stream({ text: "Reading.", calls: [{ id: "call_1", name: "read_file", args: '{"path":"notes.md"}' }] }) }, { chunks: stream({ text: "It says hello." }) });
    const recording = recordingAgent(make(server.url));
    const recorded = await run(recording);
    expect(recorded.outcome).toMatchObject({ status: "completed", output: "It says hello." });
    await server.close();

    // Saved and loaded as plain JSON, without the key.
    const saved = JSON.stringify(recording.recording);
    expect(saved).not.toContain(KEY);
    const loaded = JSON.parse(saved) as Recording;
    expect(loaded.exchanges).toHaveLength(2);

    const replayed = await run(replayAgent(loaded));
    expect(replayed.journal).toBe(recorded.journal);

    const drifted = await run(replayAgent(loaded), "Read a text file.");
    expect(drifted.outcome.status).toBe("failed");
    expect(drifted.outcome.failure?.detail).toBe(
      'replay drift: request 1 is not in the recording; first difference at $request.body.tools[0].description: recorded "Read a file.", now "Read a text file."',
    );
  });

  it("throws a ReplayDriftError naming the field, to a caller of decide", async () => {
    const recording: Recording = {
      v: 1,
      agent: { provider: "openai", model: "gpt-mock", api: "responses", stream: true, parallelToolCalls: true, strict: "auto" },
      exchanges: [],
    };
    const agent = replayAgent(recording);
    const view = { task: "x", tools: [], transcript: [{ type: "task" as const, task: "x" }], step: 1 };
    await expect(agent.decide(view, { signal: new AbortController().signal })).rejects.toBeInstanceOf(ReplayDriftError);
  });

  it("firstDifference walks objects and arrays in order", () => {
    expect(firstDifference({ a: [1, { b: 2 }] }, { a: [1, { b: 3 }] })).toEqual({ path: "$.a[1].b", recorded: 2, actual: 3 });
    expect(firstDifference({ a: 1 }, { a: 1, "b-c": 2 })).toEqual({ path: '$["b-c"]', recorded: undefined, actual: 2 });
    expect(firstDifference([1], [1, 2])).toEqual({ path: "$[1]", recorded: undefined, actual: 2 });
    expect(firstDifference({ a: [1] }, { a: [1] })).toBeUndefined();
  });
});
