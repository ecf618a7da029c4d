/**
 * The app's workspace: isoagent's workspace tools (isoagent/toolkit) over
 * IndexedDB (isoagent/idb's idbWorkspace), seeded with a few notes. A change
 * and its receipt commit in one transaction, so after a crash (a reload) the
 * workspace tools' reconcile hook can tell whether a write took effect.
 */
import { idbWorkspace } from "../../../adapters/idb/index.js";
import { askUserTool, taskCompleteTool, workspaceTools } from "../../../src/toolkit/index.js";
import type { Tool } from "../../../src/index.js";

const SEED: Record<string, string> = {
  "notes/todo.md": "- buy milk\n- call Ana about the trip\n- renew the passport\n",
  "notes/ideas.md": "- an agent that never runs a side effect twice\n- offline first\n",
};

/** Opens (and seeds, the first time) the workspace. `writeDelayMs` makes writes slow, to show a reload mid-call. */
export async function openWorkspace(name = "isoagent-example-workspace", writeDelayMs = 1500) {
  const ws = idbWorkspace({ name });
  if ((await ws.list("")).length === 0) {
    const enc = new TextEncoder();
    await ws.commit(Object.entries(SEED).map(([path, text]) => ({ path, bytes: enc.encode(text) })));
  }
  const { tools, reconcile, writeFile } = workspaceTools(ws);
  // A slow disk: long enough to reload the page in the middle of a write.
  const slowWrite = { ...writeFile, call: async (a: never, ctx: Parameters<typeof writeFile.call>[1]) => (await new Promise((r) => setTimeout(r, writeDelayMs)), writeFile.call(a, ctx)) };
  const dec = new TextDecoder();
  return {
    // The Worker's tools (examples/worker/workspace.ts), shape for shape: a run moves only between places whose tools have its shapes.
    tools: [...tools.map((t) => (t.name === "write_file" ? slowWrite : t)), taskCompleteTool(), askUserTool()] as Tool<never, unknown>[],
    workspace: ws,
    reconcile,
    files: async () => Promise.all((await ws.list("")).map(async (f) => ({ path: f.path, content: dec.decode((await ws.read(f.path))!) }))),
  };
}
