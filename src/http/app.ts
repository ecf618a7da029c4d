/**
 * The runs API and the operator console, as one hono app: the same on
 * Workers (backed by Durable Objects) and in Node (backed by a driver).
 *
 * Every route but `GET /health`, the login page and the static assets needs
 * a token: `Authorization: Bearer <t>`, or the console's session cookie
 * (see auth.ts: signed, expiring, never the token). A write authenticated by
 * the cookie must be same-origin (403 CSRF_REFUSED); a body must be JSON
 * with `content-type: application/json` (415) under a size limit (413), and
 * goes through the strict JSON boundary. Errors are
 * `{ "error": { "code", "message" } }`, never a stack or a path. Every
 * answer carries `X-Content-Type-Options: nosniff` and `Cache-Control:
 * no-store`.
 *
 * This file puts the app together, in the order its routes must be met;
 * each concern is a file of its own: the options (app-options.ts), what
 * every answer shares (base-routes.ts), the console's pages
 * (console-routes.ts), authentication (authenticate.ts) and its refusals
 * (guards.ts), moves (move-routes.ts), and the runs API (run-routes.ts).
 */
import { Hono, type Context } from "hono";
import { systemClock } from "../clock.js";
import { parseRunId } from "../ids.js";
import type { AppVariables, HttpAppOptions } from "./app-options.js";
import { DEFAULT_LOGIN_CODE_TTL_MS, DEFAULT_SESSION_TTL_MS, UNSAFE_METHODS } from "./auth.js";
import { registerAuthentication } from "./authenticate.js";
import { registerBase } from "./base-routes.js";
import { registerConsoleAssets, registerConsolePage } from "./console-routes.js";
import { bodyCap, jsonOnly, sameOriginOnly } from "./guards.js";
import { registerMoveRoutes } from "./move-routes.js";
import { registerRunRoutes } from "./run-routes.js";
import { registerConversationRoutes } from "./conversation-routes.js";
import { consoleSessions } from "./session-routes.js";
import { memorySessions } from "./sessions.js";
import { checkFrom, fromQuery, idParam } from "./wire.js";

export type { AppVariables, HttpAppOptions, McpEndpoint, Scope } from "./app-options.js";

/** The origin a request names itself by: scheme, host and port of its URL. */
const ownOrigin = (url: string): string => {
  const m = /^([a-z][a-z0-9+.-]*:\/\/[^/?#]+)/i.exec(url);
  return m === null ? "" : m[1]!.toLowerCase();
};

/**
 * The runs API and the operator console.
 *
 * @example
 * ```ts
 * const app = createHttpApp({ backend: driverBackend(driver), tokens: () => [process.env.ISOAGENT_TOKEN!] })
 * export default app // a Worker, or serve app.fetch from Node
 * ```
 */
export function createHttpApp(options: HttpAppOptions): Hono<{ Variables: AppVariables }> {
  const { backend } = options;
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  const keepAliveMs = options.keepAliveMs ?? 15_000;
  if (!(Number.isFinite(keepAliveMs) && keepAliveMs > 0)) throw new TypeError(`keepAliveMs must be a number above 0, not ${String(keepAliveMs)}`);
  const clock = options.clock ?? systemClock;
  const sessionTtlMs = options.sessionTtlMs ?? DEFAULT_SESSION_TTL_MS;
  const originOf = (c: Context): string => (options.origin ?? ownOrigin(c.req.url)).toLowerCase().replace(/\/$/, "");
  const app = new Hono<{ Variables: AppVariables }>();
  const sessions = consoleSessions({
    ledger: options.sessions ?? memorySessions(),
    tokens: options.tokens,
    clock,
    sessionTtlMs,
    loginCodeTtlMs: options.loginCodeTtlMs ?? DEFAULT_LOGIN_CODE_TTL_MS,
    originOf,
  });

  registerBase(app, options.corsOrigins);
  const csp = registerConsoleAssets(app);
  const limit = bodyCap(maxBodyBytes);
  registerAuthentication(app, { tokens: options.tokens, runTokens: options.runTokens, sessions, sameOriginOnly: sameOriginOnly(originOf), limit });

  // MCP has its own wire rules (bodies, sizes, DELETE without a body): it is served before the API's.
  if (options.mcp !== undefined) {
    const mcp = options.mcp;
    app.all("/mcp", (c) => mcp.fetch(c.req.raw as never, { scope: c.get("scope") }) as Promise<never>);
  }
  // Moves and mirrors (isoagent/move): bundles are JSON lines under their own cap, so they come before the JSON rules.
  if (backend.move !== undefined) {
    // An export from past the journal's end is refused before the export starts (its own check runs in a stream, whose refusal a Worker loses).
    app.get("/runs/:id/export", async (c, next) => {
      const runId = idParam(parseRunId, c.req.param("id"));
      const from = fromQuery(c.req.query("from"));
      if (from > 1) checkFrom(runId, from, (await backend.state(runId)).seq);
      return next();
    });
    registerMoveRoutes(app, backend.move, { maxBodyBytes, ...(options.maxImportBytes === undefined ? {} : { maxImportBytes: options.maxImportBytes }) });
  }

  app.use("*", async (c, next) => {
    if (UNSAFE_METHODS.has(c.req.method)) jsonOnly(c);
    return next();
  });
  app.use("*", limit);

  registerConsolePage(app, csp);
  registerRunRoutes(app, backend, sessions, keepAliveMs);
  registerConversationRoutes(app, backend);
  return app;
}
