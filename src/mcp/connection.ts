/**
 * A client connection to one MCP server: the initialization handshake (or a
 * kept session resumed), requests with cancellation (`notifications/cancelled`
 * when their signal aborts) and progress, and what the server asks of the
 * client: ping, elicitation (to the application's handler; declined by
 * default), sampling (refused unless the application gives a sampling agent).
 * Everything the server sends is checked before it is used.
 */
import { isIsoagentError } from "../errors.js";
import { cleanText } from "../call/hygiene.js";
import type { JsonValue } from "../json/index.js";
import { after, newAbortController, randomBytes, type AbortSignalLike } from "../web.js";
import { answerServer, type McpCallContext } from "./answer.js";
import { McpError } from "./errors.js";
import { streamableHttp } from "./http.js";
import { errorResponse, isErrorResponse, isNotification, isRequest, isResult, resultResponse, RPC, type JsonObject, type JsonRpcId, type JsonRpcMessage, type JsonRpcRequest } from "./jsonrpc.js";
import type { McpConnectOptions, McpProgress } from "./connect-options.js";
import { readSessionState, type McpSessionState } from "./sessions.js";
import type { McpTransport } from "./transport.js";

/** The protocol revision this client asks for. */
export const LATEST_PROTOCOL_VERSION = "2025-11-25";
/** The revisions this client and `mcpServer` speak. */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = ["2025-11-25", "2025-06-18", "2025-03-26"];

interface Pending {
  resolve(result: JsonObject): void;
  reject(error: unknown): void;
  onProgress?: ((p: McpProgress) => void) | undefined;
  context?: McpCallContext | undefined;
}

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);
const hex = (b: Uint8Array): string => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
const one = (text: string, max: number): string => {
  const t = cleanText(text).text.replace(/\s+/g, " ").trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
};

/** A connection to one MCP server. Create it with {@link connectMcp}. */
export class McpConnection {
  private readonly pending = new Map<JsonRpcId, Pending>();
  private readonly incoming = new Map<JsonRpcId, { abort(): void }>();
  private readonly prefix = hex(randomBytes(6));
  private counter = 0;
  private state!: McpSessionState;
  private renewing: Promise<void> | undefined;
  private closed = false;
  private readonly changeListeners = new Set<() => void>();
  /** Grows with every new session (initialized, or renewed after the server ended one); 0 while a kept session is resumed. */
  generation = 0;
  /** How many `notifications/tools/list_changed` arrived. */
  toolsChanged = 0;
  /** Whether this connection resumed a kept session instead of initializing. */
  resumed = false;

  /** @internal Use {@link connectMcp}. */
  constructor(
    readonly transport: McpTransport,
    private readonly options: McpConnectOptions,
    readonly url: string | undefined,
  ) {
    transport.onmessage = (m, related) => this.receive(m, related);
  }

  /** The server's name and version, as it gave them (untrusted). */
  get serverInfo(): { readonly name: string; readonly version: string } {
    return this.state.serverInfo;
  }
  get protocolVersion(): string {
    return this.state.protocolVersion;
  }
  get capabilities(): JsonObject {
    return this.state.capabilities;
  }
  get instructions(): string | undefined {
    return this.state.instructions;
  }
  get sessionId(): string | undefined {
    return this.transport.sessionId;
  }

  private get key(): string {
    return this.options.sessionKey ?? this.url ?? "default";
  }

  /** @internal Resumes a kept session, or initializes a new one. */
  async open(): Promise<void> {
    const kept = this.options.sessions === undefined ? undefined : readSessionState(await this.options.sessions.get(this.key));
    if (kept?.sessionId !== undefined) {
      this.transport.sessionId = kept.sessionId;
      this.transport.setProtocolVersion?.(kept.protocolVersion);
      this.state = kept;
      this.resumed = true;
    } else await this.initialize();
    if (this.options.listen !== false) this.transport.listen?.();
  }

  private async initialize(): Promise<void> {
    this.transport.sessionId = undefined;
    const capabilities: JsonObject = { elicitation: { form: {} }, ...(this.options.sampling === undefined ? {} : { sampling: {} }) };
    const clientInfo = this.options.clientInfo ?? { name: "isoagent", version: "0.1.0" };
    let r: JsonObject;
    try {
      r = await this.once("initialize", { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities, clientInfo }, {});
    } catch (e) {
      if (isIsoagentError(e) && e.code !== "MCP_CONNECT_FAILED") throw e;
      throw new McpError("MCP_CONNECT_FAILED", `could not initialize the MCP server${this.url === undefined ? "" : ` at ${this.url}`}`, { cause: e });
    }
    const version = r["protocolVersion"];
    if (typeof version !== "string" || !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      throw new McpError("MCP_PROTOCOL_ERROR", `the MCP server speaks protocol ${JSON.stringify(version)}, not one of ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")}`);
    }
    const info = r["serverInfo"];
    const caps = r["capabilities"];
    if (!isObject(info) || typeof info["name"] !== "string" || !isObject(caps)) throw new McpError("MCP_PROTOCOL_ERROR", "the MCP server's initialize result has no serverInfo or capabilities");
    this.transport.setProtocolVersion?.(version);
    this.state = {
      v: 1,
      ...(this.transport.sessionId === undefined ? {} : { sessionId: this.transport.sessionId }),
      protocolVersion: version,
      serverInfo: { name: one(info["name"], 100) || "mcp", version: typeof info["version"] === "string" ? one(info["version"], 100) : "" },
      capabilities: caps,
      ...(typeof r["instructions"] === "string" ? { instructions: r["instructions"] } : {}),
    };
    await this.transport.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    this.generation++;
    this.resumed = false;
    await this.options.sessions?.set(this.key, this.state);
  }

  /** Starts a new session after the server ended one (once at a time). */
  private renew(): Promise<void> {
    this.renewing ??= (async () => {
      try {
        await this.options.sessions?.delete(this.key);
        await this.initialize();
      } finally {
        this.renewing = undefined;
      }
    })();
    return this.renewing;
  }

  /**
   * Sends a request and answers its result. A request the server refused
   * because it ended the session (HTTP 404) is sent again once, in a new
   * session: the server did not act on it. `beforeResend` runs in between,
   * once the new session is open (a tool call lists the tools again there,
   * and refuses to be sent when its tool changed); what it throws is the
   * request's failure.
   */
  async request(
    method: string,
    params: JsonObject,
    options: {
      signal?: AbortSignalLike | undefined;
      timeoutMs?: number | undefined;
      onProgress?: ((p: McpProgress) => void) | undefined;
      context?: McpCallContext | undefined;
      beforeResend?: (() => Promise<void>) | undefined;
    } = {},
  ): Promise<JsonObject> {
    if (this.renewing !== undefined) await this.renewing;
    try {
      return await this.once(method, params, options);
    } catch (e) {
      if (!isIsoagentError(e, "MCP_SESSION_EXPIRED")) throw e;
      await this.renew();
      await options.beforeResend?.();
      return this.once(method, params, options);
    }
  }

  private async once(
    method: string,
    params: JsonObject,
    options: { signal?: AbortSignalLike | undefined; timeoutMs?: number | undefined; onProgress?: ((p: McpProgress) => void) | undefined; context?: McpCallContext | undefined },
  ): Promise<JsonObject> {
    if (this.closed) throw new McpError("MCP_CLOSED", "the connection to the MCP server is closed");
    const id = `${this.prefix}-${++this.counter}`;
    const meta = isObject(params["_meta"]) ? params["_meta"] : {};
    const message: JsonRpcRequest = { jsonrpc: "2.0", id, method, params: options.onProgress === undefined ? params : { ...params, _meta: { ...meta, progressToken: id } } };
    const controller = newAbortController();
    const timeoutMs = options.timeoutMs ?? (options.signal === undefined ? (this.options.timeoutMs ?? 30_000) : undefined);
    const stopTimer = timeoutMs === undefined ? () => {} : after(timeoutMs, () => controller.abort(new McpError("MCP_CANCELLED", `${method} did not finish within ${timeoutMs} ms`)));
    const onAbort = (): void => controller.abort(options.signal?.reason);
    options.signal?.addEventListener("abort", onAbort, { once: true });
    if (options.signal?.aborted === true) onAbort();
    const result = new Promise<JsonObject>((resolve, reject) => this.pending.set(id, { resolve, reject, onProgress: options.onProgress, context: options.context }));
    result.catch(() => {});
    const cancel = (): void => {
      const p = this.pending.get(id);
      if (p === undefined) return;
      this.pending.delete(id);
      const reason = controller.signal.reason;
      p.reject(isIsoagentError(reason) ? reason : new McpError("MCP_CANCELLED", `${method} was cancelled`));
      if (method !== "initialize")
        void this.transport.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "the caller cancelled the request" } }).catch(() => {});
    };
    controller.signal.addEventListener("abort", cancel, { once: true });
    try {
      await this.transport.send(message, { signal: controller.signal });
      if (this.pending.has(id) && this.transport.answersInline === true && !controller.signal.aborted) {
        // Over HTTP the answer comes with the request: none came.
        const p = this.pending.get(id)!;
        this.pending.delete(id);
        p.reject(new McpError("MCP_PROTOCOL_ERROR", `the MCP server did not answer ${method}`));
      }
    } catch (e) {
      const p = this.pending.get(id);
      this.pending.delete(id);
      p?.reject(
        controller.signal.aborted && !isIsoagentError(e, "MCP_SESSION_EXPIRED")
          ? isIsoagentError(controller.signal.reason)
            ? controller.signal.reason
            : new McpError("MCP_CANCELLED", `${method} was cancelled`)
          : e,
      );
    } finally {
      stopTimer();
      options.signal?.removeEventListener("abort", onAbort);
    }
    try {
      return await result;
    } finally {
      controller.signal.removeEventListener("abort", cancel);
    }
  }

  /** Sends a notification. */
  notify(method: string, params?: JsonObject): Promise<void> {
    return this.transport.send({ jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }) });
  }

  /** Hears `notifications/tools/list_changed`; answers a function that stops it. */
  onToolsChanged(listener: () => void): () => void {
    this.changeListeners.add(listener);
    return () => void this.changeListeners.delete(listener);
  }

  private receive(m: JsonRpcMessage, related: JsonRpcId | undefined): void {
    if (isResult(m) || isErrorResponse(m)) {
      if (m.id === null) return;
      const p = this.pending.get(m.id);
      if (p === undefined) return;
      this.pending.delete(m.id);
      if (isResult(m)) p.resolve(m.result);
      else {
        const said = one(m.error.message, 500);
        p.reject(new McpError("MCP_RPC_ERROR", `the MCP server answered error ${m.error.code}: ${said}`, { rpcCode: m.error.code, serverMessage: said }));
      }
      return;
    }
    if (isRequest(m)) {
      void this.answer(m, related);
      return;
    }
    if (!isNotification(m)) return;
    const params = m.params ?? {};
    switch (m.method) {
      case "notifications/progress": {
        const token = params["progressToken"];
        const p = typeof token === "string" || typeof token === "number" ? this.pending.get(token) : undefined;
        const progress = params["progress"];
        if (p?.onProgress === undefined || typeof progress !== "number" || !Number.isFinite(progress)) return;
        const total = params["total"];
        const message = params["message"];
        p.onProgress({ progress, ...(typeof total === "number" && Number.isFinite(total) ? { total } : {}), ...(typeof message === "string" ? { message } : {}) });
        return;
      }
      case "notifications/tools/list_changed":
        this.toolsChanged++;
        for (const l of this.changeListeners) {
          try {
            l();
          } catch {
            // A listener's failure is its own.
          }
        }
        return;
      case "notifications/cancelled": {
        const id = params["requestId"];
        if (typeof id === "string" || typeof id === "number") this.incoming.get(id)?.abort();
        return;
      }
      default:
        return;
    }
  }

  /**
   * Which isoagent call a server's request interrupts: the one whose stream
   * carried it, or, when it came on the server's own stream, the only call in
   * flight (none when several are).
   */
  private contextOf(related: JsonRpcId | undefined): McpCallContext {
    if (related !== undefined) return this.pending.get(related)?.context ?? {};
    const calls = [...this.pending.values()].filter((p) => p.context !== undefined);
    return calls.length === 1 ? calls[0]!.context! : {};
  }

  /** Answers what the server asks of the client. */
  private async answer(req: JsonRpcRequest, related: JsonRpcId | undefined): Promise<void> {
    const controller = newAbortController();
    this.incoming.set(req.id, controller);
    let reply: JsonRpcMessage;
    try {
      reply = resultResponse(req.id, await answerServer(req, { ...this.contextOf(related), server: this.state?.serverInfo.name ?? "mcp", signal: controller.signal }, this.options));
    } catch (e) {
      reply =
        isIsoagentError(e, "MCP_RPC_ERROR") && (e as McpError).rpcCode !== undefined
          ? errorResponse(req.id, (e as McpError).rpcCode!, e.message)
          : errorResponse(req.id, RPC.INTERNAL_ERROR, "the client could not answer");
    } finally {
      this.incoming.delete(req.id);
    }
    if (controller.signal.aborted) return; // withdrawn: no answer is expected
    await this.transport.send(reply).catch((e: unknown) => this.transport.onerror?.(e));
  }

  /** Closes the connection (and, with `terminate`, ends the session on the server). Pending requests fail with MCP_CLOSED. */
  async close(options: { terminate?: boolean } = {}): Promise<void> {
    if (this.closed) return;
    if (options.terminate === true) {
      await this.transport.terminate?.();
      await this.options.sessions?.delete(this.key);
    }
    this.closed = true;
    for (const [id, p] of this.pending) {
      this.pending.delete(id);
      p.reject(new McpError("MCP_CLOSED", "the connection to the MCP server is closed"));
    }
    await this.transport.close();
  }
}

/**
 * Connects to an MCP server: over Streamable HTTP (`url`), or over another
 * transport (the SDK's stdio in Node: isoagent/mcp/stdio). A session kept
 * in `sessions` is resumed (no new initialization); otherwise the client
 * initializes and keeps the new session there.
 *
 * @example
 * ```ts
 * const connection = await connectMcp({ url: "https://mcp.example.com/mcp", http: { headers: { authorization: `Bearer ${key}` } } })
 * const { tools, refused, reconcile } = await mcpTools(connection, { trustAnnotations: false })
 * ```
 */
export async function connectMcp(options: McpConnectOptions): Promise<McpConnection> {
  if (typeof options !== "object" || options === null) throw new McpError("MCP_OPTIONS_INVALID", "connectMcp needs options");
  if ((options.url === undefined) === (options.transport === undefined)) throw new McpError("MCP_OPTIONS_INVALID", "connectMcp needs a url or a transport (one of them)");
  const transport = options.transport ?? streamableHttp({ ...options.http, url: options.url! });
  const c = new McpConnection(transport, options, options.url);
  try {
    await c.open();
  } catch (e) {
    await transport.close().catch(() => {});
    throw e;
  }
  return c;
}

export type { JsonValue };
