/**
 * write_file, the workspace tool that creates a text file or replaces all
 * of it: refused for content with NUL characters, past FILE_MAX_BYTES, or
 * where a folder is; its preview is the change's diff, and its result says
 * what changed ("(+3 -1)"), committed with the workspace's receipt.
 */
import { defineTool, lineDiff, ToolError, type Permission } from "../tools/index.js";
import { strictObject, string } from "../schema/index.js";
import { fileChange, notAFolder, stat, statOf, tooBig } from "./file-access.js";
import { resolveFilePath } from "./paths.js";
import { count, decodeText, encodeText, FILE_MAX_BYTES, splitLines } from "./text.js";
import { once, type Workspace } from "./workspace.js";

/** write_file: creates a text file (and its folders) or replaces its whole content, once per idempotency key (see docs/tools/). */
export function writeFileTool(ws: Workspace, options: { root: string; permission: Extract<Permission, "allow" | "ask"> }) {
  const file = (raw: string): string => resolveFilePath(raw, options.root);
  return defineTool<{ path: string; content: string }>({
    name: "write_file",
    description: "Write a text file in the workspace: create it (and its folders) or replace its whole content.",
    inputSchema: strictObject({
      path: string("The file, relative to the workspace root (such as notes/summary.md)"),
      content: string("The whole new content of the file"),
    }),
    ...fileChange(file, options.permission),
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
          throw new ToolError(`the content for ${path} looks binary (it contains NUL characters): write_file writes text`, {
            next: "Write text content only.",
            recovery: "If the task needs a binary file, stop and say so.",
          });
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
}
