/**
 * The loop every model adapter shares: build the request from the view (a
 * pure function), send it, retry what is worth retrying, parse the answer
 * (streamed or not) into a decision, and turn every failure into an
 * AgentError that says what happened without a key in it.
 */
import { answerFromTool } from "./output.js";
import { isIsoagentError } from "../../errors.js";
import type { JsonValue } from "../../json/index.js";
import type { Observation, TranscriptItem } from "../../journal/index.js";
import type { AbortSignalLike } from "../../web.js";
import { AgentError, type Agent, type AgentDecision, type AgentProgress, type AgentView, type ExposedTool } from "../port.js";
import { backoffMs, resolveRetry, retryableStatus, retryAfterMs, type ResolvedRetry, type RetryOptions } from "../../retry.js";
import { readText, type ModelRequest, type NetworkError, type StreamError, type ModelResponse, type Transport } from "./transport.js";

/** What a provider's answer amounted to. */
export type Parsed = { readonly kind: "decision"; readonly decision: AgentDecision } | { readonly kind: "refusal"; readonly text: string } | { readonly kind: "empty"; readonly why: string };

/** One provider's wire format. */
export interface Protocol {
  /** For messages: "openai", "anthropic". */
  readonly provider: string;
  request(view: AgentView): ModelRequest;
  /** Reads a 2xx answer; throws {@link NetworkError} when the stream ends before the provider said it was done. */
  parse(response: ModelResponse, onProgress: (p: AgentProgress) => void): Promise<Parsed>;
  /** The error's type, code and message from a failed answer's body. */
  errorOf(status: number, body: string): ProviderError;
  /** Whether an error says the request passed the model's context window. */
  contextExceeded(status: number, error: ProviderError): boolean;
}

/** A provider's error, as its body says it. */
export interface ProviderError {
  readonly type: string;
  readonly code?: string;
  readonly message: string;
}

/**
 * The HTTP status an in-stream error code stands for, so that an error
 * reported inside a stream is classified as the same error over HTTP would
 * be: rate limits and quota (429) and server errors (5xx) are retried, then
 * the run waits to be resumed; anything else fails the run.
 *
 * | codes | status |
 * |---|---|
 * | rate_limit_exceeded, rate_limit_error, insufficient_quota | 429 |
 * | timeout, request_timeout | 408 |
 * | overloaded_error | 529 |
 * | server_error, api_error, internal_error, service_unavailable | 500 |
 * | anything else (invalid_request_error, context_length_exceeded, ...) | 400 |
 */
export function statusOfCode(code: string): number {
  const c = code.toLowerCase();
  if (/^(rate_limit_exceeded|rate_limit_error|insufficient_quota|too_many_requests)$/.test(c)) return 429;
  if (/^(timeout|request_timeout)$/.test(c)) return 408;
  if (c === "overloaded_error" || c === "overloaded") return 529;
  if (/^(server_error|api_error|internal_error|internal_server_error|service_unavailable)$/.test(c)) return 500;
  return 400;
}

/** An agent backed by a model: its request is a pure function of the view. */
export interface ModelAgent extends Agent {
  readonly provider: string;
  /** Everything needed to rebuild it but the credentials (kept in recordings). */
  readonly config: JsonValue;
  /** The request this agent sends for a view. */
  request(view: AgentView): ModelRequest;
  /** How it reaches the provider. */
  readonly transport: Transport;
  /** The same agent over another transport (recording, replay). */
  withTransport(transport: Transport): ModelAgent;
}

/** What every model adapter takes: how it retries, the secrets it keeps out of errors, and how often an empty answer is asked again. */
export interface ModelAgentOptions {
  readonly retry?: RetryOptions;
  /** Strings never to show in an error (the adapter adds its key). */
  readonly secrets?: readonly string[];
  /** How many times an empty answer is asked again before the run fails. Default 1. */
  readonly emptyRetries?: number;
}

const KEY_PATTERN = /\b(?:sk|pk|rk)-[A-Za-z0-9_*-]{4,}/g;

/** Removes secrets and anything shaped like an API key, and bounds the length. */
export function cleanMessage(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s.length >= 4) out = out.split(s).join("[REDACTED]");
  out = out.replace(KEY_PATTERN, "[REDACTED]").replace(/\s+/g, " ").trim();
  return out.length > 500 ? `${out.slice(0, 500)}…` : out;
}

/**
 * The system prompt: the agent's instructions, then each tool's prompt
 * snippet and guidelines (in the order the tools are offered), when any tool
 * has one. Deterministic, like the rest of the request.
 */
export function systemPrompt(instructions: string | undefined, tools: readonly ExposedTool[]): string | undefined {
  const prompted = tools.filter((t) => t.prompt !== undefined);
  if (prompted.length === 0) return instructions;
  const parts = instructions === undefined || instructions === "" ? [] : [instructions];
  parts.push("# Tools");
  for (const t of prompted) {
    const g = t.prompt!.guidelines ?? [];
    parts.push(`## ${t.name}\n${t.prompt!.snippet}${g.length === 0 ? "" : `\n${g.map((x) => `- ${x}`).join("\n")}`}`);
  }
  return parts.join("\n\n");
}

/** The task as the model reads it. */
export function taskText(task: JsonValue): string {
  return typeof task === "string" ? task : JSON.stringify(task);
}

/** A summary item (earlier steps a compaction folded) as the model reads it. */
export function summaryText(item: Extract<TranscriptItem, { type: "summary" }>): string {
  return item.text;
}

/** An observation as the model reads it, and whether it reports a failure. */
export function observationText(o: Observation): { readonly text: string; readonly isError: boolean } {
  if (o.type === "result") return { text: typeof o.content === "string" ? o.content : JSON.stringify(o.content), isError: false };
  return { text: o.error, isError: true };
}

/** Builds a {@link ModelAgent} from a protocol and a transport. */
export function modelAgent(protocol: Protocol, transport: Transport, config: JsonValue, options: ModelAgentOptions = {}): ModelAgent {
  const retry = resolveRetry(options.retry);
  const secrets = options.secrets ?? [];
  const emptyRetries = options.emptyRetries ?? 1;
  const agent: ModelAgent = {
    provider: protocol.provider,
    config,
    request: (view) => protocol.request(view),
    transport,
    withTransport: (t) => modelAgent(protocol, t, config, options),
    async decide(view, context) {
      const request = protocol.request(view);
      const decision = await send(protocol, transport, request, context.signal, context.onProgress ?? (() => {}), retry, secrets, emptyRetries);
      // Under an output schema, the forced answer tool's call (Anthropic) is the final answer.
      return answerFromTool(view, decision);
    },
  };
  return agent;
}

async function send(
  protocol: Protocol,
  transport: Transport,
  request: ModelRequest,
  signal: AbortSignalLike,
  onProgress: (p: AgentProgress) => void,
  retry: ResolvedRetry,
  secrets: readonly string[],
  emptyRetries: number,
): Promise<AgentDecision> {
  const name = protocol.provider;
  let empties = 0;
  let lastProblem = "";
  for (let attempt = 0; ; attempt++) {
    if (attempt > 0) onProgress({ type: "restart" });
    let wait: number | undefined;
    try {
      const res = await transport(request, { signal });
      if (res.status >= 200 && res.status < 300) {
        const parsed = await protocol.parse(res, onProgress);
        if (parsed.kind === "decision") return parsed.decision;
        if (parsed.kind === "refusal") throw new AgentError(`${name}: the model refused: ${cleanMessage(parsed.text, secrets)}`);
        if (empties++ < emptyRetries) continue;
        throw new AgentError(`${name}: the model gave an empty answer (${parsed.why}), ${empties} times`);
      }
      const body = await readText(res.body).catch(() => "");
      const error = protocol.errorOf(res.status, body);
      const said = cleanMessage(`HTTP ${res.status} ${error.type}: ${error.message}`, secrets);
      if (protocol.contextExceeded(res.status, error)) throw new AgentError(`${name}: the request passed the model's context window: ${said}`, { contextExceeded: true });
      if (!retryableStatus(res)) throw new AgentError(`${name} refused the request: ${said}`);
      lastProblem = said;
      wait = retryAfterMs(res, Date.now());
      if (wait !== undefined && wait > retry.maxRetryAfterMs) {
        throw new AgentError(`${name}: ${said}; it asks to wait ${Math.ceil(wait / 1000)} s, longer than ${retry.maxRetryAfterMs / 1000} s: the run waits to be resumed`, { retryable: true });
      }
    } catch (e) {
      if (isIsoagentError(e, "AGENT_ERROR")) throw e;
      if (signal.aborted) throw e;
      if (isIsoagentError(e, "MODEL_STREAM_ERROR")) {
        // Classified by the status it stands for, as an HTTP error would be.
        const s = e as StreamError;
        const error = { type: s.type, code: s.providerCode, message: s.message };
        const said = cleanMessage(`the stream reported ${s.providerCode || s.type}: ${s.message}`, secrets);
        if (protocol.contextExceeded(s.status, error)) throw new AgentError(`${name}: the request passed the model's context window: ${said}`, { contextExceeded: true });
        if (!(s.status === 408 || s.status === 409 || s.status === 429 || s.status >= 500)) throw new AgentError(`${name}: ${said}`);
        lastProblem = said;
      } else if (isIsoagentError(e, "NETWORK_ERROR")) lastProblem = e.message;
      else throw e;
    }
    if (attempt >= retry.maxRetries) {
      throw new AgentError(`${name}: ${lastProblem}; gave up after ${attempt + 1} attempts: the run waits to be resumed`, { retryable: true });
    }
    await retry.sleep(wait ?? backoffMs(retry, attempt), signal);
  }
}
