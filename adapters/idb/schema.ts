/**
 * The database's schema, by version. Each step upgrades from the version
 * before it, so a database of any earlier version opens (tested from v1).
 *
 * v1: runs (by runId), events (by [runId, seq]), leases, snapshots, artifacts.
 * v2: an index of runs by updatedAt, so listing is newest first without a scan.
 */
import type { DBSchema, IDBPDatabase, IDBPTransaction } from "idb";
import type { JournalEvent, Lease, RunStatus, Snapshot } from "../../src/index.js";

/** The version this code writes. */
export const DB_VERSION = 2;

export interface RunRecord {
  runId: string;
  status: RunStatus;
  createdAt: number;
  updatedAt: number;
  seq: number;
  head: string;
  /** The last fencing token handed out. */
  tokens: number;
}

export interface IsoagentDB extends DBSchema {
  runs: { key: string; value: RunRecord; indexes: { byUpdated: number } };
  events: { key: [string, number]; value: { runId: string; seq: number; event: JournalEvent } };
  leases: { key: string; value: Lease };
  snapshots: { key: string; value: Snapshot & { runId: string } };
  artifacts: { key: string; value: { sha256: string; bytes: Uint8Array } };
}

type UpgradeTx = IDBPTransaction<IsoagentDB, ("runs" | "events" | "leases" | "snapshots" | "artifacts")[], "versionchange">;

/** The upgrade steps, one per version. */
export const UPGRADES: Record<number, (db: IDBPDatabase<IsoagentDB>, tx: UpgradeTx) => void> = {
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
};

/** Applies the steps from `oldVersion` to `newVersion`. */
export function upgrade(db: IDBPDatabase<IsoagentDB>, oldVersion: number, newVersion: number, tx: UpgradeTx): void {
  for (let v = oldVersion + 1; v <= newVersion; v++) UPGRADES[v]!(db, tx);
}
