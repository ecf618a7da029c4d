/**
 * A small static server for the browser example and the page tests: files
 * from one folder, on 127.0.0.1, every response with a Content-Security-Policy
 * that forbids code generation from strings ('unsafe-eval' absent).
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { extname, join, normalize, resolve } from "node:path";

export const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self' https://api.openai.com https://api.anthropic.com; worker-src 'self'; manifest-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

/** The CSP with more origins the page may fetch from (an OTLP collector's). */
export const cspConnecting = (origins: readonly string[]): string => (origins.length === 0 ? CSP : CSP.replace("https://api.anthropic.com;", `https://api.anthropic.com ${origins.join(" ")};`));

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".webmanifest": "application/manifest+json",
  ".png": "image/png",
  ".svg": "image/svg+xml",
};

export interface StaticSite {
  readonly url: string;
  readonly server: Server;
  close(): Promise<void>;
}

export async function serveStatic(folder: string, port = 0, options: { connect?: readonly string[] } = {}): Promise<StaticSite> {
  const root = resolve(folder);
  const csp = cspConnecting(options.connect ?? []);
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname));
    let file = resolve(join(root, path));
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, "index.html");
    if (!file.startsWith(root) || !existsSync(file)) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    res.writeHead(200, {
      "content-type": TYPES[extname(file)] ?? "application/octet-stream",
      "content-security-policy": csp,
      "cache-control": "no-cache",
      // The service worker may control the whole site.
      ...(file.endsWith("sw.js") ? { "service-worker-allowed": "/" } : {}),
    });
    res.end(readFileSync(file));
  });
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", () => r()));
  const { port: bound } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${bound}/`, server, close: () => new Promise<void>((r) => server.close(() => r())) };
}
