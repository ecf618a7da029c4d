/**
 * The official MCP SDK (v2, @modelcontextprotocol/server) as the other side:
 * a low-level Server (raw JSON Schemas, so tests can list whatever a real
 * server could) behind its Web-standard Streamable HTTP transport, bridged to
 * Node's http on loopback, with sessions. Tools are a mutable registry so a
 * test can change one between list calls; every call, initialize and
 * cancellation is recorded.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Server, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";

export interface SdkToolContext {
  readonly signal: AbortSignal;
  readonly meta: Record<string, unknown> | undefined;
  readonly sessionId: string | undefined;
  progress(progress: number, total?: number, message?: string): Promise<void>;
  elicit(params: Record<string, unknown>): Promise<Record<string, unknown>>;
  sample(params: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Sends a request to the client as it is, without the SDK's capability checks. */
  raw(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>>;
}

export interface SdkTool {
  readonly definition: Record<string, unknown> & { name: string };
  handler(args: Record<string, unknown>, ctx: SdkToolContext): Promise<Record<string, unknown>> | Record<string, unknown>;
}

export interface SdkServer {
  readonly url: string;
  /** The server as a fetch handler (to mount it elsewhere: a page's own origin). */
  fetch(request: Request): Promise<Response>;
  readonly tools: Map<string, SdkTool>;
  /** Every tools/call the server received. */
  readonly calls: { name: string; args: Record<string, unknown>; meta: Record<string, unknown> | undefined; sessionId: string | undefined }[];
  /** Every initialize request (one per new session). */
  readonly initializes: { sessionId: string | undefined }[];
  /** Calls whose signal the client's notifications/cancelled aborted. */
  readonly cancelled: string[];
  /** Session ids seen on requests (after initialize). */
  readonly sessionsSeen: Set<string>;
  /** Sends notifications/tools/list_changed to every session. */
  listChanged(): Promise<void>;
  /** Forgets every session (as a restarted server would): their ids answer 404. */
  forgetSessions(): void;
  close(): Promise<void>;
}

export function tool(definition: SdkTool["definition"], handler: SdkTool["handler"]): SdkTool {
  return { definition, handler };
}

export async function startSdkServer(
  initial: readonly SdkTool[],
  options: { name?: string; stateless?: boolean; /** Answer requests with JSON bodies rather than SSE streams. */ json?: boolean } = {},
): Promise<SdkServer> {
  const tools = new Map(initial.map((t) => [t.definition.name, t]));
  const calls: SdkServer["calls"] = [];
  const initializes: SdkServer["initializes"] = [];
  const cancelled: string[] = [];
  const sessionsSeen = new Set<string>();
  const sessions = new Map<string, { server: Server; transport: WebStandardStreamableHTTPServerTransport }>();

  const makeServer = (): Server => {
    const server = new Server({ name: options.name ?? "sdk-test-server", version: "1.0.0" }, { capabilities: { tools: { listChanged: true } } });
    server.setRequestHandler("tools/list", async () => ({ tools: [...tools.values()].map((t) => t.definition) }) as never);
    server.setRequestHandler("tools/call", async (request, ctx) => {
      const params = request.params as { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> };
      const t = tools.get(params.name);
      calls.push({ name: params.name, args: params.arguments ?? {}, meta: params._meta as Record<string, unknown> | undefined, sessionId: ctx.sessionId });
      if (t === undefined) return { isError: true, content: [{ type: "text", text: `unknown tool ${params.name}` }] } as never;
      ctx.mcpReq.signal.addEventListener("abort", () => cancelled.push(params.name), { once: true });
      const token = (params._meta as { progressToken?: string | number } | undefined)?.progressToken;
      return (await t.handler(params.arguments ?? {}, {
        signal: ctx.mcpReq.signal,
        meta: params._meta,
        sessionId: ctx.sessionId,
        progress: async (progress, total, message) => {
          if (token === undefined) return;
          await ctx.mcpReq.notify({
            method: "notifications/progress",
            params: { progressToken: token, progress, ...(total === undefined ? {} : { total }), ...(message === undefined ? {} : { message }) },
          } as never);
        },
        elicit: async (p) => (await ctx.mcpReq.elicitInput(p as never)) as never,
        sample: async (p) => (await ctx.mcpReq.requestSampling(p as never)) as never,
        raw: async (method, p) => (await ctx.mcpReq.send({ method, params: p } as never)) as never,
      })) as never;
    });
    return server;
  };

  const handle = async (request: Request): Promise<Response> => {
    const sid = request.headers.get("mcp-session-id");
    if (sid !== null) {
      const s = sessions.get(sid);
      if (s === undefined)
        return new Response(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32001, message: "Session not found" } }), { status: 404, headers: { "content-type": "application/json" } });
      sessionsSeen.add(sid);
      return s.transport.handleRequest(request);
    }
    if (request.method === "POST") {
      const body = await request
        .clone()
        .json()
        .catch(() => null);
      if (body?.method === "initialize" || options.stateless === true) {
        const server = makeServer();
        const transport = new WebStandardStreamableHTTPServerTransport({
          ...(options.stateless === true ? {} : { sessionIdGenerator: () => randomUUID(), onsessioninitialized: (id: string) => void sessions.set(id, { server, transport }) }),
          ...(options.json === true ? { enableJsonResponse: true } : {}),
        } as never);
        await server.connect(transport);
        if (body?.method === "initialize") initializes.push({ sessionId: undefined });
        const res = await transport.handleRequest(request);
        if (body?.method === "initialize" && transport.sessionId !== undefined) initializes[initializes.length - 1] = { sessionId: transport.sessionId };
        return res;
      }
    }
    return new Response(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32000, message: "Bad Request: no session" } }), { status: 400, headers: { "content-type": "application/json" } });
  };

  const http = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
      const controller = new AbortController();
      res.on("close", () => controller.abort());
      const request = new Request(`http://127.0.0.1${req.url ?? "/"}`, {
        method: req.method ?? "GET",
        headers,
        signal: controller.signal,
        ...(req.method === "POST" ? { body: Buffer.concat(chunks) } : {}),
      });
      const response = await handle(request);
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (response.body === null) return void res.end();
      const reader = response.body.getReader();
      res.on("close", () => void reader.cancel().catch(() => {}));
      for (;;) {
        const r = await reader.read().catch(() => ({ done: true, value: undefined }));
        if (r.done) break;
        res.write(r.value);
      }
      res.end();
    })().catch(() => res.destroy());
  });
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  const port = (http.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    fetch: handle,
    tools,
    calls,
    initializes,
    cancelled,
    sessionsSeen,
    async listChanged() {
      for (const s of sessions.values()) await s.server.notification({ method: "notifications/tools/list_changed" } as never).catch(() => {});
    },
    forgetSessions() {
      for (const s of sessions.values()) void s.transport.close().catch(() => {});
      sessions.clear();
    },
    async close() {
      for (const s of sessions.values()) await s.transport.close().catch(() => {});
      sessions.clear();
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}
