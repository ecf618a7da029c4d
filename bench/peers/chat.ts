/**
 * The peer of `conversation`: the Vercel AI SDK's documented chat
 * persistence pattern, one turn at a time. The chat's UI messages are kept
 * as one JSON text (as a database row holds them); each turn loads them,
 * appends the user's message, converts them (`convertToModelMessages`),
 * streams the answer (`streamText` with `createOpenAI(...).responses`, the
 * UI message stream consumed as a server would send it) and saves every
 * message again (`onEnd`'s messages, stringified). The model is the same
 * in-process fake Responses provider isoagent's rows use
 * (test/helpers/fake-provider.ts), reached through the SDK's `fetch`
 * option, so no HTTP is timed on either side.
 */
import { quietAiSdk, versionOf } from "./installed.js";
import { createOpenAI } from "@ai-sdk/openai";
import { convertToModelMessages, streamText, toUIMessageStream, type UIMessage } from "ai";
import { fakeResponses } from "../../test/helpers/fake-provider.js";

export interface PeerChat {
  readonly version: string;
  /** One more turn: its time, and the fake provider's share of it. */
  turn(): Promise<{ ns: number; providerNs: number }>;
}

const ANSWER = "Noted: the thing you said, and what it means for the notes.";

// A console write in a timed loop would be timed.
quietAiSdk();

/** A chat held by the AI SDK's persistence pattern, built to `turns` turns. */
export async function aiSdkChat(turns: number): Promise<PeerChat> {
  const provider = fakeResponses(() => ({ text: ANSWER }));
  let providerNs = 0;
  const fetch = async (_url: unknown, init?: { body?: unknown; signal?: unknown }): Promise<Response> => {
    const t = performance.now();
    const res = await provider.transport({ path: "/responses", body: null, text: String(init?.body) }, { signal: init?.signal as never });
    providerNs += (performance.now() - t) * 1e6;
    const chunks = res.body;
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        for await (const c of chunks) controller.enqueue(c);
        controller.close();
      },
    });
    return new Response(body, { status: res.status, headers: { "content-type": "text/event-stream" } });
  };
  const model = createOpenAI({ apiKey: "sk-bench-not-a-key", baseURL: "http://fake.invalid/v1", fetch: fetch as typeof globalThis.fetch }).responses("gpt-fake");
  // The database: the chat's messages as one JSON text.
  let row = "[]";
  let n = 0;
  const turn = async (): Promise<{ ns: number; providerNs: number }> => {
    n++;
    providerNs = 0;
    const t = performance.now();
    const messages = JSON.parse(row) as UIMessage[];
    messages.push({ id: `m${n}`, role: "user", parts: [{ type: "text", text: `Message ${n}: please note that item ${n} matters, and why.` }] });
    const result = streamText({
      model,
      system: "You keep the user's notes. Be brief.",
      messages: await convertToModelMessages(messages),
      maxRetries: 0,
      providerOptions: { openai: { store: false } },
    });
    let saved = false;
    const ui = toUIMessageStream({
      stream: result.stream,
      originalMessages: messages,
      onEnd: ({ messages: all }) => {
        row = JSON.stringify(all);
        saved = true;
      },
    });
    for await (const chunk of ui) void chunk;
    const ns = (performance.now() - t) * 1e6;
    if (!saved || !row.includes(ANSWER)) throw new Error(`ai-sdk chat: turn ${n} saved no answer`);
    return { ns, providerNs };
  };
  for (let k = 0; k < turns; k++) await turn();
  const count = (JSON.parse(row) as UIMessage[]).length;
  if (count !== 2 * turns) throw new Error(`ai-sdk chat: ${count} messages after ${turns} turns`);
  return { version: `ai ${versionOf("ai")}, @ai-sdk/openai ${versionOf("@ai-sdk/openai")}`, turn };
}
