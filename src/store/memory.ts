/**
 * The in-memory store: the embedded default, used by tests, demos and
 * scripts. Events are kept as JSON text (one stringify per append, as a
 * persistent store would serialise them), so nothing a caller holds can
 * change what is stored, and every read returns fresh objects.
 */
import { systemClock, type Clock } from "../clock.js";
import type { RunId } from "../ids.js";
import { sha256HexSync } from "../json/index.js";
import { createdStatus, type JournalEvent, type RunCreated, type RunStatus } from "../journal/index.js";
import { checkFirst, leaseAcquire, leaseRelease, leaseRenew, leaseView, taskTitle } from "./checks.js";
import { checkOwned, type Custody } from "./custody.js";
import { listing, planAppend } from "./engine.js";
import { StoreError, type AppendGuard, type ArtifactRef, type Lease, type LeaseView, type RunFilter, type RunSummary, type Snapshot, type Store } from "./port.js";

/** @internal A memory store's record of a run (isoagent/move writes copies into it: see {@link MEMORY_STORES}). */
export interface RunRecord {
  events: string[];
  title: string;
  head: { seq: number; hash: string };
  status: RunStatus;
  createdAt: number;
  updatedAt: number;
  /** Absent or undefined: no lease is kept. */
  lease?: Lease | undefined;
  tokens: number;
  /** The latest snapshot, as JSON text (a read can never alias it). */
  snapshot?: { seq: number; text: string } | undefined;
  /** Absent while this store owns the run (see custody.ts). */
  custody?: Custody | undefined;
}

/** Options of {@link memoryStore}. */
export interface MemoryStoreOptions {
  /** The store's clock, which judges lease expiry. Default: the system clock. */
  readonly clock?: Clock;
}

/**
 * @internal Each memory store's runs, its clock and its writer, for
 * isoagent/move, which gives a memory store the copy operations of the Store
 * port (`importEvents`, `abandonTransit`: see `movable`), so that the core
 * carries only the refusals every store must make.
 */
export const MEMORY_STORES = new WeakMap<Store, { runs: Map<RunId, RunRecord>; clock: Clock; write(r: RunRecord, events: readonly JournalEvent[], status: RunStatus): void }>();

/**
 * A {@link Store} in memory.
 *
 * @example
 * ```ts
 * const store = memoryStore()
 * const driver = createDriver({ store, agent, tools })
 * ```
 */
export function memoryStore(options: MemoryStoreOptions = {}): Store {
  const clock = options.clock ?? systemClock;
  const runs = new Map<RunId, RunRecord>();
  const artifacts = new Map<string, Uint8Array>();
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

  const write = (r: RunRecord, events: readonly JournalEvent[], status: RunStatus): void => {
    for (const e of events) r.events.push(JSON.stringify(e));
    const last = events[events.length - 1]!;
    r.head = { seq: last.seq, hash: last.hash };
    r.status = status;
    r.updatedAt = last.at;
  };

  const record = (runId: RunId): RunRecord => {
    const r = runs.get(runId);
    if (r === undefined) throw new StoreError("RUN_NOT_FOUND", `no run ${runId}`);
    return r;
  };

  const store: Store = {
    async createRun(first: RunCreated): Promise<void> {
      checkFirst(first);
      if (runs.has(first.runId)) throw new StoreError("RUN_EXISTS", `run ${first.runId} already exists`);
      runs.set(first.runId, {
        events: [JSON.stringify(first)],
        title: taskTitle(first.task),
        head: { seq: first.seq, hash: first.hash },
        status: createdStatus(first),
        createdAt: first.at,
        updatedAt: first.at,
        tokens: 0,
      });
    },

    async append(runId: RunId, events: readonly JournalEvent[], guard: AppendGuard, status: RunStatus): Promise<{ seq: number; hash: string }> {
      const r = record(runId);
      const sealed = planAppend(runId, r, events, guard, clock.now());
      write(r, events, status);
      if (sealed !== undefined) {
        r.custody = sealed;
        r.lease = undefined;
      }
      tell(runId);
      return { ...r.head };
    },

    watch(runId, listener) {
      const set = watchers.get(runId) ?? new Set();
      watchers.set(runId, set.add(listener));
      return () => {
        if (set.delete(listener) && set.size === 0) watchers.delete(runId);
      };
    },

    custody: async (runId) => record(runId).custody,

    async read(runId: RunId, fromSeq = 1): Promise<JournalEvent[]> {
      return record(runId)
        .events.slice(Math.max(0, fromSeq - 1))
        .map((t) => JSON.parse(t) as JournalEvent);
    },

    async acquireLease(runId: RunId, owner: string, ttlMs: number): Promise<Lease | null> {
      const r = record(runId);
      checkOwned(runId, r.custody);
      const lease = leaseAcquire(r.lease, r.tokens, { runId, owner, ttlMs, now: clock.now() });
      if (lease !== null) {
        r.tokens = lease.token;
        r.lease = lease;
      }
      return lease;
    },

    async renewLease(lease: Lease, ttlMs: number): Promise<Lease | null> {
      const r = record(lease.runId);
      const renewed = leaseRenew(r.lease, lease, ttlMs, clock.now());
      if (renewed !== null) r.lease = renewed;
      return renewed;
    },

    async releaseLease(lease: Lease): Promise<void> {
      const r = runs.get(lease.runId);
      if (leaseRelease(r?.lease, lease)) r!.lease = undefined;
    },

    async lease(runId: RunId): Promise<LeaseView | null> {
      return leaseView(record(runId).lease);
    },

    async listRuns(filter: RunFilter = {}): Promise<RunSummary[]> {
      const all: RunSummary[] = [];
      for (const [runId, r] of runs)
        all.push({
          runId,
          status: r.status,
          createdAt: r.createdAt,
          updatedAt: r.updatedAt,
          seq: r.events.length,
          title: r.title,
          lease: leaseView(r.lease),
          ...(r.custody === undefined ? {} : { custody: r.custody }),
        });
      return listing(all, filter);
    },

    async putArtifact(bytes: Uint8Array): Promise<ArtifactRef> {
      const sha256 = sha256HexSync(bytes);
      if (!artifacts.has(sha256)) artifacts.set(sha256, bytes.slice());
      return { sha256, size: bytes.length };
    },

    async getArtifact(sha256: string): Promise<Uint8Array | null> {
      const bytes = artifacts.get(sha256);
      return bytes === undefined ? null : bytes.slice();
    },

    async putSnapshot(runId: RunId, snapshot: Snapshot): Promise<void> {
      const r = record(runId);
      if (r.snapshot !== undefined && r.snapshot.seq >= snapshot.seq) return;
      r.snapshot = { seq: snapshot.seq, text: JSON.stringify(snapshot) };
    },

    async getSnapshot(runId: RunId): Promise<Snapshot | null> {
      const snapshot = record(runId).snapshot;
      return snapshot === undefined ? null : (JSON.parse(snapshot.text) as Snapshot);
    },
  };
  MEMORY_STORES.set(store, { runs, clock, write });
  return store;
}
