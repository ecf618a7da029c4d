/**
 * `npm start`: the Worker of wrangler.toml (examples/worker) on workerd,
 * through miniflare, as `wrangler dev` would run it: the runs API and the
 * operator console, each run hosted by its own Durable Object, storage kept
 * under `.data/` across restarts. The local token is generated on first start
 * and kept in `.data/token`. The console's link carries a one-time login
 * code (valid a minute, used once), never the token, which a browser would
 * keep in its history files; Enter prints a new link.
 *
 * On the first start (no run yet) it creates a demo run, which will wait in
 * the console for the approval of its write.
 *
 * With OPENAI_API_KEY or ANTHROPIC_API_KEY set (ISOAGENT_MODEL to pick the
 * model), the runs use that model instead of the scripted demo agent. With
 * ISOAGENT_MCP_URL set, the runs also get that MCP server's tools
 * (examples/worker/mcp.ts); the runs themselves are served as MCP at /mcp.
 *
 * Options:
 *   --port <n>     (default 8787, or $PORT)
 *   --data <dir>   (default .data)
 *   --check        walk the demo through the HTTP API (create, approve, see
 *                  it complete), print what happened and exit: what the tests
 *                  run, and a quick way to see that everything works.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { Miniflare } from "miniflare";
import { describeAgent, modelFromEnv } from "../examples/model.js";
import { DEMO_TASK } from "../examples/notes-agent.js";
import { bundleWorker } from "./lib/bundle.js";
import { buildBrowserExample } from "./lib/example-browser.js";
import { RUN_OBJECTS } from "./lib/worker.js";

const argv = process.argv.slice(2);
const option = (name: string): string | undefined => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const check = argv.includes("--check");
const port = Number(option("port") ?? process.env["PORT"] ?? 8787);
const dataDir = resolve(option("data") ?? ".data");
const TASK = DEMO_TASK;

/** The local token: generated once, kept (readable by its owner only) under the data folder. */
function localToken(): string {
  const file = join(dataDir, "token");
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  mkdirSync(dataDir, { recursive: true });
  const token = randomBytes(24).toString("base64url");
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return token;
}

const token = localToken();
// A model key in the environment reaches the Worker as its secret would.
const MODEL_VARS = [
  "OPENAI_API_KEY",
  "ANTHROPIC_API_KEY",
  "ISOAGENT_MODEL",
  "OPENAI_BASE_URL",
  "ANTHROPIC_BASE_URL",
  "ISOAGENT_MCP_URL",
  "ISOAGENT_MCP_TOKEN",
  "ISOAGENT_MCP_TRUST",
  "ISOAGENT_RUN_TOKEN",
];
const modelBindings = Object.fromEntries(MODEL_VARS.flatMap((k) => (process.env[k] ? [[k, process.env[k]!]] : [])));
// The browser example, served by the Worker at /app/ (its static assets), same origin as the console.
const appDir = await buildBrowserExample(join(dataDir, "app"));
const mf = new Miniflare({
  name: "isoagent",
  assets: { directory: appDir, binding: "ASSETS", routerConfig: { has_user_worker: true, invoke_user_worker_ahead_of_assets: true } },
  modules: true,
  script: await bundleWorker("examples/worker/index.ts"),
  compatibilityDate: "2026-07-01",
  ...RUN_OBJECTS,
  durableObjectsPersist: join(dataDir, "do"),
  bindings: { ISOAGENT_TOKEN: token, ...modelBindings },
  host: "127.0.0.1",
  port,
});
const base = (await mf.ready).toString().replace(/\/$/, "");

async function api<T>(path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${base}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await res.json()) as T & { error?: { code: string; message: string } };
  if (!res.ok) throw new Error(`${path}: ${res.status} ${json.error?.code}: ${json.error?.message}`);
  return json;
}

interface RunView {
  runId: string;
  status: string;
  output?: unknown;
  approvals: { approvalId: string; requestHash: string; request: { tool: string; args: unknown } }[];
}

/** Waits for the run to get there: as soon as it does, and at most 2 minutes (a generous bound for a loaded machine). */
async function until(runId: string, ok: (run: RunView) => boolean): Promise<RunView> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const { run } = await api<{ run: RunView }>(`/runs/${runId}`);
    if (ok(run)) return run;
    if (Date.now() > deadline) throw new Error(`run ${runId} did not get there in 2 minutes (${run.status})`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const { runs } = await api<{ runs: { runId: string; status: string }[] }>("/runs");
let demo: string | undefined;
if (runs.length === 0 || check) demo = (await api<{ runId: string }>("/runs", { task: TASK })).runId;

console.log(`isoagent's Worker on workerd (miniflare), storage in ${join(dataDir, "do")}`);
/** A console link with a fresh one-time login code (POST /login/code with the token). */
async function loginLink(): Promise<string> {
  const res = await fetch(`${base}/login/code`, { method: "POST", headers: { authorization: `Bearer ${token}` } });
  const json = (await res.json()) as { code?: string; error?: { code: string; message: string } };
  if (!res.ok) throw new Error(`/login/code: ${res.status} ${json.error?.code}: ${json.error?.message}`);
  return `${base}/login#code=${json.code}`;
}
const LINK_NOTE = "(logs in once, within a minute; press Enter for a new link)";
console.log(`  console:  ${await loginLink()} ${LINK_NOTE}`);
console.log(`  app:      ${base}/app/ (the browser example: runs in the tab, "Continue in the cloud" moves one here; log in to the console first)`);
console.log(`  API:      curl -H "Authorization: Bearer ${token}" ${base}/runs`);
console.log(`  MCP:      ${base}/mcp (the runs as MCP tools, same token${process.env["ISOAGENT_MCP_URL"] ? `; the runs use the tools of ${process.env["ISOAGENT_MCP_URL"]}` : ""})`);
console.log(`  token:    ${token} (kept in ${join(dataDir, "token")})`);
console.log(`  agent:    ${describeAgent(modelFromEnv(process.env), "OPENAI_API_KEY or ANTHROPIC_API_KEY")}`);
console.log(`  runs:     ${runs.length} kept from earlier starts${demo === undefined ? "" : `; demo run ${demo} created`}`);

if (check) {
  // The demo, approved: it writes the summary and says so.
  const waiting = await until(demo!, (r) => r.status === "waiting");
  const pending = waiting.approvals[0]!;
  console.log(`run ${demo} waits for approval ${pending.approvalId}: ${pending.request.tool} ${JSON.stringify(pending.request.args)}`);
  await api(`/runs/${demo}/approvals/${pending.approvalId}`, { decision: "approve", requestHash: pending.requestHash, by: "npm start --check" });
  const done = await until(demo!, (r) => r.status === "completed" || r.status === "failed");
  const events = await api<{ events: { seq: number; type: string }[] }>(`/runs/${demo}/events`);
  console.log(`run ${demo} ${done.status}: ${JSON.stringify(done.output)} (${events.events.length} journal events)`);
  if (modelFromEnv(process.env) !== undefined) {
    // A real model's answers are its own: the check stops at the approved run.
    await mf.dispose();
    process.exit(done.status === "completed" ? 0 : 1);
  }
  // The demo, denied: it says what it could not do, and claims nothing.
  const other = (await api<{ runId: string }>("/runs", { task: TASK })).runId;
  const asked = (await until(other, (r) => r.status === "waiting")).approvals[0]!;
  await api(`/runs/${other}/approvals/${asked.approvalId}`, { decision: "deny", requestHash: asked.requestHash, by: "npm start --check", reason: "not now" });
  const denied = await until(other, (r) => r.status === "completed" || r.status === "failed");
  console.log(`run ${other} (write denied) ${denied.status}: ${JSON.stringify(denied.output)}`);
  // A task the demo agent does not know: it says so, and does nothing.
  const unknown = (await api<{ runId: string }>("/runs", { task: "hello" })).runId;
  const hello = await until(unknown, (r) => r.status === "completed" || r.status === "failed");
  console.log(`run ${unknown} (task "hello") ${hello.status}: ${JSON.stringify(hello.output)}`);
  await mf.dispose();
  const claims = (o: unknown): boolean => JSON.stringify(o).includes("written and checked");
  const ok = done.status === "completed" && claims(done.output) && denied.status === "completed" && !claims(denied.output) && hello.status === "completed" && !claims(hello.output);
  if (!ok) console.log("FAIL: the demo did not behave as an agent should (see above)");
  process.exit(ok ? 0 : 1);
}

console.log(demo === undefined ? "Open the console to follow the runs. Ctrl-C stops." : "Open the console: the demo run waits there for your approval of its write. Ctrl-C stops.");
// Enter: a new login link (the last one may be spent, or a minute old).
process.stdin.setEncoding("utf8").on("data", (chunk: string) => {
  for (let k = 0; k < chunk.split("\n").length - 1; k++) {
    void loginLink().then(
      (link) => console.log(`  console:  ${link} ${LINK_NOTE}`),
      (e: unknown) => console.log(`could not make a login link: ${e instanceof Error ? e.message : String(e)}`),
    );
  }
});
const stop = async (): Promise<void> => {
  await mf.dispose();
  process.exit(0);
};
process.on("SIGINT", () => void stop());
process.on("SIGTERM", () => void stop());
