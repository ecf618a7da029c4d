/**
 * A run's state as the journal tells it: its status, its current step and
 * calls, its approvals, what the agent is shown, and (v5) where its
 * conversation is. Plain JSON, so a snapshot holds it as is; reduce.ts
 * builds it from the events.
 */
import type { ApprovalId, CallId, RunId } from "../ids.js";
import type { JsonValue } from "../json/index.js";
import type { Permission } from "../vocabulary.js";
import type { ApprovalRequest, Decision, Limits, Observation, TranscriptEntry, TurnEndReason } from "./parts.js";

/**
 * Where a run is. `waiting`: only an operator's answer can move it on.
 * `idle` (v5): a conversation between turns, waiting for its user's next
 * message.
 */
export type RunStatus = "running" | "waiting" | "idle" | "completed" | "failed" | "cancelled";

/** Every status. */
export const RUN_STATUSES: readonly RunStatus[] = ["running", "waiting", "idle", "completed", "failed", "cancelled"];

/** How many of the artifacts a run named last its state keeps at hand. */
export const ARTIFACTS_KEPT = 256;

/** The terminal statuses. */
export const TERMINAL_STATUSES: ReadonlySet<RunStatus> = new Set(["completed", "failed", "cancelled"]);

/** Where one call of the current step is. */
export type CallStatus =
  | "pending" // decided, not yet through policy
  | "awaiting_approval" // an operator must approve it
  | "approved" // may start (again)
  | "started" // started, outcome not journaled
  | "awaiting_reconciliation" // interrupted side effect: an operator must settle it
  | "done"; // observed

/** One call of the current step as the journal tells it: its status, its attempts, its permission and approval, and its observation once there is one. */
export interface CallState {
  readonly callId: CallId;
  readonly name: string;
  /** The raw argument text, as decided. */
  readonly args: string;
  status: CallStatus;
  permission?: Permission;
  /** The policy identity the permission was decided under (v2). */
  policyVersion?: string;
  /** Why the call was decided again, when it was (call.reopened, v2): told to the operator asked next. */
  reopened?: string;
  /** Attempts started so far (0 before the first); of a call found started, each was interrupted. */
  attempt: number;
  /** When the last attempt started, by its writer's clock (v4). */
  startedAt?: number;
  idempotencyKey?: string;
  approvalId?: ApprovalId;
  observation?: Observation;
  /** Set when the outcome arrived after the run was cancelled. */
  late?: boolean;
}

/** The current step: the model's decision and each of its calls; `done` once every call is observed. */
export interface StepState {
  readonly step: number;
  readonly decision: Decision;
  readonly calls: CallState[];
  /** Every call observed. */
  done: boolean;
}

/** One approval request of the run, by its id: the request, its hash, and the answer once there is one. */
export interface ApprovalState {
  readonly approvalId: ApprovalId;
  readonly request: ApprovalRequest;
  readonly requestHash: string;
  /** `voided`: the call was decided again (call.reopened) before it started. */
  status: "pending" | "approved" | "denied" | "voided";
  by?: string;
  reason?: string;
  /** A person's answer, for a request that wants one. */
  answer?: string;
}

/** What the agent is shown: built as the journal grows, never re-derived. */
export type TranscriptItem = TranscriptEntry;

/** A run's state, reduced from its journal (`reduce`, `apply`): plain JSON, so a snapshot holds it as is. */
export interface RunState {
  readonly v: 1;
  readonly runId: RunId;
  status: RunStatus;
  /** Sequence and hash of the last event applied. */
  seq: number;
  hash: string;
  readonly createdAt: number;
  /** The hash of `run.created`: what the run's trace id is derived from (isoagent/otel). */
  readonly createdHash: string;
  updatedAt: number;
  readonly task: JsonValue;
  readonly tools: readonly { readonly name: string; readonly specHash: string }[];
  readonly limits: Limits;
  /** The last decided step (0 before the first). */
  step: number;
  current: StepState | null;
  consecutiveFailures: number;
  approvals: Record<string, ApprovalState>;
  transcript: TranscriptItem[];
  /**
   * Set on a state a snapshot of an earlier version held without its
   * transcript: such a snapshot is not used (the state is reduced from the
   * journal instead).
   */
  transcriptPartial?: true;
  /**
   * Set on a state from a snapshot that left the transcript out (a driver
   * with no context budget, whose transcript grows with the run, snapshots
   * so): `transcript` holds only the items after the snapshot. The driver
   * rebuilds the whole transcript from the journal before it asks the agent
   * or compacts; a resume that only waits never pays for it.
   */
  transcriptOmitted?: true;
  /**
   * The input tokens of the last model answer, and how many transcript items
   * its request held (v2): the context budget's exact starting point (after
   * a compaction, the compaction's estimate of the transcript it left).
   */
  lastUsage?: { input: number; items: number };
  /**
   * The artifacts this run's journal named most recently (truncated outputs,
   * elided ones), at most {@link ARTIFACTS_KEPT}: what `read_artifact`
   * serves without reading the journal. An older one is found by
   * `journalNames` (isoagent/journal), so a snapshot does not grow with the run.
   */
  artifacts: string[];
  output?: JsonValue;
  failure?: { reason: string; detail: string };
  cancelled?: { by: string; reason?: string };
  owner?: { owner: string; token: number };
  /**
   * Resumes that took the run over from a drive that never released it
   * (`run.resumed` with `took`, v4), since the last decision, call outcome
   * (`call.finished`, or one a reconciliation recorded) or operator's
   * answer (`approval.resolved`): what
   * `recovery.maxResumesWithoutProgress` bounds. Absent when none.
   */
  takeovers?: number;
  /** The last move of the run's ownership (run.moved, v3): where it went, from where, at which event, under which epoch. */
  moved?: { from: string; to: string; epoch: number; seq: number };
  /** Set on a conversation (v5): where it is. */
  conversation?: ConversationState;
  /** Who closed a conversation (run.closed, v5). */
  closed?: { by: string; reason?: string };
  /** The JSON Schema the run's final answer must match (run.created, v5). */
  outputSchema?: JsonValue;
}

/**
 * Where a conversation is (v5): its turns, the one in progress, and the
 * ids of the messages it took (so that a message sent twice is taken once).
 */
export interface ConversationState {
  /** The turns opened so far (0 before the first message). */
  turn: number;
  /** A turn is in progress (from its message, or its regeneration, to its end). */
  open: boolean;
  /** The step before the current turn's first: a turn's steps are counted from it (`maxSteps` bounds a turn). */
  fromStep: number;
  /**
   * Where the current turn's message sits in the transcript, while it sits
   * there as sent: a regeneration cuts the transcript back to it. Absent
   * once a compaction folded it into a summary.
   */
  at?: number;
  /** The last turn's end: why, and its detail. */
  ended?: { turn: number; reason: TurnEndReason; detail?: string };
  /** Every message id taken, with the event that took it (a resend is looked up here, in constant time). */
  messages: Record<string, number>;
  /** The JSON Schema the current turn's answer must match, when its message named one (v5). */
  outputSchema?: JsonValue;
}
