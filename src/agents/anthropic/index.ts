/**
 * isoagent/agents/anthropic: Anthropic's Messages API with tool use, over
 * fetch, streaming.
 *
 * @module
 */
import type { JsonValue } from "../../json/index.js";
import type { FetchLike } from "../../web.js";
import { AgentError, type AgentProgress, type AgentView, type ProposedCall } from "../port.js";
import { modelAgent, observationText, systemPrompt, taskText, type ModelAgent, type ModelAgentOptions, type Parsed, type Protocol } from "../model/agent.js";
import { arr, decisionOf, obj, payload, safeCallId, str } from "../model/decision.js";
import { parseSse } from "../model/sse.js";
import { httpTransport, NetworkError, readText, type Transport } from "../model/transport.js";

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

export function anthropicProtocol(o: AnthropicRequestOptions): Protocol {
  return {
    provider: "anthropic",
    request: (view) => ({ path: "/v1/messages", body: body(view, o) }),
    async parse(res, onProgress) {
      if (!o.stream) return fromMessage(payload("anthropic", await readText(res.body)));
      return fromStream(res.body, onProgress);
    },
    errorOf(_status, text) {
      try {
        const e = obj(obj(JSON.parse(text))["error"]);
        return { type: str(e["type"]) || "error", message: str(e["message"]) || "(no message)" };
      } catch {
        return { type: "error", message: text.trim() === "" ? "(empty body)" : "(a body that is not JSON)" };
      }
    },
  };
}

/** A call's input as the API wants it (an object); argument text that is not one is sent as {}: the driver has already told the model why. */
function inputOf(args: string): JsonValue {
  try {
    const v: unknown = JSON.parse(args);
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as JsonValue) : {};
  } catch {
    return {};
  }
}

function body(view: AgentView, o: AnthropicRequestOptions): JsonValue {
  const messages: { role: "user" | "assistant"; content: JsonValue[] }[] = [];
  const push = (role: "user" | "assistant", block: JsonValue): void => {
    const last = messages[messages.length - 1];
    if (last !== undefined && last.role === role) last.content.push(block);
    else messages.push({ role, content: [block] });
  };
  for (const item of view.transcript) {
    if (item.type === "task") push("user", { type: "text", text: taskText(item.task) });
    else if (item.type === "decision") {
      const d = item.decision;
      if (d.text !== undefined && d.text !== "") push("assistant", { type: "text", text: d.text });
      if (d.kind === "calls") for (const c of d.calls) push("assistant", { type: "tool_use", id: c.callId, name: c.name, input: inputOf(c.args) });
      else push("assistant", { type: "text", text: typeof d.output === "string" ? d.output : JSON.stringify(d.output) });
    } else {
      const { text, isError } = observationText(item.observation);
      push("user", { type: "tool_result", tool_use_id: item.callId, content: text, ...(isError ? { is_error: true } : {}) });
    }
  }
  const system = systemPrompt(o.system, view.tools);
  return {
    model: o.model,
    max_tokens: o.maxTokens,
    ...(system === undefined ? {} : { system }),
    messages: messages as unknown as JsonValue,
    ...(view.tools.length === 0 ? {} : { tools: view.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema as JsonValue })) }),
    ...(o.stream ? { stream: true } : {}),
  };
}

function fromMessage(m: Record<string, unknown>): Parsed {
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
  return finish(text, calls, str(m["stop_reason"]));
}

function finish(text: string, calls: ProposedCall[], stop: string): Parsed {
  if (stop === "refusal" && calls.length === 0) return { kind: "refusal", text: text.trim() === "" ? "(no explanation)" : text };
  return decisionOf(text, calls, stop === "" ? "no text and no call" : `stop_reason ${stop}`);
}

async function fromStream(chunks: AsyncIterable<Uint8Array>, onProgress: (p: AgentProgress) => void): Promise<Parsed> {
  const blocks: { type: string; text: string; id: unknown; name: string; json: string; call: number }[] = [];
  let stop = "";
  let calls = 0;
  for await (const ev of parseSse(chunks)) {
    const e = payload("anthropic", ev.data);
    const type = str(e["type"]) || ev.event;
    switch (type) {
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
      case "message_delta":
        stop = str(obj(e["delta"])["stop_reason"]) || stop;
        break;
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
        return finish(text, out, stop);
      }
      case "error": {
        const err = obj(e["error"]);
        const t = str(err["type"]);
        const message = `${t || "error"}: ${str(err["message"]) || "(no message)"}`;
        if (t === "overloaded_error" || t === "api_error" || t === "rate_limit_error") throw new NetworkError(`the stream reported ${message}`);
        throw new AgentError(`anthropic: the stream reported ${message}`);
      }
      default:
        break;
    }
  }
  throw new NetworkError("the stream ended before message_stop");
}

export type { ModelAgent, ModelAgentOptions } from "../model/agent.js";
export { httpTransport, NetworkError, type ModelRequest, type ModelResponse, type Transport } from "../model/transport.js";
export type { RetryOptions } from "../model/retry.js";
