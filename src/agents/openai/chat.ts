/**
 * OpenAI's Chat Completions API (POST /chat/completions): what most
 * OpenAI-compatible servers speak.
 */
import type { JsonValue } from "../../json/index.js";
import type { AgentProgress, AgentView, ProposedCall } from "../port.js";
import { observationText, systemPrompt, taskText, type Parsed, type Protocol } from "../model/agent.js";
import { arr, decisionOf, obj, payload, safeCallId, str } from "../model/decision.js";
import { parseSse } from "../model/sse.js";
import { NetworkError, readText } from "../model/transport.js";
import type { OpenAIRequestOptions } from "./index.js";
import { openaiError } from "./responses.js";
import { strictCompatible } from "./strict.js";

export function chatProtocol(o: OpenAIRequestOptions): Protocol {
  return {
    provider: "openai",
    request: (view) => ({ path: "/chat/completions", body: body(view, o) }),
    async parse(res, onProgress) {
      if (!o.stream) {
        const r = payload("openai", await readText(res.body));
        const choice = obj(arr(r["choices"])[0]);
        const m = obj(choice["message"]);
        const seen = new Set<string>();
        const calls = arr(m["tool_calls"])
          .map(obj)
          .map((c, k): ProposedCall => {
            const f = obj(c["function"]);
            const callId = safeCallId(c["id"], k, seen);
            return { name: str(f["name"]), args: str(f["arguments"]), ...(callId === undefined ? {} : { callId }) };
          });
        return finish(str(m["content"]), str(m["refusal"]), calls, str(choice["finish_reason"]));
      }
      return fromStream(res.body, onProgress);
    },
    errorOf: openaiError,
  };
}

function body(view: AgentView, o: OpenAIRequestOptions): JsonValue {
  const messages: JsonValue[] = [];
  const system = systemPrompt(o.instructions, view.tools);
  if (system !== undefined) messages.push({ role: "system", content: system });
  for (const item of view.transcript) {
    if (item.type === "task") messages.push({ role: "user", content: taskText(item.task) });
    else if (item.type === "decision") {
      const d = item.decision;
      if (d.kind === "calls") {
        messages.push({
          role: "assistant",
          content: d.text === undefined || d.text === "" ? null : d.text,
          tool_calls: d.calls.map((c) => ({ id: c.callId, type: "function", function: { name: c.name, arguments: c.args } })),
        });
      } else messages.push({ role: "assistant", content: typeof d.output === "string" ? d.output : JSON.stringify(d.output) });
    } else messages.push({ role: "tool", tool_call_id: item.callId, content: observationText(item.observation).text });
  }
  const tools = view.tools.map((t) => ({
    type: "function",
    function: { name: t.name, description: t.description, parameters: t.inputSchema as JsonValue, strict: o.strict === "auto" ? strictCompatible(t.inputSchema) : o.strict },
  }));
  return {
    model: o.model,
    messages,
    ...(tools.length === 0 ? {} : { tools, parallel_tool_calls: o.parallelToolCalls }),
    ...(o.maxOutputTokens === undefined ? {} : { max_completion_tokens: o.maxOutputTokens }),
    ...(o.stream ? { stream: true, stream_options: { include_usage: true } } : {}),
  };
}

function finish(text: string, refusal: string, calls: ProposedCall[], reason: string): Parsed {
  if (calls.length === 0 && refusal !== "") return { kind: "refusal", text: refusal };
  if (calls.length === 0 && reason === "content_filter") return { kind: "refusal", text: "the answer was withheld by the content filter" };
  return decisionOf(text, calls, reason === "" ? "no text and no call" : `finish_reason ${reason}`);
}

async function fromStream(chunks: AsyncIterable<Uint8Array>, onProgress: (p: AgentProgress) => void): Promise<Parsed> {
  let text = "";
  let refusal = "";
  let reason = "";
  const parts: { id: unknown; name: string; args: string }[] = [];
  for await (const ev of parseSse(chunks)) {
    if (ev.data === "[DONE]") {
      const seen = new Set<string>();
      const calls = parts.map((p, k): ProposedCall => {
        const callId = safeCallId(p.id, k, seen);
        return { name: p.name, args: p.args, ...(callId === undefined ? {} : { callId }) };
      });
      return finish(text, refusal, calls, reason);
    }
    const chunk = payload("openai", ev.data);
    if (chunk["error"] !== undefined) {
      const e = obj(chunk["error"]);
      throw new NetworkError(`the stream reported ${str(e["type"]) || str(e["code"]) || "an error"}: ${str(e["message"]) || "(no message)"}`);
    }
    const choice = obj(arr(chunk["choices"])[0]);
    const delta = obj(choice["delta"]);
    if (typeof delta["content"] === "string" && delta["content"] !== "") {
      text += delta["content"];
      onProgress({ type: "text", delta: delta["content"] });
    }
    if (typeof delta["refusal"] === "string") refusal += delta["refusal"];
    for (const tc of arr(delta["tool_calls"]).map(obj)) {
      const index = typeof tc["index"] === "number" ? tc["index"] : parts.length;
      if (index < 0 || index > 127) continue;
      while (parts.length <= index) parts.push({ id: undefined, name: "", args: "" });
      const p = parts[index]!;
      const f = obj(tc["function"]);
      if (typeof tc["id"] === "string" && tc["id"] !== "") p.id = tc["id"];
      const name = str(f["name"]);
      // The name comes once; some compatible servers repeat it on every chunk.
      if (name !== "" && name !== p.name) p.name += name;
      const args = str(f["arguments"]);
      p.args += args;
      onProgress({ type: "call", index, ...(name === "" ? {} : { name: p.name }), argsDelta: args });
    }
    if (typeof choice["finish_reason"] === "string") reason = choice["finish_reason"];
  }
  throw new NetworkError("the stream ended before [DONE]");
}
