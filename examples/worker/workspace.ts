/**
 * The demo's workspace: isoagent's workspace tools (isoagent/toolkit) over
 * the run object's own SQLite storage, seeded with a few notes, plus the
 * run's controls (task_complete, ask_user) for a real model to use.
 */
import { sqlWorkspace } from "../../adapters/durable-object/index.js";
import { askUserTool, taskCompleteTool, workspaceTools } from "../../src/toolkit/index.js";
import type { Tool } from "../../src/index.js";

export const SEED: Record<string, string> = {
  "notes/todo.md": "- buy milk\n- call Ana about the trip\n- renew the passport\n",
  "notes/ideas.md": "- an agent that never runs a side effect twice\n",
};

export function demoTools(storage: DurableObjectStorage) {
  const ws = workspaceTools(sqlWorkspace(storage, { seed: SEED }));
  return { tools: [...ws.tools, taskCompleteTool(), askUserTool()] as Tool<never, unknown>[], reconcile: ws.reconcile };
}
