/**
 * The workspace tools: read_file, write_file, edit_file, list_files,
 * search_files and apply_patch, put together over one workspace with the
 * reconcile hook that settles their interrupted changes. Each tool is a
 * file of its own (read-file.ts, write-file.ts, edit-file.ts,
 * list-files.ts, search-files.ts, patch.ts); what they share is in
 * file-access.ts. Each is a model-facing contract (name, description,
 * schema, prompt, result text, errors) pinned by the tests; results are
 * plain, deterministic text; failures are ToolErrors built from validated
 * local context, never from an exception.
 */
import type { Permission, ReconcileHook, Tool } from "../tools/index.js";
import { editFileTool } from "./edit-file.js";
import { listFilesTool } from "./list-files.js";
import { DEFAULT_ROOT } from "./paths.js";
import { applyPatchTool } from "./patch.js";
import { readFileTool } from "./read-file.js";
import { searchFilesTool } from "./search-files.js";
import type { Workspace } from "./workspace.js";
import { writeFileTool } from "./write-file.js";

export { readExisting, visibleFiles, withheldNotes } from "./file-access.js";
export { LIST_MAX_FILES } from "./list-files.js";
export { SEARCH_DEFAULT_RESULTS, SEARCH_MAX_BYTES, SEARCH_MAX_RESULTS } from "./search-files.js";

/** How `workspaceTools` presents the workspace: the root the model is told about, and whether changes ask an operator. */
export interface WorkspaceToolsOptions {
  /** The root the model is told about (absolute paths under it are accepted). Default "/workspace". */
  readonly root?: string;
  /** Permission of write_file, edit_file and apply_patch. Default "ask" (an operator approves each change, seeing its diff). */
  readonly writePermission?: Extract<Permission, "allow" | "ask">;
}

/**
 * The workspace tools over a {@link Workspace}, and the reconcile hook that
 * settles an interrupted change from the workspace's receipts.
 *
 * @example
 * ```ts
 * const { tools, reconcile } = workspaceTools(memoryWorkspace({ "notes/todo.md": "- milk\n" }))
 * const driver = createDriver({ agent, tools, reconcile })
 * ```
 */
export function workspaceTools(ws: Workspace, options: WorkspaceToolsOptions = {}) {
  const root = options.root ?? DEFAULT_ROOT;
  const writePermission = options.writePermission ?? "ask";

  const readFile = readFileTool(ws, root);
  const writeFile = writeFileTool(ws, { root, permission: writePermission });
  const editFile = editFileTool(ws, { root, permission: writePermission });
  const listFiles = listFilesTool(ws, root);
  const searchFiles = searchFilesTool(ws, root);
  const applyPatch = applyPatchTool(ws, { root, permission: writePermission });

  /** Settles an interrupted change: done when its receipt was committed, else safe to run again (a commit is all or nothing). */
  const reconcile: ReconcileHook = async (c) => {
    const result = await ws.receipt(c.idempotencyKey);
    return result === undefined ? { action: "run_again" } : { action: "record_result", content: result };
  };

  const tools = [readFile, writeFile, editFile, applyPatch, listFiles, searchFiles] as Tool<never, unknown>[];
  return { tools, reconcile, readFile, writeFile, editFile, applyPatch, listFiles, searchFiles };
}
