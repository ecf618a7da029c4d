// docs/journal.md's context budget: a run whose tool outputs outgrow
// 100,000 tokens is compacted (a journaled context.compacted event, old
// outputs elided into notices that name their artifacts), and the model
// reads an elided output back with read_artifact.
import assert from "node:assert/strict";
import { call, calls, defineTool, final, memoryStore, strictObject, type Agent, type JournalEvent } from "../../src/index.js";

const store = memoryStore();
const report = (step: number) => `report ${step}: ${"x".repeat(40_000)}`; // about 10,000 tokens each
const tools = [
  defineTool({
    name: "fetch_report",
    description: "Fetch a report.",
    sideEffect: "read_only",
    timeoutMs: 5_000,
    inputSchema: strictObject({}),
    call: (_args, ctx) => report(ctx.step),
  }),
];
let readBack = "";
const agent: Agent = {
  decide: async (view) => {
    if (view.step <= 12) return calls(call("fetch_report"));
    const notice = view.transcript.find((t) => t.type === "observation" && t.observation.elided !== undefined);
    if (view.step === 13 && notice !== undefined) {
      return calls(call("read_artifact", { sha256: /[0-9a-f]{64}/.exec(JSON.stringify(notice))![0], limit: 20 }));
    }
    const last = view.transcript.at(-1);
    if (last?.type === "observation" && last.observation.type === "result") readBack = String(last.observation.content);
    return final("done");
  },
};

// DOCS: begin
import { createDriver, trimContext } from "../../src/index.js";
import { readArtifactTool } from "../../src/toolkit/index.js";

const driver = createDriver({
  agent,
  store,
  tools: [...tools, readArtifactTool()], // lets the model read an elided output back
  context: { budgetTokens: 100_000, strategy: trimContext({ keepRecent: 4 }) },
});
// DOCS: end

const outcome = await driver.start("Read the reports.");
assert.equal(outcome.status, "completed");
const events = await store.read(outcome.runId);
const compactions = events.filter((e): e is Extract<JournalEvent, { type: "context.compacted" }> => e.type === "context.compacted");
assert(compactions.length > 0, "the budget compacted the transcript");
assert.equal(compactions[0]!.strategy, "trim");
assert(compactions[0]!.tokens.before > 100_000);
assert(compactions[0]!.tokens.after <= 60_000, "down to 60% of the budget");
assert.match(readBack, /^report \d+: x{10,11}\n\[Bytes 0-20 of 400\d\d shown\. To read on, call read_artifact with offset 20\.\]$/);
assert.match(
  JSON.stringify(compactions[0]),
  /\[Elided to stay within the context budget: this output \(40,01\d bytes\) is kept as artifact sha256:[0-9a-f]{64}; call read_artifact with that sha256 to read it again\.\]/,
);
