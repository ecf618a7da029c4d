/**
 * What the workspace tools share: which of a folder's files the run's
 * policy lets a call see (and the notes that count what it withheld,
 * never naming them), reading a file that must exist (a folder, or a
 * missing file, is a ToolError), refusing to write where a folder is or
 * past the size limit, the glob a model gives, and the "(+3 -1)" of a
 * change's result for its activity line.
 */
import type { JsonValue } from "../json/index.js";
import { compileGlob, type GlobMatcher } from "../policy/index.js";
import { ToolError, type Permission, type ToolContext } from "../tools/index.js";
import { folderPrefix, resolvePath } from "./paths.js";
import { count, diffStats, FILE_MAX_BYTES } from "./text.js";
import type { Workspace, WorkspaceFile } from "./workspace.js";

/**
 * What a preview (which runs before the call, with no `permit`) may see of a
 * folder's files when telling a folder from a missing file: nothing, so a
 * preview never says more than the call itself would.
 */
export const PREVIEW_SIGHT: Pick<ToolContext, "permit"> = { permit: () => ({ permission: "deny" }) };

/** A glob the model gave (list_files' and search_files' pattern), or the ToolError that says it is too long. */
export function globOf(pattern: string): GlobMatcher {
  try {
    return compileGlob(pattern);
  } catch {
    throw new ToolError("pattern is too long to match", { next: "Give a shorter glob (such as **/*.md), or narrow the folder instead." });
  }
}

/** A workspace's files under a prefix that the run's policy lets this call read, and how many it withheld. */
export async function visibleFiles(ws: Workspace, ctx: Pick<ToolContext, "permit">, prefix: string): Promise<{ files: WorkspaceFile[]; denied: number; asked: number }> {
  const files: WorkspaceFile[] = [];
  let denied = 0;
  let asked = 0;
  for (const f of await ws.list(prefix)) {
    // Policy first, for every file, before anything of it is read.
    const answer = ctx.permit([{ kind: "path", value: f.path, operation: "read" }]).permission;
    if (answer === "allow") files.push(f);
    else if (answer === "ask") asked++;
    else denied++;
  }
  return { files, denied, asked };
}

/** What a listing or a search says of the files policy withheld (never their names). */
export function withheldNotes(w: { denied: number; asked: number }, what: "shown" | "searched"): string[] {
  const notes: string[] = [];
  const verb = what === "shown" ? "they are not shown" : "they were not searched";
  if (w.denied > 0) notes.push(`[Policy withheld ${count(w.denied, "file")}: ${verb}.]`);
  if (w.asked > 0)
    notes.push(`[${count(w.asked, "file")} need${w.asked === 1 ? "s" : ""} an operator's approval to be read, so ${verb}: to read one you know the name of, call read_file with its path.]`);
  return notes;
}

const notFound = (path: string): ToolError =>
  new ToolError(`file not found: ${path}`, {
    next: "Call list_files to see which files the folder holds.",
    recovery: "If the file should exist, stop and say it is missing instead of guessing its content.",
  });

/**
 * The file's bytes; a folder or a missing file is a ToolError. A folder is
 * told apart from a missing file only by files the policy lets the call
 * see, so a folder holding only withheld files reads as missing.
 */
export async function readExisting(ws: Workspace, path: string, ctx: Pick<ToolContext, "permit">): Promise<Uint8Array> {
  const bytes = await ws.read(path);
  if (bytes !== undefined) return bytes;
  if ((await visibleFiles(ws, ctx, `${path}/`)).files.length > 0) {
    throw new ToolError(`${path} is a folder, not a file`, { next: `Call list_files with path ${path} to see its files.` });
  }
  throw notFound(path);
}

/** Refuses to write where a folder is. */
export async function notAFolder(ws: Workspace, path: string): Promise<void> {
  if ((await ws.list(`${path}/`)).length > 0) throw new ToolError(`${path} is a folder, not a file`, { next: "Name a file inside it, such as " + `${path}/notes.md.` });
}

export const tooBig = (path: string, bytes: number): ToolError =>
  new ToolError(`${path} would be ${count(bytes, "byte")}; the workspace tools write files of at most ${count(FILE_MAX_BYTES, "byte")}`, {
    next: "Split the content over several files.",
  });

/** "(+3 -1)" from a diff. */
export const stat = (diff: string): string => {
  const { added, removed } = diffStats(diff);
  return `(+${added} -${removed})`;
};

/** The "(+3 -1)" a result text carries, for the activity line. */
export const statOf = (result: JsonValue): string => (typeof result === "string" ? (/\(\+\d+ -\d+\)/.exec(result)?.[0] ?? "") : "");

/** The folder list_files and search_files look in, as the resource the run's policy judges: `/` for the whole workspace. */
export const folderResource =
  (root: string) =>
  (a: { path?: string | undefined }): { kind: string; value: string; operation: "read" }[] => [{ kind: "path", value: folderPrefix(resolvePath(a.path ?? "", root)) || "/", operation: "read" }];

/** What write_file and edit_file share of their contracts: a local change of the one file `file` resolves its path to, with the workspace's write permission. */
export const fileChange = (file: (raw: string) => string, permission: Extract<Permission, "allow" | "ask">) => ({
  sideEffect: "local_mutation" as const,
  permission,
  timeoutMs: 20_000,
  resources: (a: { path: string }) => [{ kind: "path", value: file(a.path), operation: "write" as const }],
});
