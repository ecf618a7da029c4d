/**
 * `npm run example:browser`: builds examples/browser into .data/example-browser
 * and serves it on http://127.0.0.1:8788/ (`--port` to change; PORT too), under a
 * CSP that forbids 'unsafe-eval'. The CSP lets the page export traces to a
 * local OTLP collector on its usual port (4318), and to the origin of
 * OTEL_EXPORTER_OTLP_ENDPOINT when it is set. With `--build`, it only builds
 * (the folder wrangler.toml's commented `[assets]` section names, for the
 * Worker to serve the example at /app/).
 */
import { buildBrowserExample } from "./lib/example-browser.js";
import { serveStatic } from "./lib/static-server.js";

const dir = await buildBrowserExample(".data/example-browser");
if (process.argv.includes("--build")) {
  console.log(`built the browser example into ${dir}`);
  process.exit(0);
}
const i = process.argv.indexOf("--port");
const collector = process.env["OTEL_EXPORTER_OTLP_ENDPOINT"];
const connect = ["http://localhost:4318", "http://127.0.0.1:4318", ...(collector === undefined ? [] : [new URL(collector).origin])];
const site = await serveStatic(dir, Number((i >= 0 ? process.argv[i + 1] : undefined) ?? process.env["PORT"] ?? 8788), { connect });
console.log(`the browser example is at ${site.url} (Ctrl-C to stop)`);
