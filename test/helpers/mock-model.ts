/**
 * A local HTTP server that speaks the providers' wire formats (as their
 * published API references and SDKs show them: see the builders below), for
 * testing the model adapters without a network. Each request takes the next
 * scripted answer; every request is kept for inspection.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { asyncHandler } from "./handler.js";

export interface MockAnswer {
  readonly status?: number;
  readonly headers?: Record<string, string>;
  /** The whole body, or SSE pieces written one by one. */
  readonly body?: string;
  readonly chunks?: readonly string[];
  /** Destroys the connection after this many chunks (a network cut mid-stream). */
  readonly cutAfter?: number;
  /** Destroys the connection before any answer. */
  readonly hangUp?: boolean;
}

export interface SeenRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage["headers"];
  readonly body: any;
}

export interface MockModelServer {
  readonly url: string;
  readonly requests: SeenRequest[];
  answer(...answers: MockAnswer[]): void;
  /** Answers left unused. */
  pending(): number;
  close(): Promise<void>;
}

export async function mockModelServer(port = 0): Promise<MockModelServer> {
  const queue: MockAnswer[] = [];
  const requests: SeenRequest[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer(
    asyncHandler(async (req: IncomingMessage, res: ServerResponse) => {
      let raw = "";
      for await (const c of req) raw += c;
      requests.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers, body: raw === "" ? undefined : JSON.parse(raw) });
      const a = queue.shift() ?? { status: 500, body: JSON.stringify({ error: { message: "the mock has no answer left", type: "server_error", param: null, code: null } }) };
      if (a.hangUp === true) {
        req.socket.destroy();
        return;
      }
      const streaming = a.chunks !== undefined;
      res.writeHead(a.status ?? 200, { "content-type": streaming ? "text/event-stream" : "application/json", ...a.headers });
      if (!streaming) {
        res.end(a.body ?? "");
        return;
      }
      let sent = 0;
      for (const c of a.chunks!) {
        if (a.cutAfter !== undefined && sent >= a.cutAfter) {
          await new Promise((r) => setTimeout(r, 5));
          req.socket.destroy();
          return;
        }
        res.write(c);
        sent++;
        await new Promise((r) => setImmediate(r));
      }
      res.end();
    }),
  );
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}`,
    requests,
    answer: (...answers) => void queue.push(...answers),
    pending: () => queue.length,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

export * from "./wire.js";
