/**
 * The Worker's HTTP app on Durable Objects: the runs API and the console of
 * isoagent/http, each run hosted by its own object, tokens from the
 * `ISOAGENT_TOKEN` secret (comma-separated for rotation).
 */
import { createHttpApp } from "../../src/http/index.js";
import type { IdSource } from "../../src/index.js";
import { durableObjectBackend } from "./backend.js";
import type { RunBindings } from "./run-object.js";

export interface WorkerEnv extends RunBindings {
  readonly ISOAGENT_TOKEN?: string;
  /** Comma-separated origins allowed to call the API from a browser. */
  readonly ISOAGENT_CORS_ORIGINS?: string;
}

/**
 * @example
 * ```ts
 * export default { fetch: (request, env, ctx) => workerApp(env).fetch(request, env, ctx) }
 * ```
 */
export function workerApp(env: WorkerEnv, options: { ids?: IdSource } = {}) {
  const tokens = (env.ISOAGENT_TOKEN ?? "").split(",").map((t) => t.trim()).filter((t) => t.length >= 16);
  const corsOrigins = (env.ISOAGENT_CORS_ORIGINS ?? "").split(",").map((o) => o.trim()).filter((o) => o !== "");
  return createHttpApp({
    backend: durableObjectBackend(env, options),
    tokens: () => tokens,
    ...(corsOrigins.length > 0 ? { corsOrigins } : {}),
  });
}
