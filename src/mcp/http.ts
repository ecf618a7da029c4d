/**
 * The Streamable HTTP transport (MCP 2025-03-26 to 2025-11-25) over `fetch`,
 * so the same client runs in a browser, a Worker and Node. Each message is a
 * POST; the answer is one JSON body or an SSE stream, which is resumed with
 * `Last-Event-ID` after the server's `retry` delay when it closes before the
 * response (SEP-1699 polling). The session the server gives at
 * initialization is sent on every later request, and can be set before the
 * first one to resume a kept session. Sizes are capped; redirects are
 * refused (a bearer token never follows one).
 */
import { after, newAbortController, platformFetch, readBytes, utf8StreamDecoder, type AbortSignalLike, type FetchLike, type FetchResponseLike } from "../web.js";
import { McpError } from "./errors.js";
import { isErrorResponse, isRequest, isResult, parseMessage, type JsonRpcId, type JsonRpcMessage } from "./jsonrpc.js";
import { SseParser } from "./sse.js";
import type { McpTransport } from "./transport.js";

/** Options of {@link streamableHttp}. */
export interface StreamableHttpOptions {
  /** The server's MCP endpoint, such as `https://mcp.example.com/mcp`. */
  readonly url: string;
  /** Default: the platform's `fetch`. */
  readonly fetch?: FetchLike | undefined;
  /** Headers for every request (an `Authorization` for the server); a function is called per request. */
  readonly headers?: Readonly<Record<string, string>> | (() => Readonly<Record<string, string>>) | undefined;
  /** The largest message read, in bytes. Default 16 MiB. */
  readonly maxMessageBytes?: number | undefined;
  /** How many times one stream is resumed before the request fails. Default 5. */
  readonly maxReconnects?: number | undefined;
  /** The wait before resuming a stream when the server gave no `retry`. Default 1,000 ms. */
  readonly reconnectDelayMs?: number | undefined;
}

const SESSION_ID = /^[\x21-\x7e]{1,512}$/;

const wait = (ms: number, signal: AbortSignalLike | undefined): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted === true) return reject(cancelled());
    const onAbort = (): void => {
      cancel();
      reject(cancelled());
    };
    const cancel = after(ms, () => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    });
    signal?.addEventListener("abort", onAbort, { once: true });
  });

const cancelled = (): McpError => new McpError("MCP_CANCELLED", "the request was cancelled");

/** The bytes of a body, at most `max` (an McpError above it). */
async function readAll(res: FetchResponseLike, max: number): Promise<Uint8Array> {
  const bytes = await readBytes(res.body, max);
  if (bytes === undefined) throw new McpError("MCP_MESSAGE_TOO_LARGE", `the server's answer is larger than ${max} bytes`);
  return bytes;
}

/** The Streamable HTTP transport. */
export class StreamableHttpTransport implements McpTransport {
  readonly answersInline = true;
  onmessage?: ((message: JsonRpcMessage, related: JsonRpcId | undefined) => void) | undefined;
  onerror?: ((error: unknown) => void) | undefined;
  onclose?: (() => void) | undefined;
  sessionId: string | undefined;
  private protocolVersion: string | undefined;
  private readonly fetch: FetchLike;
  private readonly max: number;
  private readonly maxReconnects: number;
  private readonly delayMs: number;
  private closed = false;
  private listening: { abort(): void } | undefined;

  constructor(private readonly options: StreamableHttpOptions) {
    if (typeof options?.url !== "string" || !/^https?:\/\//i.test(options.url)) throw new McpError("MCP_OPTIONS_INVALID", "streamableHttp needs an http:// or https:// url");
    this.fetch = options.fetch ?? platformFetch();
    this.max = options.maxMessageBytes ?? 16 * 1024 * 1024;
    this.maxReconnects = options.maxReconnects ?? 5;
    this.delayMs = options.reconnectDelayMs ?? 1000;
  }

  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
  }

  private headers(extra: Record<string, string>): Record<string, string> {
    const custom = typeof this.options.headers === "function" ? this.options.headers() : (this.options.headers ?? {});
    return {
      ...custom,
      ...(this.sessionId === undefined ? {} : { "mcp-session-id": this.sessionId }),
      ...(this.protocolVersion === undefined ? {} : { "mcp-protocol-version": this.protocolVersion }),
      ...extra,
    };
  }

  private async call(method: "GET" | "POST" | "DELETE", headers: Record<string, string>, body: string | undefined, signal: AbortSignalLike | undefined): Promise<FetchResponseLike> {
    if (this.closed) throw new McpError("MCP_CLOSED", "the connection to the MCP server is closed");
    try {
      return await this.fetch(this.options.url, { method, headers: this.headers(headers), ...(body === undefined ? {} : { body }), ...(signal === undefined ? {} : { signal }), redirect: "manual" });
    } catch (e) {
      if (signal?.aborted === true) throw cancelled();
      throw new McpError("MCP_CONNECT_FAILED", `could not reach the MCP server at ${this.options.url}`, { cause: e });
    }
  }

  async send(message: JsonRpcMessage, options: { readonly signal?: AbortSignalLike | undefined } = {}): Promise<void> {
    const signal = options.signal;
    const res = await this.call("POST", { "content-type": "application/json", accept: "application/json, text/event-stream" }, JSON.stringify(message), signal);
    const request = isRequest(message) ? message : undefined;
    if (request?.method === "initialize") {
      const id = res.headers.get("mcp-session-id");
      if (id !== null) {
        if (!SESSION_ID.test(id)) throw new McpError("MCP_PROTOCOL_ERROR", "the server gave a session id that is not 1-512 visible ASCII characters");
        this.sessionId = id;
      }
    }
    if (res.status === 404 && this.sessionId !== undefined && request?.method !== "initialize") {
      void res.body
        ?.getReader()
        .cancel()
        .catch(() => {});
      throw new McpError("MCP_SESSION_EXPIRED", "the MCP server ended the session", { status: 404 });
    }
    if (res.status < 200 || res.status > 299) {
      // A JSON-RPC error for this request is delivered as one; anything else is an HTTP failure.
      const bytes = await readAll(res, this.max).catch(() => new Uint8Array(0));
      const m = bytes.length > 0 ? parseMessage(bytes) : "";
      if (request !== undefined && typeof m !== "string" && isErrorResponse(m) && m.id === request.id) return this.deliver(m, request.id);
      throw new McpError("MCP_HTTP_ERROR", `the MCP server answered HTTP ${res.status}${res.status >= 300 && res.status < 400 ? " (a redirect, which is not followed)" : ""}`, { status: res.status });
    }
    if (request === undefined) {
      void res.body
        ?.getReader()
        .cancel()
        .catch(() => {});
      return;
    }
    const type = (res.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
    if (type === "text/event-stream") return this.stream(res, request.id, signal);
    if (type === "application/json") {
      const m = parseMessage(await readAll(res, this.max));
      if (typeof m === "string") throw new McpError("MCP_PROTOCOL_ERROR", `the MCP server's answer is ${m}`);
      return this.deliver(m, request.id);
    }
    if (res.status === 202) throw new McpError("MCP_PROTOCOL_ERROR", "the MCP server accepted a request without answering it");
    throw new McpError("MCP_PROTOCOL_ERROR", `the MCP server answered a request with content type ${JSON.stringify(type)}`);
  }

  private deliver(m: JsonRpcMessage, related: JsonRpcId | undefined): void {
    this.onmessage?.(m, related);
  }

  /** Reads a request's SSE stream until its response, resuming it (GET with Last-Event-ID after the server's retry) when it ends early. */
  private async stream(first: FetchResponseLike, id: JsonRpcId, signal: AbortSignalLike | undefined): Promise<void> {
    const parser = new SseParser(this.max);
    let res: FetchResponseLike = first;
    for (let reconnects = 0; ; reconnects++) {
      if (await this.read(res, parser, id, signal)) return;
      if (parser.lastEventId === undefined) throw new McpError("MCP_PROTOCOL_ERROR", "the MCP server's stream ended before the response, and cannot be resumed (no event id)");
      if (reconnects >= this.maxReconnects) throw new McpError("MCP_PROTOCOL_ERROR", `the MCP server's stream ended before the response ${reconnects + 1} times`);
      await wait(parser.retryMs ?? this.delayMs, signal);
      res = await this.call("GET", { accept: "text/event-stream", "last-event-id": parser.lastEventId }, undefined, signal);
      const type = (res.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
      if (res.status < 200 || res.status > 299 || type !== "text/event-stream") {
        void res.body
          ?.getReader()
          .cancel()
          .catch(() => {});
        throw new McpError("MCP_HTTP_ERROR", `the MCP server answered HTTP ${res.status} to resuming a stream`, { status: res.status });
      }
    }
  }

  /** Reads one connection of a stream; true once the response to `id` was delivered. */
  private async read(res: FetchResponseLike, parser: SseParser, id: JsonRpcId | undefined, signal: AbortSignalLike | undefined): Promise<boolean> {
    if (res.body === null) return false;
    const reader = res.body.getReader();
    const decode = utf8StreamDecoder();
    const onAbort = (): void => void reader.cancel().catch(() => {});
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      for (;;) {
        let r: { done: boolean; value?: Uint8Array };
        try {
          r = await reader.read();
        } catch {
          if (signal?.aborted === true) throw cancelled();
          return false; // the connection dropped: resume it
        }
        if (signal?.aborted === true) throw cancelled();
        if (r.done || r.value === undefined) return false;
        for (const e of parser.push(decode(r.value))) {
          if (e.data.trim() === "") continue; // a priming event: it only moves the cursor
          const m = parseMessage(e.data);
          if (typeof m === "string") throw new McpError("MCP_PROTOCOL_ERROR", `the MCP server sent ${m}`);
          this.deliver(m, id);
          if (id !== undefined && (isResult(m) || isErrorResponse(m)) && m.id === id) return true;
        }
      }
    } finally {
      signal?.removeEventListener("abort", onAbort);
      void reader.cancel().catch(() => {});
    }
  }

  /** Opens the standalone GET stream (server notifications such as tools/list_changed), resumed when it ends; a 405 means the server has none. */
  listen(): void {
    if (this.listening !== undefined || this.closed) return;
    let stopped = false;
    const controllers: { abort(): void }[] = [];
    this.listening = { abort: () => ((stopped = true), controllers.forEach((c) => c.abort())) };
    const parser = new SseParser(this.max);
    void (async () => {
      let failures = 0;
      while (!stopped && !this.closed) {
        const controller = newAbortController();
        controllers.splice(0, controllers.length, controller);
        try {
          const res = await this.call("GET", { accept: "text/event-stream", ...(parser.lastEventId === undefined ? {} : { "last-event-id": parser.lastEventId }) }, undefined, controller.signal);
          const type = (res.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
          if (res.status === 405) return;
          if (res.status < 200 || res.status > 299 || type !== "text/event-stream")
            throw new McpError("MCP_HTTP_ERROR", `the MCP server answered HTTP ${res.status} to listening`, { status: res.status });
          failures = 0;
          await this.read(res, parser, undefined, controller.signal);
        } catch (e) {
          if (stopped || this.closed) return;
          if (++failures > this.maxReconnects) {
            this.onerror?.(e);
            return;
          }
        }
        if (stopped || this.closed) return;
        await wait(parser.retryMs ?? this.delayMs, undefined);
      }
    })();
  }

  async terminate(): Promise<void> {
    if (this.sessionId === undefined || this.closed) return;
    try {
      const res = await this.call("DELETE", {}, undefined, undefined);
      void res.body
        ?.getReader()
        .cancel()
        .catch(() => {});
    } catch {
      // Ending a session is a courtesy; the server expires it anyway.
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.listening?.abort();
    this.closed = true;
    this.onclose?.();
  }
}

/**
 * The Streamable HTTP transport to an MCP server.
 *
 * @example
 * ```ts
 * const transport = streamableHttp({ url: "https://mcp.example.com/mcp", headers: { authorization: `Bearer ${key}` } })
 * ```
 */
export function streamableHttp(options: StreamableHttpOptions): StreamableHttpTransport {
  return new StreamableHttpTransport(options);
}
