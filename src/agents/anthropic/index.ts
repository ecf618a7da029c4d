/**
 * isoagent/agents/anthropic: Anthropic's Messages API with tool use, over
 * fetch, streaming.
 *
 * @module
 */
import { ANSWER_NAME, answerToolSchema } from "../model/output.js";
import type { JsonValue } from "../../json/index.js";
import type { AnswerInfo, TranscriptItem } from "../../journal/index.js";
import type { FetchLike } from "../../web.js";
import { type AgentProgress, type AgentView, type ProposedCall } from "../port.js";
import {
  modelAgent,
  observationText,
  statusOfCode,
  summaryText,
  systemPrompt,
  taskText,
  type ModelAgent,
  type ModelAgentOptions,
  type Parsed,
  type Protocol,
  type ProviderError,
} from "../model/agent.js";
import { arr, decisionOf, obj, payload, safeCallId, str } from "../model/decision.js";
import { arrayText, ItemCache, objectText, StableText } from "../model/incremental.js";
import { filePart } from "../model/files.js";
import { parseSse } from "../model/sse.js";
import { httpTransport, NetworkError, readText, StreamError, type Transport } from "../model/transport.js";

/** How `anthropicAgent` asks Anthropic: the key, the model, and what shapes each request. */
export interface AnthropicAgentOptions extends ModelAgentOptions {
  /** Required unless a transport is given. Never journaled, never in an error. */
  readonly apiKey?: string | undefined;
  readonly model: string;
  /** Default https://api.anthropic.com */
  readonly baseUrl?: string | undefined;
  /** The system prompt. */
  readonly system?: string | undefined;
  /** Default 4096. */
  readonly maxTokens?: number | undefined;
  /** Default true. */
  readonly stream?: boolean | undefined;
  /** Default "2023-06-01". */
  readonly version?: string | undefined;
  readonly headers?: Readonly<Record<string, string>> | undefined;
  readonly fetch?: FetchLike | undefined;
  readonly transport?: Transport | undefined;
}

/** The options that shape requests (kept in recordings). */
export interface AnthropicRequestOptions {
  readonly model: string;
  readonly system?: string;
  readonly maxTokens: number;
  readonly stream: boolean;
}

/**
 * An agent on Anthropic's Messages API.
 *
 * @example
 * ```ts
 * const agent = anthropicAgent({ apiKey: env.ANTHROPIC_API_KEY, model: "claude-sonnet-4-5", system: "You tidy notes." })
 * ```
 */
export function anthropicAgent(options: AnthropicAgentOptions): ModelAgent {
  const request: AnthropicRequestOptions = {
    model: options.model,
    ...(options.system === undefined ? {} : { system: options.system }),
    maxTokens: options.maxTokens ?? 4096,
    stream: options.stream ?? true,
  };
  if (typeof request.model !== "string" || request.model === "") throw new TypeError("anthropicAgent needs a model");
  if (options.transport === undefined && (typeof options.apiKey !== "string" || options.apiKey === "")) throw new TypeError("anthropicAgent needs an apiKey (or a transport)");
  const transport =
    options.transport ??
    httpTransport({
      baseUrl: options.baseUrl ?? "https://api.anthropic.com",
      headers: { "x-api-key": options.apiKey!, "anthropic-version": options.version ?? "2023-06-01", ...options.headers },
      fetch: options.fetch,
    });
  return modelAgent(anthropicProtocol(request), transport, { provider: "anthropic", ...request } as never, {
    ...options,
    secrets: [...(options.secrets ?? []), ...(options.apiKey === undefined ? [] : [options.apiKey])],
  });
}

/** Anthropic's wire format (the Messages API) for those request options: what `anthropicAgent` sends and reads, without a transport. */
export function anthropicProtocol(o: AnthropicRequestOptions): Protocol {
  const items = new ItemCache<TranscriptItem, Block>(blocksOf, (b) => JSON.stringify(b.block));
  const stable = { system: new StableText(), tools: new StableText() };
  return {
    provider: "anthropic",
    request: (view) => request(view, o, items, stable),
    async parse(res, onProgress) {
      if (!o.stream) return fromMessage(payload("anthropic", await readText(res.body)));
      return fromStream(res.body, onProgress);
    },
    errorOf(_status, text): ProviderError {
      try {
        const e = obj(obj(JSON.parse(text))["error"]);
        return { type: str(e["type"]) || "error", message: str(e["message"]) || "(no message)" };
      } catch {
        return { type: "error", message: text.trim() === "" ? "(empty body)" : "(a body that is not JSON)" };
      }
    },
    // "prompt is too long: 215000 tokens > 200000 maximum" (400), or a body too large (413).
    contextExceeded: (status, e) =>
      (status === 400 && e.type === "invalid_request_error" && /prompt is too long|context window|too many tokens/i.test(e.message)) || (status === 413 && e.type === "request_too_large"),
  };
}

/** A content block with the role of the message it belongs to (its text is the block's alone). */
type Block = { readonly role: "user" | "assistant"; readonly block: JsonValue };

/** A call's input as the API wants it (an object); argument text that is not one is sent as {}: the driver has already told the model why. */
function inputOf(args: string): JsonValue {
  try {
    const v: unknown = JSON.parse(args);
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as JsonValue) : {};
  } catch {
    return {};
  }
}

/** One transcript item as content blocks, each with its message's role. */
function blocksOf(item: TranscriptItem, files: ReadonlyMap<string, Uint8Array> | undefined): Block[] {
  switch (item.type) {
    case "task":
      return [{ role: "user", block: { type: "text", text: taskText(item.task) } }];
    case "summary":
      return [{ role: "user", block: { type: "text", text: summaryText(item) } }];
    case "user": {
      const out: Block[] = item.text === "" ? [] : [{ role: "user", block: { type: "text", text: item.text } }];
      for (const f of item.files ?? []) {
        const p = filePart(f, files);
        if (p.kind === "image") out.push({ role: "user", block: { type: "image", source: { type: "base64", media_type: f.mediaType, data: p.base64 } } });
        else if (p.kind === "pdf") out.push({ role: "user", block: { type: "document", source: { type: "base64", media_type: "application/pdf", data: p.base64 } } });
        else if (p.kind === "text")
          out.push({ role: "user", block: { type: "document", source: { type: "text", media_type: "text/plain", data: p.text }, ...(f.name === undefined ? {} : { title: f.name }) } });
        else out.push({ role: "user", block: { type: "text", text: p.note } });
      }
      return out;
    }
    case "decision": {
      const d = item.decision;
      const out: Block[] = [];
      if (d.text !== undefined && d.text !== "") out.push({ role: "assistant", block: { type: "text", text: d.text } });
      if (d.kind === "calls") for (const c of d.calls) out.push({ role: "assistant", block: { type: "tool_use", id: c.callId, name: c.name, input: inputOf(c.args) } });
      else out.push({ role: "assistant", block: { type: "text", text: typeof d.output === "string" ? d.output : JSON.stringify(d.output) } });
      return out;
    }
    case "observation": {
      const { text, isError } = observationText(item.observation);
      return [{ role: "user", block: { type: "tool_result", tool_use_id: item.callId, content: text, ...(isError ? { is_error: true } : {}) } }];
    }
    case "rejected":
      return [{ role: "user", block: { type: "text", text: item.error } }];
  }
}

/** What the forced answer tool says it is (structured output). */
const ANSWER_TOOL_DESCRIPTION = "Give your final answer: call this, once you are done, with the answer as its input. Call the other tools before it as you need them.";

/** The request: blocks of consecutive items with the same role make one message, as the API wants. */
function request(
  view: AgentView,
  o: AnthropicRequestOptions,
  items: ItemCache<TranscriptItem, Block>,
  stable: { system: StableText; tools: StableText },
): { path: string; body: JsonValue; text: string } {
  const messages: { role: "user" | "assistant"; content: JsonValue[] }[] = [];
  const messageTexts: string[] = [];
  let blockTexts: string[] = [];
  const close = (): void => {
    const last = messages[messages.length - 1];
    if (last !== undefined) messageTexts.push(`{"role":${JSON.stringify(last.role)},"content":${arrayText(blockTexts)}}`);
  };
  for (const item of view.transcript) {
    const c = items.get(item, view.files);
    for (let k = 0; k < c.values.length; k++) {
      const { role, block } = c.values[k]!;
      const inner = c.texts[k]!;
      const last = messages[messages.length - 1];
      if (last !== undefined && last.role === role) {
        last.content.push(block);
        blockTexts.push(inner);
      } else {
        close();
        messages.push({ role, content: [block] });
        blockTexts = [inner];
      }
    }
  }
  close();
  const system = systemPrompt(o.system, view.tools);
  const tools: JsonValue[] = view.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema as JsonValue }));
  // Structured output: the answer is a tool the model must end with (any tool is forced; this one's input is the answer).
  const answerSchema = answerToolSchema(view);
  const answerTool = answerSchema === undefined ? undefined : { name: ANSWER_NAME, description: ANSWER_TOOL_DESCRIPTION, input_schema: answerSchema };
  const allTools = answerTool === undefined ? tools : [...tools, answerTool];
  const body = {
    model: o.model,
    max_tokens: o.maxTokens,
    ...(system === undefined ? {} : { system }),
    messages: messages as unknown as JsonValue,
    ...(allTools.length === 0 ? {} : { tools: allTools }),
    ...(answerTool === undefined ? {} : { tool_choice: { type: "any" } }),
    ...(o.stream ? { stream: true } : {}),
  };
  const text = objectText([
    ["model", JSON.stringify(o.model)],
    ["max_tokens", JSON.stringify(o.maxTokens)],
    ["system", system === undefined ? undefined : stable.system.of(view.tools, () => system)],
    ["messages", arrayText(messageTexts)],
    ["tools", allTools.length === 0 ? undefined : answerTool === undefined ? stable.tools.of(view.tools, () => tools) : JSON.stringify(allTools)],
    ["tool_choice", answerTool === undefined ? undefined : '{"type":"any"}'],
    ["stream", o.stream ? "true" : undefined],
  ]);
  return { path: "/v1/messages", body, text };
}

/** Who answered and what it cost, from a message's `model`, `stop_reason` and `usage` (cache reads counted as cached input). */
function answerOf(model: string, stop: string, usage: Record<string, unknown>): AnswerInfo | undefined {
  if (model === "") return undefined;
  const n = (k: string): number | undefined => (typeof usage[k] === "number" ? (usage[k] as number) : undefined);
  const input = n("input_tokens");
  const output = n("output_tokens");
  const read = n("cache_read_input_tokens") ?? 0;
  const created = n("cache_creation_input_tokens") ?? 0;
  return {
    provider: "anthropic",
    model,
    ...(stop === "" ? {} : { finishReason: stop }),
    ...(input !== undefined && output !== undefined ? { usage: { input: input + read + created, output, ...(read > 0 ? { cached: read } : {}) } } : {}),
  };
}

function fromMessage(m: Record<string, unknown>): Parsed {
  const stop = str(m["stop_reason"]);
  let text = "";
  const calls: ProposedCall[] = [];
  const seen = new Set<string>();
  for (const block of arr(m["content"]).map(obj)) {
    if (block["type"] === "text") text += str(block["text"]);
    else if (block["type"] === "tool_use") {
      const callId = safeCallId(block["id"], calls.length, seen);
      calls.push({ name: str(block["name"]), args: JSON.stringify(block["input"] ?? {}), ...(callId === undefined ? {} : { callId }) });
    }
  }
  return finish(text, calls, stop, str(obj(m["stop_details"])["explanation"]), answerOf(str(m["model"]), stop, obj(m["usage"])));
}

/** A refusal carries the model's explanation (stop_details.explanation), or its text. */
function finish(text: string, calls: ProposedCall[], stop: string, explanation: string, answer: AnswerInfo | undefined): Parsed {
  if (stop === "refusal" && calls.length === 0) {
    const why = [explanation.trim(), text.trim()].filter((t) => t !== "").join(" ");
    return { kind: "refusal", text: why === "" ? "(no explanation)" : why };
  }
  return decisionOf(text, calls, stop === "" ? "no text and no call" : `stop_reason ${stop}`, answer);
}

async function fromStream(chunks: AsyncIterable<Uint8Array>, onProgress: (p: AgentProgress) => void): Promise<Parsed> {
  const blocks: { type: string; text: string; id: unknown; name: string; json: string; call: number }[] = [];
  let stop = "";
  let explanation = "";
  let model = "";
  const usage: Record<string, unknown> = {};
  let calls = 0;
  for await (const ev of parseSse(chunks, "anthropic")) {
    const e = payload("anthropic", ev.data);
    const type = str(e["type"]) || ev.event;
    switch (type) {
      case "message_start": {
        const m = obj(e["message"]);
        model = str(m["model"]);
        Object.assign(usage, obj(m["usage"]));
        break;
      }
      case "content_block_start": {
        const b = obj(e["content_block"]);
        const index = Number(e["index"]);
        if (!Number.isInteger(index) || index < 0 || index > 1023) break;
        const block = { type: str(b["type"]), text: str(b["text"]), id: b["id"], name: str(b["name"]), json: "", call: -1 };
        if (block.type === "tool_use") {
          block.call = calls++;
          onProgress({ type: "call", index: block.call, name: block.name, argsDelta: "" });
        }
        blocks[index] = block;
        break;
      }
      case "content_block_delta": {
        const block = blocks[Number(e["index"])];
        const d = obj(e["delta"]);
        if (block === undefined) break;
        if (d["type"] === "text_delta") {
          block.text += str(d["text"]);
          onProgress({ type: "text", delta: str(d["text"]) });
        } else if (d["type"] === "input_json_delta") {
          block.json += str(d["partial_json"]);
          onProgress({ type: "call", index: block.call, argsDelta: str(d["partial_json"]) });
        }
        break;
      }
      case "message_delta": {
        const d = obj(e["delta"]);
        stop = str(d["stop_reason"]) || stop;
        explanation = str(obj(d["stop_details"])["explanation"]) || explanation;
        // The final counts (output_tokens; input counts repeated by some servers).
        for (const [k, v] of Object.entries(obj(e["usage"]))) if (typeof v === "number") usage[k] = v;
        break;
      }
      case "message_stop": {
        let text = "";
        const out: ProposedCall[] = [];
        const seen = new Set<string>();
        for (const b of blocks) {
          if (b === undefined) continue;
          if (b.type === "text") text += b.text;
          else if (b.type === "tool_use") {
            const callId = safeCallId(b.id, out.length, seen);
            out.push({ name: b.name, args: b.json === "" ? "{}" : b.json, ...(callId === undefined ? {} : { callId }) });
          }
        }
        return finish(text, out, stop, explanation, answerOf(model, stop, usage));
      }
      case "error": {
        const err = obj(e["error"]);
        const t = str(err["type"]) || "error";
        // Classified as the HTTP error it stands for (see statusOfCode).
        throw new StreamError(statusOfCode(t), t, str(err["message"]) || "(no message)", t);
      }
      default:
        break;
    }
  }
  throw new NetworkError("the stream ended before message_stop");
}

export type { ModelAgent, ModelAgentOptions } from "../model/agent.js";
export { httpTransport, NetworkError, type ModelRequest, type ModelResponse, type Transport } from "../model/transport.js";
export type { RetryOptions } from "../../retry.js";
