/**
 * The Workspace port on IndexedDB: the files of isoagent/toolkit's
 * workspace tools in a browser, in their own database (one object store of
 * files, one of receipts). A commit is one readwrite transaction: all of its
 * changes and its receipt, or nothing.
 */
import { openDB, type DBSchema, type IDBPDatabase } from "idb";
import type { Workspace, WorkspaceFile } from "../../src/workspace.js";

interface WorkspaceDB extends DBSchema {
  files: { key: string; value: { path: string; size: number; bytes: Uint8Array } };
  receipts: { key: string; value: { key: string; result: string } };
}

/** The IndexedDB database `idbWorkspace` keeps its files in, and how durable a commit is. */
export interface IdbWorkspaceOptions {
  /** The database's name. Default "isoagent-workspace". */
  readonly name?: string;
  /** Default "strict": a change is on disk when the tool reports it. */
  readonly durability?: "strict" | "relaxed";
}

/**
 * @example
 * ```ts
 * const { tools, reconcile } = workspaceTools(idbWorkspace({ name: "my-app-files" }))
 * ```
 */
export function idbWorkspace(options: IdbWorkspaceOptions = {}): Workspace & { close(): Promise<void> } {
  const name = options.name ?? "isoagent-workspace";
  const durability = options.durability ?? "strict";
  let opening: Promise<IDBPDatabase<WorkspaceDB>> | undefined;
  const db = (): Promise<IDBPDatabase<WorkspaceDB>> =>
    (opening ??= openDB<WorkspaceDB>(name, 1, {
      upgrade(database) {
        database.createObjectStore("files", { keyPath: "path" });
        database.createObjectStore("receipts", { keyPath: "key" });
      },
      blocking() {
        void opening?.then((d) => d.close());
        opening = undefined;
      },
    }));
  return {
    async read(path) {
      const row = await (await db()).get("files", path);
      return row === undefined ? undefined : new Uint8Array(row.bytes);
    },
    async list(prefix) {
      const range = prefix === "" ? undefined : IDBKeyRange.bound(prefix, `${prefix}\uffff`);
      const rows = await (await db()).getAll("files", range);
      return rows.map((r): WorkspaceFile => ({ path: r.path, size: r.size })).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    },
    async commit(changes, receipt) {
      const tx = (await db()).transaction(["files", "receipts"], "readwrite", { durability });
      const files = tx.objectStore("files");
      const writes: Promise<unknown>[] = changes.map((c) => (c.bytes === null ? files.delete(c.path) : files.put({ path: c.path, size: c.bytes.length, bytes: new Uint8Array(c.bytes) })));
      if (receipt !== undefined) writes.push(tx.objectStore("receipts").put({ key: receipt.key, result: receipt.result }));
      await Promise.all([...writes, tx.done]);
    },
    async receipt(key) {
      return (await (await db()).get("receipts", key))?.result;
    },
    async close() {
      (await opening)?.close();
      opening = undefined;
    },
  };
}
