/**
 * OpenAI's Responses API (POST /responses): the request built from the view
 * (incrementally: each transcript item is converted once), the answer read
 * whole or streamed (`response.*` events), with who answered and what it
 * cost (model, finish reason, token usage).
 */
import type { JsonValue } from "../../json/index.js";
import type { AnswerInfo, TranscriptItem } from "../../journal/index.js";
import { AgentError, type AgentProgress, type AgentView, type ProposedCall } from "../port.js";
import { observationText, statusOfCode, summaryText, systemPrompt, taskText, type Parsed, type Protocol, type ProviderError } from "../model/agent.js";
import { arr, decisionOf, obj, payload, safeCallId, str } from "../model/decision.js";
import { arrayText, ItemCache, objectText, StableText } from "../model/incremental.js";
import { dataUrl, filePart, fileText } from "../model/files.js";
import { parseSse } from "../model/sse.js";
import { NetworkError, readText, StreamError } from "../model/transport.js";
import type { OpenAIRequestOptions } from "./options.js";
import { answerFormat, strictCompatible } from "./strict.js";

export function responsesProtocol(o: OpenAIRequestOptions): Protocol {
  const items = new ItemCache<TranscriptItem>(inputOf);
  const stable = { instructions: new StableText(), tools: new StableText() };
  return {
    provider: "openai",
    request: (view) => request(view, o, items, stable),
    async parse(res, onProgress) {
      if (!o.stream) return fromResponse(payload("openai", await readText(res.body)), onProgress);
      return fromStream(res.body, onProgress);
    },
    errorOf: openaiError,
    contextExceeded: openaiContextExceeded,
  };
}

/** `{ error: { message, type, code } }`, or the status alone. */
export function openaiError(status: number, text: string): ProviderError {
  try {
    const e = obj(obj(JSON.parse(text))["error"]);
    const type = str(e["type"]) || str(e["code"]) || "error";
    return { type, code: str(e["code"]), message: str(e["message"]) || "(no message)" };
  } catch {
    return { type: "error", message: text.trim() === "" ? "(empty body)" : `(a body that is not JSON, status ${status})` };
  }
}

/** OpenAI says `context_length_exceeded` (400), over HTTP or in a stream. */
export function openaiContextExceeded(status: number, e: ProviderError): boolean {
  return (status === 400 || status === 413) && (e.code === "context_length_exceeded" || e.type === "context_length_exceeded" || /maximum context length|context window/i.test(e.message));
}

/** One transcript item as Responses input items. */
function inputOf(item: TranscriptItem, files: ReadonlyMap<string, Uint8Array> | undefined): JsonValue[] {
  switch (item.type) {
    case "task":
      return [{ role: "user", content: taskText(item.task) }];
    case "summary":
      return [{ role: "user", content: summaryText(item) }];
    case "user": {
      if (item.files === undefined || item.files.length === 0) return [{ role: "user", content: item.text }];
      const parts: JsonValue[] = item.text === "" ? [] : [{ type: "input_text", text: item.text }];
      for (const f of item.files) {
        const p = filePart(f, files);
        if (p.kind === "image") parts.push({ type: "input_image", image_url: dataUrl(p), detail: "auto" });
        else if (p.kind === "pdf") parts.push({ type: "input_file", filename: f.name ?? "document.pdf", file_data: dataUrl(p) });
        else parts.push({ type: "input_text", text: p.kind === "text" ? fileText(p) : p.note });
      }
      return [{ role: "user", content: parts }];
    }
    case "decision": {
      const d = item.decision;
      const out: JsonValue[] = [];
      if (d.text !== undefined && d.text !== "") out.push({ role: "assistant", content: d.text });
      if (d.kind === "calls") for (const c of d.calls) out.push({ type: "function_call", call_id: c.callId, name: c.name, arguments: c.args });
      else out.push({ role: "assistant", content: typeof d.output === "string" ? d.output : JSON.stringify(d.output) });
      return out;
    }
    case "observation":
      return [{ type: "function_call_output", call_id: item.callId, output: observationText(item.observation).text }];
    case "rejected":
      return [{ role: "user", content: item.error }];
  }
}

function request(view: AgentView, o: OpenAIRequestOptions, items: ItemCache<TranscriptItem>, stable: { instructions: StableText; tools: StableText }): { path: string; body: JsonValue; text: string } {
  const input: JsonValue[] = [];
  const texts: string[] = [];
  for (const item of view.transcript) {
    const c = items.get(item, view.files);
    for (const v of c.values) input.push(v);
    for (const t of c.texts) texts.push(t);
  }
  const tools = view.tools.map((t) => ({
    type: "function",
    name: t.name,
    description: t.description,
    parameters: t.inputSchema as JsonValue,
    strict: o.strict === "auto" ? strictCompatible(t.inputSchema) : o.strict,
  }));
  const instructions = systemPrompt(o.instructions, view.tools);
  // Structured output: the answer's schema as the response's text format (strict when it can be).
  const answer = answerFormat(view, o.strict);
  const format = answer === undefined ? undefined : { format: { type: "json_schema", ...answer } };
  const body = {
    model: o.model,
    ...(instructions === undefined ? {} : { instructions }),
    input,
    ...(tools.length === 0 ? {} : { tools, parallel_tool_calls: o.parallelToolCalls }),
    ...(format === undefined ? {} : { text: format }),
    ...(o.maxOutputTokens === undefined ? {} : { max_output_tokens: o.maxOutputTokens }),
    store: false,
    stream: o.stream,
  };
  const text = objectText([
    ["model", JSON.stringify(o.model)],
    ["instructions", instructions === undefined ? undefined : stable.instructions.of(view.tools, () => instructions)],
    ["input", arrayText(texts)],
    ["tools", tools.length === 0 ? undefined : stable.tools.of(view.tools, () => tools)],
    ["parallel_tool_calls", tools.length === 0 ? undefined : JSON.stringify(o.parallelToolCalls)],
    ["text", format === undefined ? undefined : JSON.stringify(format)],
    ["max_output_tokens", o.maxOutputTokens === undefined ? undefined : JSON.stringify(o.maxOutputTokens)],
    ["store", "false"],
    ["stream", JSON.stringify(o.stream)],
  ]);
  return { path: "/responses", body, text };
}

/** Who answered and what it cost, from a `response` object. */
function answerOf(r: Record<string, unknown>, calls: number): AnswerInfo | undefined {
  const model = str(r["model"]);
  if (model === "") return undefined;
  const u = obj(r["usage"]);
  const input = u["input_tokens"];
  const output = u["output_tokens"];
  const cached = obj(u["input_tokens_details"])["cached_tokens"];
  const incomplete = str(obj(r["incomplete_details"])["reason"]);
  return {
    provider: "openai",
    model,
    finishReason: r["status"] === "incomplete" ? incomplete || "incomplete" : calls > 0 ? "tool_calls" : "stop",
    ...(typeof input === "number" && typeof output === "number" ? { usage: { input, output, ...(typeof cached === "number" ? { cached } : {}) } } : {}),
  };
}

/**
 * A whole `response` object. A message in the `commentary` phase is progress
 * (shown as it arrives), not the answer: the final output is the
 * `final_answer` message (or a message without a phase); commentary is the
 * output only when there is nothing else.
 */
function fromResponse(r: Record<string, unknown>, onProgress?: (p: AgentProgress) => void, streamed = false): Parsed {
  if (r["status"] === "failed") {
    const e = obj(r["error"]);
    throw new AgentError(`openai: the response failed: ${str(e["code"]) || "error"}: ${str(e["message"]) || "(no message)"}`);
  }
  let text = "";
  let commentary = "";
  let refusal = "";
  const calls: ProposedCall[] = [];
  const seen = new Set<string>();
  for (const item of arr(r["output"]).map(obj)) {
    if (item["type"] === "message") {
      let said = "";
      for (const part of arr(item["content"]).map(obj)) {
        if (part["type"] === "output_text") said += str(part["text"]);
        else if (part["type"] === "refusal") refusal += str(part["refusal"]);
      }
      if (item["phase"] === "commentary") {
        commentary += (commentary === "" || said === "" ? "" : "\n\n") + said;
        if (!streamed && said !== "") onProgress?.({ type: "text", delta: said });
      } else text += (text === "" || said === "" ? "" : "\n\n") + said;
    } else if (item["type"] === "function_call") {
      const callId = safeCallId(item["call_id"], calls.length, seen);
      calls.push({ name: str(item["name"]), args: str(item["arguments"]), ...(callId === undefined ? {} : { callId }) });
    }
  }
  if (calls.length === 0 && refusal !== "") return { kind: "refusal", text: refusal };
  const why = r["status"] === "incomplete" ? `incomplete: ${str(obj(r["incomplete_details"])["reason"]) || "unknown"}` : "no text and no call";
  return decisionOf(text !== "" ? text : commentary, calls, why, answerOf(r, calls.length));
}

async function fromStream(chunks: AsyncIterable<Uint8Array>, onProgress: (p: AgentProgress) => void): Promise<Parsed> {
  const callIndex = new Map<number, number>();
  for await (const ev of parseSse(chunks, "openai")) {
    if (ev.data === "[DONE]") break;
    const e = payload("openai", ev.data);
    const type = str(e["type"]) || ev.event;
    switch (type) {
      case "response.output_text.delta":
        onProgress({ type: "text", delta: str(e["delta"]) });
        break;
      case "response.output_item.added": {
        const item = obj(e["item"]);
        if (item["type"] === "function_call") {
          const index = callIndex.size;
          callIndex.set(Number(e["output_index"]), index);
          onProgress({ type: "call", index, name: str(item["name"]), argsDelta: "" });
        }
        break;
      }
      case "response.function_call_arguments.delta": {
        const index = callIndex.get(Number(e["output_index"]));
        if (index !== undefined) onProgress({ type: "call", index, argsDelta: str(e["delta"]) });
        break;
      }
      case "response.completed":
      case "response.incomplete":
        return fromResponse(obj(e["response"]), onProgress, true);
      case "response.failed": {
        const err = obj(obj(e["response"])["error"]);
        const code = str(err["code"]);
        // Classified as the HTTP error it stands for (a server error is retried).
        throw new StreamError(code === "" ? 500 : statusOfCode(code), code || "error", str(err["message"]) || "(no message)", code);
      }
      case "error": {
        const inner = obj(e["error"]);
        const code = str(e["code"]) || str(inner["code"]) || str(e["type"] === "error" ? inner["type"] : e["type"]);
        const message = str(e["message"]) || str(inner["message"]) || "(no message)";
        throw new StreamError(statusOfCode(code), code || "error", message, code);
      }
      default:
        break;
    }
  }
  throw new NetworkError("the stream ended before the response was complete");
}
