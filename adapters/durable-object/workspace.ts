/**
 * The Workspace port on a Durable Object's SQLite storage: the files of
 * isoagent/toolkit's workspace tools beside the run's journal. A commit is
 * one `transactionSync`: all of its changes and its receipt, or nothing;
 * and it commits in order with the journal, so a change is never durable
 * without the call's start before it.
 */
import type { Workspace } from "../../src/workspace.js";

/** The largest file kept (rows stay under SQLite storage's 2 MB limit). */
export const SQL_WORKSPACE_MAX_BYTES = 1024 * 1024;

/**
 * @example
 * ```ts
 * export const RunObject = runObjectClass<Env>({
 *   tools: ({ storage }) => workspaceTools(sqlWorkspace(storage)).tools,
 *   reconcile: ({ storage }) => workspaceTools(sqlWorkspace(storage)).reconcile,
 *   ...
 * })
 * ```
 */
export function sqlWorkspace(storage: DurableObjectStorage, options: { table?: string; seed?: Readonly<Record<string, string>> } = {}): Workspace {
  const t = options.table ?? "workspace";
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,40}$/.test(t)) throw new TypeError(`sqlWorkspace: table name ${JSON.stringify(t)} is not a plain SQL name`);
  const sql = storage.sql;
  sql.exec(`CREATE TABLE IF NOT EXISTS ${t}_files (path TEXT PRIMARY KEY, size INTEGER NOT NULL, bytes BLOB NOT NULL)`);
  sql.exec(`CREATE TABLE IF NOT EXISTS ${t}_receipts (key TEXT PRIMARY KEY, result TEXT NOT NULL)`);
  // Initial files, written once: when the workspace has never held a file.
  if (options.seed !== undefined && sql.exec<{ n: number }>(`SELECT count(*) AS n FROM ${t}_files`).one().n === 0 && sql.exec<{ n: number }>(`SELECT count(*) AS n FROM ${t}_receipts`).one().n === 0) {
    const enc = new TextEncoder();
    storage.transactionSync(() => {
      for (const [path, text] of Object.entries(options.seed!)) {
        const bytes = enc.encode(text);
        sql.exec(`INSERT INTO ${t}_files (path, size, bytes) VALUES (?, ?, ?)`, path, bytes.length, bytes);
      }
    });
  }
  return {
    async read(path) {
      const row = sql.exec<{ bytes: ArrayBuffer }>(`SELECT bytes FROM ${t}_files WHERE path = ?`, path).toArray()[0];
      return row === undefined ? undefined : new Uint8Array(row.bytes);
    },
    async list(prefix) {
      const rows = sql.exec<{ path: string; size: number }>(`SELECT path, size FROM ${t}_files WHERE substr(path, 1, ?) = ?`, [...prefix].length, prefix).toArray();
      // Sorted as the other backends sort: by UTF-16 code units.
      return rows.map((r) => ({ path: r.path, size: r.size })).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    },
    async commit(changes, receipt) {
      for (const c of changes) if (c.bytes !== null && c.bytes.length > SQL_WORKSPACE_MAX_BYTES) throw new RangeError(`${c.path} is larger than ${SQL_WORKSPACE_MAX_BYTES} bytes`);
      storage.transactionSync(() => {
        for (const c of changes) {
          if (c.bytes === null) sql.exec(`DELETE FROM ${t}_files WHERE path = ?`, c.path);
          else sql.exec(`INSERT OR REPLACE INTO ${t}_files (path, size, bytes) VALUES (?, ?, ?)`, c.path, c.bytes.length, c.bytes);
        }
        if (receipt !== undefined) sql.exec(`INSERT OR REPLACE INTO ${t}_receipts (key, result) VALUES (?, ?)`, receipt.key, receipt.result);
      });
    },
    async receipt(key) {
      return sql.exec<{ result: string }>(`SELECT result FROM ${t}_receipts WHERE key = ?`, key).toArray()[0]?.result;
    },
  };
}
