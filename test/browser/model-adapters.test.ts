import { describe, expect, it } from "vitest";
import { anthropicAgent } from "../../src/agents/anthropic/index.js";
import { openaiAgent } from "../../src/agents/openai/index.js";
import { createDriver, defineTool, memoryStore, strictObject, string, type Tool } from "../../src/index.js";
import { anthropicStream, chatStream, responsesStream } from "../helpers/wire.js";

// The adapters in Chromium, over its own fetch Response, ReadableStream and
// TextDecoder: each answer a real streamed Response, in small pieces.
function fetchAnswering(answers: string[][], seen: { url: string; headers: Record<string, string> }[]) {
  return async (url: string, init: { headers: Record<string, string> }) => {
    seen.push({ url, headers: init.headers });
    const chunks = answers.shift()!;
    const bytes = new TextEncoder().encode(chunks.join(""));
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let k = 0; k < bytes.length; k += 7) controller.enqueue(bytes.slice(k, k + 7));
        controller.close();
      },
    });
    return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
  };
}

const readFile = defineTool<{ path: string }>({
  name: "read_file",
  description: "Read a file.",
  inputSchema: strictObject({ path: string() }),
  sideEffect: "read_only",
  timeoutMs: 1000,
  call: () => "hello",
}) as Tool<never, unknown>;

const call = { id: "call_1", name: "read_file", args: '{"path":"notes.md"}' };

describe("model adapters in Chromium", () => {
  for (const [name, make, stream] of [
    ["OpenAI Responses", (f: never) => openaiAgent({ apiKey: "sk-browser-test", model: "m", fetch: f }), responsesStream],
    ["OpenAI Chat", (f: never) => openaiAgent({ apiKey: "sk-browser-test", model: "m", api: "chat", fetch: f }), chatStream],
    ["Anthropic", (f: never) => anthropicAgent({ apiKey: "sk-browser-test", model: "m", fetch: f, headers: { "anthropic-dangerous-direct-browser-access": "true" } }), anthropicStream],
  ] as const) {
    it(`${name}: a streamed call and a streamed final answer drive a run to completion`, async () => {
      const seen: { url: string; headers: Record<string, string> }[] = [];
      const agent = make(fetchAnswering([stream({ calls: [call] }), stream({ text: "It says hello." })], seen) as never);
      const outcome = await createDriver({ agent, tools: [readFile], store: memoryStore() }).start("Read notes.md");
      expect(outcome).toMatchObject({ status: "completed", output: "It says hello." });
      expect(seen).toHaveLength(2);
    });
  }
});
