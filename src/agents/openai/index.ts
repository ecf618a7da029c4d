/**
 * isoagent/agents/openai: OpenAI's Responses API (the default) and Chat
 * Completions, over fetch, streaming, with function tools built from the
 * exposed specs. Any OpenAI-compatible server works through `baseUrl`.
 *
 * @module
 */
import { modelAgent, type ModelAgent, type ModelAgentOptions, type Protocol } from "../model/agent.js";
import { httpTransport, type Transport } from "../model/transport.js";
import type { FetchLike } from "../../web.js";
import { chatProtocol } from "./chat.js";
import { responsesProtocol } from "./responses.js";
import type { OpenAIRequestOptions } from "./options.js";

export type { OpenAIRequestOptions };

export { strictCompatible } from "./strict.js";

/** How `openaiAgent` asks OpenAI (or an OpenAI-compatible server): the key, the model and API, and what shapes each request. */
export interface OpenAIAgentOptions extends ModelAgentOptions {
  /** Required unless a transport is given. Never journaled, never in an error. */
  readonly apiKey?: string | undefined;
  readonly model: string;
  /** Default "responses". */
  readonly api?: "responses" | "chat" | undefined;
  /** Default https://api.openai.com/v1 (an OpenAI-compatible server's base URL works). */
  readonly baseUrl?: string | undefined;
  /** The system prompt (Responses: `instructions`; Chat: a system message). */
  readonly instructions?: string | undefined;
  /** Default true: answers stream, and progress is reported as it arrives. */
  readonly stream?: boolean | undefined;
  readonly maxOutputTokens?: number | undefined;
  /** Default true. */
  readonly parallelToolCalls?: boolean | undefined;
  /** "auto" (default): strict mode for each tool whose schema allows it. */
  readonly strict?: boolean | "auto" | undefined;
  /** Extra headers (OpenAI-Organization, OpenAI-Project, ...). */
  readonly headers?: Readonly<Record<string, string>> | undefined;
  readonly fetch?: FetchLike | undefined;
  /** Replaces the HTTP transport (recording, replay, tests). */
  readonly transport?: Transport | undefined;
}

/** OpenAI's wire format (the Responses API or Chat Completions, by `o.api`) for those request options: what `openaiAgent` sends and reads, without a transport. */
export function openaiProtocol(o: OpenAIRequestOptions): Protocol {
  return o.api === "chat" ? chatProtocol(o) : responsesProtocol(o);
}

/**
 * An agent on OpenAI.
 *
 * @example
 * ```ts
 * const agent = openaiAgent({ apiKey: env.OPENAI_API_KEY, model: "gpt-5-mini", instructions: "You tidy notes." })
 * const driver = createDriver({ agent, tools, store })
 * ```
 */
export function openaiAgent(options: OpenAIAgentOptions): ModelAgent {
  const request: OpenAIRequestOptions = {
    model: options.model,
    api: options.api ?? "responses",
    ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
    stream: options.stream ?? true,
    ...(options.maxOutputTokens === undefined ? {} : { maxOutputTokens: options.maxOutputTokens }),
    parallelToolCalls: options.parallelToolCalls ?? true,
    strict: options.strict ?? "auto",
  };
  if (typeof request.model !== "string" || request.model === "") throw new TypeError("openaiAgent needs a model");
  if (options.transport === undefined && (typeof options.apiKey !== "string" || options.apiKey === "")) throw new TypeError("openaiAgent needs an apiKey (or a transport)");
  const transport =
    options.transport ?? httpTransport({ baseUrl: options.baseUrl ?? "https://api.openai.com/v1", headers: { authorization: `Bearer ${options.apiKey}`, ...options.headers }, fetch: options.fetch });
  return modelAgent(openaiProtocol(request), transport, { provider: "openai", ...request } as never, {
    ...options,
    secrets: [...(options.secrets ?? []), ...(options.apiKey === undefined ? [] : [options.apiKey])],
  });
}

export type { ModelAgent, ModelAgentOptions } from "../model/agent.js";
export { httpTransport, NetworkError, type ModelRequest, type ModelResponse, type Transport } from "../model/transport.js";
export type { RetryOptions } from "../../retry.js";
