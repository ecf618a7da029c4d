/**
 * The workspace tools: read_file, write_file, edit_file, list_files,
 * search_files (apply_patch is in patch.ts). Each is a model-facing
 * contract (name, description, schema, prompt, result text, errors) pinned
 * by the tests; results are plain, deterministic text; failures are
 * ToolErrors built from validated local context, never from an exception.
 */
import type { JsonValue } from "../json/index.js";
import { compilePattern } from "../pattern/index.js";
import { compileGlob, type GlobMatcher } from "../policy/index.js";
import { boolean, integer, strictObject, string } from "../schema/index.js";
import { defineTool, lineDiff, ToolError, type Permission, type ReconcileHook, type Tool, type ToolContext } from "../tools/index.js";
import { DEFAULT_ROOT, folderLabel, folderPrefix, resolveFilePath, resolvePath } from "./paths.js";
import { applyPatchTool } from "./patch.js";
import { count, decodeText, diffStats, encodeText, eolOf, FILE_MAX_BYTES, LINE_MAX_CHARS, looksBinary, splitLines, TEXT_MAX_BYTES, TEXT_MAX_LINES } from "./text.js";
import { after } from "../web.js";
import { once, type Workspace, type WorkspaceFile } from "./workspace.js";

/** How `workspaceTools` presents the workspace: the root the model is told about, and whether changes ask an operator. */
export interface WorkspaceToolsOptions {
  /** The root the model is told about (absolute paths under it are accepted). Default "/workspace". */
  readonly root?: string;
  /** Permission of write_file, edit_file and apply_patch. Default "ask" (an operator approves each change, seeing its diff). */
  readonly writePermission?: Extract<Permission, "allow" | "ask">;
}

/**
 * What a preview (which runs before the call, with no `permit`) may see of a
 * folder's files when telling a folder from a missing file: nothing, so a
 * preview never says more than the call itself would.
 */
const PREVIEW_SIGHT: Pick<ToolContext, "permit"> = { permit: () => ({ permission: "deny" }) };

/** Files listed by list_files, at most. */
export const LIST_MAX_FILES = 500;
/** Matches search_files returns by default, and at most. */
export const SEARCH_DEFAULT_RESULTS = 50;
/** Matches search_files returns at most, whatever the model asks for. */
export const SEARCH_MAX_RESULTS = 200;
/** Bytes search_files scans per call, at most. */
export const SEARCH_MAX_BYTES = 16 * 1024 * 1024;
/** How long a search runs between two yields to the event loop (ms). */
const SEARCH_SLICE_MS = 20;

/** A glob the model gave (list_files' and search_files' pattern), or the ToolError that says it is too long. */
function globOf(pattern: string): GlobMatcher {
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
  if (w.asked > 0) notes.push(`[${count(w.asked, "file")} need${w.asked === 1 ? "s" : ""} an operator's approval to be read, so ${verb}: to read one you know the name of, call read_file with its path.]`);
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
async function notAFolder(ws: Workspace, path: string): Promise<void> {
  if ((await ws.list(`${path}/`)).length > 0) throw new ToolError(`${path} is a folder, not a file`, { next: "Name a file inside it, such as " + `${path}/notes.md.` });
}

const tooBig = (path: string, bytes: number): ToolError =>
  new ToolError(`${path} would be ${count(bytes, "byte")}; the workspace tools write files of at most ${count(FILE_MAX_BYTES, "byte")}`, {
    next: "Split the content over several files.",
  });

/** "(+3 -1)" from a diff. */
const stat = (diff: string): string => {
  const { added, removed } = diffStats(diff);
  return `(+${added} -${removed})`;
};

/** The "(+3 -1)" a result text carries, for the activity line. */
const statOf = (result: JsonValue): string => (typeof result === "string" ? (/\(\+\d+ -\d+\)/.exec(result)?.[0] ?? "") : "");

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
  const file = (raw: string): string => resolveFilePath(raw, root);

  const readFile = defineTool<{ path: string; offset?: number; limit?: number }>({
    name: "read_file",
    description: `Read a text file of the workspace, with line numbers. At most ${count(TEXT_MAX_LINES, "line")} per call; offset and limit pick a range.`,
    inputSchema: strictObject(
      {
        path: string("The file, relative to the workspace root (such as notes/todo.md)"),
        offset: integer("The first line to show, from 1", { minimum: 1 }),
        limit: integer(`How many lines to show, at most ${TEXT_MAX_LINES}`, { minimum: 1, maximum: TEXT_MAX_LINES }),
      },
      ["path"],
    ),
    sideEffect: "read_only",
    parallelSafe: true,
    timeoutMs: 10_000,
    resources: (a) => [{ kind: "path", value: file(a.path), operation: "read" }],
    prompt: {
      snippet: "read_file shows a text file of the workspace with numbered lines.",
      guidelines: ["Read a file before you edit or overwrite it.", "When a result says there is more, read on with the offset it gives."],
    },
    activity: (a) => `Read ${file(a.path)}${a.offset !== undefined && a.offset > 1 ? ` from line ${a.offset}` : ""}`,
    call: async (a, ctx) => {
      const path = file(a.path);
      const bytes = await readExisting(ws, path, ctx);
      if (looksBinary(bytes)) return `${path} is a binary file (${count(bytes.length, "byte")}): read_file shows text files only.`;
      if (bytes.length === 0) return `${path} is empty (0 bytes).`;
      const { text, valid } = decodeText(bytes);
      const lines = splitLines(text);
      const from = a.offset ?? 1;
      if (from > lines.length) {
        throw new ToolError(`offset ${from} is past the end of ${path} (${count(lines.length, "line")})`, { next: `Call read_file with an offset from 1 to ${lines.length}.` });
      }
      const want = Math.min(a.limit ?? TEXT_MAX_LINES, TEXT_MAX_LINES);
      const out: string[] = [];
      let bytesOut = 0;
      let k = from - 1;
      for (; k < lines.length && out.length < want; k++) {
        let l = lines[k]!;
        if (l.length > LINE_MAX_CHARS) l = `${l.slice(0, LINE_MAX_CHARS)}… [line cut at ${count(LINE_MAX_CHARS, "character")}]`;
        const row = `${String(k + 1).padStart(6)}\t${l}`;
        bytesOut += encodeText(row).length + 1;
        if (bytesOut > TEXT_MAX_BYTES && out.length > 0) break;
        out.push(row);
      }
      const last = from - 1 + out.length;
      const header = `${path} (${count(lines.length, "line")})`;
      const notes: string[] = [];
      if (!valid) notes.push(`[${path} is not valid UTF-8: invalid bytes are shown as \uFFFD.]`);
      if (from > 1 || last < lines.length) {
        notes.push(`[Lines ${from}-${last} of ${lines.length} shown.${last < lines.length ? ` To read on, call read_file with offset ${last + 1}.` : ""}]`);
      }
      return [header, ...out, ...notes].join("\n");
    },
  });

  const writeFile = defineTool<{ path: string; content: string }>({
    name: "write_file",
    description: "Write a text file in the workspace: create it (and its folders) or replace its whole content.",
    inputSchema: strictObject({
      path: string("The file, relative to the workspace root (such as notes/summary.md)"),
      content: string("The whole new content of the file"),
    }),
    sideEffect: "local_mutation",
    permission: writePermission,
    timeoutMs: 20_000,
    resources: (a) => [{ kind: "path", value: file(a.path), operation: "write" }],
    preview: async (a) => {
      const path = file(a.path);
      const before = await ws.read(path);
      return lineDiff(path, before === undefined ? undefined : decodeText(before).text, a.content);
    },
    prompt: {
      snippet: "write_file creates a text file or replaces all of it.",
      guidelines: ["To change part of a file, use edit_file instead of rewriting it.", "Write the whole content: what you leave out is gone."],
    },
    activity: (a, r) => `Write ${file(a.path)} ${statOf(r)}`.trim(),
    call: (a, ctx) =>
      once(ws, ctx.idempotencyKey, async () => {
        const path = file(a.path);
        if (a.content.includes("\u0000")) {
          throw new ToolError(`the content for ${path} looks binary (it contains NUL characters): write_file writes text`, { next: "Write text content only.", recovery: "If the task needs a binary file, stop and say so." });
        }
        const bytes = encodeText(a.content);
        if (bytes.length > FILE_MAX_BYTES) throw tooBig(path, bytes.length);
        await notAFolder(ws, path);
        const old = await ws.read(path);
        const before = old === undefined ? undefined : decodeText(old).text;
        const lines = count(splitLines(a.content).length, "line");
        if (before === a.content) return `${path} already had this content (${lines}); nothing changed.`;
        const d = stat(lineDiff(path, before, a.content));
        const parent = path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : "";
        const newFolder = old === undefined && parent !== "" && (await ws.list(`${parent}/`)).length === 0;
        const result =
          before === undefined
            ? `Created ${path} ${d}: ${lines}, ${count(bytes.length, "byte")}${newFolder ? `, in the new folder ${parent}/` : ""}.`
            : `Replaced the content of ${path} ${d}: now ${lines}, ${count(bytes.length, "byte")}.`;
        await ws.commit([{ path, bytes }], { key: ctx.idempotencyKey, result });
        return result;
      }),
  });

  const editFile = defineTool<{ path: string; old_text: string; new_text: string; replace_all?: boolean }>({
    name: "edit_file",
    description: "Replace exact text in a file of the workspace: old_text must match one place, or set replace_all.",
    inputSchema: strictObject(
      {
        path: string("The file, relative to the workspace root"),
        old_text: string("The exact text to replace, spaces and line breaks included"),
        new_text: string("The text to put in its place"),
        replace_all: boolean("Replace every place old_text matches (default false: it must match exactly one)"),
      },
      ["path", "old_text", "new_text"],
    ),
    sideEffect: "local_mutation",
    permission: writePermission,
    timeoutMs: 20_000,
    resources: (a) => [{ kind: "path", value: file(a.path), operation: "write" }],
    preview: async (a) => {
      const path = file(a.path);
      const { before, after } = await planEdit(ws, path, a, undefined);
      return lineDiff(path, before, after);
    },
    prompt: {
      snippet: "edit_file replaces exact text in a file; the rest of the file stays as it is.",
      guidelines: ["Copy old_text from what read_file showed, without the line numbers.", "Include enough surrounding lines that old_text matches one place."],
    },
    activity: (a, r) => `Edit ${file(a.path)} ${statOf(r)}`.trim(),
    call: (a, ctx) =>
      once(ws, ctx.idempotencyKey, async () => {
        const path = file(a.path);
        const { before, after, places } = await planEdit(ws, path, a, ctx);
        const bytes = encodeText(after);
        if (bytes.length > FILE_MAX_BYTES) throw tooBig(path, bytes.length);
        const result = `Edited ${path} ${stat(lineDiff(path, before, after))}: ${count(places, "place")} changed.`;
        await ws.commit([{ path, bytes }], { key: ctx.idempotencyKey, result });
        return result;
      }),
  });

  const listFiles = defineTool<{ path?: string; pattern?: string }>({
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
    resources: (a) => [{ kind: "path", value: folderPrefix(resolvePath(a.path ?? "", root)) || "/", operation: "read" }],
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

  const searchFiles = defineTool<{ query: string; regex?: boolean; ignore_case?: boolean; path?: string; pattern?: string; max_results?: number }>({
    name: "search_files",
    description: `Search the text files of a workspace folder for a text or a regular expression; each match is shown as path:line: text. At most ${SEARCH_MAX_RESULTS} matches.`,
    inputSchema: strictObject(
      {
        query: string("What to look for: text, or a regular expression when regex is true"),
        regex: boolean("Treat query as a regular expression (default false)"),
        ignore_case: boolean("Ignore the difference between capitals and small letters (default false)"),
        path: string("The folder to search, relative to the workspace root (default: the whole workspace)"),
        pattern: string("A glob the path below the folder must match (default **)"),
        max_results: integer(`How many matches to show, at most ${SEARCH_MAX_RESULTS} (default ${SEARCH_DEFAULT_RESULTS})`, { minimum: 1, maximum: SEARCH_MAX_RESULTS }),
      },
      ["query"],
    ),
    sideEffect: "read_only",
    parallelSafe: true,
    timeoutMs: 20_000,
    resources: (a) => [{ kind: "path", value: folderPrefix(resolvePath(a.path ?? "", root)) || "/", operation: "read" }],
    prompt: { snippet: "search_files finds where a text appears across files, with line numbers to read or edit next." },
    activity: (a) => `Search ${folderLabel(resolvePath(a.path ?? "", root))} for ${JSON.stringify(a.query.length > 60 ? `${a.query.slice(0, 60)}…` : a.query)}`,
    call: async (a, ctx) => {
      if (a.query === "") throw new ToolError("the query is empty", { next: "Give the text (or regular expression) to look for." });
      const folder = resolvePath(a.path ?? "", root);
      // Matched in time linear in each line (src/pattern/), with RegExp's answers.
      const compiled = compilePattern(a.regex === true ? a.query : a.query.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), { ignoreCase: a.ignore_case === true });
      if (!compiled.ok && compiled.reason === "invalid") {
        throw new ToolError("query is not a valid regular expression", { next: "Escape the special characters, or set regex to false to search for the text as it is." });
      }
      if (!compiled.ok) {
        throw new ToolError(`search_files cannot run this query: it ${compiled.why}`, {
          next: a.regex === true ? "Search with a regular expression without backreferences or lookaround, or a shorter one; or search for a plain text (regex false) and filter what it finds." : "Search for a shorter part of the text.",
        });
      }
      const re = compiled.pattern;
      const pattern = a.pattern ?? "**";
      const glob = globOf(pattern);
      const prefix = folderPrefix(folder);
      const max = a.max_results ?? SEARCH_DEFAULT_RESULTS;
      const matches: string[] = [];
      const filesWith = new Set<string>();
      let total = 0;
      let scanned = 0;
      let binary = 0;
      let stopped = false;
      let lastYield = Date.now();
      const seen = await visibleFiles(ws, ctx, prefix);
      for (const f of seen.files) {
        if (!glob.test(f.path.slice(prefix.length))) continue;
        if (scanned + f.size > SEARCH_MAX_BYTES) {
          stopped = true;
          break;
        }
        const bytes = await ws.read(f.path);
        if (bytes === undefined) continue;
        scanned += bytes.length;
        if (looksBinary(bytes)) {
          binary++;
          continue;
        }
        const lines = splitLines(decodeText(bytes).text);
        for (let k = 0; k < lines.length; k++) {
          // Let timers run (the call's timeout among them) on a long search, and stop once cancelled.
          if (Date.now() - lastYield > SEARCH_SLICE_MS) {
            await new Promise<void>((resolve) => after(0, resolve));
            lastYield = Date.now();
            if (ctx.signal.aborted) throw new ToolError("the search was cancelled", { next: "Narrow the folder, the pattern or the query, and search again." });
          }
          const line = lines[k]!.length > 10_000 ? lines[k]!.slice(0, 10_000) : lines[k]!;
          if (!re.test(line)) continue;
          total++;
          filesWith.add(f.path);
          if (matches.length < max) matches.push(`${f.path}:${k + 1}: ${line.length > 300 ? `${line.slice(0, 300)}…` : line}`);
        }
      }
      const what = `${JSON.stringify(a.query)}${a.regex === true ? " (regular expression)" : ""}`;
      const notes: string[] = [];
      if (total > matches.length) notes.push(`[${matches.length} of ${total} matches shown. Narrow the query, the folder or the pattern, or raise max_results.]`);
      if (binary > 0) notes.push(`[${count(binary, "binary file")} skipped.]`);
      if (stopped) notes.push(`[The search stopped after ${count(SEARCH_MAX_BYTES, "byte")}; narrow the folder or the pattern.]`);
      notes.push(...withheldNotes(seen, "searched"));
      if (total === 0) return [`No matches for ${what} under ${folderLabel(folder)}${pattern === "**" ? "" : ` in files matching ${pattern}`}.`, ...notes].join("\n");
      return [`${count(total, "match", "matches")} for ${what} in ${count(filesWith.size, "file")} under ${folderLabel(folder)}:`, ...matches, ...notes].join("\n");
    },
  });

  const applyPatch = applyPatchTool(ws, { root, permission: writePermission });

  /** Settles an interrupted change: done when its receipt was committed, else safe to run again (a commit is all or nothing). */
  const reconcile: ReconcileHook = async (c) => {
    const result = await ws.receipt(c.idempotencyKey);
    return result === undefined ? { action: "run_again" } : { action: "record_result", content: result };
  };

  const tools = [readFile, writeFile, editFile, applyPatch, listFiles, searchFiles] as Tool<never, unknown>[];
  return { tools, reconcile, readFile, writeFile, editFile, applyPatch, listFiles, searchFiles };
}

/** What an edit would do, or the ToolError that says why it cannot. */
async function planEdit(
  ws: Workspace,
  path: string,
  a: { old_text: string; new_text: string; replace_all?: boolean | undefined },
  ctx: Pick<ToolContext, "permit"> | undefined,
): Promise<{ before: string; after: string; places: number }> {
  if (a.old_text === "") throw new ToolError("old_text is empty", { next: "Quote the exact text to replace; to create or replace a whole file, use write_file." });
  if (a.old_text === a.new_text) {
    throw new ToolError("old_text and new_text are the same: the edit would change nothing", {
      next: "Put the changed text in new_text.",
      recovery: "If the file already says what you want, the edit is done: go on to the next step.",
    });
  }
  const bytes = await readExisting(ws, path, ctx ?? PREVIEW_SIGHT);
  if (looksBinary(bytes)) throw new ToolError(`${path} is a binary file: edit_file edits text files`, { recovery: "If the task needs this file changed, stop and say so." });
  const { text: before, valid } = decodeText(bytes);
  if (!valid) {
    throw new ToolError(`${path} is not valid UTF-8: edit_file would change bytes it cannot show`, {
      next: "Leave this file as it is.",
      recovery: "If it must change, stop and say so: rewriting it would lose its invalid bytes.",
    });
  }
  // The file's line ends win: text quoted with LF matches a CRLF file.
  const eol = eolOf(before);
  const fix = (t: string): string => (eol === "\r\n" ? t.replace(/\r?\n/g, "\r\n") : t);
  const oldText = fix(a.old_text);
  const newText = fix(a.new_text);
  const at: number[] = [];
  for (let k = before.indexOf(oldText); k >= 0; k = before.indexOf(oldText, k + oldText.length)) at.push(k);
  if (at.length === 0) {
    throw new ToolError(`old_text was not found in ${path}`, {
      next: `Read ${path} again with read_file and copy the text exactly, spaces and line breaks included, without the line numbers.`,
      recovery: "If the text is no longer there, the file has changed: decide again from what it says now.",
    });
  }
  if (at.length > 1 && a.replace_all !== true) {
    const lineOf = (offset: number): number => before.slice(0, offset).split("\n").length;
    const lines = at.slice(0, 10).map(lineOf);
    throw new ToolError(`old_text matches ${at.length} places in ${path} (lines ${lines.join(", ")}${at.length > 10 ? ", …" : ""})`, {
      next: "Add neighbouring lines to old_text so that it matches one place, or set replace_all to true to change every place.",
    });
  }
  const after = a.replace_all === true ? before.split(oldText).join(newText) : before.slice(0, at[0]!) + newText + before.slice(at[0]! + oldText.length);
  return { before, after, places: a.replace_all === true ? at.length : 1 };
}
