/**
 * Containment: every path a workspace tool takes is resolved here, before
 * anything is read or written, and refused when it could leave the
 * workspace, by the one rule of src/paths.ts (`workspaceKey`), with the
 * error the model reads and what to do instead.
 */
import { workspaceKey } from "../paths.js";
import { ToolError } from "../tools/index.js";

/** The root the model is told about; absolute paths under it are accepted. */
export const DEFAULT_ROOT = "/workspace";

const shown = (raw: string): string => JSON.stringify(raw.length > 200 ? `${raw.slice(0, 200)}…` : raw);

/**
 * A path from the model, as the workspace's key (no leading slash, no
 * trailing slash; "" for the root itself), or a ToolError by the error
 * contract.
 */
export function resolvePath(raw: string, root: string = DEFAULT_ROOT): string {
  const outside = (): never => {
    throw new ToolError(`path outside the workspace: ${shown(raw)}`, {
      next: `Use a path inside the workspace: relative, such as notes/todo.md, or absolute under ${root}/.`,
      recovery: "If the task needs a file outside the workspace, stop and say so: no tool here can reach it.",
    });
  };
  const invalid = (why: string): never => {
    throw new ToolError(`invalid path ${shown(raw)}: ${why}`, { next: "Name the file by its path from the workspace root, such as notes/todo.md." });
  };
  const segments = workspaceKey(raw, root);
  if (typeof segments === "string") {
    if (segments === "control") invalid("it contains control characters");
    if (segments === "backslash") invalid("use / between folders, not \\");
    if (segments === "outside") outside();
    throw new ToolError(`path traversal is not allowed: ${shown(raw)}`, {
      next: "Name the file by its path from the workspace root, without .. segments.",
      recovery: "If the file is outside the workspace, stop and say so: no tool here can reach it.",
    });
  }
  if (segments.some((s) => s.length > 255)) invalid("a name is longer than 255 characters");
  if (segments.length > 64) invalid("it is nested deeper than 64 folders");
  const path = segments.join("/");
  if (path.length > 1024) invalid("it is longer than 1,024 characters");
  return path;
}

/** A file's path: as {@link resolvePath}, and not the root itself. */
export function resolveFilePath(raw: string, root: string = DEFAULT_ROOT): string {
  const path = resolvePath(raw, root);
  if (path === "") throw new ToolError(`${shown(raw)} is the workspace itself, not a file`, { next: "Name a file, such as notes/todo.md." });
  return path;
}

/** The prefix that lists a folder's files: "" for the root, else "folder/". */
export function folderPrefix(folder: string): string {
  return folder === "" ? "" : `${folder}/`;
}

/** A folder's name as shown to the model: "notes/", or "the workspace" for the root. */
export function folderLabel(folder: string): string {
  return folder === "" ? "the workspace" : `${folder}/`;
}
