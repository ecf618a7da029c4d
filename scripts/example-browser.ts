/**
 * `npm run example:browser`: builds examples/browser into .data/example-browser
 * and serves it on http://127.0.0.1:8788/ (PORT to change), under a CSP that
 * forbids 'unsafe-eval'.
 */
import { buildBrowserExample } from "./lib/example-browser.js";
import { serveStatic } from "./lib/static-server.js";

const dir = await buildBrowserExample(".data/example-browser");
const site = await serveStatic(dir, Number(process.env["PORT"] ?? 8788));
console.log(`the browser example is at ${site.url} (Ctrl-C to stop)`);
