/**
 * A fake OpenAI Responses provider in this process: a Transport that reads
 * the request body as the real API would, decides the next step by a
 * script, and answers with the exact streamed wire format (helpers/wire.ts),
 * its usage counting the request's input tokens as about one per four
 * characters. No HTTP: a 20,000-step run takes seconds.
 */
import type { ModelRequest, ModelResponse, Transport } from "../../src/agents/openai/index.js";
import { responsesStream, type MockCall } from "./wire.js";

export interface FakeProvider {
  readonly transport: Transport;
  /** Every request's text length and the input tokens answered for it. */
  readonly requests: { readonly chars: number; readonly inputTokens: number; readonly items: number }[];
}

const enc = new TextEncoder();

/** Answers each request with `next(step, input)`: calls to make, or the final text; usage from the request's size. */
export function fakeResponses(next: (request: { step: number; input: unknown[] }) => { calls?: MockCall[]; text?: string } | { status: number; body: string }): FakeProvider {
  const requests: FakeProvider["requests"][number][] = [];
  let step = 0;
  const transport: Transport = async (request: ModelRequest): Promise<ModelResponse> => {
    const text = request.text ?? JSON.stringify(request.body);
    const body = JSON.parse(text) as { input: unknown[] };
    const inputTokens = Math.ceil(text.length / 4);
    requests.push({ chars: text.length, inputTokens, items: body.input.length });
    const answer = next({ step: ++step, input: body.input });
    if ("status" in answer) {
      return {
        status: answer.status,
        header: () => null,
        body: (async function* () {
          yield enc.encode(answer.body);
        })(),
      };
    }
    const chunks = responsesStream({ ...answer, usage: { input: inputTokens, output: 20 } });
    return {
      status: 200,
      header: (name) => (name.toLowerCase() === "content-type" ? "text/event-stream" : null),
      body: (async function* () {
        for (const c of chunks) yield enc.encode(c);
      })(),
    };
  };
  return { transport, requests };
}
