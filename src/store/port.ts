/**
 * The Store port: where a run's journal, lease, snapshots and artifacts live.
 * Every store (memory, IndexedDB, Durable Object) passes the same
 * conformance suite (`runStoreConformance` in isoagent/testkit).
 */
import type { StoreError } from "./errors.js";
import type { RunId } from "../ids.js";
import type { JournalEvent, RunCreated, RunState, RunStatus } from "../journal/index.js";
import type { Custody } from "./custody.js";

/**
 * The right of one driver to advance a run. `token` is the fencing token:
 * strictly increasing per run with every acquisition, so a stale holder's
 * token is always smaller than the current one. `expiresAt` is by the
 * store's clock, never the driver's.
 */
export interface Lease {
  readonly runId: RunId;
  readonly owner: string;
  readonly token: number;
  readonly expiresAt: number;
  /**
   * Set by the acquisition that replaced a lease nobody released (its
   * holder stopped driving without letting go: a crash, a kill, a stall past
   * the lease), as that lease was: what bounded recovery counts.
   */
  readonly took?: LeaseView;
}

/**
 * What an append must match. `expectedSeq` is the seq of the last event the
 * writer has seen. With `lease`, the lease must be the run's current,
 * unexpired one. Without it (an operator's answer, a cancellation), only
 * `OPERATOR_EVENT_TYPES` (isoagent/journal) may be appended.
 */
export interface AppendGuard {
  readonly expectedSeq: number;
  readonly lease?: Lease | undefined;
}

/**
 * Who holds a run's lease, and until when, by the store's clock. The lease
 * is store state, not journal state: a run's state (`reduce(events)`) never
 * carries it. `expiresAt` in the past (by the store's clock) means the lease
 * expired then and nobody has taken the run since.
 */
export interface LeaseView {
  /** The holder's owner name (a driver's `owner`, `host:<id>` for a Durable Object's own host, a tab's name). */
  readonly holder: string;
  readonly expiresAt: number;
}

/** A run's head: what is listed of it beside its lease. */
export interface RunHead {
  readonly runId: RunId;
  readonly status: RunStatus;
  readonly createdAt: number;
  readonly updatedAt: number;
  /** The seq of the last event. */
  readonly seq: number;
  /** The first line of the run's task ({@link taskTitle}), for lists; absent for runs a store listed before it kept one. */
  readonly title?: string | undefined;
}

/** A run as listed: its head, and its lease as the store keeps it (null when none is held or it was released). */
export interface RunSummary extends RunHead {
  readonly lease: LeaseView | null;
  /** Present when this store does not own the run: a read-only mirror, a copy in transit, or a run that moved away (see {@link Custody}). */
  readonly custody?: Custody;
}

/**
 * What a persistent store keeps of a run beside its events (the IndexedDB
 * and Durable Object stores do): its head, the hash of its last event,
 * and the last fencing token handed out.
 */
export interface StoredRun extends RunHead {
  readonly head: string;
  readonly tokens: number;
}

/** Filter for {@link Store.listRuns}. */
export interface RunFilter {
  readonly status?: readonly RunStatus[] | undefined;
  readonly limit?: number | undefined;
  /**
   * Only the runs listed after this one (the last of the previous page): a
   * listing's order is the most recently updated first, then by run id.
   */
  readonly before?: { readonly updatedAt: number; readonly runId: RunId } | undefined;
}

/** A run's state at an event, so that resuming does not replay from the first event. */
export interface Snapshot {
  readonly seq: number;
  readonly hash: string;
  readonly state: RunState;
}

/** Content stored by its SHA-256. */
export interface ArtifactRef {
  readonly sha256: string;
  readonly size: number;
}

/**
 * Where runs live: each run's journal (appended under its lease, hash-chained),
 * its lease, its snapshots and its artifacts. Every adapter (memory, IndexedDB,
 * Durable Objects) passes the same conformance suite (isoagent/testkit).
 */
export interface Store {
  /** Creates a run with its first event (`run.created`, seq 1). RUN_EXISTS if the id is taken. */
  createRun(first: RunCreated): Promise<void>;
  /**
   * Appends sealed events atomically (all or none), after `guard.expectedSeq`,
   * each linking to the previous hash. Refused with a {@link StoreError}:
   * LEASE_NOT_HELD (stale or expired lease, checked first), JOURNAL_CONFLICT
   * (the journal moved), RUN_NOT_FOUND, STORE_INVALID_APPEND (not a chain, or
   * a non-operator event without a lease). `status` is the run's status after
   * the events, for listing.
   */
  append(runId: RunId, events: readonly JournalEvent[], guard: AppendGuard, status: RunStatus): Promise<{ seq: number; hash: string }>;
  /** Events from `fromSeq` (default 1) to the end; RUN_NOT_FOUND for an unknown run. */
  read(runId: RunId, fromSeq?: number): Promise<JournalEvent[]>;
  /**
   * Takes the run's lease for `ttlMs` (by the store's clock) when nobody holds
   * it unexpired, or `owner` itself does; null otherwise. Every success gets a
   * new, larger token, and `took` when it replaced a lease never released.
   */
  acquireLease(runId: RunId, owner: string, ttlMs: number): Promise<Lease | null>;
  /** Extends a lease still held (same token, unexpired); null when it is lost. */
  renewLease(lease: Lease, ttlMs: number): Promise<Lease | null>;
  /** Gives a lease up (no-op if it is no longer held). */
  releaseLease(lease: Lease): Promise<void>;
  /**
   * The run's lease as the store keeps it: who holds it and until when (by
   * the store's clock; in the past once expired), or null when none was
   * taken or it was released. RUN_NOT_FOUND for an unknown run.
   */
  lease(runId: RunId): Promise<LeaseView | null>;
  /** Runs, most recently updated first (then by run id), each with its lease and title. */
  listRuns(filter?: RunFilter): Promise<RunSummary[]>;
  /** Stores bytes by their SHA-256 (idempotent). */
  putArtifact(bytes: Uint8Array): Promise<ArtifactRef>;
  getArtifact(sha256: string): Promise<Uint8Array | null>;
  /** Keeps the latest snapshot of a run (an older one than kept is ignored). */
  putSnapshot(runId: RunId, snapshot: Snapshot): Promise<void>;
  getSnapshot(runId: RunId): Promise<Snapshot | null>;
  /**
   * Resolves once everything appended so far is durable, for stores whose
   * append can resolve earlier (a Durable Object's storage, confirmed by its
   * output gate or by `sync()`). The driver calls it after journaling a
   * call's start and before a side effect. Absent: append is durable when it
   * resolves.
   */
  confirm?(): Promise<void>;
  /**
   * Calls `listener` after each append to the run that this store object
   * took, in this process, whoever made it (any driver sharing the store,
   * an operator's answer), until the returned function is called. A signal
   * to read again, not the events. Optional: with it, a live event stream
   * (isoagent/http) hears every driver that shares the store; without it,
   * only the driver that serves the stream (`Driver.watch`).
   * `memoryStore` has it.
   */
  watch?(runId: RunId, listener: () => void): () => void;

  // ---- moves (isoagent/move): optional, so that a store written before them
  // still compiles; a store without them cannot take part in a move or a
  // mirror, and fails those cases of the conformance suite. A store that has
  // them also refuses, in `append` and `acquireLease`, every run it does not
  // own (RUN_MOVED, RUN_IN_TRANSIT, RUN_MIRROR), and takes a `run.moved`
  // appended with the lease as the seal that ends its ownership.

  /**
   * Writes events of a run this store does not own, verified by the caller
   * (isoagent/move's importRun verifies a bundle before it writes): all or
   * none. `guard.expectedSeq` 0 creates the run from its `run.created`;
   * otherwise the events follow that seq of a copy (a mirror, a run in
   * transit, a run that moved away). Refused with a {@link StoreError}:
   * RUN_OWNED (this store owns the run: its journal grows by its own
   * appends only), RUN_EXISTS (expectedSeq 0 for a run this store has),
   * JOURNAL_CONFLICT, RUN_NOT_FOUND, STORE_INVALID_APPEND (not a chain).
   * The run's custody after it is `custodyAfterImport`'s (shared by every
   * store), and the store's fencing counter rises to the largest token or
   * epoch the events carry, so a lease this store hands out later is above
   * every one the journal names.
   */
  importEvents?(runId: RunId, events: readonly JournalEvent[], guard: ImportGuard): Promise<{ seq: number; hash: string; custody: Custody | undefined }>;
  /** The run's custody here: undefined when this store owns the run. RUN_NOT_FOUND for an unknown run. */
  custody?(runId: RunId): Promise<Custody | undefined>;
  /**
   * Rolls a copy in transit back to a mirror (a move its source gave up, or
   * a destination that stops waiting): it never makes this store the owner,
   * and a seal naming this store, imported later, still does. False when
   * the run is not in transit here.
   */
  abandonTransit?(runId: RunId): Promise<boolean>;
}

/** What an {@link Store.importEvents} must match, and what the copy is. */
export interface ImportGuard {
  /** The seq of the copy's last event; 0 to create the run. */
  readonly expectedSeq: number;
  /** The run's status after the events, for listing. */
  readonly status: RunStatus;
  /** What the copy is when the events do not hand the run to this store: a read-only mirror, or a run in transit here. */
  readonly role: "mirror" | "in_transit";
  /** This store's place name: events ending with a `run.moved` to it make this store the run's owner. */
  readonly here?: string | undefined;
  /**
   * How many of the events, at the end, are this store's own, written as it
   * takes the run over (the destination's decisions on calls that no place
   * it trusts vouched for: isoagent/move): the event before them must be
   * the seal naming `here`. Default 0.
   */
  readonly own?: number;
  /** The copy's events up to this seq are vouched for (kept in its custody, see {@link Custody}); never lowers what the custody holds. */
  readonly vouched?: number;
}

export { STORE_ERROR_CODES, STORE_FAILURE_CODES, StoreError, type StoreErrorCode } from "./errors.js";
