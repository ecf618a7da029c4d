/**
 * docs/models.md, "What the model's text becomes": an OpenAI Responses
 * message in the commentary phase is progress, not output; a final_answer
 * message (or one without a phase) is the answer. Each row of the page's
 * table, whole and streamed.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openaiAgent } from "../../src/agents/openai/index.js";
import { createDriver, defineTool, memoryStore, strictObject, type AgentProgress, type JournalEvent, type Tool } from "../../src/index.js";
import { manualClock, sequentialIds } from "../../src/testkit/index.js";
import { mockModelServer, responsesObject, responsesStream, type MockModelServer } from "../helpers/mock-model.js";

const retry = { sleep: async () => {}, random: () => 0, maxRetries: 0 };
const look = defineTool({ name: "look", description: "Looks.", inputSchema: strictObject({}), sideEffect: "read_only", timeoutMs: 1000, call: () => "seen" }) as Tool<never, unknown>;
const call1 = { id: "call_1", name: "look", args: "{}" };
const commentary = { phase: "commentary", text: "Looking first." };
const finalAnswer = { phase: "final_answer", text: "Done: seen." };

let server: MockModelServer;
beforeEach(async () => {
  server = await mockModelServer();
});
afterEach(() => server.close());

async function run(first: Parameters<typeof responsesObject>[0], stream: boolean) {
  const answer = (o: Parameters<typeof responsesObject>[0]) => (stream ? { chunks: responsesStream(o) } : { body: JSON.stringify(responsesObject(o)) });
  server.answer(answer(first), answer({ text: "after the call" }));
  const progress: AgentProgress[] = [];
  const driver = createDriver({
    agent: openaiAgent({ apiKey: "sk-test-0123456789abcdef", model: "gpt-mock", baseUrl: server.url, stream, retry }),
    tools: [look],
    clock: manualClock(),
    ids: sequentialIds(),
    store: memoryStore(),
    onProgress: (_r, _s, p) => void (p.type === "tool" || progress.push(p)),
  });
  const outcome = await driver.start("t");
  const decided = (await driver.events(outcome.runId)).filter((e): e is Extract<JournalEvent, { type: "step.decided" }> => e.type === "step.decided");
  return { outcome, first: decided[0]!.decision, progress, requests: server.requests };
}

describe.each([false, true])("OpenAI Responses phases (stream: %s)", (stream) => {
  it("commentary and a final answer, no call: the final answer is the output; the commentary is progress", async () => {
    const r = await run({ phases: [commentary, finalAnswer] }, stream);
    expect(r.outcome).toMatchObject({ status: "completed", output: "Done: seen." });
    expect(r.first).toMatchObject({ kind: "final", output: "Done: seen." });
    expect(JSON.stringify(r.first)).not.toContain("Looking first.");
    if (!stream) expect(r.progress).toEqual([{ type: "text", delta: "Looking first." }]);
  });

  it("commentary only, no call: the commentary is the output (there is nothing else)", async () => {
    const r = await run({ phases: [commentary] }, stream);
    expect(r.outcome).toMatchObject({ status: "completed", output: "Looking first." });
  });

  it("commentary beside calls: it is the text beside the calls, journaled with the decision and sent back to the model", async () => {
    const r = await run({ phases: [commentary], calls: [call1] }, stream);
    expect(r.first).toMatchObject({ kind: "calls", text: "Looking first.", calls: [{ name: "look", args: "{}" }] });
    expect(JSON.stringify(r.requests.at(-1)!.body)).toContain('{"role":"assistant","content":"Looking first."}');
    expect(r.outcome).toMatchObject({ status: "completed", output: "after the call" });
  });

  it("commentary and a final answer beside calls: the final answer is the text beside the calls; the commentary is progress only", async () => {
    const r = await run({ phases: [commentary, finalAnswer], calls: [call1] }, stream);
    expect(r.first).toMatchObject({ kind: "calls", text: "Done: seen." });
    expect(JSON.stringify(r.requests.at(-1)!.body)).not.toContain("Looking first.");
  });

  it("several final-answer messages (or messages without a phase) are joined with a blank line", async () => {
    const r = await run({ text: "One.", phases: [{ phase: "final_answer", text: "Two." }] }, stream);
    expect(r.outcome).toMatchObject({ status: "completed", output: "One.\n\nTwo." });
  });
});

describe("the page", () => {
  it("docs/models.md says what the text becomes in each phase, and the README links it", async () => {
    const { readFileSync } = await import("node:fs");
    const page = readFileSync("docs/models.md", "utf8");
    expect(page).toContain("A message in the **commentary phase is progress, not\noutput**");
    for (const row of ["| commentary and a final answer, no call |", "| commentary only, no call |", "| commentary beside calls, no final answer |", "| commentary and a final answer beside calls |"])
      expect(page).toContain(row);
    expect(readFileSync("README.md", "utf8")).toContain("[docs/models.md](docs/models.md)");
  });
});
