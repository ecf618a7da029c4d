/**
 * list_files, the workspace tool that shows which files exist: those under
 * a folder that the run's policy lets the call see, filtered by a glob,
 * with their sizes, at most LIST_MAX_FILES; what policy withheld is
 * counted, never named.
 */
import { defineTool, ToolError } from "../tools/index.js";
import { strictObject, string } from "../schema/index.js";
import { folderResource, globOf, visibleFiles, withheldNotes } from "./file-access.js";
import { folderLabel, folderPrefix, resolvePath } from "./paths.js";
import { count } from "./text.js";
import type { Workspace, WorkspaceFile } from "./workspace.js";

/** Files listed by list_files, at most. */
export const LIST_MAX_FILES = 500;

/** list_files: the files of a folder and its subfolders that policy lets the call see, with their sizes, filtered by a glob (see docs/tools/). */
export function listFilesTool(ws: Workspace, root: string) {
  return defineTool<{ path?: string; pattern?: string }>({
    name: "list_files",
    description: `List the files of a workspace folder and its subfolders, with their sizes; pattern filters them (such as **/*.md). At most ${count(LIST_MAX_FILES, "file")}.`,
    inputSchema: strictObject(
      {
        path: string("The folder, relative to the workspace root (default: the whole workspace)"),
        pattern: string("A glob the path below the folder must match: * within a name, ** across folders, ? one character (default **)"),
      },
      [],
    ),
    sideEffect: "read_only",
    parallelSafe: true,
    timeoutMs: 10_000,
    resources: folderResource(root),
    prompt: { snippet: "list_files shows which files exist; use it before guessing a path." },
    activity: (a) => `List ${folderLabel(resolvePath(a.path ?? "", root))}${a.pattern === undefined ? "" : ` (${a.pattern})`}`,
    call: async (a, ctx) => {
      const folder = resolvePath(a.path ?? "", root);
      if (folder !== "" && (await ws.read(folder)) !== undefined) throw new ToolError(`${folder} is a file, not a folder`, { next: `Call read_file with path ${folder} to read it.` });
      const pattern = a.pattern ?? "**";
      const re = globOf(pattern);
      const prefix = folderPrefix(folder);
      const seen = await visibleFiles(ws, ctx, prefix);
      // What the pattern leaves out is not counted as withheld: only what policy held back is.
      const matching = (f: WorkspaceFile): boolean => re.test(f.path.slice(prefix.length));
      const files = seen.files.filter(matching);
      const notes = withheldNotes(seen, "shown");
      if (files.length === 0) return [`No files under ${folderLabel(folder)} match ${pattern}.`, ...notes].join("\n");
      const shownFiles = files.slice(0, LIST_MAX_FILES);
      const lines = [`${count(files.length, "file")} under ${folderLabel(folder)} matching ${pattern}:`, ...shownFiles.map((f) => `${f.path} (${count(f.size, "byte")})`)];
      if (files.length > LIST_MAX_FILES) lines.push(`[${LIST_MAX_FILES} of ${files.length} files shown. Narrow the folder or the pattern to see the rest.]`);
      return [...lines, ...notes].join("\n");
    },
  });
}
