/**
 * search_files, the workspace tool that finds where a text (or a regular
 * expression, matched in time linear in each line by src/pattern/)
 * appears in the text files of a folder that the run's policy lets the
 * call see. It scans at most SEARCH_MAX_BYTES a call, skips binary files,
 * yields to the event loop on a long search and stops once cancelled.
 */
import { compilePattern } from "../pattern/index.js";
import { defineTool, ToolError } from "../tools/index.js";
import { boolean, integer, strictObject, string } from "../schema/index.js";
import { after } from "../web.js";
import { folderResource, globOf, visibleFiles, withheldNotes } from "./file-access.js";
import { folderLabel, folderPrefix, resolvePath } from "./paths.js";
import { count, decodeText, looksBinary, splitLines } from "./text.js";
import type { Workspace } from "./workspace.js";

/** Matches search_files returns by default, and at most. */
export const SEARCH_DEFAULT_RESULTS = 50;
/** Matches search_files returns at most, whatever the model asks for. */
export const SEARCH_MAX_RESULTS = 200;
/** Bytes search_files scans per call, at most. */
export const SEARCH_MAX_BYTES = 16 * 1024 * 1024;
/** How long a search runs between two yields to the event loop (ms). */
const SEARCH_SLICE_MS = 20;

/** search_files: where a text or a regular expression appears in the text files of a folder, as path:line: text (see docs/tools/). */
export function searchFilesTool(ws: Workspace, root: string) {
  return defineTool<{ query: string; regex?: boolean; ignore_case?: boolean; path?: string; pattern?: string; max_results?: number }>({
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
    resources: folderResource(root),
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
          next:
            a.regex === true
              ? "Search with a regular expression without backreferences or lookaround, or a shorter one; or search for a plain text (regex false) and filter what it finds."
              : "Search for a shorter part of the text.",
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
}
