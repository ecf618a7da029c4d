/**
 * The journal's events: a versioned discriminated union. A run's state is a
 * pure function of its events (see reduce.ts). Version 4 (journals of
 * versions 1 to 3 stay readable: every change since adds an optional
 * field, a resolution, a reason or an event; v3 adds `run.moved`, v4 what
 * bounded recovery records); a new version adds
 * a changelog line in DEVELOPERS.md and fixtures, and old fixtures stay
 * readable.
 */
import type { ApprovalId, CallId, RunId } from "../ids.js";
import type { JsonValue } from "../json/index.js";
import type { Permission, ResourceRef, SideEffect } from "../vocabulary.js";

/**
 * The newest journal format this code writes (and every older one it reads).
 * v3 adds one event, `run.moved`; v4 `run.resumed`'s `took`, an approval
 * request's `interrupted` and the failure reason `no_progress` (bounded
 * recovery). Events of another shape keep their v2 stamp.
 */
export const JOURNAL_VERSION = 4 as const;

/** Fields every event has. */
export interface EventBase {
  /** Journal format version of this event (1 to 4; all are read). */
  readonly v: 1 | 2 | 3 | 4;
  /** 1-based position in the run's journal. */
  readonly seq: number;
  /** When the event was written, by the writer's clock (ms since the epoch). */
  readonly at: number;
  /** The previous event's hash ("" for the first). */
  readonly prev: string;
  /** SHA-256 of the canonical JSON of this event without `hash`. */
  readonly hash: string;
}

/** Run limits, fixed at creation. 0 means no limit, for every limit. */
export interface Limits {
  /** Most steps (agent decisions) a run may take; 0 for no limit. */
  readonly maxSteps: number;
  /** Most failed calls in a row (tool_error, invalid_decision) before the run fails; 0 for no limit. */
  readonly maxConsecutiveFailures: number;
  /** Wall-clock budget from creation, in ms; 0 for none. */
  readonly runTimeoutMs: number;
}

/** Tokens a model answer counted (as the provider reported them). */
export interface TokenUsage {
  /** Tokens of the request (the transcript, the tools, the instructions). */
  readonly input: number;
  readonly output: number;
  /** Of `input`, tokens served from the provider's prompt cache, when it says. */
  readonly cached?: number;
}

/** Who answered a step and what it cost (v2): from the model adapter's parse of the provider's answer. */
export interface AnswerInfo {
  readonly provider: string;
  /** The model that answered, as the provider named it. */
  readonly model: string;
  /** Why the answer ended ("stop", "tool_calls", "length", ...), as the provider said it. */
  readonly finishReason?: string;
  readonly usage?: TokenUsage;
}

/** A call the agent asked for. `args` is the raw argument text, as the model wrote it. */
export interface DecidedCall {
  readonly callId: CallId;
  readonly name: string;
  readonly args: string;
}

/** What the agent returned for a step. */
export type Decision = { readonly kind: "calls"; readonly calls: readonly DecidedCall[]; readonly text?: string } | { readonly kind: "final"; readonly output: JsonValue; readonly text?: string };

/** How a model-facing text was cut: the full text is the artifact (empty when it was not kept). */
export interface Truncation {
  readonly strategy: "head" | "tail";
  readonly totalBytes: number;
  readonly shownBytes: number;
  readonly artifact: string;
}

/** What cleaning removed from a model-facing text (v2): terminal escape sequences, control characters replaced, and invisible formatting characters (bidirectional controls, tag characters) removed. */
export interface Cleaning {
  readonly escapes: number;
  readonly controls: number;
  /** Present when some were removed (issue 26; older observations have no such field). */
  readonly invisible?: number;
}

/** What the agent is shown about a call. Model-facing: nothing run-specific. */
export type Observation =
  | {
      readonly type: "result";
      readonly content: JsonValue;
      /** Present when the visible content was cut; the full output is the artifact. */
      readonly truncated?: Truncation;
      /** Present when terminal escapes or control characters were cleaned from it (v2). */
      readonly cleaned?: Cleaning;
      /** Present when a compaction replaced the output by a notice (v2): the full text is the artifact. */
      readonly elided?: Elision;
    }
  | {
      readonly type: "tool_error";
      readonly failure: "error" | "timeout" | "invalid_content";
      /** The error contract, as one text: `Error: ...`, `[Next: ...]`, `[Recovery: ...]`. */
      readonly error: string;
      /** For invalid_content: the bytes as text, or base64 when they are not UTF-8. */
      readonly content?: string;
      readonly content_base64?: string;
      readonly reason?: string;
      /** Present when the error text or the kept content was cut (v2). */
      readonly truncated?: Truncation;
      readonly cleaned?: Cleaning;
      readonly elided?: Elision;
    }
  | { readonly type: "invalid_decision"; readonly error: string; readonly elided?: Elision }
  | { readonly type: "denied"; readonly error: string; readonly elided?: Elision }
  | { readonly type: "interrupted"; readonly error: string; readonly elided?: Elision };

/** An observation whose text a compaction replaced by a notice: the text is the artifact. */
export interface Elision {
  readonly artifact: string;
  readonly bytes: number;
}

/**
 * One item of what the agent is shown (the transcript): the task, a
 * decision, an observation, or a summary of earlier steps that a compaction
 * put in their place.
 */
export type TranscriptEntry =
  | { readonly type: "task"; readonly task: JsonValue }
  | { readonly type: "decision"; readonly step: number; readonly decision: Decision }
  | { readonly type: "observation"; readonly step: number; readonly callId: CallId; readonly name: string; readonly observation: Observation }
  | { readonly type: "summary"; readonly text: string; readonly steps: { readonly from: number; readonly to: number } };

/** What an approval request shows the operator, and what its hash binds. */
export interface ApprovalRequest {
  readonly kind: "call" | "interrupted_side_effect";
  readonly runId: RunId;
  readonly step: number;
  readonly callId: CallId;
  readonly attempt: number;
  readonly tool: string;
  /** The checked arguments (canonical JSON when hashed). */
  readonly args: JsonValue;
  readonly argsHash: string;
  readonly sideEffect: SideEffect;
  readonly resources: readonly ResourceRef[];
  /** The tool's preview of the call (a diff, for a change), when it gives one: covered by the request's hash. */
  readonly preview?: string;
  /** The call waits for a person's answer (ask_user): approving it takes one. */
  readonly wantsAnswer?: true;
  /** The hash of the tool's shape (name, description, schema, side effect) the approval covers (v2). */
  readonly toolShape?: string;
  /** The policy identity the application gave the driver when this was asked (v2). */
  readonly policyVersion?: string;
  /** For an interrupted side effect: the call's idempotency key, to look for in the outside system (v2). */
  readonly idempotencyKey?: string;
  /** Why this is asked (a policy that changed, a reconcile hook's fault, a limit reached), for the operator (v2). */
  readonly note?: string;
  /** For an interrupted call: how its last attempt ended, as far as the journal and the store can tell (v4). `attempt` counts the interruptions. */
  readonly interrupted?: Interruption;
}

/**
 * How the last attempt of an interrupted call ended (v4): the attempt was
 * started and the driver running it stopped before recording any outcome. A
 * call's timeout is an outcome (`failure: "timeout"`), not an interruption.
 */
export interface Interruption {
  /**
   * `lease_expired`: the driver that held the run stopped without
   * releasing it and its lease ran out (a crash, a kill, a stall past the
   * lease, a lost connection); `lease_broken`: its lease was taken over
   * before it ran out, its holder known to have stopped (an earlier
   * incarnation of a Durable Object's host, a driver started again under
   * the same owner); `released`: the driver let the run go without
   * recording the outcome (its store refused the write).
   */
  readonly cause: "lease_expired" | "lease_broken" | "released";
  /** The lease that was taken over (not for `released`): its holder, and its expiry by the store's clock. */
  readonly holder?: string;
  readonly expiresAt?: number;
  /** When the interrupted attempt started (its `call.started`, by its writer's clock). */
  readonly startedAt?: number;
  /** Set when the attempts reached the driver's `recovery.maxInterruptions`: why the runtime did not run it again itself. */
  readonly limit?: number;
}

/**
 * How an interrupted side effect is settled: run it again (same key), it took
 * effect (with its result), it is known not to have taken effect, or its
 * outcome is unknown (v2: the model is told to check before repeating).
 */
export type Resolution = "run_again" | "record_result" | "record_failure" | "mark_unknown";

/** The run's first event: its task, the tools it is offered and its limits, fixed for the run. */
export interface RunCreated extends EventBase {
  readonly type: "run.created";
  readonly runId: RunId;
  readonly task: JsonValue;
  /** Every tool offered, with the hash of its shape (name, description, schema, side effect). */
  readonly tools: readonly { readonly name: string; readonly specHash: string }[];
  readonly limits: Limits;
}
/** A driver took the run's lease and drives it (the first drive, or one after a stop): the owner and the lease's fencing token. */
export interface RunResumed extends EventBase {
  readonly type: "run.resumed";
  readonly owner: string;
  /** The lease's fencing token. */
  readonly token: number;
  /**
   * The lease this resume took over, never released (v4): the drive before
   * it stopped without letting go (a crash, a kill, a stall past the lease).
   * Such a resume is written before anything else is done, and counts
   * against `recovery.maxResumesWithoutProgress`.
   */
  readonly took?: { readonly holder: string; readonly expiresAt: number };
}
/** The model decided step `step`: calls to make, or the run's final answer. */
export interface StepDecided extends EventBase {
  readonly type: "step.decided";
  readonly step: number;
  readonly decision: Decision;
  /** The model's answer: provider, model, finish reason, token usage (v2, when the agent reports it). */
  readonly answer?: AnswerInfo;
}
/** A call the model asked for was refused before it ran (unknown tool, invalid arguments, denied): what the model is shown instead of a result. */
export interface CallRejected extends EventBase {
  readonly type: "call.rejected";
  readonly step: number;
  readonly callId: CallId;
  readonly observation: Observation;
}
/** The gate's decision on a call: allowed, needs approval, or denied, and whether the tool's spec or a policy decided it. */
export interface CallPermission extends EventBase {
  readonly type: "call.permission";
  readonly step: number;
  readonly callId: CallId;
  readonly permission: Permission;
  /** "spec" when the tool's own permission decided, "policy" when a policy made it stricter. */
  readonly source: "spec" | "policy";
  readonly reason?: string;
  /** The policy identity this was decided under (v2, when the application gives one). */
  readonly policyVersion?: string;
  /** The tool's side-effect class (v2): what a trace shows of a call. */
  readonly sideEffect?: SideEffect;
}
/** A call waits for an approval: the request a person answers, and its hash, which the answer must quote. */
export interface ApprovalRequested extends EventBase {
  readonly type: "approval.requested";
  readonly approvalId: ApprovalId;
  readonly request: ApprovalRequest;
  readonly requestHash: string;
}
/** The answer to an approval request: approve or deny, by whom, for the request with that hash only. */
export interface ApprovalResolved extends EventBase {
  readonly type: "approval.resolved";
  readonly approvalId: ApprovalId;
  readonly requestHash: string;
  readonly decision: "approve" | "deny";
  /** Who answered. */
  readonly by: string;
  readonly reason?: string;
  /** A person's answer, for a request that wants one. */
  readonly answer?: string;
}
/** An attempt of a call is about to run: written before the tool is invoked, with the idempotency key the tool is given. */
export interface CallStarted extends EventBase {
  readonly type: "call.started";
  readonly step: number;
  readonly callId: CallId;
  readonly attempt: number;
  readonly idempotencyKey: string;
}
/** An attempt of a call ended: its observation (a result or a failure) is what the model is shown. */
export interface CallFinished extends EventBase {
  readonly type: "call.finished";
  readonly step: number;
  readonly callId: CallId;
  readonly attempt: number;
  readonly observation: Observation;
  /** The outcome of a call that was in flight when an operator cancelled the run. */
  readonly late?: true;
  /** One line a person reads ("Edit notes/todo.md (+3 -1)"), when the tool gives one. */
  readonly activity?: string;
}
/** An interrupted call was settled, by the consumer's reconcile hook or an operator: run again, or its outcome recorded. */
export interface CallReconciled extends EventBase {
  readonly type: "call.reconciled";
  readonly step: number;
  readonly callId: CallId;
  readonly attempt: number;
  readonly resolution: Resolution | "ask_operator";
  /** "hook" for the consumer's reconcile hook, or the operator who answered. */
  readonly by: string;
  /** The recorded outcome, for record_result, record_failure and mark_unknown. */
  readonly observation?: Observation;
  /** Why (v2): a hook's fault that sent it to an operator, or the operator's reason. */
  readonly reason?: string;
}
/**
 * A call let through under an earlier policy (approved, or waiting for an
 * approval, not started) is decided again (v2): its approval is void, and the
 * call goes back through the gate.
 */
export interface CallReopened extends EventBase {
  readonly type: "call.reopened";
  readonly step: number;
  readonly callId: CallId;
  /** What changed, for the operator. */
  readonly reason: string;
}
/** The run ended with the model's final answer: terminal. */
export interface RunCompleted extends EventBase {
  readonly type: "run.completed";
  readonly output: JsonValue;
}
/** The run ended without an answer, for `reason`: terminal. */
export interface RunFailed extends EventBase {
  readonly type: "run.failed";
  /**
   * `context_exceeded` (v2): the model's context window was passed, even
   * after compacting. `no_progress` (v4): the run was taken over
   * `recovery.maxResumesWithoutProgress` times in a row, each drive
   * stopping without releasing it, with no decision, call outcome or
   * operator's answer in between (a crash loop).
   */
  readonly reason: "max_steps" | "consecutive_failures" | "deadline" | "tool_abort" | "agent_error" | "context_exceeded" | "no_progress";
  readonly detail: string;
}
/**
 * What the model is shown was compacted (v2): the transcript's items
 * `[from, to)` (as the transcript stood just before) were replaced by
 * `items`. Journaled, so a resume or a replay shows the model exactly what
 * it was shown, and never asks a summarizing model twice.
 */
export interface ContextCompacted extends EventBase {
  readonly type: "context.compacted";
  /** "trim": outputs replaced by notices naming their artifacts, or old steps folded into one notice; "summarize": a model's summary. */
  readonly strategy: "trim" | "summarize";
  readonly from: number;
  readonly to: number;
  readonly items: readonly TranscriptEntry[];
  /** The artifacts the replacement names (the full texts it elides). */
  readonly artifacts: readonly string[];
  /** Why it ran: "budget" (the next request would pass it) or "provider" (the provider said the context was exceeded). */
  readonly reason: "budget" | "provider";
  /** The estimate of the next request's tokens before and after (budget arithmetic, for the operator). */
  readonly tokens: { readonly before: number; readonly after: number };
  /** The summarizing model's answer (summarize), as a decision records it. */
  readonly answer?: AnswerInfo;
}
/** An operator cancelled the run: terminal; a call in flight may still record its outcome as `late`. */
export interface RunCancelled extends EventBase {
  readonly type: "run.cancelled";
  readonly by: string;
  readonly reason?: string;
}

/**
 * The run's ownership moved to another place (v3): the seal of a move, and
 * the last event the source writes for the run. From it on, the source's
 * store refuses every append (RUN_MOVED), and the run is continued by the
 * place it names, whose lease tokens start above `epoch`.
 */
export interface RunMoved extends EventBase {
  readonly type: "run.moved";
  /** The place the run moved from (the source store's place name). */
  readonly from: string;
  /** The place that owns the run from this event on. */
  readonly to: string;
  /** The fencing epoch: above every lease token the source issued for the run; every token after it is above it. */
  readonly epoch: number;
}

/** Every journal event (versions 1 to 4). */
export type JournalEvent =
  | RunCreated
  | RunResumed
  | StepDecided
  | CallRejected
  | CallPermission
  | ApprovalRequested
  | ApprovalResolved
  | CallStarted
  | CallFinished
  | CallReconciled
  | CallReopened
  | ContextCompacted
  | RunCompleted
  | RunFailed
  | RunCancelled
  | RunMoved;

/** An event before it is sealed into the journal (seq, prev and hash are added on append). */
export type UnsealedEvent = JournalEvent extends infer E ? (E extends JournalEvent ? Omit<E, "seq" | "prev" | "hash"> : never) : never;

/**
 * Events an operator may append without holding the run's lease (guarded by
 * the journal's sequence alone): answers to approvals, their consequences,
 * and cancellation.
 */
export const OPERATOR_EVENT_TYPES: ReadonlySet<JournalEvent["type"]> = new Set(["approval.resolved", "call.rejected", "call.reconciled", "run.cancelled"]);
