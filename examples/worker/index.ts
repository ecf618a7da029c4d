/**
 * The Worker wrangler.toml deploys (and `npm start` runs locally on workerd):
 * the runs API and operator console, each run in its own Durable Object,
 * driven there by the demo agent over a workspace in the object's storage;
 * with ISOAGENT_MCP_URL set, an MCP server's tools too (see mcp.ts); and the
 * runs themselves served as MCP at /mcp, behind the same tokens. With
 * OTEL_EXPORTER_OTLP_ENDPOINT set (and the collector's API key in
 * OTEL_EXPORTER_OTLP_HEADERS, a secret), each run object exports its run's
 * spans there (isoagent/otel). A task `{ "steps": n }` (1 to 1,000) is run
 * by a scripted agent that lists the notes n times, then ends: the runs
 * `npm run bench -- scale-do` starts by the thousand.
 */
import type { WorkerEnv } from "../../adapters/durable-object/index.js";
import { call, calls, final, scriptedAgent, type Agent, type JsonValue } from "../../src/index.js";
import { mcpRunsServer } from "../../src/mcp/index.js";
import { agentFor, modelFromEnv } from "../model.js";
import { demoAgent } from "../notes-agent.js";
import { mcpReconcile, mcpTaskAgent, mcpToolSet, type McpEnv } from "./mcp.js";
import { demoTools, SEED } from "./workspace.js";
import { serveApp, type AppEnv } from "./app.js";
import { sqlWorkspace } from "../../adapters/durable-object/index.js";

/** The Worker's bindings: a model key (a secret) makes the runs use that model instead of the scripted demo agent. */
export interface Env extends WorkerEnv, McpEnv, AppEnv {
  readonly OPENAI_API_KEY?: string;
  readonly ANTHROPIC_API_KEY?: string;
  readonly ISOAGENT_MODEL?: string;
  readonly OPENAI_BASE_URL?: string;
  readonly ANTHROPIC_BASE_URL?: string;
  /** The collector (its base URL: /v1/traces is added), or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT for the full one. */
  readonly OTEL_EXPORTER_OTLP_ENDPOINT?: string;
  /** Its API key, as `name=value` pairs (a secret): `x-honeycomb-team=...`, `authorization=Bearer%20...`. */
  readonly OTEL_EXPORTER_OTLP_HEADERS?: string;
  readonly OTEL_SERVICE_NAME?: string;
}

/** For a task `{ "steps": n }`: n read-only steps (list_files), then the end. */
function stepsTaskAgent(task: JsonValue): Agent | undefined {
  const n = typeof task === "object" && task !== null && !Array.isArray(task) ? task["steps"] : undefined;
  if (typeof n !== "number" || !Number.isInteger(n) || n < 1 || n > 1000) return undefined;
  return scriptedAgent((view) => (view.step <= n ? calls(call("list_files", { path: "notes" })) : final({ steps: n })));
}

/** The run's agent: a task's scripted one (`{ "steps": n }`, an MCP task), else the model the env names, else the demo agent. */
function agentOf(env: Env, task: JsonValue): Agent {
  const model = modelFromEnv(env as unknown as Record<string, string | undefined>);
  return stepsTaskAgent(task) ?? mcpTaskAgent(task) ?? (model === undefined ? demoAgent() : agentFor(model));
}

// DOCS: begin
import { otlpEnv } from "../../src/otel/index.js";

// OTEL_EXPORTER_OTLP_ENDPOINT (a var) and OTEL_EXPORTER_OTLP_HEADERS (a secret: "x-honeycomb-team=..."); neither: no export
const otel = ({ env }: { env: Env }) => otlpEnv(env);
// or: ({ env }) => ({ endpoint: env.COLLECTOR_URL, headers: { authorization: `Bearer ${env.COLLECTOR_KEY}` } })
// DOCS: end

// DOCS: begin
// The Worker's entry (examples/worker/index.ts, which wrangler.toml deploys; its Env extends WorkerEnv)
import { runObjectClass, RunIndex, workerApp } from "../../adapters/durable-object/index.js";

export const RunObject = runObjectClass<Env>({
  agent: ({ env, task }) => agentOf(env, task),
  tools: async ({ env, storage }) => [...demoTools(storage).tools, ...((await mcpToolSet(env, storage))?.tools ?? [])],
  reconcile: ({ env, storage }) => mcpReconcile(env, storage, demoTools(storage).reconcile),
  workspace: ({ storage }) => sqlWorkspace(storage, { seed: SEED }), // the run's files, which move with it (isoagent/move)
  otel, // its spans, to a collector (docs/otel.md)
});
export { RunIndex };
export default {
  fetch: async (request: Request, env: Env, ctx: ExecutionContext) => (await serveApp(request, env)) ?? workerApp(env, { mcp: (backend) => mcpRunsServer(backend) }).fetch(request, env, ctx),
};
// DOCS: end
