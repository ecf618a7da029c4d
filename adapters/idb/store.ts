/**
 * The Store port on IndexedDB (through `idb`): a run's journal, lease,
 * snapshots and artifacts in one database that every tab of the origin
 * shares. The lease check and the append happen in one readwrite
 * transaction, with no await inside it but IndexedDB's own requests, so two
 * tabs can never both append for one run. An append is one record however
 * many events it holds, and its checks read one record (the run's, where the
 * lease lives) without holding the writes back.
 *
 * Nothing touches `indexedDB` at import time; the database opens on first use.
 */
import { openDB, type IDBPDatabase } from "idb";
import {
  checkBatch,
  checkFirst,
  checkLease,
  checkOwned,
  checkSeal,
  leaseAcquire,
  leaseRelease,
  leaseRenew,
  leaseView,
  listedAfter,
  sha256HexSync,
  StoreError,
  systemClock,
  taskTitle,
  type AppendGuard,
  type ArtifactRef,
  type Clock,
  type Custody,
  type ImportGuard,
  type JournalEvent,
  type Lease,
  type LeaseView,
  type RunCreated,
  type RunFilter,
  type RunId,
  type RunStatus,
  type RunSummary,
  type Snapshot,
  type Store,
} from "../../src/index.js";
import { checkImport, custodyAfterImport, tokensAfter } from "../../src/store/copies.js";
import { DB_VERSION, eventsOf, upgrade, type IsoagentDB, type RunRecord } from "./schema.js";

/** How many runs' records a store remembers for its appends. */
const KNOWN_RUNS = 64;

/** Whether two records of a run are the same (the lease included). */
function sameRun(a: RunRecord, b: RunRecord): boolean {
  return (
    a.seq === b.seq &&
    a.head === b.head &&
    a.status === b.status &&
    a.tokens === b.tokens &&
    a.updatedAt === b.updatedAt &&
    a.createdAt === b.createdAt &&
    a.lease?.token === b.lease?.token &&
    a.lease?.owner === b.lease?.owner &&
    a.lease?.expiresAt === b.lease?.expiresAt &&
    JSON.stringify(a.custody) === JSON.stringify(b.custody)
  );
}

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
}

/** An IndexedDB store, with a way to close its connection. */
export interface IdbStore extends Store {
  close(): void;
}

function translate(e: unknown, what: string): never {
  if (e instanceof StoreError) throw e;
  const name = typeof e === "object" && e !== null ? (e as { name?: unknown }).name : undefined;
  if (name === "QuotaExceededError") throw new StoreError("STORE_QUOTA_EXCEEDED", `${what}: the browser's storage quota is exhausted; nothing was written`, { cause: e });
  if (name === "InvalidStateError" || name === "TransactionInactiveError") {
    throw new StoreError("STORE_CLOSED", `${what}: the database connection is closed (another tab upgraded or deleted it); reload the page`, { cause: e });
  }
  throw new StoreError("STORE_UNAVAILABLE", `${what}: IndexedDB failed (${typeof name === "string" ? name : "unknown error"}); nothing was written`, { cause: e });
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

  // The run records this store last read or wrote, so an append can write
  // without first waiting for the record: it reads the record in the same
  // transaction, and when it differs from the remembered one (another tab
  // appended or took the lease) aborts and appends the careful way.
  const known = new Map<string, RunRecord>();
  const remember = (run: RunRecord): void => {
    known.delete(run.runId);
    known.set(run.runId, run);
    if (known.size > KNOWN_RUNS) known.delete(known.keys().next().value!);
  };
  const judge = (run: RunRecord, events: readonly JournalEvent[], guard: AppendGuard): void => {
    checkOwned(run.runId, run.custody);
    checkLease(run.runId, guard, run.lease, clock.now());
    checkBatch(run.runId, events, guard, { seq: run.seq, hash: run.head });
  };
  /** The run's record after an append; a seal (run.moved) ends the run's ownership here, and its lease with it. */
  const advanced = (run: RunRecord, events: readonly JournalEvent[], status: RunStatus): RunRecord => {
    const last = events[events.length - 1]!;
    const sealed = checkSeal(run.runId, events, run.tokens);
    if (sealed === undefined) return { ...run, seq: last.seq, head: last.hash, status, updatedAt: last.at };
    const { lease: _gone, ...rest } = run;
    return { ...rest, seq: last.seq, head: last.hash, status, updatedAt: last.at, custody: sealed };
  };

  /**
   * The append in one round trip: the run's record is read and the writes are
   * queued at once; the checks run when the read answers, before the
   * transaction can commit, and abort it when they fail. Undefined when the
   * remembered record was stale (nothing written).
   */
  const appendOnTrust = async (d: IDBPDatabase<IsoagentDB>, cached: RunRecord, events: readonly JournalEvent[], guard: AppendGuard, status: RunStatus): Promise<{ seq: number; hash: string } | undefined> => {
    // (A seal refused against the remembered record's tokens is refused against the real one too: tokens only grow.)
    const next = advanced(cached, events, status);
    const tx = d.transaction(["runs", "events"], "readwrite", { durability });
    let refusal: unknown;
    let stale = false;
    const checked = tx
      .objectStore("runs")
      .get(cached.runId)
      .then((run) => {
        if (run === undefined || !sameRun(run, cached)) stale = true;
        else {
          try {
            judge(run, events, guard);
            return;
          } catch (e) {
            refusal = e;
          }
        }
        tx.abort();
      });
    tx.objectStore("events")
      .add({ runId: cached.runId, seq: events[0]!.seq, events: [...events] })
      .catch(() => {});
    tx.objectStore("runs")
      .put(next)
      .catch(() => {});
    try {
      await checked;
    } catch (e) {
      // The read itself failed: the transaction aborts with it.
      tx.done.catch(() => {});
      throw e;
    }
    try {
      await tx.done;
    } catch (e) {
      if (!stale && refusal === undefined) throw e;
    }
    if (refusal !== undefined) throw refusal;
    if (stale) {
      known.delete(cached.runId);
      return undefined;
    }
    remember(next);
    return { seq: next.seq, hash: next.head };
  };

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

  const appendOnce = async (runId: RunId, events: readonly JournalEvent[], guard: AppendGuard, status: RunStatus): Promise<{ seq: number; hash: string }> => {
    const d = await db();
    try {
      const cached = known.get(runId);
      if (cached !== undefined && events.length > 0) {
        const head = await appendOnTrust(d, cached, events, guard, status);
        if (head !== undefined) return head;
      }
      const tx = d.transaction(["runs", "events"], "readwrite", { durability });
      // Only IndexedDB's own requests are awaited inside the transaction.
      const run = await tx.objectStore("runs").get(runId);
      let next: RunRecord;
      try {
        if (run === undefined) throw new StoreError("RUN_NOT_FOUND", `no run ${runId}`);
        remember(run);
        judge(run, events, guard);
        next = advanced(run, events, status);
      } catch (refusal) {
        tx.abort();
        await tx.done.catch(() => {});
        throw refusal;
      }
      void tx.objectStore("events").add({ runId, seq: events[0]!.seq, events: [...events] });
      void tx.objectStore("runs").put(next);
      await tx.done;
      remember(next);
      return { seq: next.seq, hash: next.head };
    } catch (e) {
      return translate(e, `appending to run ${runId}`);
    }
  };

  const summary = (r: RunRecord): RunSummary => ({ runId: r.runId, status: r.status, createdAt: r.createdAt, updatedAt: r.updatedAt, seq: r.seq, ...(r.title === undefined ? {} : { title: r.title }), lease: leaseView(r.lease), ...(r.custody === undefined ? {} : { custody: r.custody }) });

  return {
    async createRun(first: RunCreated): Promise<void> {
      checkFirst(first);
      const d = await db();
      try {
        const tx = d.transaction(["runs", "events"], "readwrite", { durability });
        const runs = tx.objectStore("runs");
        if ((await runs.get(first.runId)) !== undefined) {
          tx.abort();
          await tx.done.catch(() => {});
          throw new StoreError("RUN_EXISTS", `run ${first.runId} already exists`);
        }
        const run: RunRecord = { runId: first.runId, status: "running", createdAt: first.at, updatedAt: first.at, seq: 1, head: first.hash, tokens: 0, title: taskTitle(first.task) };
        void runs.put(run);
        void tx.objectStore("events").put({ runId: first.runId, seq: 1, events: [first] });
        await tx.done;
        remember(run);
      } catch (e) {
        translate(e, `creating run ${first.runId}`);
      }
    },

    async append(runId: RunId, events: readonly JournalEvent[], guard: AppendGuard, status: RunStatus): Promise<{ seq: number; hash: string }> {
      const head = await appendOnce(runId, events, guard, status);
      tell(runId);
      bus()?.postMessage(runId);
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

    async importEvents(runId: RunId, events: readonly JournalEvent[], guard: ImportGuard): Promise<{ seq: number; hash: string; custody: Custody | undefined }> {
      const d = await db();
      try {
        const tx = d.transaction(["runs", "events"], "readwrite", { durability });
        // Only IndexedDB's own requests are awaited inside the transaction.
        const run = await tx.objectStore("runs").get(runId);
        let next: RunRecord;
        try {
          checkImport(runId, run === undefined ? undefined : { custody: run.custody, seq: run.seq, hash: run.head }, events, guard.expectedSeq);
          const last = events[events.length - 1]!;
          const custody = custodyAfterImport(run?.custody, events, guard.role, guard.here, clock.now());
          const base: RunRecord = run ?? { runId, status: guard.status, createdAt: events[0]!.at, updatedAt: 0, seq: 0, head: "", tokens: 0 };
          const { custody: _c, ...rest } = base;
          next = { ...rest, seq: last.seq, head: last.hash, status: guard.status, updatedAt: last.at, tokens: tokensAfter(base.tokens, events), ...(custody === undefined ? {} : { custody }) };
        } catch (refusal) {
          tx.abort();
          await tx.done.catch(() => {});
          throw refusal;
        }
        void tx.objectStore("events").add({ runId, seq: events[0]!.seq, events: [...events] });
        void tx.objectStore("runs").put(next);
        await tx.done;
        remember(next);
        return { seq: next.seq, hash: next.head, custody: next.custody };
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
        if (run === undefined || run.custody?.role !== "in_transit") {
          await tx.done;
          if (run === undefined) throw new StoreError("RUN_NOT_FOUND", `no run ${runId}`);
          return false;
        }
        const next: RunRecord = { ...run, custody: { role: "mirror", received: run.custody.received } };
        void tx.store.put(next);
        await tx.done;
        remember(next);
        return true;
      } catch (e) {
        return translate(e, `abandoning the transit of run ${runId}`);
      }
    },

    async read(runId: RunId, fromSeq = 1): Promise<JournalEvent[]> {
      const d = await db();
      try {
        const tx = d.transaction(["runs", "events"], "readonly");
        const run = await tx.objectStore("runs").get(runId);
        if (run === undefined) throw new StoreError("RUN_NOT_FOUND", `no run ${runId}`);
        remember(run);
        const from = Math.max(1, fromSeq);
        const store = tx.objectStore("events");
        // The record holding event `from` is keyed by its batch's first seq, at or before it.
        const holder = from === 1 ? null : await store.openKeyCursor(IDBKeyRange.bound([runId, 0], [runId, from]), "prev");
        const rows = await store.getAll(IDBKeyRange.bound([runId, holder === null ? from : holder.key[1]], [runId, Number.MAX_SAFE_INTEGER]));
        const out: JournalEvent[] = [];
        for (const row of rows) for (const e of eventsOf(row)) if (e.seq >= from) out.push(e);
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
          remember(run);
          return null;
        }
        const next: RunRecord = { ...run, tokens: lease.token, lease };
        void tx.store.put(next);
        await tx.done;
        remember(next);
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
        const next: RunRecord = { ...run, lease: renewed };
        void tx.store.put(next);
        await tx.done;
        remember(next);
        return renewed;
      } catch (e) {
        return translate(e, `renewing the lease of run ${lease.runId}`);
      }
    },

    async releaseLease(lease: Lease): Promise<void> {
      const d = await db();
      try {
        const tx = d.transaction("runs", "readwrite", { durability });
        const run = await tx.store.get(lease.runId);
        if (run !== undefined && leaseRelease(run.lease, lease)) {
          const { lease: _gone, ...next } = run;
          void tx.store.put(next);
          await tx.done;
          remember(next);
        } else await tx.done;
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
        const out: RunSummary[] = [];
        const limit = filter.limit ?? Number.POSITIVE_INFINITY;
        // Newest first; runs updated at the same moment by run id, which the
        // index gives in reverse under "prev": each such group is gathered,
        // then listed in order.
        let group: RunRecord[] = [];
        const list = (): void => {
          for (const r of group.reverse()) {
            if (out.length < limit && (filter.status === undefined || filter.status.includes(r.status)) && listedAfter(r, filter.before)) out.push(summary(r));
          }
          group = [];
        };
        const range = filter.before === undefined ? null : IDBKeyRange.upperBound(filter.before.updatedAt);
        let cursor = await d.transaction("runs").store.index("byUpdated").openCursor(range, "prev");
        while (cursor !== null && out.length < limit) {
          if (group.length > 0 && group[0]!.updatedAt !== cursor.value.updatedAt) list();
          group.push(cursor.value);
          cursor = await cursor.continue();
        }
        list();
        return out;
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
          if ((e as { name?: unknown } | null)?.name !== "AbortError") throw e;
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
        if ((await tx.objectStore("runs").get(runId)) === undefined) throw new StoreError("RUN_NOT_FOUND", `no run ${runId}`);
        const row = await tx.objectStore("snapshots").get(runId);
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
}
