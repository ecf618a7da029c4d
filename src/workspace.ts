/**
 * The Workspace port: a tree of files the workspace tools act on, the same
 * on every backend (memory in isoagent/toolkit; IndexedDB in isoagent/idb; a
 * Durable Object's SQLite storage in isoagent/durable-object). Paths are keys
 * ("notes/todo.md"): folders exist because files are under them, and there
 * are no links to follow. Changes are committed all or nothing, with an
 * optional receipt (the call's idempotency key and its result) in the same
 * commit, so that an interrupted call can be reconciled. Its own module, so
 * that run bundles (isoagent/move), the HTTP API and the adapters name it
 * without the toolkit; isoagent/toolkit exports it.
 */

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

/** A tree of files keyed by path, committed all or nothing with an optional receipt: what the workspace tools act on, on every backend. */
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
