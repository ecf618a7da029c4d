/**
 * The database's schema, by version. Each step upgrades from the version
 * before it, so a database of any earlier version opens (tested from v1 and v2).
 *
 * v1: runs (by runId), events (by [runId, seq]), leases, snapshots, artifacts.
 * v2: an index of runs by updatedAt, so listing is newest first without a scan.
 * v3: an append is one record in `events`, keyed by the seq of its first event
 *     (records v1 and v2 wrote hold one event each and are read as they are);
 *     the lease lives in the run's record, so an append's checks read one
 *     record. The `leases` store is folded into `runs` and dropped.
 */
import type { DBSchema, IDBPDatabase, IDBPTransaction } from "idb";
import type { Custody, JournalEvent, Lease, Snapshot, StoredRun } from "../../src/index.js";

/** The version this code writes. */
export const DB_VERSION = 3;

/** A run's record: what every store of this kind keeps, and the lease while one is held (v3; v1 and v2 kept it in `leases`). */
export interface RunRecord extends StoredRun {
  readonly lease?: Lease;
  /** Absent while this database owns the run; a copy's custody otherwise (moves: an optional field, no new version). */
  readonly custody?: Custody;
}

/** One append (v3), or one event (written by v1 and v2). */
export type EventsRecord = { runId: string; seq: number; events: JournalEvent[] } | { runId: string; seq: number; event: JournalEvent };

export interface IsoagentDB extends DBSchema {
  runs: { key: string; value: RunRecord; indexes: { byUpdated: number } };
  events: { key: [string, number]; value: EventsRecord };
  snapshots: { key: string; value: Snapshot & { runId: string } };
  artifacts: { key: string; value: { sha256: string; bytes: Uint8Array } };
}

/** The schema up to v2, for the steps that still see the `leases` store. */
export interface IsoagentDBv2 extends IsoagentDB {
  leases: { key: string; value: Lease };
}

type UpgradeTx = IDBPTransaction<IsoagentDBv2, ("runs" | "events" | "leases" | "snapshots" | "artifacts")[], "versionchange">;

/** The upgrade steps, one per version. */
export const UPGRADES: Record<number, (db: IDBPDatabase<IsoagentDBv2>, tx: UpgradeTx) => void> = {
  1: (db) => {
    db.createObjectStore("runs", { keyPath: "runId" });
    db.createObjectStore("events", { keyPath: ["runId", "seq"] });
    db.createObjectStore("leases", { keyPath: "runId" });
    db.createObjectStore("snapshots", { keyPath: "runId" });
    db.createObjectStore("artifacts", { keyPath: "sha256" });
  },
  2: (_db, tx) => {
    tx.objectStore("runs").createIndex("byUpdated", "updatedAt");
  },
  3: (db, tx) => {
    // Only IndexedDB's own requests are awaited: the upgrade's transaction
    // stays active, and the store is dropped inside it once it is copied.
    void (async () => {
      const runs = tx.objectStore("runs");
      for (const lease of await tx.objectStore("leases").getAll()) {
        const run = await runs.get(lease.runId);
        if (run !== undefined) await runs.put({ ...run, lease });
      }
      db.deleteObjectStore("leases");
    })();
  },
};

/** Applies the steps from `oldVersion` to `newVersion`. */
export function upgrade(db: IDBPDatabase<IsoagentDB>, oldVersion: number, newVersion: number, tx: IDBPTransaction<IsoagentDB, ("runs" | "events" | "snapshots" | "artifacts")[], "versionchange">): void {
  for (let v = oldVersion + 1; v <= newVersion; v++) UPGRADES[v]!(db as unknown as IDBPDatabase<IsoagentDBv2>, tx as unknown as UpgradeTx);
}

/** The events a record holds, whichever version wrote it. */
export function eventsOf(record: EventsRecord): readonly JournalEvent[] {
  return "events" in record ? record.events : [record.event];
}
