import { build } from "esbuild";
import { mkdtempSync, readFileSync, writeFileSync, copyFileSync, existsSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { extname, join, normalize } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { CHROMIUM } from "./chromium.js";

/** A Content-Security-Policy without 'unsafe-eval': code generation from strings is refused in these pages. */
export const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; worker-src 'self'; object-src 'none'; base-uri 'none'";

/** Bundles a page's script for the browser next to a copy of its HTML, in a fresh folder. */
export async function buildPage(html: string, entry: string, out = "harness.js"): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "isoagent-page-"));
  copyFileSync(html, join(dir, "index.html"));
  await build({ entryPoints: [entry], bundle: true, format: "esm", platform: "browser", target: "es2022", outfile: join(dir, out), logLevel: "silent" });
  return dir;
}

const TYPES: Record<string, string> = { ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".css": "text/css", ".json": "application/json", ".webmanifest": "application/manifest+json", ".png": "image/png" };

/** Serves a folder on 127.0.0.1 with the CSP above; returns its URL. */
export async function serve(dir: string): Promise<{ url: string; close(): Promise<void>; server: Server }> {
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname)).replace(/^(\.\.[/\\])+/, "");
    let file = join(dir, path);
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, "index.html");
    if (!file.startsWith(dir) || !existsSync(file)) {
      res.writeHead(404).end("not found");
      return;
    }
    res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream", "content-security-policy": CSP, "cache-control": "no-store" });
    res.end(readFileSync(file));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/`, server, close: () => new Promise<void>((r) => server.close(() => r())) };
}

export async function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM.executablePath, args: CHROMIUM.args, headless: true });
}

export { writeFileSync };
