/**
 * The example Worker's MCP side.
 *
 * - Its runs can use an MCP server's tools: set `ISOAGENT_MCP_URL` (and
 *   `ISOAGENT_MCP_TOKEN` when the server wants a bearer token). The tools
 *   are named `mcp_<tool>`; they are `destructive` and ask, unless
 *   `ISOAGENT_MCP_TRUST=annotations` says to trust the server's annotations.
 *   The session is kept in the run object's storage: a restarted Worker
 *   resumes it.
 * - A task `{ "mcp": { "tool": "mcp_<tool>", "args": { ... } } }` makes the
 *   scripted demo agent call that tool once and finish with what it saw.
 */
import { call, calls, final, scriptedAgent, type Agent, type JsonValue, type ReconcileHook } from "../../src/index.js";
import { connectMcp, kvSessions, mcpTools, type McpToolSet } from "../../src/mcp/index.js";

/** The bindings of the MCP side. */
export interface McpEnv {
  readonly ISOAGENT_MCP_URL?: string;
  readonly ISOAGENT_MCP_TOKEN?: string;
  /** "annotations": trust the server's annotations for side-effect classes. */
  readonly ISOAGENT_MCP_TRUST?: string;
}

export const MCP_PREFIX = "mcp_";

/** One tool set per run object's incarnation (its storage keeps the session). */
const sets = new WeakMap<DurableObjectStorage, Promise<McpToolSet>>();

/** The MCP server's tools for a run object, when the Worker is given one. */
export function mcpToolSet(env: McpEnv, storage: DurableObjectStorage): Promise<McpToolSet> | undefined {
  const url = env.ISOAGENT_MCP_URL;
  if (url === undefined || url === "") return undefined;
  let set = sets.get(storage);
  if (set === undefined) {
    set = (async () => {
      const connection = await connectMcp({
        url,
        sessions: kvSessions(storage),
        sessionKey: "example",
        ...(env.ISOAGENT_MCP_TOKEN === undefined ? {} : { http: { headers: { authorization: `Bearer ${env.ISOAGENT_MCP_TOKEN}` } } }),
      });
      return mcpTools(connection, { prefix: MCP_PREFIX, trustAnnotations: env.ISOAGENT_MCP_TRUST === "annotations" });
    })();
    set.catch(() => sets.delete(storage));
    sets.set(storage, set);
  }
  return set;
}

/** Settles an interrupted MCP call as its tool set says (run again for trusted idempotent tools; otherwise the operator), other calls with `others`. */
export function mcpReconcile(env: McpEnv, storage: DurableObjectStorage, others: ReconcileHook): ReconcileHook {
  return async (c) => {
    const set = c.tool.startsWith(MCP_PREFIX) ? mcpToolSet(env, storage) : undefined;
    return set === undefined ? others(c) : (await set).reconcile(c);
  };
}

/** For a task `{ mcp: { tool, args } }`: an agent that calls that tool once and finishes with what it saw. */
export function mcpTaskAgent(task: JsonValue): Agent | undefined {
  const spec = typeof task === "object" && task !== null && !Array.isArray(task) ? task["mcp"] : undefined;
  if (typeof spec !== "object" || spec === null || Array.isArray(spec) || typeof spec["tool"] !== "string") return undefined;
  const args = spec["args"] ?? {};
  return scriptedAgent([
    calls(call(spec["tool"], args)),
    (view) => {
      const seen = view.transcript.filter((t) => t.type === "observation").at(-1);
      return final({ saw: seen?.type === "observation" ? (seen.observation as unknown as JsonValue) : null });
    },
  ]);
}
