/**
 * The providers' wire formats, as their published API references and
 * official SDKs show them (OpenAI Responses and Chat Completions, Anthropic
 * Messages): builders of whole answers, streamed answers and error bodies.
 * Pure: usable in Node and in a browser.
 */
export interface MockCall {
  readonly id: string;
  readonly name: string;
  /** The argument text as the model wrote it (possibly malformed). */
  readonly args: string;
}

const sse = (event: string | undefined, data: unknown): string => `${event === undefined ? "" : `event: ${event}\n`}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;
const halves = (s: string): string[] => (s.length < 2 ? [s] : [s.slice(0, Math.ceil(s.length / 2)), s.slice(Math.ceil(s.length / 2))]);

/** OpenAI Responses: a `response` object. */
export function responsesObject(o: {
  text?: string;
  refusal?: string;
  calls?: readonly MockCall[];
  status?: "completed" | "incomplete" | "failed";
  error?: { code: string; message: string };
  usage?: { input: number; output: number; cached?: number };
  /** Messages with a phase (commentary, final_answer), after the text. */
  phases?: readonly { phase: string; text: string }[];
}): Record<string, unknown> {
  const output: unknown[] = [];
  if (o.text !== undefined || o.refusal !== undefined) {
    output.push({
      id: "msg_mock1",
      type: "message",
      status: "completed",
      role: "assistant",
      content: [...(o.text !== undefined ? [{ type: "output_text", annotations: [], logprobs: [], text: o.text }] : []), ...(o.refusal !== undefined ? [{ type: "refusal", refusal: o.refusal }] : [])],
    });
  }
  for (const [k, p] of (o.phases ?? []).entries()) {
    output.push({ id: `msg_phase${k + 1}`, type: "message", status: "completed", role: "assistant", phase: p.phase, content: [{ type: "output_text", annotations: [], logprobs: [], text: p.text }] });
  }
  for (const [k, c] of (o.calls ?? []).entries()) output.push({ id: `fc_mock${k + 1}`, type: "function_call", status: "completed", arguments: c.args, call_id: c.id, name: c.name });
  const u = o.usage ?? { input: 13, output: 12, cached: 0 };
  return {
    id: "resp_mock1",
    object: "response",
    created_at: 1761565462,
    status: o.status ?? "completed",
    error: o.error ?? null,
    incomplete_details: o.status === "incomplete" ? { reason: "max_output_tokens" } : null,
    model: "gpt-mock",
    output,
    parallel_tool_calls: true,
    usage: { input_tokens: u.input, input_tokens_details: { cached_tokens: u.cached ?? 0 }, output_tokens: u.output, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: u.input + u.output },
  };
}

/** OpenAI Responses streamed: `event:` + `data:` per event, sequence numbers, no [DONE]. */
export function responsesStream(o: Parameters<typeof responsesObject>[0]): string[] {
  const out: string[] = [];
  let seq = 0;
  const ev = (type: string, fields: Record<string, unknown>) => out.push(sse(type, { type, sequence_number: seq++, ...fields }));
  const inProgress = { ...responsesObject({}), status: "in_progress", output: [], usage: null };
  ev("response.created", { response: inProgress });
  ev("response.in_progress", { response: inProgress });
  let index = 0;
  if (o.text !== undefined) {
    ev("response.output_item.added", { output_index: index, item: { id: "msg_mock1", type: "message", status: "in_progress", content: [], role: "assistant" } });
    ev("response.content_part.added", { item_id: "msg_mock1", output_index: index, content_index: 0, part: { type: "output_text", annotations: [], logprobs: [], text: "" } });
    for (const d of halves(o.text)) ev("response.output_text.delta", { item_id: "msg_mock1", output_index: index, content_index: 0, delta: d, logprobs: [], obfuscation: "x1" });
    ev("response.output_text.done", { item_id: "msg_mock1", output_index: index, content_index: 0, text: o.text, logprobs: [] });
    index++;
  }
  if (o.refusal !== undefined) {
    ev("response.content_part.added", { item_id: "msg_mock1", output_index: index, content_index: 0, part: { type: "refusal", refusal: "" } });
    ev("response.refusal.delta", { item_id: "msg_mock1", output_index: index, content_index: 0, delta: o.refusal });
    ev("response.refusal.done", { item_id: "msg_mock1", output_index: index, content_index: 0, refusal: o.refusal });
    index++;
  }
  for (const [k, c] of (o.calls ?? []).entries()) {
    const item = { id: `fc_mock${k + 1}`, type: "function_call", status: "in_progress", arguments: "", call_id: c.id, name: c.name };
    ev("response.output_item.added", { output_index: index, item });
    for (const d of halves(c.args)) ev("response.function_call_arguments.delta", { item_id: item.id, output_index: index, delta: d });
    ev("response.function_call_arguments.done", { item_id: item.id, output_index: index, name: c.name, arguments: c.args });
    ev("response.output_item.done", { output_index: index, item: { ...item, status: "completed", arguments: c.args } });
    index++;
  }
  const status = o.status ?? "completed";
  ev(`response.${status}`, { response: responsesObject(o) });
  return out;
}

/** OpenAI Chat Completions: a `chat.completion` object. */
export function chatObject(o: { text?: string; refusal?: string; calls?: readonly MockCall[]; finish?: string }): Record<string, unknown> {
  return {
    id: "chatcmpl-mock1",
    object: "chat.completion",
    created: 1761564674,
    model: "gpt-mock",
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: o.text ?? null,
          refusal: o.refusal ?? null,
          ...(o.calls === undefined ? {} : { tool_calls: o.calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.args } })) }),
        },
        logprobs: null,
        finish_reason: o.finish ?? (o.calls !== undefined ? "tool_calls" : "stop"),
      },
    ],
    usage: { prompt_tokens: 81, completion_tokens: 17, total_tokens: 98 },
  };
}

/** OpenAI Chat Completions streamed: data-only chunks, a usage chunk, then `data: [DONE]`. */
export function chatStream(o: Parameters<typeof chatObject>[0]): string[] {
  const env = (choices: unknown[], usage: unknown = null) =>
    sse(undefined, { id: "chatcmpl-mock1", object: "chat.completion.chunk", created: 1761564674, model: "gpt-mock", system_fingerprint: null, choices, usage });
  const delta = (d: Record<string, unknown>, finish: string | null = null) => env([{ index: 0, delta: d, logprobs: null, finish_reason: finish }]);
  const out = [delta({ role: "assistant", content: o.calls !== undefined && o.text === undefined ? null : "", refusal: null })];
  if (o.text !== undefined) for (const d of halves(o.text)) out.push(delta({ content: d }));
  if (o.refusal !== undefined) out.push(delta({ refusal: o.refusal }));
  for (const [k, c] of (o.calls ?? []).entries()) {
    out.push(delta({ tool_calls: [{ index: k, id: c.id, type: "function", function: { name: c.name, arguments: "" } }] }));
    for (const d of halves(c.args)) out.push(delta({ tool_calls: [{ index: k, id: null, type: null, function: { arguments: d, name: null } }] }));
  }
  out.push(delta({}, o.finish ?? (o.calls !== undefined ? "tool_calls" : "stop")));
  out.push(env([], { prompt_tokens: 81, completion_tokens: 17, total_tokens: 98 }));
  out.push("data: [DONE]\n\n");
  return out;
}

/** Anthropic Messages: a `message` object. */
export function anthropicObject(o: { text?: string; calls?: readonly MockCall[]; stop?: string }): Record<string, unknown> {
  return {
    id: "msg_01mock",
    type: "message",
    role: "assistant",
    model: "claude-mock",
    content: [...(o.text !== undefined ? [{ type: "text", text: o.text }] : []), ...(o.calls ?? []).map((c) => ({ type: "tool_use", id: c.id, name: c.name, input: JSON.parse(c.args) }))],
    stop_reason: o.stop ?? (o.calls !== undefined ? "tool_use" : "end_turn"),
    stop_sequence: null,
    usage: { input_tokens: 677, output_tokens: 33 },
  };
}

/** Anthropic Messages streamed, padded as the real stream is (spaces before the closing brace), with a ping. */
export function anthropicStream(o: Parameters<typeof anthropicObject>[0]): string[] {
  const pad = (v: unknown) => `${JSON.stringify(v).slice(0, -1)}     }`;
  const ev = (type: string, fields: Record<string, unknown>) => sse(type, pad({ type, ...fields }));
  const out = [ev("message_start", { message: { ...anthropicObject({}), content: [], stop_reason: null, usage: { input_tokens: 677, output_tokens: 1 } } })];
  let index = 0;
  if (o.text !== undefined) {
    out.push(ev("content_block_start", { index, content_block: { type: "text", text: "" } }));
    out.push(sse("ping", '{"type": "ping"}'));
    for (const d of halves(o.text)) out.push(ev("content_block_delta", { index, delta: { type: "text_delta", text: d } }));
    out.push(ev("content_block_stop", { index }));
    index++;
  }
  for (const c of o.calls ?? []) {
    out.push(ev("content_block_start", { index, content_block: { type: "tool_use", id: c.id, name: c.name, input: {}, caller: { type: "direct" } } }));
    out.push(ev("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: "" } }));
    for (const d of halves(c.args)) out.push(ev("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: d } }));
    out.push(ev("content_block_stop", { index }));
    index++;
  }
  out.push(ev("message_delta", { delta: { stop_reason: o.stop ?? (o.calls !== undefined ? "tool_use" : "end_turn"), stop_sequence: null }, usage: { output_tokens: 33 } }));
  out.push(ev("message_stop", {}));
  return out;
}

export const openaiErrorBody = (type: string, message: string, code: string | null = null): string => JSON.stringify({ error: { message, type, param: null, code } });
export const anthropicErrorBody = (type: string, message: string): string => JSON.stringify({ type: "error", error: { type, message }, request_id: "req_011mock" });
