// docs/node.md's example: the HTTP app served by @hono/node-server, on a free port here (PORT=0).
import assert from "node:assert/strict";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { final, scriptedAgent } from "../../src/index.js";

process.env.ISOAGENT_TOKEN ??= "a-node-token-of-32-characters-or-more";
process.env.PORT = "0";
const agent = scriptedAgent([final("done")]);
const tools = [] as const;

// DOCS: begin
import { serve } from "@hono/node-server";
import { createDriver, memoryStore } from "../../src/index.js";
import { createHttpApp, driverBackend } from "../../src/http/index.js";

const driver = createDriver({ store: memoryStore(), agent, tools });
const app = createHttpApp({ backend: driverBackend(driver), tokens: () => [process.env.ISOAGENT_TOKEN!] });
const server = serve({ fetch: app.fetch, port: Number(process.env.PORT ?? 8787), hostname: "127.0.0.1" });
// DOCS: end

if (!server.listening) await once(server, "listening");
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
try {
  const auth = { authorization: `Bearer ${process.env.ISOAGENT_TOKEN}` };
  assert.equal((await fetch(`${base}/runs`)).status, 401);
  const started = await fetch(`${base}/runs`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify({ task: "hello" }) });
  assert.equal(started.status, 201);
  const { runId } = (await started.json()) as { runId: string };
  assert.equal((await driver.state(runId as never)).task, "hello");
} finally {
  server.close();
}
