/**
 * edit_file, the workspace tool that replaces exact text in a file (the
 * file's line ends win: text quoted with LF matches a CRLF file). The
 * plan, shared by the preview and the call, refuses an empty or unchanged
 * old_text, a binary or invalid UTF-8 file, text not found, and text
 * found at several places without replace_all, each with what to do next.
 */
import { defineTool, lineDiff, ToolError, type Permission, type ToolContext } from "../tools/index.js";
import { boolean, strictObject, string } from "../schema/index.js";
import { fileChange, PREVIEW_SIGHT, readExisting, stat, statOf, tooBig } from "./file-access.js";
import { resolveFilePath } from "./paths.js";
import { count, decodeText, encodeText, eolOf, FILE_MAX_BYTES, looksBinary } from "./text.js";
import { once, type Workspace } from "./workspace.js";

/** edit_file: replaces exact text in a file, at one place or (replace_all) every place, once per idempotency key (see docs/tools/). */
export function editFileTool(ws: Workspace, options: { root: string; permission: Extract<Permission, "allow" | "ask"> }) {
  const file = (raw: string): string => resolveFilePath(raw, options.root);
  return defineTool<{ path: string; old_text: string; new_text: string; replace_all?: boolean }>({
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
    ...fileChange(file, options.permission),
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
