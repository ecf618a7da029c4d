/**
 * Where a client keeps its MCP session, so that a restarted host (a Worker
 * whose run object was evicted, a reloaded tab) resumes it instead of
 * starting over: the session id the server gave, the negotiated protocol
 * version, and what the server said of itself at initialization.
 */
import type { JsonValue } from "../json/index.js";
import type { JsonObject } from "./jsonrpc.js";

/** What is kept of a session. */
export interface McpSessionState {
  readonly v: 1;
  /** The server's `Mcp-Session-Id`; absent for a server without sessions. */
  readonly sessionId?: string;
  readonly protocolVersion: string;
  readonly serverInfo: { readonly name: string; readonly version: string };
  readonly capabilities: JsonObject;
  readonly instructions?: string;
}

/** A place to keep sessions by key (one per server a host talks to). */
export interface McpSessionStore {
  get(key: string): Promise<unknown> | unknown;
  set(key: string, state: McpSessionState): Promise<void> | void;
  delete(key: string): Promise<void> | void;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A kept value as a session state, or undefined when it is not one (another version, damaged). */
export function readSessionState(value: unknown): McpSessionState | undefined {
  if (!isObject(value) || value["v"] !== 1) return undefined;
  const { sessionId, protocolVersion, serverInfo, capabilities, instructions } = value;
  if (sessionId !== undefined && typeof sessionId !== "string") return undefined;
  if (typeof protocolVersion !== "string" || !isObject(serverInfo) || typeof serverInfo["name"] !== "string" || typeof serverInfo["version"] !== "string") return undefined;
  if (!isObject(capabilities) || (instructions !== undefined && typeof instructions !== "string")) return undefined;
  return {
    v: 1,
    ...(sessionId === undefined ? {} : { sessionId }),
    protocolVersion,
    serverInfo: { name: serverInfo["name"], version: serverInfo["version"] },
    capabilities: capabilities as { [k: string]: JsonValue },
    ...(instructions === undefined ? {} : { instructions }),
  };
}

/**
 * Sessions in memory (a process, a tab): they survive a reconnection, not a restart.
 *
 * @example
 * ```ts
 * const sessions = memorySessions()
 * ```
 */
export function memorySessions(): McpSessionStore {
  const m = new Map<string, McpSessionState>();
  return { get: (k) => m.get(k), set: (k, v) => void m.set(k, v), delete: (k) => void m.delete(k) };
}

/** An asynchronous key-value store: a Durable Object's `ctx.storage`, Workers KV, IndexedDB through a wrapper, ... */
export interface KeyValueLike {
  get(key: string): Promise<unknown>;
  put(key: string, value: McpSessionState): Promise<unknown>;
  delete(key: string): Promise<unknown>;
}

/**
 * Sessions in a key-value store, under `prefix` + key. On Cloudflare, give it
 * the run object's storage: a restarted Worker resumes the session.
 *
 * @example
 * ```ts
 * tools: async ({ storage }) => (await mcpTools(await connectMcp({ url, sessions: kvSessions(storage) }))).tools
 * ```
 */
export function kvSessions(kv: KeyValueLike, prefix = "isoagent.mcp.session:"): McpSessionStore {
  return {
    get: (k) => kv.get(prefix + k),
    set: async (k, v) => void (await kv.put(prefix + k, v)),
    delete: async (k) => void (await kv.delete(prefix + k)),
  };
}
