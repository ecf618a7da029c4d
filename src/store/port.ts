/**
 * The Store port: where a run's journal, lease, snapshots and artifacts live.
 * Every store (memory, IndexedDB, Durable Object) passes the same
 * conformance suite (`runStoreConformance` in isoagent/testkit).
 */
import { IsoagentError, type IsoagentErrorCode } from "../errors.js";
import type { RunId } from "../ids.js";
import type { JournalEvent, RunCreated, RunState, RunStatus } from "../journal/index.js";

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
}

/**
 * What an append must match. `expectedSeq` is the seq of the last event the
 * writer has seen. With `lease`, the lease must be the run's current,
 * unexpired one. Without it (an operator's answer, a cancellation), only
 * {@link OPERATOR_EVENT_TYPES} may be appended.
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
   * new, larger token.
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
}

/** The codes a store refuses with. */
export const STORE_ERROR_CODES = [
  "JOURNAL_CONFLICT",
  "LEASE_NOT_HELD",
  "RUN_EXISTS",
  "RUN_NOT_FOUND",
  "STORE_INVALID_APPEND",
  "STORE_UNAVAILABLE",
  "STORE_QUOTA_EXCEEDED",
  "STORE_BLOCKED",
  "STORE_CLOSED",
] as const satisfies readonly IsoagentErrorCode[];

export type StoreErrorCode = (typeof STORE_ERROR_CODES)[number];

/**
 * Store errors after which a driver must stop (the store cannot take writes
 * now), as opposed to the refusals it handles (a conflict, a lost lease).
 */
export const STORE_FAILURE_CODES: ReadonlySet<StoreErrorCode> = new Set(["STORE_UNAVAILABLE", "STORE_QUOTA_EXCEEDED", "STORE_BLOCKED", "STORE_CLOSED"]);

/** A store's refusal. For JOURNAL_CONFLICT, `actualSeq` is where the journal is. */
export class StoreError extends IsoagentError {
  declare readonly code: StoreErrorCode;
  readonly actualSeq: number | undefined;
  constructor(code: StoreErrorCode, message: string, details: { actualSeq?: number; cause?: unknown } = {}) {
    super(code, message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = "StoreError";
    this.actualSeq = details.actualSeq;
  }
}
