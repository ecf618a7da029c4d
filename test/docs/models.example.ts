// docs/models.md's examples: a tool from a zod schema, the three adapters
// over fetch, and record and replay. fetch is replaced, for this program
// only, by a fake provider answering each API's streamed wire format, so no
// request leaves the process; the program checks what each adapter sent.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expectTypeOf } from "vitest";
import { z } from "zod";
import { createDriver, defineTool, memoryStore } from "../../src/index.js";
import { checkArgs } from "../../src/tools/index.js";
import { anthropicStream, chatStream, responsesStream } from "../helpers/wire.js";

const apiKey = "sk-docs-example-0123456789abcdef0123456789";
const model = "gpt-5-mini";
const task = "Tidy my notes.";
const store = memoryStore();
const files = new Map<string, string>();
const write = (path: string, content: string) => {
  files.set(path, content);
  return `wrote ${content.length} characters to ${path}`;
};

type Seen = { url: string; authorization: string | null; apiKey: string | null; body: Record<string, unknown> };
const seen: Seen[] = [];
const realFetch = globalThis.fetch;
const realCwd = process.cwd();
globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
  const url = String(input);
  const headers = new Headers(init?.headers);
  seen.push({ url, authorization: headers.get("authorization"), apiKey: headers.get("x-api-key"), body: JSON.parse(String(init?.body)) as Record<string, unknown> });
  const chunks = url.endsWith("/responses") ? responsesStream({ text: "Tidied." }) : url.endsWith("/chat/completions") ? chatStream({ text: "Tidied." }) : anthropicStream({ text: "Tidied." });
  return new Response(chunks.join(""), { headers: { "content-type": "text/event-stream" } });
}) as typeof fetch;
process.chdir(mkdtempSync(join(tmpdir(), "isoagent-models-"))); // where run.recording.json is written

// DOCS: begin
const writeFile = defineTool({
  name: "write_file",
  description: "Write a file.",
  sideEffect: "local_mutation",
  permission: "ask",
  timeoutMs: 10_000,
  inputSchema: z.strictObject({ path: z.string().min(1), content: z.string() }),
  call: (args) => write(args.path, args.content), // args: { path: string; content: string }
});
// DOCS: end

expectTypeOf(writeFile.call).parameter(0).toEqualTypeOf<{ path: string; content: string }>();
assert.equal(checkArgs(writeFile, '{"path":"a.md","content":"x"}').valid, true);
assert.equal(checkArgs(writeFile, '{"path":"","content":"x"}').valid, false); // .min(1), as JSON Schema's minLength
assert.equal(checkArgs(writeFile, '{"path":"a.md","content":"x","mode":1}').valid, false); // strict: no other property
const tools = [writeFile];

// DOCS: begin
import { openaiAgent } from "../../src/agents/openai/index.js";
import { anthropicAgent } from "../../src/agents/anthropic/index.js";

const agent = openaiAgent({ apiKey, model: "gpt-5-mini", instructions: "You tidy notes." }); // the Responses API
const chat = openaiAgent({ apiKey, model: "llama3", api: "chat", baseUrl: "http://localhost:11434/v1" }); // any OpenAI-compatible server
const claude = anthropicAgent({ apiKey, model: "claude-sonnet-4-5", system: "You tidy notes." });
const driver = createDriver({ agent, tools, store });
// DOCS: end

const outcome = await driver.start(task);
assert.equal(outcome.status, "completed");
assert.equal(outcome.output, "Tidied.");
assert.equal((await createDriver({ agent: chat, tools }).start(task)).output, "Tidied.");
assert.equal((await createDriver({ agent: claude, tools }).start(task)).output, "Tidied.");
const [responses, completions, messages] = seen;
assert.equal(responses!.url, "https://api.openai.com/v1/responses");
assert.equal(responses!.authorization, `Bearer ${apiKey}`);
assert.equal(responses!.body["instructions"], "You tidy notes.");
// The tool became a function tool, its JSON Schema from zod's; not in strict mode: a closed object,
// every property required, but minLength is a bound older versions of strict mode refuse.
const [fn] = responses!.body["tools"] as { type: string; name: string; strict: boolean; parameters: { properties: { path: unknown } } }[];
assert.deepEqual([fn!.type, fn!.name, fn!.strict], ["function", "write_file", false]);
assert.deepEqual(fn!.parameters.properties.path, { type: "string", minLength: 1 });
assert.equal(completions!.url, "http://localhost:11434/v1/chat/completions");
assert.equal(completions!.body["model"], "llama3");
assert.equal(messages!.url, "https://api.anthropic.com/v1/messages");
assert.equal(messages!.apiKey, apiKey);
assert.equal(messages!.body["system"], "You tidy notes.");
// The key never enters the journal.
assert(!JSON.stringify(await store.read(outcome.runId)).includes(apiKey));

// DOCS: begin
import { recordingAgent, replayAgent } from "../../src/agents/record/index.js";

const recording = recordingAgent(openaiAgent({ apiKey, model }));
await createDriver({ agent: recording, tools }).start(task);
writeFileSync("run.recording.json", JSON.stringify(recording.recording)); // plain JSON, no key

const replay = replayAgent(JSON.parse(readFileSync("run.recording.json", "utf8")));
// DOCS: end

const saved = readFileSync("run.recording.json", "utf8");
assert(!saved.includes(apiKey), "the recording holds no key");
assert.equal(recording.recording.exchanges.length, 1);
const asked = seen.length;
const replayed = await createDriver({ agent: replay, tools }).start(task);
assert.equal(replayed.output, "Tidied.");
assert.equal(seen.length, asked, "the replay answered with no request");

rmSync(process.cwd(), { recursive: true });
process.chdir(realCwd);
globalThis.fetch = realFetch;
