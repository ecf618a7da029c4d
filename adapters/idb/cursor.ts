/**
 * isoagent/otel's export cursor on IndexedDB: how far each run's spans were
 * accepted by the collector, kept where the browser keeps the runs, so an
 * exporter in a reloaded (or another) tab resumes where the last one got.
 *
 * It is a database of its own, not a store in the journal's: the journal's
 * schema and version move with the store's encoding (schema.ts), and a
 * cursor has nothing to do with them. Nothing touches `indexedDB` at import
 * time; the database opens on first use.
 */
import { openDB, type DBSchema, type IDBPDatabase } from "idb";
import type { RunId } from "../../src/index.js";
import { StoreError } from "../../src/store/index.js";
import type { ExportCursor } from "../../src/otel/index.js";
import { translate } from "./errors.js";

/** The version of the cursor database this code writes. */
export const CURSOR_DB_VERSION = 1;

interface CursorDB extends DBSchema {
  cursors: { key: string; value: { runId: string; seq: number } };
}

/** Options of {@link idbCursor}. */
export interface IdbCursorOptions {
  /**
   * The database's name. Default "isoagent-otel". One per journal database
   * and collector: a cursor says how far one collector got with one store's runs.
   */
  readonly name?: string;
}

/** An export cursor on IndexedDB, with a way to close its connection. */
export interface IdbCursor extends ExportCursor {
  close(): void;
}

/**
 * An {@link ExportCursor} on IndexedDB, shared by every tab of the origin.
 * A `set` below the cursor leaves it where it is (two tabs exporting one run
 * cannot move it back), checked and written in one transaction.
 *
 * @example
 * ```ts
 * import { idbCursor, idbStore } from "isoagent/idb"
 * import { otlpExporter } from "isoagent/otel"
 * const exporter = otlpExporter({ endpoint, cursor: idbCursor() })
 * setInterval(() => { if (navigator.onLine) void exporter.flush(store) }, 10_000)
 * ```
 */
export function idbCursor(options: IdbCursorOptions = {}): IdbCursor {
  const name = options.name ?? "isoagent-otel";
  let opening: Promise<IDBPDatabase<CursorDB>> | undefined;
  let closed: string | undefined;

  const db = (): Promise<IDBPDatabase<CursorDB>> => {
    if (closed !== undefined) return Promise.reject(new StoreError("STORE_CLOSED", closed));
    opening ??= (async () => {
      if ((globalThis as { indexedDB?: IDBFactory }).indexedDB === undefined) throw new StoreError("STORE_UNAVAILABLE", "IndexedDB is not available here");
      return openDB<CursorDB>(name, CURSOR_DB_VERSION, {
        upgrade: (database) => void database.createObjectStore("cursors", { keyPath: "runId" }),
        // Another tab deletes the database (or a later version upgrades it): let go.
        blocking: () => {
          closed = `the export cursor database ${name} was closed because another tab is upgrading or deleting it; reload the page`;
          void opening?.then((d) => d.close());
        },
        terminated: () => {
          closed = `the export cursor database ${name} was closed by the browser`;
        },
      });
    })();
    opening.catch(() => {
      opening = undefined;
    });
    return opening;
  };

  return {
    async get(runId: RunId): Promise<number> {
      try {
        return (await (await db()).get("cursors", runId))?.seq ?? 0;
      } catch (e) {
        translate(e, `reading the export cursor of run ${runId}`);
      }
    },
    async set(runId: RunId, seq: number): Promise<void> {
      try {
        // "relaxed": a cursor lost with the machine only sends spans again, with the same ids.
        const tx = (await db()).transaction("cursors", "readwrite", { durability: "relaxed" });
        // Only IndexedDB's own requests are awaited inside the transaction (idb's rule).
        const current = await tx.store.get(runId);
        if (current === undefined || current.seq < seq) await tx.store.put({ runId, seq });
        await tx.done;
      } catch (e) {
        translate(e, `moving the export cursor of run ${runId}`);
      }
    },
    close(): void {
      closed ??= `the export cursor database ${name} was closed`;
      void opening?.then((d) => d.close()).catch(() => {});
    },
  };
}
