/** Serves a fetch handler (Web Request → Response) on Node's http, on loopback. */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export async function serveFetch(handler: (request: Request) => Promise<Response> | Response): Promise<{ origin: string; close(): Promise<void> }> {
  const http = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
      const controller = new AbortController();
      res.on("close", () => controller.abort());
      const host = req.headers.host ?? "127.0.0.1";
      const request = new Request(`http://${host}${req.url ?? "/"}`, {
        method: req.method ?? "GET",
        headers,
        signal: controller.signal,
        ...(req.method === "POST" || req.method === "PUT" ? { body: Buffer.concat(chunks) } : {}),
      });
      const response = await handler(request);
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (response.body === null) return void res.end();
      const reader = response.body.getReader();
      res.on("close", () => void reader.cancel().catch(() => {}));
      for (;;) {
        const r = await reader.read().catch(() => ({ done: true as const, value: undefined }));
        if (r.done) break;
        res.write(r.value);
      }
      res.end();
    })().catch(() => res.destroy());
  });
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  return {
    origin: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    async close() {
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}
