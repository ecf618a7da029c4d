/**
 * The Worker wrangler.toml deploys (and `npm start` runs locally on workerd):
 * the runs API and operator console, each run in its own Durable Object,
 * driven there by the demo agent over a workspace in the object's storage;
 * with ISOAGENT_MCP_URL set, an MCP server's tools too (see mcp.ts); and the
 * runs themselves served as MCP at /mcp, behind the same tokens. With
 * OTEL_EXPORTER_OTLP_ENDPOINT set (and the collector's API key in
 * OTEL_EXPORTER_OTLP_HEADERS, a secret), each run object exports its run's
 * spans there (isoagent/otel).
 */
import { defineRunObject, RunIndex, workerApp, type WorkerEnv } from "../../adapters/durable-object/index.js";
import { mcpRunsServer } from "../../src/mcp/index.js";
import { otlpEnv } from "../../src/otel/index.js";
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

export const RunObject = defineRunObject<Env>({
  agent: ({ env, task }) => {
    const model = modelFromEnv(env as unknown as Record<string, string | undefined>);
    return mcpTaskAgent(task) ?? (model === undefined ? demoAgent() : agentFor(model));
  },
  tools: async ({ env, storage }) => [...demoTools(storage).tools, ...((await mcpToolSet(env, storage))?.tools ?? [])],
  reconcile: ({ env, storage }) => mcpReconcile(env, storage, demoTools(storage).reconcile),
  // The run's files go with it when it moves (isoagent/move).
  workspace: ({ storage }) => sqlWorkspace(storage, { seed: SEED }),
  // Spans to the collector the env names, if any; none otherwise.
  otel: ({ env }) => otlpEnv(env),
});
export { RunIndex };

export default {
  fetch: async (request: Request, env: Env, ctx: ExecutionContext) => (await serveApp(request, env)) ?? workerApp(env, { mcp: (backend) => mcpRunsServer(backend) }).fetch(request, env, ctx),
};
