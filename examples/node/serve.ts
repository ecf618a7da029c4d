/**
 * `npm run example:serve [-- --port <n>]`: the runs API and the operator
 * console (isoagent/http) served from Node with @hono/node-server, over a
 * driver in this process (the memory store, the scripted demo agent, the
 * workspace tools). The token comes from ISOAGENT_TOKEN, or is generated and
 * printed. With OTEL_EXPORTER_OTLP_ENDPOINT set, the runs' spans are
 * exported there every 10 s and once more on the way out (isoagent/otel).
 */
import { randomBytes } from "node:crypto";
import { serve } from "@hono/node-server";
import { createDriver, memoryStore } from "../../src/index.js";
import { createHttpApp, driverBackend } from "../../src/http/index.js";
import { memoryCursor, otlpEnv, otlpExporter } from "../../src/otel/index.js";
import { memoryWorkspace, workspaceTools } from "../../src/toolkit/index.js";
import { demoAgent } from "../notes-agent.js";

const i = process.argv.indexOf("--port");
const port = Number((i >= 0 ? process.argv[i + 1] : undefined) ?? 8787);
const token = process.env["ISOAGENT_TOKEN"] ?? randomBytes(24).toString("base64url");
const { tools, reconcile } = workspaceTools(memoryWorkspace({ "notes/todo.md": "- buy milk\n- call Ana\n" }));
const store = memoryStore();
const driver = createDriver({ store, agent: demoAgent(), tools, reconcile });
// The runs live in this process's memory, and so does the export cursor.
const collector = otlpEnv(process.env);
const exporter = collector === undefined ? undefined : otlpExporter({ ...collector, cursor: memoryCursor() });
const exporting = exporter === undefined ? undefined : setInterval(() => void exporter.flush(store), 10_000);
const app = createHttpApp({ backend: driverBackend(driver), tokens: () => [token] });

// Said once the server listens; a failure to make the login link ends the process, with why.
const listening = async (info: { port: number }): Promise<void> => {
  // The console's link carries a one-time login code (a minute, used once), never the token a browser would keep in its history.
  const minted = await app.request("/login/code", { method: "POST", headers: { authorization: `Bearer ${token}` } });
  const { code } = (await minted.json()) as { code: string };
  console.log(`isoagent's API and console in Node at http://127.0.0.1:${info.port}/`);
  console.log(`  console:  http://127.0.0.1:${info.port}/login#code=${code} (logs in once, within a minute)`);
  console.log(`  API:      curl -H "Authorization: Bearer ${token}" http://127.0.0.1:${info.port}/runs`);
};
const server = serve({ fetch: app.fetch, port, hostname: "127.0.0.1" }, (info) => {
  listening(info).catch((e: unknown) => {
    console.error("could not make the console's login link:", e);
    process.exit(1);
  });
});
const stop = (): void => {
  clearInterval(exporting);
  // What ended since the last interval goes before the process does.
  void server.close(() => void (exporter?.flush(store) ?? Promise.resolve()).finally(() => process.exit(0)));
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
