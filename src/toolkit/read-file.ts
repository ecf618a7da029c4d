/**
 * read_file, the workspace tool that shows a text file with numbered
 * lines: at most TEXT_MAX_LINES lines and TEXT_MAX_BYTES bytes a call,
 * long lines cut, with a note saying how to read on. A binary or empty
 * file is said to be one; a folder or a missing file is a ToolError.
 */
import { defineTool, ToolError } from "../tools/index.js";
import { integer, strictObject, string } from "../schema/index.js";
import { readExisting } from "./file-access.js";
import { resolveFilePath } from "./paths.js";
import { count, decodeText, encodeText, LINE_MAX_CHARS, looksBinary, splitLines, TEXT_MAX_BYTES, TEXT_MAX_LINES } from "./text.js";
import type { Workspace } from "./workspace.js";

/** read_file: a text file of the workspace with numbered lines, a range at a time (see docs/tools/). */
export function readFileTool(ws: Workspace, root: string) {
  const file = (raw: string): string => resolveFilePath(raw, root);
  return defineTool<{ path: string; offset?: number; limit?: number }>({
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
}
