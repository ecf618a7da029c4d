/**
 * OpenAI's Chat Completions API (POST /chat/completions): what most
 * OpenAI-compatible servers speak. The request is built incrementally (each
 * transcript item converted once); the answer says who answered and what
 * it cost.
 */
import type { JsonValue } from "../../json/index.js";
import type { AnswerInfo, TranscriptItem } from "../../journal/index.js";
import type { AgentProgress, AgentView, ProposedCall } from "../port.js";
import { observationText, statusOfCode, summaryText, systemPrompt, taskText, type Parsed, type Protocol } from "../model/agent.js";
import { arr, decisionOf, obj, payload, safeCallId, str } from "../model/decision.js";
import { arrayText, ItemCache, objectText, StableText } from "../model/incremental.js";
import { dataUrl, filePart, fileText } from "../model/files.js";
import { parseSse } from "../model/sse.js";
import { NetworkError, readText, StreamError } from "../model/transport.js";
import type { OpenAIRequestOptions } from "./options.js";
import { openaiContextExceeded, openaiError } from "./responses.js";
import { answerFormat, strictCompatible } from "./strict.js";

export function chatProtocol(o: OpenAIRequestOptions): Protocol {
  const items = new ItemCache<TranscriptItem>(messagesOf);
  const stable = { system: new StableText(), tools: new StableText() };
  return {
    provider: "openai",
    request: (view) => request(view, o, items, stable),
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
        const reason = str(choice["finish_reason"]);
        return finish(str(m["content"]), str(m["refusal"]), calls, reason, answerOf(str(r["model"]), reason, r["usage"]));
      }
      return fromStream(res.body, onProgress);
    },
    errorOf: openaiError,
    contextExceeded: openaiContextExceeded,
  };
}

/** One transcript item as chat messages. */
function messagesOf(item: TranscriptItem, files: ReadonlyMap<string, Uint8Array> | undefined): JsonValue[] {
  switch (item.type) {
    case "task":
      return [{ role: "user", content: taskText(item.task) }];
    case "summary":
      return [{ role: "user", content: summaryText(item) }];
    case "user": {
      if (item.files === undefined || item.files.length === 0) return [{ role: "user", content: item.text }];
      const parts: JsonValue[] = item.text === "" ? [] : [{ type: "text", text: item.text }];
      for (const f of item.files) {
        const p = filePart(f, files);
        if (p.kind === "image") parts.push({ type: "image_url", image_url: { url: dataUrl(p) } });
        else if (p.kind === "pdf") parts.push({ type: "file", file: { filename: f.name ?? "document.pdf", file_data: dataUrl(p) } });
        else parts.push({ type: "text", text: p.kind === "text" ? fileText(p) : p.note });
      }
      return [{ role: "user", content: parts }];
    }
    case "decision": {
      const d = item.decision;
      if (d.kind === "calls") {
        return [
          {
            role: "assistant",
            content: d.text === undefined || d.text === "" ? null : d.text,
            tool_calls: d.calls.map((c) => ({ id: c.callId, type: "function", function: { name: c.name, arguments: c.args } })),
          },
        ];
      }
      return [{ role: "assistant", content: typeof d.output === "string" ? d.output : JSON.stringify(d.output) }];
    }
    case "observation":
      return [{ role: "tool", tool_call_id: item.callId, content: observationText(item.observation).text }];
    case "rejected":
      return [{ role: "user", content: item.error }];
  }
}

function request(view: AgentView, o: OpenAIRequestOptions, items: ItemCache<TranscriptItem>, stable: { system: StableText; tools: StableText }): { path: string; body: JsonValue; text: string } {
  const messages: JsonValue[] = [];
  const texts: string[] = [];
  const system = systemPrompt(o.instructions, view.tools);
  if (system !== undefined) {
    messages.push({ role: "system", content: system });
    texts.push(stable.system.of(view.tools, () => ({ role: "system", content: system })));
  }
  for (const item of view.transcript) {
    const c = items.get(item, view.files);
    for (const v of c.values) messages.push(v);
    for (const t of c.texts) texts.push(t);
  }
  const tools = view.tools.map((t) => ({
    type: "function",
    function: { name: t.name, description: t.description, parameters: t.inputSchema as JsonValue, strict: o.strict === "auto" ? strictCompatible(t.inputSchema) : o.strict },
  }));
  // Structured output: the answer's schema as the response format (strict when it can be).
  const answer = answerFormat(view, o.strict);
  const format = answer === undefined ? undefined : { type: "json_schema", json_schema: answer };
  const body = {
    model: o.model,
    messages,
    ...(tools.length === 0 ? {} : { tools, parallel_tool_calls: o.parallelToolCalls }),
    ...(format === undefined ? {} : { response_format: format }),
    ...(o.maxOutputTokens === undefined ? {} : { max_completion_tokens: o.maxOutputTokens }),
    ...(o.stream ? { stream: true, stream_options: { include_usage: true } } : {}),
  };
  const text = objectText([
    ["model", JSON.stringify(o.model)],
    ["messages", arrayText(texts)],
    ["tools", tools.length === 0 ? undefined : stable.tools.of(view.tools, () => tools)],
    ["parallel_tool_calls", tools.length === 0 ? undefined : JSON.stringify(o.parallelToolCalls)],
    ["response_format", format === undefined ? undefined : JSON.stringify(format)],
    ["max_completion_tokens", o.maxOutputTokens === undefined ? undefined : JSON.stringify(o.maxOutputTokens)],
    ["stream", o.stream ? "true" : undefined],
    ["stream_options", o.stream ? '{"include_usage":true}' : undefined],
  ]);
  return { path: "/chat/completions", body, text };
}

/** Who answered and what it cost: `model`, `finish_reason`, `usage` of a completion. */
function answerOf(model: string, reason: string, usage: unknown): AnswerInfo | undefined {
  if (model === "") return undefined;
  const u = obj(usage);
  const input = u["prompt_tokens"];
  const output = u["completion_tokens"];
  const cached = obj(u["prompt_tokens_details"])["cached_tokens"];
  return {
    provider: "openai",
    model,
    ...(reason === "" ? {} : { finishReason: reason }),
    ...(typeof input === "number" && typeof output === "number" ? { usage: { input, output, ...(typeof cached === "number" ? { cached } : {}) } } : {}),
  };
}

function finish(text: string, refusal: string, calls: ProposedCall[], reason: string, answer: AnswerInfo | undefined): Parsed {
  if (calls.length === 0 && refusal !== "") return { kind: "refusal", text: refusal };
  if (calls.length === 0 && reason === "content_filter") return { kind: "refusal", text: "the answer was withheld by the content filter" };
  return decisionOf(text, calls, reason === "" ? "no text and no call" : `finish_reason ${reason}`, answer);
}

async function fromStream(chunks: AsyncIterable<Uint8Array>, onProgress: (p: AgentProgress) => void): Promise<Parsed> {
  let text = "";
  let refusal = "";
  let reason = "";
  let model = "";
  let usage: unknown;
  const parts: { id: unknown; name: string; args: string }[] = [];
  for await (const ev of parseSse(chunks, "openai")) {
    if (ev.data === "[DONE]") {
      const seen = new Set<string>();
      const calls = parts.map((p, k): ProposedCall => {
        const callId = safeCallId(p.id, k, seen);
        return { name: p.name, args: p.args, ...(callId === undefined ? {} : { callId }) };
      });
      return finish(text, refusal, calls, reason, answerOf(model, reason, usage));
    }
    const chunk = payload("openai", ev.data);
    if (chunk["error"] !== undefined) {
      const e = obj(chunk["error"]);
      const code = str(e["code"]) || str(e["type"]);
      // Classified as the HTTP error it stands for (see statusOfCode).
      throw new StreamError(code === "" ? 500 : statusOfCode(code), str(e["type"]) || code || "error", str(e["message"]) || "(no message)", code);
    }
    if (typeof chunk["model"] === "string") model = chunk["model"];
    if (chunk["usage"] !== undefined && chunk["usage"] !== null) usage = chunk["usage"];
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
