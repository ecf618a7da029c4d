/**
 * isoagent/agents/record: exact record and replay of a model agent. A
 * recording keeps each request (a pure function of the journal) and the
 * provider's answer, byte for byte, by the request's hash; a replay answers
 * from it with no network, and fails loudly on a request it has not seen,
 * naming the first field that differs (drift).
 *
 * @module
 */
import { hashJsonSync, type JsonValue } from "../../json/index.js";
import { encodeUtf8, utf8StreamDecoder } from "../../web.js";
import { anthropicAgent, type AnthropicRequestOptions } from "../anthropic/index.js";
import type { ModelAgent, ModelAgentOptions } from "../model/agent.js";
import type { ModelRequest, ModelResponse, Transport } from "../model/transport.js";
import { openaiAgent, type OpenAIRequestOptions } from "../openai/index.js";
import { AgentError } from "../port.js";

/** One request and what came back. */
export interface RecordedExchange {
  /** SHA-256 of the request's canonical JSON. */
  readonly hash: string;
  readonly request: ModelRequest;
  readonly response: { readonly status: number; readonly headers: Readonly<Record<string, string>>; readonly body: string };
}

/** Plain JSON: save it beside the tests, load it with JSON.parse. */
export interface Recording {
  readonly v: 1;
  /** The agent's request options (provider, model, ...): never a key. */
  readonly agent: JsonValue;
  readonly exchanges: RecordedExchange[];
}

/** The headers a replay needs (the rest can carry ids and dates that mean nothing later). */
const KEPT_HEADERS = ["content-type", "retry-after", "retry-after-ms", "x-should-retry"];

const hashOf = (request: ModelRequest): string => hashJsonSync({ path: request.path, body: request.body });

/**
 * The agent, recording every exchange with its provider into `recording`.
 *
 * @example
 * ```ts
 * const agent = recordingAgent(openaiAgent({ apiKey, model: "gpt-5-mini" }))
 * await createDriver({ agent, tools }).start(task)
 * await writeFile("run.recording.json", JSON.stringify(agent.recording))
 * ```
 */
export function recordingAgent(agent: ModelAgent): ModelAgent & { readonly recording: Recording } {
  const recording: Recording = { v: 1, agent: agent.config, exchanges: [] };
  const inner = agent.transport;
  const transport: Transport = async (request, context) => {
    const res = await inner(request, context);
    const headers: Record<string, string> = {};
    for (const h of KEPT_HEADERS) {
      const v = res.header(h);
      if (v !== null) headers[h] = v;
    }
    const decode = utf8StreamDecoder();
    return {
      status: res.status,
      header: res.header,
      body: {
        async *[Symbol.asyncIterator]() {
          let text = "";
          try {
            for await (const chunk of res.body) {
              text += decode(chunk);
              yield chunk;
            }
          } finally {
            // What the adapter read, however it ended.
            recording.exchanges.push({
              hash: hashOf(request),
              request: { path: request.path, body: JSON.parse(request.text ?? JSON.stringify(request.body)) as JsonValue },
              response: { status: res.status, headers, body: text + decode() },
            });
          }
        },
      },
    };
  };
  return Object.assign(agent.withTransport(transport), { recording });
}

/** A replayed request that the recording does not have. */
export class ReplayDriftError extends AgentError {
  constructor(
    message: string,
    readonly path: string,
    readonly recorded: JsonValue | undefined,
    readonly actual: JsonValue | undefined,
  ) {
    super(message);
    this.name = "ReplayDriftError";
  }
}

/** The first place two JSON values differ, as a JSONPath-like string, or undefined when equal. */
export function firstDifference(recorded: unknown, actual: unknown, path = "$"): { path: string; recorded: unknown; actual: unknown } | undefined {
  if (recorded === actual) return undefined;
  const kind = (v: unknown): string => (Array.isArray(v) ? "array" : v === null ? "null" : typeof v);
  if (kind(recorded) !== kind(actual) || typeof recorded !== "object" || recorded === null) return { path, recorded, actual };
  if (Array.isArray(recorded)) {
    const b = actual as unknown[];
    for (let k = 0; k < Math.max(recorded.length, b.length); k++) {
      if (k >= recorded.length || k >= b.length) return { path: `${path}[${k}]`, recorded: recorded[k], actual: b[k] };
      const d = firstDifference(recorded[k], b[k], `${path}[${k}]`);
      if (d !== undefined) return d;
    }
    return undefined;
  }
  const a = recorded as Record<string, unknown>;
  const b = actual as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  for (const k of keys) {
    const p = /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(k) ? `${path}.${k}` : `${path}[${JSON.stringify(k)}]`;
    if (!(k in a) || !(k in b)) return { path: p, recorded: a[k], actual: b[k] };
    const d = firstDifference(a[k], b[k], p);
    if (d !== undefined) return d;
  }
  return undefined;
}

const shown = (v: unknown): string => {
  if (v === undefined) return "nothing";
  const t = JSON.stringify(v);
  return t.length > 120 ? `${t.slice(0, 120)}…` : t;
};

/**
 * An agent that answers from a recording, with no network. The same request
 * gets the recorded answers in order (the last one again when they run out);
 * a request the recording does not have throws {@link ReplayDriftError}.
 *
 * @example
 * ```ts
 * const agent = replayAgent(JSON.parse(await readFile("run.recording.json", "utf8")))
 * ```
 */
export function replayAgent(recording: Recording, options: Pick<ModelAgentOptions, "retry"> = {}): ModelAgent {
  if (recording?.v !== 1 || !Array.isArray(recording.exchanges)) throw new TypeError("replayAgent needs a recording made by recordingAgent (v 1)");
  const queues = new Map<string, RecordedExchange[]>();
  for (const x of recording.exchanges) {
    const q = queues.get(x.hash) ?? [];
    q.push(x);
    queues.set(x.hash, q);
  }
  let served = 0;
  const transport: Transport = async (request): Promise<ModelResponse> => {
    const hash = hashOf(request);
    const q = queues.get(hash);
    const at = served++;
    if (q === undefined) {
      const near = recording.exchanges[Math.min(at, recording.exchanges.length - 1)];
      const d = near === undefined ? { path: "$", recorded: undefined, actual: request } : firstDifference(near.request, { path: request.path, body: request.body });
      const where = d === undefined ? "$" : d.path.replace(/^\$/, "$request");
      throw new ReplayDriftError(
        `replay drift: request ${at + 1} is not in the recording; first difference at ${where}: recorded ${shown(d?.recorded)}, now ${shown(d?.actual)}`,
        where,
        d?.recorded as JsonValue | undefined,
        d?.actual as JsonValue | undefined,
      );
    }
    const x = q.length > 1 ? q.shift()! : q[0]!;
    const headers = new Map(Object.entries(x.response.headers).map(([k, v]) => [k.toLowerCase(), v]));
    return {
      status: x.response.status,
      header: (name) => headers.get(name.toLowerCase()) ?? null,
      body: {
        async *[Symbol.asyncIterator]() {
          yield encodeUtf8(x.response.body);
        },
      },
    };
  };
  const config = recording.agent as { provider?: unknown };
  if (config.provider === "openai") return openaiAgent({ ...(recording.agent as unknown as OpenAIRequestOptions), transport, ...options });
  if (config.provider === "anthropic") return anthropicAgent({ ...(recording.agent as unknown as AnthropicRequestOptions), transport, ...options });
  throw new TypeError(`replayAgent does not know provider ${JSON.stringify(config.provider)}`);
}
