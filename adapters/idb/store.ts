/**
 * The Store port on IndexedDB (through `idb`): a run's journal, lease,
 * snapshots and artifacts in one database that every tab of the origin
 * shares. The lease check and the append happen in one readwrite
 * transaction, with no await inside it but IndexedDB's own requests, so two
 * tabs can never both append for one run.
 *
 * Nothing touches `indexedDB` at import time; the database opens on first use.
 */
import { openDB, type IDBPDatabase } from "idb";
import {
  checkBatch,
  checkFirst,
  checkLease,
  sha256HexSync,
  StoreError,
  systemClock,
  type AppendGuard,
  type ArtifactRef,
  type Clock,
  type JournalEvent,
  type Lease,
  type RunCreated,
  type RunFilter,
  type RunId,
  type RunStatus,
  type RunSummary,
  type Snapshot,
  type Store,
} from "../../src/index.js";
import { DB_VERSION, upgrade, type IsoagentDB, type RunRecord } from "./schema.js";

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

  const summary = (r: RunRecord): RunSummary => ({ runId: r.runId as RunId, status: r.status, createdAt: r.createdAt, updatedAt: r.updatedAt, seq: r.seq });

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
        void runs.put({ runId: first.runId, status: "running", createdAt: first.at, updatedAt: first.at, seq: 1, head: first.hash, tokens: 0 });
        void tx.objectStore("events").put({ runId: first.runId, seq: 1, event: first });
        await tx.done;
      } catch (e) {
        translate(e, `creating run ${first.runId}`);
      }
    },

    async append(runId: RunId, events: readonly JournalEvent[], guard: AppendGuard, status: RunStatus): Promise<{ seq: number; hash: string }> {
      const d = await db();
      try {
        const tx = d.transaction(["runs", "events", "leases"], "readwrite", { durability });
        // Only IndexedDB's own requests are awaited inside the transaction.
        const [run, lease] = await Promise.all([tx.objectStore("runs").get(runId), tx.objectStore("leases").get(runId)]);
        try {
          if (run === undefined) throw new StoreError("RUN_NOT_FOUND", `no run ${runId}`);
          checkLease(runId, guard, lease, clock.now());
          checkBatch(runId, events, guard, { seq: run.seq, hash: run.head });
        } catch (refusal) {
          tx.abort();
          await tx.done.catch(() => {});
          throw refusal;
        }
        const store = tx.objectStore("events");
        for (const e of events) void store.add({ runId, seq: e.seq, event: e });
        const last = events[events.length - 1]!;
        void tx.objectStore("runs").put({ ...run, seq: last.seq, head: last.hash, status, updatedAt: last.at });
        await tx.done;
        return { seq: last.seq, hash: last.hash };
      } catch (e) {
        return translate(e, `appending to run ${runId}`);
      }
    },

    async read(runId: RunId, fromSeq = 1): Promise<JournalEvent[]> {
      const d = await db();
      try {
        const tx = d.transaction(["runs", "events"], "readonly");
        if ((await tx.objectStore("runs").get(runId)) === undefined) throw new StoreError("RUN_NOT_FOUND", `no run ${runId}`);
        const rows = await tx.objectStore("events").getAll(IDBKeyRange.bound([runId, Math.max(1, fromSeq)], [runId, Number.MAX_SAFE_INTEGER]));
        return rows.map((r) => r.event);
      } catch (e) {
        return translate(e, `reading run ${runId}`);
      }
    },

    async acquireLease(runId: RunId, owner: string, ttlMs: number): Promise<Lease | null> {
      const d = await db();
      try {
        const tx = d.transaction(["runs", "leases"], "readwrite", { durability });
        const [run, current] = await Promise.all([tx.objectStore("runs").get(runId), tx.objectStore("leases").get(runId)]);
        const now = clock.now();
        if (run === undefined || (current !== undefined && current.expiresAt > now && current.owner !== owner)) {
          tx.abort();
          await tx.done.catch(() => {});
          if (run === undefined) throw new StoreError("RUN_NOT_FOUND", `no run ${runId}`);
          return null;
        }
        const lease: Lease = { runId, owner, token: run.tokens + 1, expiresAt: now + ttlMs };
        void tx.objectStore("runs").put({ ...run, tokens: lease.token });
        void tx.objectStore("leases").put(lease);
        await tx.done;
        return lease;
      } catch (e) {
        return translate(e, `taking the lease of run ${runId}`);
      }
    },

    async renewLease(lease: Lease, ttlMs: number): Promise<Lease | null> {
      const d = await db();
      try {
        const tx = d.transaction("leases", "readwrite", { durability });
        const current = await tx.store.get(lease.runId);
        const now = clock.now();
        if (current === undefined || current.token !== lease.token || current.expiresAt <= now) {
          tx.abort();
          await tx.done.catch(() => {});
          return null;
        }
        const renewed: Lease = { ...current, expiresAt: now + ttlMs };
        void tx.store.put(renewed);
        await tx.done;
        return renewed;
      } catch (e) {
        return translate(e, `renewing the lease of run ${lease.runId}`);
      }
    },

    async releaseLease(lease: Lease): Promise<void> {
      const d = await db();
      try {
        const tx = d.transaction("leases", "readwrite", { durability });
        const current = await tx.store.get(lease.runId);
        if (current !== undefined && current.token === lease.token) void tx.store.delete(lease.runId);
        await tx.done;
      } catch (e) {
        translate(e, `releasing the lease of run ${lease.runId}`);
      }
    },

    async listRuns(filter: RunFilter = {}): Promise<RunSummary[]> {
      const d = await db();
      try {
        const out: RunSummary[] = [];
        let cursor = await d.transaction("runs").store.index("byUpdated").openCursor(null, "prev");
        while (cursor !== null && (filter.limit === undefined || out.length < filter.limit)) {
          if (filter.status === undefined || filter.status.includes(cursor.value.status)) out.push(summary(cursor.value));
          cursor = await cursor.continue();
        }
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
        const tx = d.transaction(["runs", "snapshots"], "readwrite", { durability: "relaxed" });
        const [run, current] = await Promise.all([tx.objectStore("runs").get(runId), tx.objectStore("snapshots").get(runId)]);
        if (run === undefined) {
          tx.abort();
          await tx.done.catch(() => {});
          throw new StoreError("RUN_NOT_FOUND", `no run ${runId}`);
        }
        if (current === undefined || current.seq < snapshot.seq) void tx.objectStore("snapshots").put({ ...snapshot, runId });
        await tx.done;
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
      void opening?.then((d) => d.close());
    },
  };
}
