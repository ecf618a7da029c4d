/**
 * A fake OpenAI Responses provider on loopback HTTP (node:http, in the
 * bench's process), the one server every contender of `steps-adapter`
 * talks to. It reads each request as the real API would (the JSON body
 * parsed whole), works out the step from the request itself (one more than
 * the `function_call_output` items in its input, so it keeps no state per
 * contender and a client that drops its history is caught), and answers in
 * the Responses wire format: streamed (`event:` + `data:` per event, with
 * sequence numbers, as the API sends them and test/helpers/wire.ts shows
 * them) when the request says `stream: true`, a whole `response` object
 * otherwise. Steps 1..n answer with one `function_call` output item, step
 * n + 1 with a message; usage counts the request's input (about one token
 * per four characters, as test/helpers/fake-provider.ts does).
 *
 * Every id in an answer is unique (`resp_<k>`, `fc_<k>`, `msg_<k>`, `k`
 * counting answers), as a real provider's are: an SDK that keys items by id
 * must not see two alike.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface FakeResponsesServer {
  /** The base URL an OpenAI client is given (`…/v1`; requests go to `…/v1/responses`). */
  readonly baseUrl: string;
  /** Requests answered so far, by how they asked (streamed or whole), and refused; connections accepted. */
  readonly counts: { streamed: number; whole: number; refused: number; connections: number };
  /** The last refusal's reason (a request the fake could not read as Responses). */
  lastRefusal: string | undefined;
  close(): Promise<void>;
}

interface Answer {
  readonly call?: { readonly id: string; readonly name: string; readonly args: string };
  readonly text?: string;
  readonly inputTokens: number;
}

const sse = (type: string, seq: number, fields: Record<string, unknown>): string => `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq, ...fields })}\n\n`;

/** A `response` object (completed), as the Responses API returns it whole and in `response.completed`. */
function responseObject(k: number, model: string, a: Answer): Record<string, unknown> {
  const output: unknown[] = [];
  if (a.text !== undefined) output.push({ id: `msg_${k}`, type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", annotations: [], logprobs: [], text: a.text }] });
  if (a.call !== undefined) output.push({ id: `fc_${k}`, type: "function_call", status: "completed", arguments: a.call.args, call_id: a.call.id, name: a.call.name });
  return {
    id: `resp_${k}`,
    object: "response",
    created_at: 1761565462,
    status: "completed",
    error: null,
    incomplete_details: null,
    model,
    output,
    parallel_tool_calls: true,
    usage: { input_tokens: a.inputTokens, input_tokens_details: { cached_tokens: 0 }, output_tokens: 12, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: a.inputTokens + 12 },
  };
}

/** The same answer as the stream of events the API sends. */
function responseStream(k: number, model: string, a: Answer): string {
  let seq = 0;
  const out: string[] = [];
  const ev = (type: string, fields: Record<string, unknown>) => out.push(sse(type, seq++, fields));
  const inProgress = { ...responseObject(k, model, { inputTokens: 0 }), status: "in_progress", usage: null };
  ev("response.created", { response: inProgress });
  ev("response.in_progress", { response: inProgress });
  if (a.text !== undefined) {
    const id = `msg_${k}`;
    const part = { type: "output_text", annotations: [], logprobs: [], text: a.text };
    ev("response.output_item.added", { output_index: 0, item: { id, type: "message", status: "in_progress", content: [], role: "assistant" } });
    ev("response.content_part.added", { item_id: id, output_index: 0, content_index: 0, part: { ...part, text: "" } });
    ev("response.output_text.delta", { item_id: id, output_index: 0, content_index: 0, delta: a.text, logprobs: [] });
    ev("response.output_text.done", { item_id: id, output_index: 0, content_index: 0, text: a.text, logprobs: [] });
    ev("response.content_part.done", { item_id: id, output_index: 0, content_index: 0, part });
    ev("response.output_item.done", { output_index: 0, item: { id, type: "message", status: "completed", content: [part], role: "assistant" } });
  }
  if (a.call !== undefined) {
    const item = { id: `fc_${k}`, type: "function_call", status: "in_progress", arguments: "", call_id: a.call.id, name: a.call.name };
    ev("response.output_item.added", { output_index: 0, item });
    ev("response.function_call_arguments.delta", { item_id: item.id, output_index: 0, delta: a.call.args });
    ev("response.function_call_arguments.done", { item_id: item.id, output_index: 0, name: a.call.name, arguments: a.call.args });
    ev("response.output_item.done", { output_index: 0, item: { ...item, status: "completed", arguments: a.call.args } });
  }
  ev("response.completed", { response: responseObject(k, model, a) });
  return out.join("");
}

/**
 * Starts the fake. `steps` says how many tool steps a run has before its
 * final answer; it is read at each request, so one server serves runs of
 * any length in turn. Each step asks for `tool` with `args`, and the final
 * answer says `finalText`.
 */
export async function fakeResponsesServer(options: { steps: () => number; tool: string; args?: string; finalText: string }): Promise<FakeResponsesServer> {
  const args = options.args ?? "{}";
  const sockets = new Set<Socket>();
  let k = 0;
  const state: FakeResponsesServer = {
    baseUrl: "",
    counts: { streamed: 0, whole: 0, refused: 0, connections: 0 },
    lastRefusal: undefined,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  const refuse = (res: ServerResponse, why: string) => {
    state.counts.refused++;
    state.lastRefusal = why;
    res.writeHead(400, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: { message: why, type: "invalid_request_error", param: null, code: null } }));
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/v1/responses") return refuse(res, `the fake answers POST /v1/responses only, not ${req.method} ${req.url}`);
      const text = Buffer.concat(chunks).toString("utf8");
      let body: { model?: unknown; input?: unknown; stream?: unknown };
      try {
        body = JSON.parse(text) as typeof body;
      } catch {
        return refuse(res, "the body is not JSON");
      }
      if (!Array.isArray(body.input)) return refuse(res, "no input array");
      // The step this request asks for: one more than the outputs it carries.
      let outputs = 0;
      for (const item of body.input as { type?: unknown }[]) if (item !== null && typeof item === "object" && item.type === "function_call_output") outputs++;
      const step = outputs + 1;
      const n = options.steps();
      if (step > n + 1) return refuse(res, `step ${step} of a run of ${n}`);
      const answer: Answer = { inputTokens: Math.ceil(text.length / 4), ...(step <= n ? { call: { id: `call_${step}`, name: options.tool, args } } : { text: options.finalText }) };
      const model = typeof body.model === "string" ? body.model : "gpt-fake";
      k++;
      if (body.stream === true) {
        state.counts.streamed++;
        res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
        res.end(responseStream(k, model, answer));
      } else {
        state.counts.whole++;
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(responseObject(k, model, answer)));
      }
    });
  });
  server.on("connection", (s) => {
    state.counts.connections++;
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  (state as { baseUrl: string }).baseUrl = `http://127.0.0.1:${port}/v1`;
  return state;
}
