/**
 * The Store port on IndexedDB (through `idb`): a run's journal, lease,
 * snapshots and artifacts in one database that every tab of the origin
 * shares. The lease check and the append happen in one readwrite
 * transaction, with no await inside it but IndexedDB's own requests, so two
 * tabs can never both append for one run.
 *
 * An append writes one record (the journal's, see schema.ts) and reads one
 * (the run's, for its lease), in one round trip: the store remembers the head
 * of each run it last read or wrote, and the record's key (the run, the seq of
 * its first event) exists exactly when the journal moved past that head.
 * Appends of several runs that wait for the same commit share it (appender.ts).
 *
 * Nothing touches `indexedDB` at import time; the database opens on first use.
 */
import { openDB, unwrap, type IDBPDatabase, type IDBPTransaction } from "idb";
import type {
  Clock,
  JournalEvent,
  LeaseView,
  RunId,
  RunStatus,
  RunSummary,
  Store,
} from "../../src/index.js";
import { sha256HexSync } from "../../src/json/index.js";
import type { RunCreated } from "../../src/journal/index.js";
import {
  checkBatch,
  checkFirst,
  checkOwned,
  leaseAcquire,
  leaseRelease,
  leaseRenew,
  leaseView,
  StoreError,
  systemClock,
  taskTitle,
  type AppendGuard,
  type ArtifactRef,
  type Custody,
  type ImportGuard,
  type Lease,
  type RunFilter,
  type Snapshot,
} from "../../src/store/index.js";
import { abandoned, planImport } from "../../src/store/copies.js";
import { listing, planAppend } from "../../src/store/engine.js";
import { decodeLean } from "../../src/store/lean.js";
import { appender } from "./appender.js";
import { errorName, translate } from "./errors.js";
import { isStoreError } from "../../src/store/errors.js";
import { DB_VERSION, encodeRecord, headOf, recordAfter, upgrade, type IsoagentDB, type JournalRecord, type RunRecord } from "./schema.js";

/** How many runs' heads a store remembers for its appends. */
const KNOWN_RUNS = 4096;

/** Options of {@link idbStore}. */
export interface IdbStoreOptions {
  /** Database name (one per origin). Default "isoagent". */
  readonly name?: string;
  /**
   * "strict" (the default) resolves a write once it is flushed to disk;
   * "relaxed" once the browser has it, which is faster but can lose the last
   * writes on a power cut or an OS crash (not on a tab crash). The journal
   * promises that a call's start is durable before its effect: keep "strict"
   * unless every tool's effect is also lost with the machine.
   */
  readonly durability?: "strict" | "relaxed";
  /** The store's clock, which judges leases. Default: the system clock. */
  readonly clock?: Clock;
  /** Called after each transaction of appends with how many it committed together (for benchmarks and tests). */
  readonly onAppendCommit?: (appends: number) => void;
}

/** An IndexedDB store, with a way to close its connection. */
export interface IdbStore extends Store {
  close(): void;
}

type Tx = IDBPTransaction<IsoagentDB, ("runs" | "journal")[], "readwrite" | "readonly">;

/** A run's journal, as a key range: every record of the run. */
const runRange = (runId: string): IDBKeyRange => IDBKeyRange.bound([runId, 0], [runId, Number.MAX_SAFE_INTEGER]);

/** The run's head (its journal's last record), read in `tx`. */
async function tailOf(tx: Tx, runId: string): Promise<{ seq: number; hash: string; at: number; status: RunStatus } | undefined> {
  const cursor = await tx.objectStore("journal").openCursor(runRange(runId), "prev");
  return cursor === null ? undefined : headOf(cursor.value, cursor.key[1]);
}

/**
 * A {@link Store} on IndexedDB.
 *
 * @example
 * ```ts
 * import { idbStore } from "isoagent/idb"
 * const driver = createDriver({ store: idbStore(), agent, tools })
 * ```
 */
export function idbStore(options: IdbStoreOptions = {}): IdbStore {
  const name = options.name ?? "isoagent";
  const durability = options.durability ?? "strict";
  const clock = options.clock ?? systemClock;
  let opening: Promise<IDBPDatabase<IsoagentDB>> | undefined;
  let closed: string | undefined;

  const db = (): Promise<IDBPDatabase<IsoagentDB>> => {
    if (closed !== undefined) return Promise.reject(new StoreError("STORE_CLOSED", closed));
    opening ??= (async () => {
      if ((globalThis as { indexedDB?: IDBFactory }).indexedDB === undefined) throw new StoreError("STORE_UNAVAILABLE", "IndexedDB is not available here");
      return new Promise<IDBPDatabase<IsoagentDB>>((resolve, reject) => {
        let refused = false;
        openDB<IsoagentDB>(name, DB_VERSION, {
          upgrade: (database, oldVersion, newVersion, tx) => upgrade(database, oldVersion, newVersion ?? DB_VERSION, tx),
          // An older tab holds the database open at an older version.
          blocked: () => {
            refused = true;
            reject(new StoreError("STORE_BLOCKED", `database ${name} cannot be upgraded while another tab keeps an older version open; close the other tabs`));
          },
          // Another tab upgrades or deletes it: let go, and refuse from now on.
          blocking: () => {
            closed = `database ${name} was closed because another tab is upgrading or deleting it; reload the page`;
            void opening?.then((d) => d.close());
          },
          terminated: () => {
            closed = `database ${name} was closed by the browser`;
          },
        }).then(
          // Opened after all (the other tab closed): this store already said
          // it was blocked, so it lets the connection go.
          (d) => (refused ? d.close() : resolve(d)),
          reject,
        );
      });
    })();
    opening.catch(() => {
      opening = undefined;
    });
    return opening;
  };

  // The head of each run this store last read or wrote: an append that
  // follows it is written on trust (the record's key proves it still is the
  // head); anything else is judged on the head read in its transaction.
  const known = new Map<string, { seq: number; hash: string }>();
  const remember = (runId: string, head: { seq: number; hash: string }): void => {
    known.delete(runId);
    known.set(runId, { seq: head.seq, hash: head.hash });
    if (known.size > KNOWN_RUNS) known.delete(known.keys().next().value!);
  };

  const writer = appender({
    database: async () => {
      const d = await db();
      if (closed !== undefined) throw new StoreError("STORE_CLOSED", closed);
      return unwrap(d);
    },
    durability,
    clock,
    ...(options.onAppendCommit === undefined ? {} : { onCommit: options.onAppendCommit }),
  });

  /** The append judged on the run's record and head as its own transaction reads them. */
  const appendCarefully = async (runId: RunId, events: readonly JournalEvent[], guard: AppendGuard, status: RunStatus): Promise<{ seq: number; hash: string }> => {
    const d = await db();
    const tx = d.transaction(["runs", "journal"], "readwrite", { durability });
    // Only IndexedDB's own requests are awaited inside the transaction.
    const [run, head] = await Promise.all([tx.objectStore("runs").get(runId), tailOf(tx, runId)]);
    let next: RunRecord | undefined;
    try {
      if (run === undefined || head === undefined) throw new StoreError("RUN_NOT_FOUND", `no run ${runId}`);
      remember(runId, head);
      next = recordAfter(run, events, guard, status, planAppend(runId, { custody: run.custody, lease: run.lease, tokens: run.tokens, head }, events, guard, clock.now()));
    } catch (refusal) {
      tx.abort();
      await tx.done.catch(() => {});
      throw refusal;
    }
    const last = events[events.length - 1]!;
    void tx.objectStore("journal").add(encodeRecord(events, status), [runId, events[0]!.seq]);
    if (next !== undefined) void tx.objectStore("runs").put(next);
    await tx.done;
    remember(runId, last);
    return { seq: last.seq, hash: last.hash };
  };

  const summary = (r: RunRecord, tail: { seq: number; at: number; status: RunStatus } | undefined): RunSummary => ({
    ...(tail === undefined
      ? { runId: r.runId, status: r.status, createdAt: r.createdAt, updatedAt: r.updatedAt, seq: r.seq, lease: leaseView(r.lease) }
      : { runId: r.runId, status: tail.status, createdAt: r.createdAt, updatedAt: tail.at, seq: tail.seq, lease: leaseView(r.lease) }),
    ...(r.title === undefined ? {} : { title: r.title }),
    ...(r.custody === undefined ? {} : { custody: r.custody }),
  });

  // Appends are told to this store's watchers at once, and to the stores of
  // the same database in other tabs (and workers) over a BroadcastChannel.
  const watchers = new Map<RunId, Set<() => void>>();
  const tell = (runId: RunId): void => {
    for (const w of watchers.get(runId) ?? []) {
      try {
        w();
      } catch {
        // A watcher's failure is its own.
      }
    }
  };
  let channel: BroadcastChannel | undefined;
  const bus = (): BroadcastChannel | undefined => {
    if (channel === undefined && closed === undefined && typeof BroadcastChannel === "function") {
      channel = new BroadcastChannel(`isoagent-idb:${name}`);
      channel.onmessage = (m: MessageEvent<unknown>) => {
        if (typeof m.data === "string") tell(m.data as RunId);
      };
      // (In Node, an open channel would keep the process alive.)
      (channel as { unref?: () => void }).unref?.();
    }
    return channel;
  };
  /** Tells this store's watchers, and the other tabs' stores, that the run grew. */
  const grew = (runId: RunId): void => {
    tell(runId);
    bus()?.postMessage(runId);
  };

  const store: IdbStore = {
    async createRun(first: RunCreated): Promise<void> {
      checkFirst(first);
      const d = await db();
      try {
        // Both records are added: a run that exists makes the first add fail, and the transaction with it.
        const tx = d.transaction(["runs", "journal"], "readwrite", { durability });
        const run: RunRecord = { runId: first.runId, status: "running", createdAt: first.at, updatedAt: first.at, seq: 1, tokens: 0, title: taskTitle(first.task) };
        let exists = false;
        const taken = (e: unknown): void => {
          if (errorName(e) === "ConstraintError") exists = true;
        };
        tx.objectStore("runs").add(run).catch(taken);
        tx.objectStore("journal").add(encodeRecord([first], "running"), [first.runId, 1]).catch(taken);
        try {
          await tx.done;
        } catch (e) {
          if (exists) throw new StoreError("RUN_EXISTS", `run ${first.runId} already exists`);
          throw e;
        }
        remember(first.runId, first);
      } catch (e) {
        translate(e, `creating run ${first.runId}`);
      }
    },

    async append(runId: RunId, events: readonly JournalEvent[], guard: AppendGuard, status: RunStatus): Promise<{ seq: number; hash: string }> {
      try {
        const head = known.get(runId);
        let trusted = head !== undefined;
        if (head !== undefined) {
          // Only a batch that follows the remembered head is written on trust;
          // anything else is judged on the head read in its own transaction.
          try {
            checkBatch(runId, events, guard, head);
          } catch {
            trusted = false;
          }
        }
        if (trusted && head !== undefined) {
          const r = await writer.append({ runId, events, guard, status, head });
          if (r.kind === "refused") throw r.error;
          if (r.kind === "written") {
            const last = events[events.length - 1]!;
            remember(runId, last);
            return { seq: last.seq, hash: last.hash };
          }
          known.delete(runId);
        }
        return await appendCarefully(runId, events, guard, status);
      } catch (e) {
        if (closed !== undefined && !isStoreError(e)) throw new StoreError("STORE_CLOSED", closed, { cause: e });
        return translate(e, `appending to run ${runId}`);
      }
    },

    async importEvents(runId: RunId, events: readonly JournalEvent[], guard: ImportGuard): Promise<{ seq: number; hash: string; custody: Custody | undefined }> {
      const d = await db();
      try {
        const tx = d.transaction(["runs", "journal"], "readwrite", { durability });
        // Only IndexedDB's own requests are awaited inside the transaction; the head is the journal's tail (v4).
        const [run, head] = await Promise.all([tx.objectStore("runs").get(runId), tailOf(tx, runId)]);
        let next: RunRecord;
        const last = events[events.length - 1]!;
        try {
          const { custody, tokens } = planImport(runId, run === undefined ? undefined : { custody: run.custody, head: { seq: head?.seq ?? 0, hash: head?.hash ?? "" }, tokens: run.tokens }, events, guard, clock.now());
          const first = events[0]!;
          const base: RunRecord = run ?? { runId, status: guard.status, createdAt: first.at, updatedAt: 0, seq: 0, tokens: 0, ...(first.type === "run.created" ? { title: taskTitle(first.task) } : {}) };
          const { custody: _c, ...rest } = base;
          next = { ...rest, seq: last.seq, status: guard.status, updatedAt: last.at, tokens, ...(custody === undefined ? {} : { custody }) };
        } catch (refusal) {
          tx.abort();
          await tx.done.catch(() => {});
          throw refusal;
        }
        // One lean record, as an append writes it, and the run's record (its custody).
        void tx.objectStore("journal").add(encodeRecord(events, guard.status), [runId, events[0]!.seq]);
        void tx.objectStore("runs").put(next);
        await tx.done;
        remember(runId, last);
        return { seq: last.seq, hash: last.hash, custody: next.custody };
      } catch (e) {
        return translate(e, `importing into run ${runId}`);
      }
    },

    async custody(runId: RunId): Promise<Custody | undefined> {
      const d = await db();
      try {
        const run = await d.get("runs", runId);
        if (run === undefined) throw new StoreError("RUN_NOT_FOUND", `no run ${runId}`);
        return run.custody;
      } catch (e) {
        return translate(e, `reading the custody of run ${runId}`);
      }
    },

    async abandonTransit(runId: RunId): Promise<boolean> {
      const d = await db();
      try {
        const tx = d.transaction("runs", "readwrite", { durability });
        const run = await tx.store.get(runId);
        const custody = abandoned(run?.custody);
        if (run === undefined || custody === undefined) {
          await tx.done;
          if (run === undefined) throw new StoreError("RUN_NOT_FOUND", `no run ${runId}`);
          return false;
        }
        void tx.store.put({ ...run, custody } satisfies RunRecord);
        await tx.done;
        return true;
      } catch (e) {
        return translate(e, `abandoning the transit of run ${runId}`);
      }
    },

    async read(runId: RunId, fromSeq = 1): Promise<JournalEvent[]> {
      const d = await db();
      try {
        const tx = d.transaction(["runs", "journal"], "readonly");
        const from = Math.max(1, fromSeq);
        const journal = tx.objectStore("journal");
        // The record holding event `from` is the last one keyed at or before it.
        const [run, holder] = await Promise.all([tx.objectStore("runs").get(runId), from === 1 ? null : journal.openKeyCursor(IDBKeyRange.bound([runId, 0], [runId, from]), "prev")]);
        if (run === undefined) throw new StoreError("RUN_NOT_FOUND", `no run ${runId}`);
        // Records are contiguous: each starts where the one before it ends.
        let first = holder === null ? 1 : holder.key[1];
        const rows: JournalRecord[] = await journal.getAll(IDBKeyRange.bound([runId, first], [runId, Number.MAX_SAFE_INTEGER]));
        const out: JournalEvent[] = [];
        for (const row of rows) {
          decodeLean(row, first, from, out);
          first += row.e.length;
        }
        const last = rows[rows.length - 1];
        if (last !== undefined) remember(runId, headOf(last, first - last.e.length));
        return out;
      } catch (e) {
        return translate(e, `reading run ${runId}`);
      }
    },

    async acquireLease(runId: RunId, owner: string, ttlMs: number): Promise<Lease | null> {
      const d = await db();
      try {
        const tx = d.transaction("runs", "readwrite", { durability });
        const run = await tx.store.get(runId);
        const lease = run === undefined || run.custody !== undefined ? null : leaseAcquire(run.lease, run.tokens, { runId, owner, ttlMs, now: clock.now() });
        if (run === undefined || lease === null) {
          tx.abort();
          await tx.done.catch(() => {});
          if (run === undefined) throw new StoreError("RUN_NOT_FOUND", `no run ${runId}`);
          checkOwned(runId, run.custody);
          return null;
        }
        void tx.store.put({ ...run, tokens: lease.token, lease });
        await tx.done;
        return lease;
      } catch (e) {
        return translate(e, `taking the lease of run ${runId}`);
      }
    },

    async renewLease(lease: Lease, ttlMs: number): Promise<Lease | null> {
      const d = await db();
      try {
        const tx = d.transaction("runs", "readwrite", { durability });
        const run = await tx.store.get(lease.runId);
        const renewed = run === undefined ? null : leaseRenew(run.lease, lease, ttlMs, clock.now());
        if (run === undefined || renewed === null) {
          tx.abort();
          await tx.done.catch(() => {});
          return null;
        }
        void tx.store.put({ ...run, lease: renewed });
        await tx.done;
        return renewed;
      } catch (e) {
        return translate(e, `renewing the lease of run ${lease.runId}`);
      }
    },

    async releaseLease(lease: Lease): Promise<void> {
      const d = await db();
      try {
        // The run's record is made exact again from its journal's tail: with
        // no lease in it, listing trusts it.
        const tx = d.transaction(["runs", "journal"], "readwrite", { durability });
        const [run, tail] = await Promise.all([tx.objectStore("runs").get(lease.runId), tailOf(tx, lease.runId)]);
        if (run !== undefined && leaseRelease(run.lease, lease)) {
          const { lease: _gone, ...rest } = run;
          void tx.objectStore("runs").put(tail === undefined ? rest : { ...rest, status: tail.status, seq: tail.seq, updatedAt: tail.at });
        }
        await tx.done;
      } catch (e) {
        translate(e, `releasing the lease of run ${lease.runId}`);
      }
    },

    async lease(runId: RunId): Promise<LeaseView | null> {
      const d = await db();
      try {
        const run = await d.get("runs", runId);
        if (run === undefined) throw new StoreError("RUN_NOT_FOUND", `no run ${runId}`);
        return leaseView(run.lease);
      } catch (e) {
        return translate(e, `reading the lease of run ${runId}`);
      }
    },

    async listRuns(filter: RunFilter = {}): Promise<RunSummary[]> {
      const d = await db();
      try {
        const tx = d.transaction(["runs", "journal"], "readonly");
        const runs = await tx.objectStore("runs").getAll();
        // A run whose record keeps a lease may have appended since the
        // record was written: its journal's tail says where it is.
        const tails = await Promise.all(runs.map((r) => (r.lease === undefined ? Promise.resolve(undefined) : tailOf(tx, r.runId))));
        return listing(runs.map((r, k) => summary(r, tails[k])), filter);
      } catch (e) {
        return translate(e, "listing runs");
      }
    },

    async putArtifact(bytes: Uint8Array): Promise<ArtifactRef> {
      const sha256 = sha256HexSync(bytes);
      const d = await db();
      try {
        const tx = d.transaction("artifacts", "readwrite", { durability });
        if ((await tx.store.getKey(sha256)) === undefined) void tx.store.put({ sha256, bytes: bytes.slice() });
        await tx.done;
        return { sha256, size: bytes.length };
      } catch (e) {
        return translate(e, "storing an artifact");
      }
    },

    async getArtifact(sha256: string): Promise<Uint8Array | null> {
      const d = await db();
      try {
        const row = await d.get("artifacts", sha256);
        return row === undefined ? null : new Uint8Array(row.bytes);
      } catch (e) {
        return translate(e, "reading an artifact");
      }
    },

    async putSnapshot(runId: RunId, snapshot: Snapshot): Promise<void> {
      const d = await db();
      try {
        // Relaxed whatever the store's durability: a snapshot is a cache of
        // the journal up to an event the journal already holds durably (the
        // driver takes it after that append resolved), and the resume that
        // reads it checks it against the journal (loadState). Lost to a power
        // cut, the resume reads the journal from the previous snapshot (or
        // the first event); it can never stand for events that were lost.
        // One round trip: the put is queued with the reads, and undone when
        // the run is unknown or a newer snapshot is already kept.
        const tx = d.transaction(["runs", "snapshots"], "readwrite", { durability: "relaxed" });
        let missing = false;
        const checked = Promise.all([tx.objectStore("runs").getKey(runId), tx.objectStore("snapshots").get(runId)]).then(([run, current]) => {
          missing = run === undefined;
          if (missing || (current !== undefined && current.seq >= snapshot.seq)) tx.abort();
        });
        tx.objectStore("snapshots")
          .put({ ...snapshot, runId })
          .catch(() => {});
        await checked;
        await tx.done.catch((e: unknown) => {
          if (errorName(e) !== "AbortError") throw e;
        });
        if (missing) throw new StoreError("RUN_NOT_FOUND", `no run ${runId}`);
      } catch (e) {
        translate(e, `storing a snapshot of run ${runId}`);
      }
    },

    async getSnapshot(runId: RunId): Promise<Snapshot | null> {
      const d = await db();
      try {
        const tx = d.transaction(["runs", "snapshots"], "readonly");
        const [run, row] = await Promise.all([tx.objectStore("runs").getKey(runId), tx.objectStore("snapshots").get(runId)]);
        if (run === undefined) throw new StoreError("RUN_NOT_FOUND", `no run ${runId}`);
        if (row === undefined) return null;
        const { runId: _r, ...snapshot } = row;
        return snapshot;
      } catch (e) {
        return translate(e, `reading the snapshot of run ${runId}`);
      }
    },

    close(): void {
      closed = `the store of database ${name} was closed`;
      channel?.close();
      void opening?.then((d) => d.close());
    },
  };
  return {
    ...store,
    async append(runId, events, guard, status) {
      const head = await store.append(runId, events, guard, status);
      grew(runId);
      return head;
    },
    async importEvents(runId, events, guard) {
      const head = await store.importEvents!(runId, events, guard);
      grew(runId);
      return head;
    },
    watch(runId, listener) {
      bus();
      const set = watchers.get(runId) ?? new Set();
      watchers.set(runId, set.add(listener));
      return () => {
        if (set.delete(listener) && set.size === 0) watchers.delete(runId);
      };
    },
  };
}
