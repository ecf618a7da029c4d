/**
 * OpenAI's Responses API (POST /responses): the request built from the view,
 * the answer read whole or streamed (`response.*` events).
 */
import type { JsonValue } from "../../json/index.js";
import { AgentError, type AgentProgress, type AgentView, type ProposedCall } from "../port.js";
import { observationText, systemPrompt, taskText, type Parsed, type Protocol } from "../model/agent.js";
import { arr, decisionOf, obj, payload, safeCallId, str } from "../model/decision.js";
import { parseSse } from "../model/sse.js";
import { NetworkError, readText } from "../model/transport.js";
import type { OpenAIRequestOptions } from "./index.js";
import { strictCompatible } from "./strict.js";

export function responsesProtocol(o: OpenAIRequestOptions): Protocol {
  return {
    provider: "openai",
    request: (view) => ({ path: "/responses", body: body(view, o) }),
    async parse(res, onProgress) {
      if (!o.stream) return fromResponse(payload("openai", await readText(res.body)));
      return fromStream(res.body, onProgress);
    },
    errorOf: openaiError,
  };
}

/** `{ error: { message, type, code } }`, or the status alone. */
export function openaiError(status: number, text: string): { type: string; message: string } {
  try {
    const e = obj(obj(JSON.parse(text))["error"]);
    const type = str(e["type"]) || str(e["code"]) || "error";
    return { type, message: str(e["message"]) || "(no message)" };
  } catch {
    return { type: "error", message: text.trim() === "" ? "(empty body)" : "(a body that is not JSON)" };
  }
}

function body(view: AgentView, o: OpenAIRequestOptions): JsonValue {
  const input: JsonValue[] = [];
  for (const item of view.transcript) {
    if (item.type === "task") input.push({ role: "user", content: taskText(item.task) });
    else if (item.type === "decision") {
      const d = item.decision;
      if (d.text !== undefined && d.text !== "") input.push({ role: "assistant", content: d.text });
      if (d.kind === "calls") for (const c of d.calls) input.push({ type: "function_call", call_id: c.callId, name: c.name, arguments: c.args });
      else input.push({ role: "assistant", content: typeof d.output === "string" ? d.output : JSON.stringify(d.output) });
    } else input.push({ type: "function_call_output", call_id: item.callId, output: observationText(item.observation).text });
  }
  const tools = view.tools.map((t) => ({
    type: "function",
    name: t.name,
    description: t.description,
    parameters: t.inputSchema as JsonValue,
    strict: o.strict === "auto" ? strictCompatible(t.inputSchema) : o.strict,
  }));
  const instructions = systemPrompt(o.instructions, view.tools);
  return {
    model: o.model,
    ...(instructions === undefined ? {} : { instructions }),
    input,
    ...(tools.length === 0 ? {} : { tools, parallel_tool_calls: o.parallelToolCalls }),
    ...(o.maxOutputTokens === undefined ? {} : { max_output_tokens: o.maxOutputTokens }),
    store: false,
    stream: o.stream,
  };
}

/** A whole `response` object. */
function fromResponse(r: Record<string, unknown>): Parsed {
  if (r["status"] === "failed") {
    const e = obj(r["error"]);
    throw new AgentError(`openai: the response failed: ${str(e["code"]) || "error"}: ${str(e["message"]) || "(no message)"}`);
  }
  let text = "";
  let refusal = "";
  const calls: ProposedCall[] = [];
  const seen = new Set<string>();
  for (const item of arr(r["output"]).map(obj)) {
    if (item["type"] === "message") {
      for (const part of arr(item["content"]).map(obj)) {
        if (part["type"] === "output_text") text += str(part["text"]);
        else if (part["type"] === "refusal") refusal += str(part["refusal"]);
      }
    } else if (item["type"] === "function_call") {
      const callId = safeCallId(item["call_id"], calls.length, seen);
      calls.push({ name: str(item["name"]), args: str(item["arguments"]), ...(callId === undefined ? {} : { callId }) });
    }
  }
  if (calls.length === 0 && refusal !== "") return { kind: "refusal", text: refusal };
  const why = r["status"] === "incomplete" ? `incomplete: ${str(obj(r["incomplete_details"])["reason"]) || "unknown"}` : "no text and no call";
  return decisionOf(text, calls, why);
}

async function fromStream(chunks: AsyncIterable<Uint8Array>, onProgress: (p: AgentProgress) => void): Promise<Parsed> {
  const callIndex = new Map<number, number>();
  for await (const ev of parseSse(chunks)) {
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
        return fromResponse(obj(e["response"]));
      case "response.failed": {
        const err = obj(obj(e["response"])["error"]);
        // The provider's own failure: worth another try, like a 5xx.
        throw new NetworkError(`the response failed: ${str(err["code"]) || "error"}: ${str(err["message"]) || "(no message)"}`);
      }
      case "error": {
        const code = str(e["code"]) || str(obj(e["error"])["code"]);
        const message = str(e["message"]) || str(obj(e["error"])["message"]) || "(no message)";
        if (/rate_limit|server_error|overloaded|timeout/i.test(code)) throw new NetworkError(`the stream reported ${code}: ${message}`);
        throw new AgentError(`openai: the stream reported ${code || "an error"}: ${message}`);
      }
      default:
        break;
    }
  }
  throw new NetworkError("the stream ended before the response was complete");
}
