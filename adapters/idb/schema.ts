/**
 * The database's schema, by version. Each step upgrades from the version
 * before it, so a database of any earlier version opens (tested from v1, v2
 * and v3).
 *
 * v1: runs (by runId), events (by [runId, seq]), leases, snapshots, artifacts.
 * v2: an index of runs by updatedAt, so listing is newest first without a scan.
 * v3: an append is one record in `events`, keyed by the seq of its first event
 *     (records v1 and v2 wrote hold one event each and are read as they are);
 *     the lease lives in the run's record, so an append's checks read one
 *     record. The `leases` store is folded into `runs` and dropped.
 * v4: an append writes one lean record and nothing else. The journal moves
 *     to `journal` (keyed [runId, first seq], out of line): each record holds
 *     the events without what the chain makes redundant (each event's `seq`,
 *     its `prev`; the record keeps the first event's `prev` once), their
 *     hashes beside them, and the run's status after them. The run's record
 *     no longer carries the head (the journal's last record is the head), and
 *     is not written by an append that holds the lease: its status, seq and
 *     updatedAt are as of its last write (creation, an operator's append, a
 *     lease released), and listing reads the journal's tail for a run whose
 *     record has a lease. The `byUpdated` index is dropped (listing sorts
 *     what it reads). `events` is copied into `journal` and dropped.
 *
 * The hashed form of an event never changes: a record decodes to the same
 * events, key order included, that were appended.
 */
import type { DBSchema, IDBPDatabase, IDBPTransaction } from "idb";
import type { JournalEvent, RunStatus } from "../../src/index.js";
import type { AppendGuard, Custody, Lease, RunHead, Snapshot } from "../../src/store/index.js";
import { encodeLean, type LeanEvents } from "../../src/store/lean.js";

/** The version this code writes. */
export const DB_VERSION = 4;

/**
 * A run's record (v4). `status`, `seq` and `updatedAt` are as of the
 * record's last write: exact while no lease is kept in it; while one is (held,
 * or expired and never released), the journal's tail is the truth.
 */
export interface RunRecord extends RunHead {
  /** The last fencing token handed out. */
  readonly tokens: number;
  readonly lease?: Lease;
  /** Absent while this database owns the run; a copy's custody otherwise (moves: an optional field, no new version). */
  readonly custody?: Custody;
}

/** One append (v4), keyed [runId, seq of its first event]: its events, lean (src/store/lean.ts). */
export interface JournalRecord extends LeanEvents {
  /** The run's status after the append (for records copied from v3, the run's status at the upgrade; only the last record's is read). */
  readonly s: RunStatus;
}

/** The key of a journal record: the run, and the seq of its first event. */
export type JournalKey = [string, number];

export interface IsoagentDB extends DBSchema {
  runs: { key: string; value: RunRecord };
  journal: { key: JournalKey; value: JournalRecord };
  snapshots: { key: string; value: Snapshot & { runId: string } };
  artifacts: { key: string; value: { sha256: string; bytes: Uint8Array } };
}

/** A run's record up to v3: the head in it, and (v3) the lease. */
export interface RunRecordV3 extends RunHead {
  readonly head: string;
  readonly tokens: number;
  readonly lease?: Lease;
}

/** An append (v3), or one event (written by v1 and v2). */
export type EventsRecord = { runId: string; seq: number; events: JournalEvent[] } | { runId: string; seq: number; event: JournalEvent };

/** Every store any version had, for the upgrade steps. */
export interface IsoagentDBAny extends DBSchema {
  runs: { key: string; value: RunRecordV3 | RunRecord; indexes: { byUpdated: number } };
  events: { key: [string, number]; value: EventsRecord };
  leases: { key: string; value: Lease };
  journal: { key: JournalKey; value: JournalRecord };
  snapshots: { key: string; value: Snapshot & { runId: string } };
  artifacts: { key: string; value: { sha256: string; bytes: Uint8Array } };
}

type UpgradeTx = IDBPTransaction<IsoagentDBAny, ("runs" | "events" | "leases" | "journal" | "snapshots" | "artifacts")[], "versionchange">;

/**
 * The upgrade steps, one per version. A step that reads what is stored
 * returns a promise, and the next step starts when it settles, so that no
 * two steps interleave their requests; only IndexedDB's own requests are
 * awaited inside, so the versionchange transaction stays active throughout,
 * and an upgrade cut short (a closed tab) is rolled back whole.
 */
export const UPGRADES: Record<number, (db: IDBPDatabase<IsoagentDBAny>, tx: UpgradeTx) => void | Promise<void>> = {
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
  3: (db, tx) =>
    (async () => {
      const runs = tx.objectStore("runs");
      for (const lease of await tx.objectStore("leases").getAll()) {
        const run = await runs.get(lease.runId);
        if (run !== undefined) await runs.put({ ...run, lease });
      }
      db.deleteObjectStore("leases");
    })(),
  // Copies every record of `events` into `journal` in the v4 encoding (one
  // record per record: a v3 append stays one append), then drops `events`;
  // the runs lose their head.
  4: (db, tx) => {
    db.createObjectStore("journal");
    tx.objectStore("runs").deleteIndex("byUpdated");
    return (async () => {
      const runs = tx.objectStore("runs");
      const journal = tx.objectStore("journal");
      const status = new Map<string, RunStatus>();
      for (let cursor = await runs.openCursor(); cursor !== null; cursor = await cursor.continue()) {
        const { head: _head, ...run } = cursor.value as RunRecordV3;
        status.set(run.runId, run.status);
        void cursor.update(run);
      }
      for (let cursor = await tx.objectStore("events").openCursor(); cursor !== null; cursor = await cursor.continue()) {
        const row = cursor.value;
        const events = "events" in row ? row.events : [row.event];
        void journal.put(encodeRecord(events, status.get(row.runId) ?? "running"), [row.runId, row.seq]);
      }
      db.deleteObjectStore("events");
    })();
  },
};

/** Applies the steps from `oldVersion` to `newVersion`, each after the one before has settled. */
export function upgrade(
  db: IDBPDatabase<IsoagentDB>,
  oldVersion: number,
  newVersion: number,
  tx: IDBPTransaction<IsoagentDB, ("runs" | "journal" | "snapshots" | "artifacts")[], "versionchange">,
): void {
  const step = (v: number): void => {
    if (v > newVersion) return;
    const done = UPGRADES[v]!(db as unknown as IDBPDatabase<IsoagentDBAny>, tx as unknown as UpgradeTx);
    if (done === undefined) step(v + 1);
    else void done.then(() => step(v + 1));
  };
  step(oldVersion + 1);
}

/** The record an append writes: its events, lean (without `seq` and `prev`, which the chain gives back; `hash` kept beside), and the run's status after them. */
export function encodeRecord(events: readonly JournalEvent[], status: RunStatus): JournalRecord {
  return { ...encodeLean(events), s: status };
}

/** The head of a run whose last record is `record`, keyed by `first`. */
export function headOf(record: JournalRecord, first: number): { seq: number; hash: string; at: number; status: RunStatus } {
  const last = record.e.length - 1;
  return { seq: first + last, hash: record.h[last]!, at: record.e[last]!.at, status: record.s };
}

/**
 * The run's record after an append its rules took (`sealed`: what
 * planAppend returned), or undefined when the append leaves it as it is. A
 * seal (run.moved) ends the run's ownership here, and its lease with it; an
 * operator's append (no lease) keeps the record exact for listing; an append
 * under the lease leaves it as it is (the journal's tail is the truth).
 */
export function recordAfter(run: RunRecord, events: readonly JournalEvent[], guard: AppendGuard, status: RunStatus, sealed: Custody | undefined): RunRecord | undefined {
  const last = events[events.length - 1]!;
  if (sealed !== undefined) {
    const { lease: _gone, ...rest } = run;
    return { ...rest, status, seq: last.seq, updatedAt: last.at, custody: sealed };
  }
  return guard.lease === undefined ? { ...run, status, seq: last.seq, updatedAt: last.at } : undefined;
}
