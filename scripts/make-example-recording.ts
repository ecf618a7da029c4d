/**
 * Writes examples/recordings/openai-summarise-notes.json: the model demo run
 * recorded against the local server that speaks OpenAI's Responses wire
 * format (test/helpers/mock-model.ts), since no real provider is reachable
 * from the machines this project is built on. Against a real one, run
 * `OPENAI_API_KEY=... npm run example:model -- --record <file>` instead.
 */
import { writeFileSync } from "node:fs";
import { openaiAgent } from "../src/agents/openai/index.js";
import { recordingAgent } from "../src/agents/record/index.js";
import { mockModelServer, responsesStream } from "../test/helpers/mock-model.js";
import { DEMO_INSTRUCTIONS } from "../examples/model.js";
import { RECORDING, runDemo } from "../examples/node/model-demo.js";

const server = await mockModelServer();
const summary = "# Summary\n\n3 things to do:\n- buy milk\n- call Ana\n- renew passport\n";
server.answer(
  { chunks: responsesStream({ text: "I'll read the notes first.", calls: [{ id: "call_read1", name: "read_file", args: '{"path":"notes/todo.md"}' }] }) },
  { chunks: responsesStream({ calls: [{ id: "call_write1", name: "write_file", args: JSON.stringify({ path: "notes/summary.md", content: summary }) }] }) },
  { chunks: responsesStream({ text: "Wrote a three-item summary to notes/summary.md." }) },
);
const agent = recordingAgent(openaiAgent({ apiKey: "sk-local-mock", model: "gpt-5-mini", baseUrl: server.url, instructions: DEMO_INSTRUCTIONS }));
const { outcome } = await runDemo(agent);
await server.close();
if (outcome.status !== "completed") throw new Error(`the recorded run ended ${outcome.status}`);
writeFileSync(RECORDING, `${JSON.stringify(agent.recording, null, 2)}\n`);
console.log(`wrote ${RECORDING}: ${agent.recording.exchanges.length} exchanges`);
