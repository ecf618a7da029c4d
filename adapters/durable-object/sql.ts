/**
 * One run's journal, lease, snapshot and artifacts in its Durable Object's
 * SQLite storage. An append is one statement: one row of `events`, however
 * many events it holds, with the run's status after them. Its checks run
 * against the run's record held in memory (this object is its only writer,
 * and no other request interleaves with synchronous code), so the append is
 * atomic without a transaction; the record's head is the last row.
 *
 * A row's body (v3) is lean: the events without what the chain makes
 * redundant (each event's `seq`, given by the row's key; its `prev`, the hash
 * before it, kept once for the row), as `{"p": prev, "h": [hashes], "e":
 * [events]}`. Rows written before are read as they are: v2's a JSON array of
 * whole events, v1's one whole event.
 */
import type { JournalEvent, JsonValue, LeaseView, RunId, RunStatus } from "../../src/index.js";
import { sha256HexSync } from "../../src/json/index.js";
import { createdStatus, type RunCreated } from "../../src/journal/index.js";
import {
  checkFirst,
  checkOwned,
  leaseAcquire,
  leaseRelease,
  leaseRenew,
  leaseView,
  StoreError,
  type AppendGuard,
  type ArtifactRef,
  type Custody,
  type ImportGuard,
  type Lease,
  type RunHead,
  type Snapshot,
  type StoredRun,
} from "../../src/store/index.js";
import { abandoned, planImport } from "../../src/store/copies.js";
import { planAppend } from "../../src/store/engine.js";
import { decodeLean, encodeLean, type LeanEvents } from "../../src/store/lean.js";

/** The schema, by version; each step upgrades from the one before (run at construction). */
const MIGRATIONS: readonly string[][] = [
  [
    "CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY, body TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS snapshot (id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER NOT NULL, body TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS artifact_parts (sha256 TEXT NOT NULL, part INTEGER NOT NULL, bytes BLOB NOT NULL, PRIMARY KEY (sha256, part))",
    "CREATE TABLE IF NOT EXISTS artifacts (sha256 TEXT PRIMARY KEY, size INTEGER NOT NULL, parts INTEGER NOT NULL)",
  ],
  // v2: each row of events carries the run's status after it, so the run's
  // head (seq, hash, status, time) is its last row and an append writes one
  // row only. Rows written before hold null there; the meta row stands for them.
  ["ALTER TABLE events ADD COLUMN status TEXT"],
  // v3: rows are written lean (see above); rows written before are read as
  // they are, so nothing is rewritten. Forward only: code before v3 cannot
  // read a lean row.
  [],
];

/** The body of the row an append writes (from v3 on): its events, lean (src/store/lean.ts). */
function encodeRow(events: readonly JournalEvent[]): string {
  return JSON.stringify(encodeLean(events));
}

/** The events of a row keyed by `first`, from `from` on, pushed to `out`, whichever version wrote it. */
function decodeRow(body: string, first: number, from: number, out: JournalEvent[]): void {
  const held = JSON.parse(body) as JournalEvent | JournalEvent[] | LeanEvents;
  if (Array.isArray(held)) {
    for (const e of held) if (e.seq >= from) out.push(e);
  } else if ("e" in held && "h" in held) decodeLean(held, first, from, out);
  else if (held.seq >= from) out.push(held);
}

/** Rows stay well under the 2 MB row limit. */
export const ARTIFACT_PART_BYTES = 512 * 1024;
/** An import's events go in rows of about this many bytes of JSON (one append is one row; an import of a whole run is many). */
const IMPORT_ROW_BYTES = 512 * 1024;

type RunRecord = StoredRun;

export class RunSql {
  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly now: () => number,
  ) {
    const sql = storage.sql;
    sql.exec("CREATE TABLE IF NOT EXISTS schema_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)");
    const row = sql.exec<{ version: number }>("SELECT version FROM schema_version").toArray()[0];
    const from = row?.version ?? 0;
    storage.transactionSync(() => {
      for (let v = from; v < MIGRATIONS.length; v++) for (const stmt of MIGRATIONS[v]!) sql.exec(stmt);
      sql.exec("INSERT OR REPLACE INTO schema_version (id, version) VALUES (1, ?)", MIGRATIONS.length);
    });
  }

  /**
   * The meta rows as last read or written. This object is their only writer,
   * so the copy stays true; a transaction that throws drops it (its writes
   * were rolled back), and a reset object starts with none.
   */
  private readonly meta = new Map<string, unknown>();

  private get<T>(key: string): T | undefined {
    if (this.meta.has(key)) return this.meta.get(key) as T | undefined;
    const row = this.storage.sql.exec<{ v: string }>("SELECT v FROM meta WHERE k = ?", key).toArray()[0];
    const value = row === undefined ? undefined : (JSON.parse(row.v) as T);
    this.meta.set(key, value);
    return value;
  }

  private set(key: string, value: unknown): void {
    this.storage.sql.exec("INSERT OR REPLACE INTO meta (k, v) VALUES (?, ?)", key, JSON.stringify(value));
    this.meta.set(key, value);
  }

  private tx<T>(f: () => T): T {
    try {
      return this.storage.transactionSync(f);
    } catch (e) {
      this.meta.clear();
      throw e;
    }
  }

  /**
   * The run's record: the meta row (id, creation, fencing tokens), with its
   * head taken from the last row of events when that row says the status
   * (rows from v2 on). Held in memory once read.
   */
  private record(): RunRecord | undefined {
    if (this.meta.has("run")) return this.meta.get("run") as RunRecord | undefined;
    const stored = this.get<RunRecord>("run");
    if (stored === undefined) return undefined;
    const last = this.storage.sql.exec<{ seq: number; body: string; status: string | null }>("SELECT seq, body, status FROM events ORDER BY seq DESC LIMIT 1").toArray()[0];
    let r = stored;
    if (last !== undefined && last.status !== null) {
      const held: JournalEvent[] = [];
      decodeRow(last.body, last.seq, 0, held);
      const e = held[held.length - 1]!;
      r = { ...stored, seq: e.seq, head: e.hash, status: last.status as RunStatus, updatedAt: e.at };
    }
    this.meta.set("run", r);
    return r;
  }

  private run(runId: RunId): RunRecord {
    const r = this.record();
    if (r === undefined || r.runId !== runId) throw new StoreError("RUN_NOT_FOUND", `no run ${runId}`);
    return r;
  }

  /** The run this object holds, if any, with its custody when this object does not own it. */
  summary(): (RunHead & { indexedSeq: number; custody?: Custody }) | undefined {
    const r = this.record();
    if (r === undefined) return undefined;
    const custody = this.get<Custody>("custody");
    return {
      runId: r.runId,
      status: r.status,
      createdAt: r.createdAt,
      updatedAt: r.updatedAt,
      seq: r.seq,
      indexedSeq: this.get<number>("indexed_seq") ?? 0,
      ...(custody === undefined ? {} : { custody }),
    };
  }

  /** The run's custody here: undefined while this object owns it (isoagent/move). */
  custody(runId: RunId): Custody | undefined {
    this.run(runId);
    return this.get<Custody>("custody");
  }

  /** The task the run was created with. */
  task(): JsonValue | undefined {
    const row = this.storage.sql.exec<{ body: string }>("SELECT body FROM events WHERE seq = 1").toArray()[0];
    if (row === undefined) return undefined;
    const held: JournalEvent[] = [];
    decodeRow(row.body, 1, 1, held);
    return (held[0] as RunCreated).task;
  }

  markIndexed(seq: number): void {
    this.set("indexed_seq", seq);
  }

  /** Creates the run; `hosted` says whether this object's own host drives it (see {@link hosted}). */
  createRun(first: RunCreated, hosted = false): void {
    checkFirst(first);
    this.tx(() => {
      if (this.record() !== undefined) throw new StoreError("RUN_EXISTS", `run ${first.runId} already exists`);
      this.storage.sql.exec("INSERT INTO events (seq, body, status) VALUES (1, ?, 'running')", encodeRow([first]));
      this.set("hosted", hosted);
      this.set("run", { runId: first.runId, status: createdStatus(first), createdAt: first.at, updatedAt: first.at, seq: 1, head: first.hash, tokens: 0 } satisfies RunRecord);
    });
  }

  append(runId: RunId, events: readonly JournalEvent[], guard: AppendGuard, status: RunStatus): { seq: number; hash: string } {
    const r = this.run(runId);
    const sealed = planAppend(runId, { custody: this.get<Custody>("custody"), lease: this.get<Lease>("lease"), tokens: r.tokens, head: { seq: r.seq, hash: r.head } }, events, guard, this.now());
    if (sealed !== undefined) {
      // The seal ends this object's ownership of the run, and the mover's lease with it, in one transaction.
      return this.tx(() => {
        const head = this.insert(r, events, status);
        this.set("custody", sealed);
        this.storage.sql.exec("DELETE FROM meta WHERE k = 'lease'");
        this.meta.set("lease", undefined);
        return head;
      });
    }
    return this.insert(r, events, status);
  }

  private insert(r: RunRecord, events: readonly JournalEvent[], status: RunStatus): { seq: number; hash: string } {
    // One row per append, keyed by its first event's seq, lean, with the status after it.
    this.storage.sql.exec("INSERT INTO events (seq, body, status) VALUES (?, ?, ?)", events[0]!.seq, encodeRow(events), status);
    const last = events[events.length - 1]!;
    this.meta.set("run", { ...r, seq: last.seq, head: last.hash, status, updatedAt: last.at } satisfies RunRecord);
    return { seq: last.seq, hash: last.hash };
  }

  /**
   * Writes verified events of a run this object does not own (see the Store
   * port's importEvents): one transaction, in rows of about half a megabyte
   * (a whole run's import passes the 2 MB row limit).
   */
  importEvents(runId: RunId, events: readonly JournalEvent[], guard: ImportGuard, hosted: boolean): { seq: number; hash: string; custody: Custody | undefined } {
    return this.tx(() => {
      const stored = this.record();
      if (stored !== undefined && stored.runId !== runId) throw new StoreError("RUN_NOT_FOUND", `no run ${runId}`);
      const custody = this.get<Custody>("custody");
      // Before any write: it refuses own events that do not follow a seal naming this place.
      const { custody: next, tokens } = planImport(
        runId,
        stored === undefined ? undefined : { custody, head: { seq: stored.seq, hash: stored.head }, tokens: stored.tokens },
        events,
        guard,
        this.now(),
      );
      let batch: JournalEvent[] = [];
      let bytes = 0;
      const flush = (): void => {
        this.storage.sql.exec("INSERT INTO events (seq, body, status) VALUES (?, ?, ?)", batch[0]!.seq, encodeRow(batch), guard.status);
        batch = [];
        bytes = 0;
      };
      for (const e of events) {
        const size = JSON.stringify(e).length;
        if (batch.length > 0 && bytes + size > IMPORT_ROW_BYTES) flush();
        batch.push(e);
        bytes += size;
      }
      flush();
      const last = events[events.length - 1]!;
      const base: RunRecord = stored ?? { runId, status: guard.status, createdAt: events[0]!.at, updatedAt: last.at, seq: 0, head: "", tokens: 0 };
      if (stored === undefined) this.set("hosted", hosted);
      this.set("run", { ...base, seq: last.seq, head: last.hash, status: guard.status, updatedAt: last.at, tokens } satisfies RunRecord);
      if (next === undefined) {
        this.storage.sql.exec("DELETE FROM meta WHERE k = 'custody'");
        this.meta.set("custody", undefined);
      } else this.set("custody", next);
      return { seq: last.seq, hash: last.hash, custody: next };
    });
  }

  /** A run in transit here becomes a mirror (see the Store port's abandonTransit). */
  abandonTransit(runId: RunId): boolean {
    return this.tx(() => {
      const next = abandoned(this.custody(runId));
      if (next === undefined) return false;
      this.set("custody", next);
      return true;
    });
  }

  read(runId: RunId, fromSeq = 1): JournalEvent[] {
    this.run(runId);
    const from = Math.max(1, fromSeq);
    // From the row holding event `from`: the last one keyed at or before it.
    const rows = this.storage.sql.exec<{ seq: number; body: string }>("SELECT seq, body FROM events WHERE seq >= (SELECT max(seq) FROM events WHERE seq <= ?) ORDER BY seq", from);
    const out: JournalEvent[] = [];
    for (const row of rows) decodeRow(row.body, row.seq, from, out);
    return out;
  }

  /**
   * `breakStale` names owners known dead: a Durable Object is unique, so a
   * lease held by an earlier incarnation of its own host cannot still be in use.
   */
  acquireLease(runId: RunId, owner: string, ttlMs: number, breakStale?: (holder: string) => boolean): Lease | null {
    return this.tx(() => {
      const r = this.run(runId);
      checkOwned(runId, this.get<Custody>("custody"));
      const lease = leaseAcquire(this.get<Lease>("lease"), r.tokens, { runId, owner, ttlMs, now: this.now(), dead: breakStale });
      if (lease === null) return null;
      this.set("run", { ...r, tokens: lease.token });
      this.set("lease", lease);
      return lease;
    });
  }

  renewLease(lease: Lease, ttlMs: number): Lease | null {
    return this.tx(() => {
      const renewed = leaseRenew(this.get<Lease>("lease"), lease, ttlMs, this.now());
      if (renewed !== null) this.set("lease", renewed);
      return renewed;
    });
  }

  releaseLease(lease: Lease): void {
    this.tx(() => {
      if (leaseRelease(this.get<Lease>("lease"), lease)) {
        this.storage.sql.exec("DELETE FROM meta WHERE k = 'lease'");
        this.meta.set("lease", undefined);
      }
    });
  }

  lease(): Lease | undefined {
    return this.get<Lease>("lease");
  }

  /** The run's lease as the Store port shows it. */
  leaseView(runId: RunId): LeaseView | null {
    this.run(runId);
    return leaseView(this.get<Lease>("lease"));
  }

  /**
   * Whether this object's own host drives the run (its alarm resumes it), as
   * opposed to a driver elsewhere reaching it over RPC. Runs created before
   * the mark existed were all hosted by default.
   */
  hosted(): boolean {
    return this.get<boolean>("hosted") ?? true;
  }

  putSnapshot(runId: RunId, snapshot: Snapshot): void {
    this.tx(() => {
      this.run(runId);
      const current = this.storage.sql.exec<{ seq: number }>("SELECT seq FROM snapshot").toArray()[0];
      if (current !== undefined && current.seq >= snapshot.seq) return;
      this.storage.sql.exec("INSERT OR REPLACE INTO snapshot (id, seq, body) VALUES (1, ?, ?)", snapshot.seq, JSON.stringify(snapshot));
    });
  }

  getSnapshot(runId: RunId): Snapshot | null {
    this.run(runId);
    const row = this.storage.sql.exec<{ body: string }>("SELECT body FROM snapshot").toArray()[0];
    return row === undefined ? null : (JSON.parse(row.body) as Snapshot);
  }

  /** Artifacts are stored in parts under the row limit. */
  putArtifact(bytes: Uint8Array): ArtifactRef {
    const sha256 = sha256HexSync(bytes);
    this.tx(() => {
      if (this.storage.sql.exec("SELECT 1 FROM artifacts WHERE sha256 = ?", sha256).toArray().length > 0) return;
      const parts = Math.max(1, Math.ceil(bytes.length / ARTIFACT_PART_BYTES));
      for (let p = 0; p < parts; p++) {
        this.storage.sql.exec("INSERT INTO artifact_parts (sha256, part, bytes) VALUES (?, ?, ?)", sha256, p, bytes.slice(p * ARTIFACT_PART_BYTES, (p + 1) * ARTIFACT_PART_BYTES));
      }
      this.storage.sql.exec("INSERT INTO artifacts (sha256, size, parts) VALUES (?, ?, ?)", sha256, bytes.length, parts);
    });
    return { sha256, size: bytes.length };
  }

  getArtifact(sha256: string): Uint8Array | null {
    const meta = this.storage.sql.exec<{ size: number }>("SELECT size FROM artifacts WHERE sha256 = ?", sha256).toArray()[0];
    if (meta === undefined) return null;
    const out = new Uint8Array(meta.size);
    let at = 0;
    for (const row of this.storage.sql.exec<{ bytes: ArrayBuffer }>("SELECT bytes FROM artifact_parts WHERE sha256 = ? ORDER BY part", sha256)) {
      const part = new Uint8Array(row.bytes);
      out.set(part, at);
      at += part.length;
    }
    return out;
  }
}
