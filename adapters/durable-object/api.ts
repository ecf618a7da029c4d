/**
 * What a run object answers over RPC, and the types its callers share (the
 * Store client, the HTTP backend, the index's sweep). The bindings that name
 * the index are in bindings.ts, which the index does not import.
 */
import type { ApprovalAnswer, ApprovalId, JournalEvent, JsonValue, LeaseView, RunId, RunOutcome, RunState, RunStatus, Settlement, StepProgress, UserMessage } from "../../src/index.js";
import type { RunCreated } from "../../src/journal/index.js";
import type { AppendGuard, ArtifactRef, Custody, ImportGuard, Lease, Snapshot } from "../../src/store/index.js";
import type { ImportResult } from "../../src/move/index.js";
import type { Wire } from "./wire.js";

/** The run objects' namespace: what {@link runObject} takes a run's stub from. */
export type RunNamespace = DurableObjectNamespace<RunObjectApi & Rpc.DurableObjectBranded>;

/** An operator's operation on a hosted run, for fault injection. */
export type OperatorOp = "approve" | "deny" | "settle" | "cancel" | "send" | "stop" | "regenerate" | "close";

/**
 * The await points of an operator's operation on a hosted run, in order:
 * before anything, after the alarm is armed, after the answer is appended
 * (before the index hears of it), after the index heard, after the drive
 * was started (before the caller is answered).
 */
export type OperatorPoint = "begin" | "armed" | "appended" | "reported" | "driving";

/**
 * Where the crash tests may reset a run object (or hold it): an operator's
 * operation at one of its await points, or a drive that has finished its
 * pass (before it looks whether it must go round again).
 */
export type HostFaultPoint = `${OperatorOp}/${OperatorPoint}` | "drive/finished" | MoveFaultPoint;

/** Where the crash tests may reset a run object in a move: after an import's write (before its answer), after a seal (before its answer). */
export type MoveFaultPoint = "move/imported" | "move/sealed";

/** What a run object says of its run when asked by the index's sweep or a check. */
export interface RunCheck {
  readonly runId: RunId;
  readonly status: RunStatus;
  readonly seq: number;
  readonly updatedAt: number;
  readonly lease: LeaseView | null;
  /** When the object's alarm is set for, or null when none is. */
  readonly alarmAt: number | null;
  /** Whether the object's own host drives the run (else a driver elsewhere does). */
  readonly hosted: boolean;
  /** The object's clock when it answered. */
  readonly now: number;
  /**
   * Runnable (running) with no live lease for longer than the grace period,
   * and, when hosted, no alarm due within it: nothing will ever drive it.
   */
  readonly stranded: boolean;
  /** What the check did about it, when asked to heal: "reported" (the index was behind), "armed" (the alarm was set). */
  readonly healed: readonly ("reported" | "armed")[];
}

/** The RPC surface of a run object (store, host, artifacts). */
export interface RunObjectApi {
  storeCreateRun(first: RunCreated): Promise<Wire<null>>;
  storeAppend(runId: RunId, events: readonly JournalEvent[], guard: AppendGuard, status: RunStatus): Promise<Wire<{ seq: number; hash: string }>>;
  storeRead(runId: RunId, fromSeq: number): Promise<Wire<JournalEvent[]>>;
  storeImportEvents(runId: RunId, events: readonly JournalEvent[], guard: ImportGuard): Promise<Wire<{ seq: number; hash: string; custody: Custody | undefined }>>;
  /** The run's custody (null: this object owns it). */
  storeCustody(runId: RunId): Promise<Wire<Custody | null>>;
  storeAbandonTransit(runId: RunId): Promise<Wire<boolean>>;
  /** The run as its bundle's bytes, from `fromSeq` (isoagent/move). */
  moveExport(runId: RunId, fromSeq: number): Promise<Wire<ReadableStream<Uint8Array>>>;
  /** Imports a bundle into this object's copy of its run; a bundle handing the run here makes this object drive it. */
  moveImport(
    body: ReadableStream<Uint8Array>,
    options: { role: "mirror" | "in_transit"; runId?: string; maxBytes: number },
  ): Promise<Wire<Omit<ImportResult, "custody"> & { custody: Custody | undefined }>>;
  /** Seals the run here in favour of the place `to`. */
  moveRelease(runId: RunId, to: string): Promise<Wire<{ seq: number; epoch: number }>>;
  storeAcquireLease(runId: RunId, owner: string, ttlMs: number): Promise<Wire<Lease | null>>;
  storeRenewLease(lease: Lease, ttlMs: number): Promise<Wire<Lease | null>>;
  storeReleaseLease(lease: Lease): Promise<Wire<null>>;
  storeLease(runId: RunId): Promise<Wire<LeaseView | null>>;
  storePutSnapshot(runId: RunId, snapshot: Snapshot): Promise<Wire<null>>;
  storeGetSnapshot(runId: RunId): Promise<Wire<Snapshot | null>>;
  storeConfirm(): Promise<Wire<null>>;
  artifactPut(bytes: Uint8Array): Promise<Wire<ArtifactRef>>;
  artifactGet(sha256: string): Promise<Wire<Uint8Array | null>>;
  host(runId: RunId, task: JsonValue, options?: { conversation?: boolean; outputSchema?: JsonValue }): Promise<Wire<RunId>>;
  hostState(runId: RunId): Promise<Wire<RunState>>;
  hostApprove(runId: RunId, approvalId: ApprovalId, answer: ApprovalAnswer): Promise<Wire<null>>;
  hostDeny(runId: RunId, approvalId: ApprovalId, answer: ApprovalAnswer): Promise<Wire<null>>;
  hostSettle(runId: RunId, approvalId: ApprovalId, answer: Settlement): Promise<Wire<null>>;
  hostCancel(runId: RunId, options: { by: string; reason?: string }): Promise<Wire<null>>;
  /** A conversation's message, and the controls of its turns (v5): the host's driver runs them, so a stop reaches the turn it drives. */
  hostSend(runId: RunId, message: UserMessage, options: { by: string }): Promise<Wire<{ seq: number; duplicate: boolean }>>;
  hostStopTurn(runId: RunId, options: { by: string }): Promise<Wire<{ status: RunStatus }>>;
  hostRegenerate(runId: RunId, options: { by: string }): Promise<Wire<null>>;
  hostClose(runId: RunId, options: { by: string; reason?: string }): Promise<Wire<null>>;
  /** What the hosted run's agent has streamed so far in the step it decides (not journaled). */
  hostProgress(runId: RunId): Promise<Wire<StepProgress | null>>;
  /** Why the hosted run could not be driven the last time it was tried (its tools changed shape, ...), or null. */
  hostProblem(runId: RunId): Promise<Wire<{ code: string; message: string } | null>>;
  /**
   * The run's journal from `fromSeq` on as a live SSE body (isoagent/http's
   * `journalStream`), held by this object and pushed as it appends, with a
   * ping every `keepAliveMs` while nothing changes.
   */
  hostStream(runId: RunId, fromSeq: number, keepAliveMs: number): Promise<Wire<ReadableStream<Uint8Array>>>;
  /** The live event streams open on this object; this incarnation's appends, and the journal reads its streams made. */
  hostStreams(): Promise<Wire<{ open: number; appends: number; reads: number }>>;
  /** Drives the hosted run now (tests; the alarm does it otherwise). */
  hostDrive(): Promise<Wire<RunOutcome | null>>;
  /**
   * The run's lease, alarm and status, judged stranded or not after `graceMs`
   * (default 0); with `heal`, an index that is behind is told, and a
   * stranded hosted run's alarm is set. Null when the object holds no run.
   */
  hostCheck(options: { heal: boolean; graceMs?: number }): Promise<Wire<RunCheck | null>>;
}

/**
 * A run object's stub, typed by its API (Workers' RPC stub types recurse too
 * deep on a run's state for the compiler; the values are the same).
 */
export function runObject(ns: RunNamespace, name: string): RunObjectApi {
  return ns.getByName(name) as unknown as RunObjectApi;
}

/** The shard object that keeps an artifact: by the first two hex digits of its SHA-256. */
export function artifactShard(sha256: string): string {
  return `artifacts:${sha256.slice(0, 2)}`;
}
