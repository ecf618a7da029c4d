/**
 * Containment: every path a workspace tool takes is resolved here, before
 * anything is read or written, and refused when it could leave the
 * workspace. Paths are keys, so there is no link to follow; what is refused
 * is what could name something else: `..` segments, absolute paths outside
 * the root, backslashes, a home directory, a drive letter, a URL, control
 * characters.
 */
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
  // Checked against control characters before anything else is done with it.
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(raw)) invalid("it contains control characters");
  if (raw.includes("\\")) invalid("use / between folders, not \\");
  let p = raw.normalize("NFC").trim();
  if (p === "~" || p.startsWith("~/")) outside();
  if (/^[A-Za-z]:/.test(p) || /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(p)) outside();
  if (p.startsWith("/")) {
    if (p === root || p === `${root}/`) p = "";
    else if (p.startsWith(`${root}/`)) p = p.slice(root.length + 1);
    else outside();
  }
  const segments: string[] = [];
  for (const s of p.split("/")) {
    if (s === "" || s === ".") continue;
    if (s === "..") {
      throw new ToolError(`path traversal is not allowed: ${shown(raw)}`, {
        next: "Name the file by its path from the workspace root, without .. segments.",
        recovery: "If the file is outside the workspace, stop and say so: no tool here can reach it.",
      });
    }
    if (s.length > 255) invalid("a name is longer than 255 characters");
    segments.push(s);
  }
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
