/**
 * An in-browser workspace: files in IndexedDB, and the tools the agent uses
 * on it. A write records its idempotency key in the same transaction as the
 * file, so after a crash the reconcile hook can tell whether it took effect.
 */
import { openDB, type DBSchema, type IDBPDatabase } from "idb";
import { defineTool, strictObject, string, ToolError, type Reconciliation, type ReconcileHook, type Tool } from "../../../src/index.js";

interface WorkspaceDB extends DBSchema {
  files: { key: string; value: { path: string; content: string } };
  writes: { key: string; value: { key: string; path: string; bytes: number } };
}

const SEED: Record<string, string> = {
  "notes/todo.md": "- buy milk\n- call Ana about the trip\n- renew the passport\n",
  "notes/ideas.md": "- an agent that never runs a side effect twice\n- offline first\n",
};

export interface Workspace {
  readonly tools: Tool<never, unknown>[];
  readonly reconcile: ReconcileHook;
  files(): Promise<{ path: string; content: string }[]>;
  writes(): Promise<{ key: string; path: string; bytes: number }[]>;
}

/** Opens (and seeds, the first time) the workspace database. `writeDelayMs` makes writes slow, to show a reload mid-call. */
export async function openWorkspace(name = "isoagent-example-workspace", writeDelayMs = 1500): Promise<Workspace> {
  const db: IDBPDatabase<WorkspaceDB> = await openDB<WorkspaceDB>(name, 1, {
    upgrade(d) {
      const files = d.createObjectStore("files", { keyPath: "path" });
      d.createObjectStore("writes", { keyPath: "key" });
      for (const [path, content] of Object.entries(SEED)) void files.put({ path, content });
    },
  });
  const clean = (path: string): string => {
    if (path.startsWith("/") || path.split("/").includes("..") || path.trim() === "") {
      throw new ToolError(`path outside the workspace: ${JSON.stringify(path)}`, { next: "Use a workspace-relative path such as notes/todo.md." });
    }
    return path;
  };

  const listFiles = defineTool<{ folder: string }>({
    name: "list_files",
    description: "List the files in a workspace folder.",
    inputSchema: strictObject({ folder: string("Folder, such as notes") }),
    sideEffect: "read_only",
    parallelSafe: true,
    timeoutMs: 5_000,
    resources: (a) => [{ kind: "path", value: `${a.folder}/` }],
    call: async (a) => (await db.getAllKeys("files")).filter((p) => p.startsWith(`${clean(a.folder)}/`)).sort(),
  });
  const readFile = defineTool<{ path: string }>({
    name: "read_file",
    description: "Read a text file from the workspace.",
    inputSchema: strictObject({ path: string("Workspace-relative path") }),
    sideEffect: "read_only",
    parallelSafe: true,
    timeoutMs: 5_000,
    resources: (a) => [{ kind: "path", value: a.path }],
    call: async (a) => {
      const file = await db.get("files", clean(a.path));
      if (file === undefined) throw new ToolError(`file not found: ${a.path}`, { next: "List the folder to find the right name." });
      return file.content;
    },
  });
  const writeFile = defineTool<{ path: string; content: string }>({
    name: "write_file",
    description: "Write a text file in the workspace (overwrites).",
    inputSchema: strictObject({ path: string("Workspace-relative path"), content: string("The whole new content") }),
    sideEffect: "local_mutation",
    permission: "ask",
    timeoutMs: 10_000,
    resources: (a) => [{ kind: "path", value: a.path }],
    call: async (a, ctx) => {
      const path = clean(a.path);
      // A slow disk: long enough to reload the page in the middle.
      await new Promise((r) => setTimeout(r, writeDelayMs));
      const tx = db.transaction(["files", "writes"], "readwrite");
      const earlier = await tx.objectStore("writes").get(ctx.idempotencyKey);
      if (earlier === undefined) {
        void tx.objectStore("files").put({ path, content: a.content });
        void tx.objectStore("writes").put({ key: ctx.idempotencyKey, path, bytes: a.content.length });
      }
      await tx.done;
      return { path, bytes: a.content.length };
    },
  });

  return {
    tools: [listFiles, readFile, writeFile] as Tool<never, unknown>[],
    // A write is one transaction with its key: it either happened (record its
    // result) or did not (run it again). Never a second effect.
    reconcile: async (c): Promise<Reconciliation> => {
      const earlier = await db.get("writes", c.idempotencyKey);
      return earlier === undefined ? { action: "run_again" } : { action: "record_result", content: { path: earlier.path, bytes: earlier.bytes } };
    },
    files: async () => (await db.getAll("files")).sort((x, y) => x.path.localeCompare(y.path)),
    writes: () => db.getAll("writes"),
  };
}
