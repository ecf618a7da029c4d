/**
 * What a client connection to an MCP server is opened with (`connectMcp`),
 * and the progress a server reports on a request.
 */
import type { McpSamplingAgent } from "./answer.js";
import type { McpElicitHandler } from "./elicit.js";
import type { StreamableHttpOptions } from "./http.js";
import type { McpSessionStore } from "./sessions.js";
import type { McpTransport } from "./transport.js";

/** A server's progress report on a request. */
export interface McpProgress {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/** Options of `connectMcp`. */
export interface McpConnectOptions {
  /** The server's Streamable HTTP endpoint; or give a `transport`. */
  readonly url?: string | undefined;
  /** Another transport (the SDK's stdio, through isoagent/mcp/stdio). */
  readonly transport?: McpTransport | undefined;
  /** For Streamable HTTP: headers (an `Authorization` for the server), `fetch`, size and reconnection limits. */
  readonly http?: Omit<StreamableHttpOptions, "url"> | undefined;
  /** How this client names itself. Default `{ name: "isoagent", version: "0.1.0" }`. */
  readonly clientInfo?: { readonly name: string; readonly version: string } | undefined;
  /** Answers elicitation requests, live. Default: decline. */
  readonly elicit?: McpElicitHandler | undefined;
  /** Answers sampling requests. Default: none (refused, and not offered). */
  readonly sampling?: McpSamplingAgent | undefined;
  /** Where the session is kept, to resume it after a restart. */
  readonly sessions?: McpSessionStore | undefined;
  /** The session's key in `sessions`. Default: the URL. */
  readonly sessionKey?: string | undefined;
  /** For initialize, list and ping requests (a call's timeout is its tool's). Default 30,000 ms. */
  readonly timeoutMs?: number | undefined;
  /**
   * Open the server's own stream (HTTP GET) for what it sends outside any
   * request: tools/list_changed, and requests some servers send there (an
   * elicitation). A server without one answers 405 and nothing more is
   * tried. On Cloudflare the open stream keeps the run object awake; false
   * leaves it closed (list_changed then goes unheard: use verify "every_call").
   * Default true.
   */
  readonly listen?: boolean | undefined;
}
