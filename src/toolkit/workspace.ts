/**
 * The Workspace port: a tree of files the workspace tools act on, the same
 * on every backend (memory here; IndexedDB in isoagent/idb; a Durable
 * Object's SQLite storage in isoagent/durable-object). Paths are keys
 * ("notes/todo.md"): folders exist because files are under them, and there
 * are no links to follow. Changes are committed all or nothing, with an
 * optional receipt (the call's idempotency key and its result) in the same
 * commit, so that an interrupted call can be reconciled.
 */
import { encodeUtf8 } from "../web.js";

/** A file's path and size. */
export interface WorkspaceFile {
  readonly path: string;
  readonly size: number;
}

/** A write (bytes) or a removal (null). */
export interface WorkspaceChange {
  readonly path: string;
  readonly bytes: Uint8Array | null;
}

/** What a committed call recorded: its idempotency key and its result text. */
export interface WorkspaceReceipt {
  readonly key: string;
  readonly result: string;
}

export interface Workspace {
  /** A file's bytes, or undefined when there is no file at `path`. */
  read(path: string): Promise<Uint8Array | undefined>;
  /** The files whose path starts with `prefix` ("" for all, or a folder with a trailing "/"), sorted by path. */
  list(prefix: string): Promise<WorkspaceFile[]>;
  /** Applies every change and records the receipt, all or nothing. */
  commit(changes: readonly WorkspaceChange[], receipt?: WorkspaceReceipt): Promise<void>;
  /** The result a commit recorded under `key`, if any. */
  receipt(key: string): Promise<string | undefined>;
}

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
