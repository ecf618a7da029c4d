/**
 * apply_patch: a unified diff over one or more files of the workspace,
 * applied all or nothing. Creation (`--- /dev/null`), deletion
 * (`+++ /dev/null`), files without a final newline (`\ No newline at end of
 * file`), CRLF files, hunks whose line numbers drifted (found by their exact
 * context, the nearest place first). Stale context, a missing file, a file
 * that already exists and a path outside the workspace are refused with
 * what to do next.
 */
import { lineDiff, permissionDenied, ToolError, defineTool, type Operation, type Permission, type ToolContext } from "../tools/index.js";
import { strictObject, string } from "../schema/index.js";
import { resolveFilePath } from "./paths.js";
import { count, decodeText, diffStats, encodeText, FILE_MAX_BYTES, looksBinary } from "./text.js";
import { once, type Workspace, type WorkspaceChange } from "./workspace.js";

/** One line of a hunk: its kind and its text with its terminator as the patch gives it ("" for none). */
interface HunkLine {
  readonly kind: " " | "-" | "+";
  readonly text: string;
  /** False when "\ No newline at end of file" follows it. */
  newline: boolean;
}

interface Hunk {
  readonly oldStart: number;
  readonly header: number;
  readonly lines: HunkLine[];
}

/** One file of a patch. */
export interface FilePatch {
  /** Paths as the patch names them (before resolution); null for /dev/null. */
  readonly from: string | null;
  readonly to: string | null;
  readonly hunks: Hunk[];
}

const bad = (line: number, why: string): ToolError =>
  new ToolError(`the patch cannot be read: line ${line} ${why}`, {
    next: "Send a unified diff: a --- line and a +++ line per file, then @@ -start,count +start,count @@ hunks whose lines start with a space, - or +.",
  });

function headerPath(raw: string): string | null {
  const name = raw.replace(/\t.*$/, "").trim();
  if (name === "/dev/null") return null;
  return name;
}

/** Parses a unified diff (git's extra header lines are ignored). */
export function parsePatch(text: string): FilePatch[] {
  const lines = text.replace(/\r\n/g, "\n").split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  const files: { from: string | null; to: string | null; hunks: Hunk[] }[] = [];
  let k = 0;
  while (k < lines.length) {
    const line = lines[k]!;
    if (line.startsWith("--- ") && lines[k + 1]?.startsWith("+++ ")) {
      files.push({ from: headerPath(line.slice(4)), to: headerPath(lines[k + 1]!.slice(4)), hunks: [] });
      k += 2;
      continue;
    }
    if (line.startsWith("@@")) {
      const file = files[files.length - 1];
      if (file === undefined) throw bad(k + 1, "is a hunk before any --- and +++ lines");
      const m = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
      if (m === null) throw bad(k + 1, "is not a hunk header of the form @@ -start,count +start,count @@");
      const hunk: Hunk = { oldStart: Number(m[1]), header: k + 1, lines: [] };
      k++;
      while (k < lines.length) {
        const l = lines[k]!;
        if (l.startsWith("@@") || (l.startsWith("--- ") && lines[k + 1]?.startsWith("+++ ")) || l.startsWith("diff ")) break;
        if (l.startsWith("\\")) {
          const last = hunk.lines[hunk.lines.length - 1];
          if (last === undefined) throw bad(k + 1, "marks a missing newline before any line");
          last.newline = false;
        } else if (l === "") hunk.lines.push({ kind: " ", text: "", newline: true });
        else if (l[0] === " " || l[0] === "-" || l[0] === "+") hunk.lines.push({ kind: l[0] as HunkLine["kind"], text: l.slice(1), newline: true });
        else throw bad(k + 1, "does not start with a space, - or + inside a hunk");
        k++;
      }
      if (hunk.lines.length === 0) throw bad(hunk.header, "starts an empty hunk");
      file.hunks.push(hunk);
      continue;
    }
    // diff --git, index, mode lines, and anything before the first header.
    k++;
  }
  if (files.length === 0) {
    throw new ToolError("the patch has no file headers (a --- line followed by a +++ line)", {
      next: "Send a unified diff: --- a/path, +++ b/path, then @@ hunks.",
    });
  }
  return files;
}

/**
 * The paths of a file section without git's a/ and b/ prefixes (stripped
 * when every named side has its own: "--- a/x" with "+++ b/x", or one of
 * them with /dev/null).
 */
export function gitNames(f: FilePatch): { from: string | null; to: string | null } {
  const git = (f.from === null || f.from.startsWith("a/")) && (f.to === null || f.to.startsWith("b/")) && (f.from !== null || f.to !== null);
  return git ? { from: f.from?.slice(2) ?? null, to: f.to?.slice(2) ?? null } : { from: f.from, to: f.to };
}

/** A file's lines, each with its own terminator ("" for a last line without one). */
function fileLines(text: string): string[] {
  const out: string[] = [];
  const re = /[^\r\n]*(\r\n|\n|\r|$)/g;
  for (let m = re.exec(text); m !== null && m[0] !== ""; m = re.exec(text)) out.push(m[0]);
  return out;
}

const stale = (path: string, n: number, near: number): ToolError =>
  new ToolError(`patch failed: hunk ${n} of ${path} did not match the file (its context was expected near line ${near})`, {
    next: `Re-read ${path} before retrying this patch.`,
    recovery: "The file may have changed or may not have a trailing newline. Re-read exact bytes and retry only if the intended edit is still valid.",
  });

/** Applies one file's hunks to its text; throws when a hunk's context is not there. */
function applyHunks(path: string, before: string, hunks: readonly Hunk[]): string {
  const lines = fileLines(before);
  const eol = before.includes("\r\n") ? "\r\n" : "\n";
  const term = (l: HunkLine): string => (l.newline ? eol : "");
  let shift = 0;
  let floor = 0;
  for (let h = 0; h < hunks.length; h++) {
    const hunk = hunks[h]!;
    const old = hunk.lines.filter((l) => l.kind !== "+").map((l) => l.text + term(l));
    const neu = hunk.lines.filter((l) => l.kind !== "-").map((l) => l.text + term(l));
    const want = Math.max(floor, hunk.oldStart - 1 + shift + (hunk.oldStart === 0 ? 1 : 0));
    const matches = (at: number): boolean => at >= floor && at + old.length <= lines.length && old.every((l, i) => lines[at + i] === l);
    // The stated place first, then outward, never before the previous hunk.
    let at = -1;
    for (let d = 0; d <= lines.length && at < 0; d++) {
      if (matches(want - d)) at = want - d;
      else if (d > 0 && matches(want + d)) at = want + d;
    }
    if (at < 0) throw stale(path, h + 1, hunk.oldStart);
    lines.splice(at, old.length, ...neu);
    floor = at + neu.length;
    shift += neu.length - old.length;
  }
  return lines.join("");
}

/**
 * What a patch would do to the workspace, file by file, or the ToolError that
 * says why it cannot. With `ctx`, each file is put to the run's policy before
 * it is read (a running call; a preview passes none).
 */
export async function planPatch(ws: Workspace, text: string, root: string, ctx?: Pick<ToolContext, "permit">): Promise<{ path: string; before: string | undefined; after: string | undefined }[]> {
  const plans: { path: string; before: string | undefined; after: string | undefined }[] = [];
  const seen = new Set<string>();
  for (const f of parsePatch(text)) {
    const { from, to } = gitNames(f);
    const raw = to ?? from;
    if (raw === null) throw new ToolError("the patch names /dev/null on both sides of a file", { next: "Give the file's path on the --- or the +++ line." });
    const path = resolveFilePath(raw, root);
    if (from !== null && to !== null) {
      const other = resolveFilePath(from, root);
      if (other !== path) throw new ToolError(`the patch renames ${other} to ${path}; apply_patch does not rename files`, { next: "Create the new file and delete the old one in two file sections." });
    }
    if (seen.has(path)) throw new ToolError(`the patch changes ${path} twice`, { next: "Put all of a file's hunks under one --- and +++ pair." });
    seen.add(path);
    if (ctx !== undefined) {
      const resource = { kind: "path", value: path, operation: operationOfSection(f) };
      const answer = ctx.permit([resource]);
      if (answer.permission !== "allow") throw permissionDenied([resource], answer.reason);
    }
    const bytes = await ws.read(path);
    if (bytes !== undefined && looksBinary(bytes)) throw new ToolError(`${path} is a binary file: apply_patch changes text files`, { recovery: "If the task needs it changed, stop and say so." });
    const decoded = bytes === undefined ? undefined : decodeText(bytes);
    if (decoded !== undefined && !decoded.valid) {
      throw new ToolError(`${path} is not valid UTF-8: a patch would change bytes it cannot show`, { recovery: "If it must change, stop and say so." });
    }
    const before = decoded?.text;
    if (f.from === null) {
      if (before !== undefined) throw new ToolError(`patch failed: ${path} already exists`, { next: `Re-read ${path} and patch it with context lines instead of creating it.` });
      if ((await ws.list(`${path}/`)).length > 0) throw new ToolError(`patch failed: ${path} is a folder`, { next: "Name a file inside it." });
      plans.push({ path, before: undefined, after: applyHunks(path, "", f.hunks) });
      continue;
    }
    if (before === undefined) {
      throw new ToolError(`patch failed: ${path} does not exist`, {
        next: "Call list_files to find the file; to create it, make the --- line /dev/null.",
        recovery: "If the file should exist, stop and say it is missing.",
      });
    }
    if (f.to === null) {
      // A deletion: with hunks, they must be the file as it is; without, the file goes as it is.
      if (f.hunks.length > 0 && applyHunks(path, before, f.hunks) !== "") throw stale(path, 1, f.hunks[0]!.oldStart);
      plans.push({ path, before, after: undefined });
      continue;
    }
    plans.push({ path, before, after: applyHunks(path, before, f.hunks) });
  }
  return plans;
}

/** The result line of one file: "notes/a.md (+3 -1)", "created notes/b.md (+4 -0)", "deleted notes/c.md (+0 -2)". */
function describe(p: { path: string; before: string | undefined; after: string | undefined }): { text: string; added: number; removed: number } {
  const { added, removed } = diffStats(lineDiff(p.path, p.before, p.after));
  const verb = p.before === undefined ? "created " : p.after === undefined ? "deleted " : "";
  return { text: `${verb}${p.path} (+${added} -${removed})`, added, removed };
}

/** What a file section does: delete (+++ /dev/null) or write (create or change). */
function operationOfSection(f: FilePatch): Operation {
  return f.to === null ? "delete" : "write";
}

export function applyPatchTool(ws: Workspace, options: { root: string; permission: Extract<Permission, "allow" | "ask"> }) {
  // Throws the patch's own ToolError: a patch that cannot be read, or names a
  // path outside the workspace, is refused before it is approved.
  const resources = (patch: string): { kind: string; value: string; operation: Operation }[] => {
    const out = new Map<string, { kind: string; value: string; operation: Operation }>();
    for (const f of parsePatch(patch)) {
      const { from, to } = gitNames(f);
      const operation = operationOfSection(f);
      for (const p of [from, to]) {
        if (p === null) continue;
        const value = resolveFilePath(p, options.root);
        out.set(`${value}\u0000${operation}`, { kind: "path", value, operation });
      }
    }
    return [...out.values()];
  };
  return defineTool<{ patch: string }>({
    name: "apply_patch",
    description: "Apply a unified diff to files of the workspace, all or nothing: change, create (--- /dev/null) or delete (+++ /dev/null) files.",
    inputSchema: strictObject({ patch: string("A unified diff: --- a/path and +++ b/path lines, then @@ -start,count +start,count @@ hunks") }),
    sideEffect: "local_mutation",
    permission: options.permission,
    timeoutMs: 20_000,
    resources: (a) => resources(a.patch),
    preview: async (a) => {
      const plans = await planPatch(ws, a.patch, options.root);
      return plans.map((p) => lineDiff(p.path, p.before, p.after)).join("");
    },
    prompt: {
      snippet: "apply_patch applies a unified diff; it suits changes to several places or several files at once.",
      guidelines: ["Copy context lines exactly from what read_file showed.", "If a hunk does not match, read the file again before you retry."],
    },
    activity: (_a, r) => {
      const m = typeof r === "string" ? /^Patched (\d+) files? \((\+\d+ -\d+)\)/.exec(r) : null;
      return m === null ? "Patch" : `Patch ${count(Number(m[1]), "file")} (${m[2]})`;
    },
    call: (a, ctx) =>
      once(ws, ctx.idempotencyKey, async () => {
        const plans = await planPatch(ws, a.patch, options.root, ctx);
        const changes: WorkspaceChange[] = [];
        for (const p of plans) {
          if (p.after === undefined) changes.push({ path: p.path, bytes: null });
          else {
            const bytes = encodeText(p.after);
            if (bytes.length > FILE_MAX_BYTES) throw new ToolError(`${p.path} would be ${count(bytes.length, "byte")}; the workspace tools write files of at most ${count(FILE_MAX_BYTES, "byte")}`);
            changes.push({ path: p.path, bytes });
          }
        }
        const parts = plans.map(describe);
        const added = parts.reduce((n, p) => n + p.added, 0);
        const removed = parts.reduce((n, p) => n + p.removed, 0);
        const result = `Patched ${count(plans.length, "file")} (+${added} -${removed}): ${parts.map((p) => p.text).join(", ")}.`;
        await ws.commit(changes, { key: ctx.idempotencyKey, result });
        return result;
      }),
  });
}
