/**
 * The Worker's HTTP app on Durable Objects: the runs API and the console of
 * isoagent/http, each run hosted by its own object, operator tokens from the
 * `ISOAGENT_TOKEN` secret and run tokens from `ISOAGENT_RUN_TOKEN` (each
 * comma-separated for rotation), the console's sessions and login codes in
 * the run index's object, and, when given, an MCP endpoint at `/mcp`.
 */
import { createHttpApp, type McpEndpoint, type RunsBackend } from "../../src/http/index.js";
import type { IdSource } from "../../src/index.js";
import { durableObjectBackend } from "./backend.js";
import { durableObjectSessions } from "./sessions.js";
import type { RunBindings } from "./run-object.js";

/** What the Worker reads of its environment: the Durable Object bindings, and the tokens, origins and timings of the HTTP API. */
export interface WorkerEnv extends RunBindings {
  /** Operator tokens (both scopes; the console logs in with one), comma-separated. */
  readonly ISOAGENT_TOKEN?: string;
  /** Run tokens (create and read runs, never answer an approval), comma-separated. */
  readonly ISOAGENT_RUN_TOKEN?: string;
  /** Comma-separated origins allowed to call the API from a browser. */
  readonly ISOAGENT_CORS_ORIGINS?: string;
  /** Milliseconds between a live event stream's keep-alive pings while nothing changes (default 15,000). */
  readonly ISOAGENT_KEEPALIVE_MS?: string;
}

const list = (value: string | undefined): string[] =>
  (value ?? "")
    .split(",")
    .map((t) => t.trim())
    .filter((t) => t.length >= 16);

/**
 * @example
 * ```ts
 * export default { fetch: (request, env, ctx) => workerApp(env, { mcp: (backend) => mcpRunsServer(backend) }).fetch(request, env, ctx) }
 * ```
 */
export function workerApp(env: WorkerEnv, options: { ids?: IdSource; mcp?: (backend: RunsBackend) => McpEndpoint } = {}) {
  const tokens = list(env.ISOAGENT_TOKEN);
  const runTokens = list(env.ISOAGENT_RUN_TOKEN);
  const corsOrigins = (env.ISOAGENT_CORS_ORIGINS ?? "")
    .split(",")
    .map((o) => o.trim())
    .filter((o) => o !== "");
  const backend = durableObjectBackend(env, options.ids === undefined ? {} : { ids: options.ids });
  const keepAliveMs = Number(env.ISOAGENT_KEEPALIVE_MS ?? NaN);
  return createHttpApp({
    backend,
    tokens: () => tokens,
    // Sessions and login codes in the index's object: a logout or a spent code holds in every isolate.
    sessions: durableObjectSessions(env.RUN_INDEX),
    ...(runTokens.length > 0 ? { runTokens: () => runTokens } : {}),
    ...(corsOrigins.length > 0 ? { corsOrigins } : {}),
    ...(Number.isFinite(keepAliveMs) && keepAliveMs > 0 ? { keepAliveMs } : {}),
    ...(options.mcp === undefined ? {} : { mcp: options.mcp(backend) }),
  });
}
