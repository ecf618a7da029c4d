/**
 * Workspace paths, the rule written once (issue 28, item 6): what a path
 * from a model, a tool or a command names, as a workspace key. The tools'
 * containment (toolkit/paths.ts), the policies (policy/workspace.ts) and the
 * shell's filesystem and its command analysis (toolkit/bash) all read paths
 * through it, so that what a policy judges is what a tool touches.
 *
 * Paths are keys, so there is no link to follow; what is refused is what
 * could name something else: control characters, backslashes, a home
 * directory, a drive letter, a URL, an absolute path outside the root, and
 * (for a key) `..` segments. Names are compared in Unicode NFC, as the
 * workspace stores them.
 */

/** Why a path is not a workspace key. */
export type PathRefusal = "control" | "backslash" | "outside" | "traversal";

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;
/** A home directory (`~`, `~/…`), a drive letter (`C:`) or a URL (`scheme://`). */
const ELSEWHERE = /^(~(\/|$)|[A-Za-z]:|[A-Za-z][A-Za-z0-9+.-]*:\/\/)/;

/** Whether a path names a home directory, a drive or a URL: a place that is not the workspace. */
export function namesElsewhere(path: string): boolean {
  return ELSEWHERE.test(path);
}

/**
 * A slash-separated path's names, without empty and `.` segments. A `..`
 * segment is refused (undefined) or, as a shell does (`resolve`), resolved
 * against the names before it.
 */
export function pathSegments(path: string, resolve = false): string[] | undefined {
  const names: string[] = [];
  for (const s of path.split("/")) {
    if (s === ".." && !resolve) return undefined;
    if (s === "..") names.pop();
    else if (s !== "" && s !== ".") names.push(s);
  }
  return names;
}

/** An absolute path's key under `root` ("" for the root itself), or undefined when it is not under it. */
export function keyUnder(absolute: string, root: string): string | undefined {
  if (absolute === root) return "";
  return absolute.startsWith(`${root}/`) ? absolute.slice(root.length + 1) : undefined;
}

/**
 * A path as the workspace's key, by its names: relative to the workspace, or
 * absolute under `root`; NFC, trimmed, without empty or `.` segments ([] for
 * the root itself; the key is the names joined by "/"). Or why it is not one.
 */
export function workspaceKey(raw: string, root: string): string[] | PathRefusal {
  // Characters no path takes, checked before anything else is done with it.
  if (CONTROL.test(raw)) return "control";
  if (raw.includes("\\")) return "backslash";
  let p: string | undefined = raw.normalize("NFC").trim();
  if (namesElsewhere(p)) return "outside";
  if (p.startsWith("/")) p = keyUnder(p, root);
  if (p === undefined) return "outside";
  return pathSegments(p) ?? "traversal";
}
