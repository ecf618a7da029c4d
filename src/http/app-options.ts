/**
 * What the HTTP app is made of and tells its routes: the options of
 * `createHttpApp` (app.ts: its backend, the tokens of each scope, the
 * origins, limits and timings of the API), the scopes a token grants, the
 * MCP endpoint it may serve, and the variables its authentication sets on
 * each request. Apart from app.ts so that every file of routes reads them
 * without importing the app back.
 */
import type { Clock } from "../clock.js";
import type { RunsBackend } from "./backend.js";
import type { Signed } from "./auth.js";
import type { SessionLedger } from "./sessions.js";

/** What a caller's token lets it do: "run" creates and reads runs; "operator" also answers approvals, reconciles and cancels. */
export type Scope = "run" | "operator";

/** An MCP endpoint the app serves at `/mcp`, behind its tokens (isoagent/mcp's `mcpServer` or `mcpRunsServer`). */
export interface McpEndpoint {
  fetch(request: never, caller: { readonly scope: Scope; readonly by?: string }): Promise<unknown>;
}

/** What the HTTP app serves: its backend, the tokens of each scope, and the origins, limits and timings of the API. */
export interface HttpAppOptions {
  readonly backend: RunsBackend;
  /**
   * Operator tokens (a Worker secret, the local token): both scopes, and the
   * only tokens that open a console session. A deployment with one token
   * has it here and keeps working as before. Called per request, so a
   * rotated secret takes effect (and ends the old token's console sessions).
   */
  readonly tokens: () => readonly string[];
  /**
   * Run tokens: the run scope only. A caller holding one creates runs and
   * reads them (state, events, pending approvals, live events), and is
   * refused (403 OPERATOR_SCOPE_REQUIRED) on answering an approval,
   * reconciling and cancelling: an agent holding only a run token can never
   * answer an approval, its own least. Default: none.
   */
  readonly runTokens?: () => readonly string[];
  /** Serves MCP at `/mcp` behind the same tokens, telling it the caller's scope. */
  readonly mcp?: McpEndpoint;
  /** Largest body accepted, in bytes (413 above). Default 1 MiB. */
  readonly maxBodyBytes?: number;
  /** Largest run bundle `POST /runs/import` and `/runs/:id/mirror` accept, streamed (413 past it). Default 256 MiB. */
  readonly maxImportBytes?: number;
  /** Origins allowed to call the API from a browser, with a bearer token. Default: none (CORS off). */
  readonly corsOrigins?: readonly string[];
  /**
   * How often a live event stream with nothing to say sends a keep-alive
   * ping (which keeps proxies from closing it). Events are pushed as they
   * are appended, never polled for. Default 15,000 ms.
   */
  readonly keepAliveMs?: number;
  /** The app's public origin (`https://agents.example.com`), when a proxy in front changes the scheme or host the app sees. Default: the request's own. */
  readonly origin?: string;
  /** How long a console session lasts. Default 12 hours. */
  readonly sessionTtlMs?: number;
  /** How long a one-time login code (`POST /login/code`) may wait to be used. Default one minute. */
  readonly loginCodeTtlMs?: number;
  /**
   * Where the console's open sessions and login codes are kept, so that a
   * logout ends a session on the server and a code works once. Every app
   * serving one console (processes behind a balancer, a Worker's isolates)
   * must share one. Default: `memorySessions()`, this app's alone (a
   * restart logs everyone out; another process does not see its sessions).
   */
  readonly sessions?: SessionLedger;
  /** The clock sessions expire by. Default: the system clock. */
  readonly clock?: Clock;
}

/** What a request's authentication tells the routes: how, with which scope, who (for idempotency keys), and the console's session when it is one. */
export interface AppVariables {
  auth: "bearer" | "session";
  scope: Scope;
  caller: string;
  session?: Signed;
}
