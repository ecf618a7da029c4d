/**
 * The demo's workspace: files in the run object's own SQLite storage, and the
 * tools over it. A write records its idempotency key in the same
 * transaction, so the reconcile hook can tell whether an interrupted write
 * took effect.
 */
import { defineTool, lineDiff, strictObject, string, ToolError, type ReconcileHook, type Tool } from "../../src/index.js";

const SEED: Record<string, string> = {
  "notes/todo.md": "- buy milk\n- call Ana about the trip\n- renew the passport\n",
  "notes/ideas.md": "- an agent that never runs a side effect twice\n",
};

export function workspaceTools(storage: DurableObjectStorage): { tools: Tool<never, unknown>[]; reconcile: ReconcileHook } {
  const sql = storage.sql;
  sql.exec("CREATE TABLE IF NOT EXISTS ws_files (path TEXT PRIMARY KEY, content TEXT NOT NULL)");
  sql.exec("CREATE TABLE IF NOT EXISTS ws_writes (key TEXT PRIMARY KEY, path TEXT NOT NULL, bytes INTEGER NOT NULL)");
  if (sql.exec("SELECT count(*) AS n FROM ws_files").one()["n"] === 0) {
    for (const [path, content] of Object.entries(SEED)) sql.exec("INSERT INTO ws_files (path, content) VALUES (?, ?)", path, content);
  }
  const clean = (path: string): string => {
    if (path.startsWith("/") || path.split("/").includes("..") || path.trim() === "") {
      throw new ToolError(`path outside the workspace: ${JSON.stringify(path)}`, { next: "Use a workspace-relative path such as notes/todo.md." });
    }
    return path;
  };
  const tools = [
    defineTool<{ folder: string }>({
      name: "list_files",
      description: "List the files in a workspace folder.",
      inputSchema: strictObject({ folder: string("Folder, such as notes") }),
      sideEffect: "read_only",
      parallelSafe: true,
      timeoutMs: 5_000,
      resources: (a) => [{ kind: "path", value: `${a.folder}/` }],
      call: (a) => sql.exec<{ path: string }>("SELECT path FROM ws_files WHERE path LIKE ? ORDER BY path", `${clean(a.folder)}/%`).toArray().map((r) => r.path),
    }),
    defineTool<{ path: string }>({
      name: "read_file",
      description: "Read a text file from the workspace.",
      inputSchema: strictObject({ path: string("Workspace-relative path") }),
      sideEffect: "read_only",
      parallelSafe: true,
      timeoutMs: 5_000,
      resources: (a) => [{ kind: "path", value: a.path }],
      call: (a) => {
        const row = sql.exec<{ content: string }>("SELECT content FROM ws_files WHERE path = ?", clean(a.path)).toArray()[0];
        if (row === undefined) throw new ToolError(`file not found: ${a.path}`, { next: "List the folder to find the right name." });
        return row.content;
      },
    }),
    defineTool<{ path: string; content: string }>({
      name: "write_file",
      description: "Write a text file in the workspace (overwrites).",
      inputSchema: strictObject({ path: string("Workspace-relative path"), content: string("The whole new content") }),
      sideEffect: "local_mutation",
      permission: "ask",
      timeoutMs: 10_000,
      resources: (a) => [{ kind: "path", value: a.path }],
      // What the operator approves: the change, line by line.
      preview: (a) => lineDiff(a.path, sql.exec<{ content: string }>("SELECT content FROM ws_files WHERE path = ?", clean(a.path)).toArray()[0]?.content ?? "", a.content),
      call: (a, ctx) => {
        const path = clean(a.path);
        storage.transactionSync(() => {
          if (sql.exec("SELECT 1 FROM ws_writes WHERE key = ?", ctx.idempotencyKey).toArray().length > 0) return;
          sql.exec("INSERT OR REPLACE INTO ws_files (path, content) VALUES (?, ?)", path, a.content);
          sql.exec("INSERT INTO ws_writes (key, path, bytes) VALUES (?, ?, ?)", ctx.idempotencyKey, path, a.content.length);
        });
        return { path, bytes: a.content.length };
      },
    }),
  ] as Tool<never, unknown>[];
  const reconcile: ReconcileHook = (c) => {
    const row = sql.exec<{ path: string; bytes: number }>("SELECT path, bytes FROM ws_writes WHERE key = ?", c.idempotencyKey).toArray()[0];
    return row === undefined ? { action: "run_again" } : { action: "record_result", content: { path: row.path, bytes: row.bytes } };
  };
  return { tools, reconcile };
}
