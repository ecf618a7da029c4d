/**
 * The Worker wrangler.toml deploys (and `npm start` runs locally on workerd):
 * the runs API and operator console, each run in its own Durable Object,
 * driven there by the demo agent over a workspace in the object's storage.
 */
import { defineRunObject, RunIndex, workerApp, type WorkerEnv } from "../../adapters/durable-object/index.js";
import { demoAgent } from "./agent.js";
import { workspaceTools } from "./workspace.js";

export const RunObject = defineRunObject<WorkerEnv>({
  agent: () => demoAgent(),
  tools: ({ storage }) => workspaceTools(storage).tools,
  reconcile: ({ storage }) => workspaceTools(storage).reconcile,
});
export { RunIndex };

export default {
  fetch: (request: Request, env: WorkerEnv, ctx: ExecutionContext) => workerApp(env).fetch(request, env, ctx),
};
