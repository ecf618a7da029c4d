/**
 * The Worker wrangler.toml deploys (and `npm start` runs locally on workerd):
 * the runs API and operator console, each run in its own Durable Object,
 * driven there by the demo agent over a workspace in the object's storage.
 */
import { defineRunObject, RunIndex, workerApp, type WorkerEnv } from "../../adapters/durable-object/index.js";
import { agentFor, modelFromEnv } from "../model.js";
import { demoAgent } from "../notes-agent.js";
import { demoTools } from "./workspace.js";

/** The Worker's bindings: a model key (a secret) makes the runs use that model instead of the scripted demo agent. */
export interface Env extends WorkerEnv {
  readonly OPENAI_API_KEY?: string;
  readonly ANTHROPIC_API_KEY?: string;
  readonly ISOAGENT_MODEL?: string;
  readonly OPENAI_BASE_URL?: string;
  readonly ANTHROPIC_BASE_URL?: string;
}

export const RunObject = defineRunObject<Env>({
  agent: ({ env }) => {
    const model = modelFromEnv(env as unknown as Record<string, string | undefined>);
    return model === undefined ? demoAgent() : agentFor(model);
  },
  tools: ({ storage }) => demoTools(storage).tools,
  reconcile: ({ storage }) => demoTools(storage).reconcile,
});
export { RunIndex };

export default {
  fetch: (request: Request, env: Env, ctx: ExecutionContext) => workerApp(env).fetch(request, env, ctx),
};
