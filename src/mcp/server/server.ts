/**
 * `mcpServer`: isoagent tools (and, with `runs`, run control) served as an
 * MCP server over Streamable HTTP. A fetch handler: the HTTP app mounts it
 * at `/mcp` behind its bearer tokens (`createHttpApp({ mcp })`), which tell
 * it the caller's scope. It keeps nothing between requests (any isolate
 * serves any session): the `Mcp-Session-Id` it gives at initialization is a
 * label clients echo, and a call's progress goes on the SSE stream of its
 * own POST.
 */
import { oneLine } from "../../call/call-context.js";
import { redactor } from "../../call/redact.js";
import { compileTools, type CompiledTool, type Tool } from "../../tools/index.js";
import type { JsonValue } from "../../json/index.js";
import { allowAll, type Policy } from "../../policy/index.js";
import { newAbortController, randomUuid } from "../../web.js";
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from "../connection.js";
import { McpError } from "../errors.js";
import { errorResponse, isNotification, isRequest, parseMessage, resultResponse, RPC, type JsonObject, type JsonRpcId, type JsonRpcMessage } from "../jsonrpc.js";
import { sseEvent } from "../sse.js";
import { META_IDEMPOTENCY_KEY } from "../tools.js";
import { serveCall, type ArtifactSink } from "./call.js";
import { runTools, serveRunTool, type McpCaller, type RunsControl, type RunTool } from "./runs.js";
import { readBody, respond, streaming, type RequestLike, type ResponseLike } from "./web.js";
import { NOT_ID_CHARS } from "../../ids.js";

/** An MCP content block this server answers with. */
export type McpContentBlock = JsonObject;

/** Options of {@link mcpServer}. */
export interface McpServerOptions {
  /** The tools served. A tool whose permission is deny is not served; one whose permission (or the policy's answer) is ask is refused: nobody can approve over MCP. */
  readonly tools?: readonly Tool<never, unknown>[] | undefined;
  /** Tightens the tools' permissions, as a driver's does (fail-closed). */
  readonly policy?: Policy | undefined;
  /** Serve run control on the same endpoint (create, read, list approvals; answer and cancel with the operator scope). */
  readonly runs?: RunsControl | undefined;
  /** How the server names itself. Default `{ name: "isoagent", version: "0.1.0" }`. */
  readonly name?: string | undefined;
  readonly version?: string | undefined;
  readonly instructions?: string | undefined;
  /** Redacted from every result, as the driver's. */
  readonly secrets?: readonly string[] | undefined;
  /** Where `ctx.putArtifact` and the full output behind a cut result go. Default: nowhere (outputs are cut without keeping the rest). */
  readonly artifacts?: ArtifactSink | undefined;
  /**
   * Origins allowed to call from a browser (`Origin` header); a request with
   * another is refused with 403, against DNS rebinding. Default: the
   * endpoint's own origin only.
   */
  readonly allowedOrigins?: readonly string[] | undefined;
  /** Host headers accepted (a loopback server without authentication: `127.0.0.1:8787`, `localhost:8787`); 403 for others. Default: any. */
  readonly allowedHosts?: readonly string[] | undefined;
  /** The largest request body, in bytes. Default 1 MiB. */
  readonly maxBodyBytes?: number | undefined;
  /** How a tool's (cleaned, redacted) result becomes MCP content. Default: one text block, and `structuredContent` for an object. */
  readonly present?: ((tool: string, value: JsonValue) => readonly McpContentBlock[] | undefined) | undefined;
}

/** A served MCP endpoint. */
export interface McpServer {
  /** Answers one HTTP request to the endpoint, for a caller of the given scope (default: the run scope). */
  fetch(request: RequestLike, caller?: McpCaller): Promise<ResponseLike>;
  /** The names of the tools it lists to an operator (run control included). */
  readonly toolNames: readonly string[];
}

const JSON_HEADERS = { "content-type": "application/json" };
const ANNOTATIONS: Record<string, JsonObject> = {
  read_only: { readOnlyHint: true },
  local_mutation: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
  remote_mutation: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
  destructive: { readOnlyHint: false, destructiveHint: true },
};

const ownOrigin = (url: string): string => /^([a-z][a-z0-9+.-]*:\/\/[^/?#]+)/i.exec(url)?.[1]?.toLowerCase() ?? "";
const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Serves isoagent tools, and run control, as an MCP server.
 *
 * @example
 * ```ts
 * const mcp = mcpServer({ tools: [searchNotes], policy, runs: driverBackend(driver) })
 * const app = createHttpApp({ backend, tokens: () => [operatorToken], runTokens: () => [runToken], mcp })   // POST /mcp behind the tokens
 * ```
 */
export function mcpServer(options: McpServerOptions = {}): McpServer {
  const tools = options.tools ?? [];
  const compiled = compileTools(tools);
  const entries = new Map<string, { tool: Tool<never, unknown>; compiled: CompiledTool<never> }>();
  compiled.forEach((c, k) => entries.set(c.name, { tool: tools[k]!, compiled: c }));
  const control = options.runs === undefined ? [] : runTools(options.runs);
  for (const r of control) if (entries.has(r.name)) throw new McpError("MCP_OPTIONS_INVALID", `tool name ${r.name} is taken by run control`);
  const controlByName = new Map<string, RunTool>(control.map((r) => [r.name, r]));
  const policy = options.policy ?? allowAll;
  const redact = redactor(options.secrets ?? []);
  const maxBody = options.maxBodyBytes ?? 1024 * 1024;
  const serverInfo = { name: options.name ?? "isoagent", version: options.version ?? "0.1.0" };
  const inFlight = new Map<string, { abort(): void }>();

  const listed = (caller: McpCaller): JsonObject[] => [
    ...compiled.filter((c) => c.permission === "allow").map((c) => ({ name: c.name, description: c.description, inputSchema: c.inputSchema as JsonValue, annotations: ANNOTATIONS[c.sideEffect]! })),
    ...control.filter((r) => !r.operator || caller.scope === "operator").map((r) => ({ name: r.name, description: r.description, inputSchema: r.inputSchema, annotations: r.annotations })),
  ];

  const textResult = (text: string, isError: boolean, structured?: JsonValue): JsonObject => ({
    content: [{ type: "text", text }],
    ...(isError ? { isError: true } : {}),
    ...(structured !== undefined && isObject(structured) ? { structuredContent: structured } : {}),
  });

  /** A tools/call: answers its result (the tool's own failures are results with isError, as the spec says). */
  const callTool = async (id: JsonRpcId, params: JsonObject, caller: McpCaller, progress: ((p: JsonObject) => void) | undefined, key: string): Promise<JsonRpcMessage> => {
    const name = params["name"];
    const args = params["arguments"] ?? {};
    if (typeof name !== "string") return errorResponse(id, RPC.INVALID_PARAMS, "tools/call needs a tool name");
    const runTool = controlByName.get(name);
    if (runTool !== undefined) {
      const r = await serveRunTool(runTool, args, caller);
      return resultResponse(id, r.ok ? textResult(JSON.stringify(r.value), false, r.value) : textResult(r.text, true));
    }
    const entry = entries.get(name);
    if (entry === undefined || entry.compiled.permission === "deny") return errorResponse(id, RPC.INVALID_PARAMS, `Unknown tool: ${JSON.stringify(name.slice(0, 100))}`);
    const meta = isObject(params["_meta"]) ? params["_meta"] : {};
    const given = meta[META_IDEMPOTENCY_KEY];
    const controller = newAbortController();
    // Cancellable by notifications/cancelled from the same session (a call without one cannot be told apart from another's).
    if (!key.startsWith("\u0000")) inFlight.set(key, controller);
    let last = -Infinity;
    try {
      const out = await serveCall(
        entry,
        JSON.stringify(args),
        {
          callId: `mcp_${String(id).replace(NOT_ID_CHARS, "_").slice(0, 100)}`,
          idempotencyKey: typeof given === "string" && given.length > 0 && given.length <= 256 ? `mcp:${given}` : `mcp:${randomUuid()}`,
          signal: controller.signal,
          progress: (u) => {
            if (progress === undefined || typeof u !== "object" || u === null || typeof u.progress !== "number" || !Number.isFinite(u.progress) || u.progress < last) return;
            last = u.progress;
            progress({
              progress: u.progress,
              ...(typeof u.total === "number" && Number.isFinite(u.total) ? { total: u.total } : {}),
              ...(typeof u.message === "string" ? { message: oneLine(u.message, redact) } : {}),
            });
          },
        },
        { policy, redact, artifacts: options.artifacts },
      );
      const o = out.observation;
      if (o.type !== "result") return resultResponse(id, textResult(o.error, true));
      const custom = out.value === undefined ? undefined : options.present?.(name, out.value);
      if (custom !== undefined && o.truncated === undefined) return resultResponse(id, { content: [...custom] });
      const text = typeof o.content === "string" ? o.content : JSON.stringify(o.content);
      return resultResponse(id, textResult(text, false, o.truncated === undefined ? out.value : undefined));
    } finally {
      inFlight.delete(key);
    }
  };

  const handleRequest = async (m: JsonRpcMessage & { id: JsonRpcId; method: string }, caller: McpCaller, session: string, progress: ((p: JsonObject) => void) | undefined): Promise<JsonRpcMessage> => {
    const params = (m as { params?: JsonObject }).params ?? {};
    switch (m.method) {
      case "initialize": {
        const asked = params["protocolVersion"];
        const version = typeof asked === "string" && SUPPORTED_PROTOCOL_VERSIONS.includes(asked) ? asked : LATEST_PROTOCOL_VERSION;
        return resultResponse(m.id, {
          protocolVersion: version,
          capabilities: { tools: { listChanged: false } },
          serverInfo,
          ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
        });
      }
      case "ping":
        return resultResponse(m.id, {});
      case "tools/list":
        return resultResponse(m.id, { tools: listed(caller) });
      case "tools/call":
        return callTool(m.id, params, caller, progress, `${session}\u0000${String(m.id)}`);
      default:
        return errorResponse(m.id, RPC.METHOD_NOT_FOUND, `Method not found: ${m.method.slice(0, 100)}`);
    }
  };

  return {
    toolNames: listed({ scope: "operator" }).map((t) => String(t["name"])),
    async fetch(request, caller = { scope: "run" }) {
      const forbidden = (why: string): ResponseLike => respond(403, JSON.stringify(errorResponse(null, -32000, `Forbidden: ${why}`)), JSON_HEADERS);
      const origin = request.headers.get("origin");
      const allowedOrigins = (options.allowedOrigins ?? [ownOrigin(request.url)]).map((o) => o.toLowerCase().replace(/\/$/, ""));
      if (origin !== null && !allowedOrigins.includes(origin.toLowerCase())) return forbidden("this origin may not call the MCP endpoint");
      const host = request.headers.get("host");
      if (options.allowedHosts !== undefined && (host === null || !options.allowedHosts.map((h) => h.toLowerCase()).includes(host.toLowerCase()))) return forbidden("this host name is not served");
      if (request.method !== "POST")
        return respond(405, JSON.stringify(errorResponse(null, -32000, "Method not allowed: this server keeps no streams (POST only)")), { ...JSON_HEADERS, allow: "POST" });
      const version = request.headers.get("mcp-protocol-version");
      if (version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version))
        return respond(400, JSON.stringify(errorResponse(null, RPC.INVALID_REQUEST, `Unsupported protocol version ${JSON.stringify(version.slice(0, 40))}`)), JSON_HEADERS);
      if (!/^application\/json\s*(;|$)/i.test((request.headers.get("content-type") ?? "").trim()))
        return respond(415, JSON.stringify(errorResponse(null, RPC.INVALID_REQUEST, "the body must be JSON, sent with content-type: application/json")), JSON_HEADERS);
      const body = await readBody(request, maxBody);
      if (body === undefined) return respond(413, JSON.stringify(errorResponse(null, RPC.INVALID_REQUEST, `the body is larger than ${maxBody} bytes`)), JSON_HEADERS);
      const m = parseMessage(body);
      if (typeof m === "string")
        return respond(400, JSON.stringify(errorResponse(null, m.startsWith("not valid JSON") ? RPC.PARSE_ERROR : RPC.INVALID_REQUEST, `Invalid message: ${m}`)), JSON_HEADERS);
      if (!isRequest(m)) {
        if (isNotification(m) && m.method === "notifications/cancelled") {
          const id = m.params?.["requestId"];
          if (typeof id === "string" || typeof id === "number") inFlight.get(`${request.headers.get("mcp-session-id") ?? ""}\u0000${String(id)}`)?.abort();
        }
        return respond(202, null);
      }
      const session = m.method === "initialize" ? `mcp_${randomUuid()}` : (request.headers.get("mcp-session-id") ?? "");
      const headers = m.method === "initialize" ? { "mcp-session-id": session } : {};
      const token = isObject(m.params?.["_meta"]) ? m.params["_meta"]["progressToken"] : undefined;
      const sse = m.method === "tools/call" && (typeof token === "string" || typeof token === "number") && (request.headers.get("accept") ?? "").includes("text/event-stream");
      if (!sse) return respond(200, JSON.stringify(await handleRequest(m, caller, session, undefined)), { ...JSON_HEADERS, ...headers });
      const { response, writer } = streaming(200, { "content-type": "text/event-stream", ...headers });
      void handleRequest(m, caller, session, (p) =>
        writer.write(sseEvent({ event: "message", data: JSON.stringify({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: token as JsonValue, ...p } }) })),
      )
        .then((reply) => writer.write(sseEvent({ event: "message", data: JSON.stringify(reply) })))
        .catch(() => writer.write(sseEvent({ event: "message", data: JSON.stringify(errorResponse(m.id, RPC.INTERNAL_ERROR, "internal error")) })))
        .finally(() => writer.close());
      return response;
    },
  };
}

/**
 * Run control alone as an MCP server (the same as `mcpServer({ runs })`):
 * an MCP client such as Claude Desktop, an IDE or another agent can create,
 * read and supervise runs; answering approvals and cancelling need the
 * operator scope.
 *
 * @example
 * ```ts
 * createHttpApp({ backend, tokens: () => [operatorToken], runTokens: () => [agentToken], mcp: mcpRunsServer(backend) })
 * ```
 */
export function mcpRunsServer(backend: RunsControl, options: Omit<McpServerOptions, "runs"> = {}): McpServer {
  return mcpServer({ ...options, runs: backend });
}
