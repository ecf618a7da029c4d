/**
 * The memory backend of the Workspace port (src/workspace.ts, which this
 * re-exports), and `once`, the receipt check every workspace tool's change
 * goes through.
 */
import { encodeUtf8 } from "../web.js";
import type { Workspace } from "../workspace.js";

export type { Workspace, WorkspaceChange, WorkspaceFile, WorkspaceReceipt } from "../workspace.js";

/** Runs a change once per idempotency key: an attempt run again after a crash answers from the receipt its commit left. */
export async function once(ws: Workspace, key: string, act: () => Promise<string>): Promise<string> {
  const earlier = await ws.receipt(key);
  return earlier ?? act();
}

/**
 * A workspace in memory (tests, Node, a Worker without storage). `seed`
 * gives initial files, as text or bytes.
 *
 * @example
 * ```ts
 * const ws = memoryWorkspace({ "notes/todo.md": "- buy milk\n" })
 * const tools = workspaceTools(ws)
 * ```
 */
export function memoryWorkspace(seed: Readonly<Record<string, string | Uint8Array>> = {}): Workspace {
  const files = new Map<string, Uint8Array>();
  const receipts = new Map<string, string>();
  for (const [path, content] of Object.entries(seed)) files.set(path, typeof content === "string" ? encodeUtf8(content) : new Uint8Array(content));
  return {
    async read(path) {
      const b = files.get(path);
      return b === undefined ? undefined : new Uint8Array(b);
    },
    async list(prefix) {
      return [...files.entries()]
        .filter(([p]) => p.startsWith(prefix))
        .map(([path, b]) => ({ path, size: b.length }))
        .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    },
    async commit(changes, receipt) {
      for (const c of changes) {
        if (c.bytes === null) files.delete(c.path);
        else files.set(c.path, new Uint8Array(c.bytes));
      }
      if (receipt !== undefined) receipts.set(receipt.key, receipt.result);
    },
    async receipt(key) {
      return receipts.get(key);
    },
  };
}
