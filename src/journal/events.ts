/**
 * The journal's events: a versioned discriminated union. A run's state is a
 * pure function of its events (see reduce.ts). Version 5 (journals of
 * versions 1 to 4 stay readable: every change since adds an optional
 * field, a resolution, a reason or an event; v3 adds `run.moved`, v4 what
 * bounded recovery records, v5 conversations); a new version adds
 * a changelog line in DEVELOPERS.md and fixtures, and old fixtures stay
 * readable.
 */
import type { ApprovalId, CallId, RunId } from "../ids.js";
import type { JsonValue } from "../json/index.js";
import type { Permission, ResourceRef, SideEffect } from "../vocabulary.js";
import type { Limits, AnswerInfo, Decision, Observation, TranscriptEntry, ApprovalRequest, Resolution, MessageFile, TurnEndReason, ClosedCall } from "./parts.js";

// What the events carry (parts.ts), exported with them.
export type * from "./parts.js";

/**
 * The newest journal format this code writes (and every older one it reads).
 * v3 adds one event, `run.moved`; v4 `run.resumed`'s `took`, an approval
 * request's `interrupted` and the failure reason `no_progress` (bounded
 * recovery); v5 conversations: `run.created`'s `conversation`, and the
 * events `user.message`, `turn.ended`, `turn.regenerated` and
 * `run.closed`; structured output: `run.created`'s and `user.message`'s
 * `outputSchema`, and the event `output.rejected`. Events of another
 * shape keep their v2 stamp.
 */
export const JOURNAL_VERSION = 5 as const;

/** Fields every event has. */
export interface EventBase {
  /** Journal format version of this event (1 to 5; all are read). */
  readonly v: 1 | 2 | 3 | 4 | 5;
  /** 1-based position in the run's journal. */
  readonly seq: number;
  /** When the event was written, by the writer's clock (ms since the epoch). */
  readonly at: number;
  /** The previous event's hash ("" for the first). */
  readonly prev: string;
  /** SHA-256 of the canonical JSON of this event without `hash`. */
  readonly hash: string;
}

/** The run's first event: its task, the tools it is offered and its limits, fixed for the run. */
export interface RunCreated extends EventBase {
  readonly type: "run.created";
  readonly runId: RunId;
  readonly task: JsonValue;
  /** Every tool offered, with the hash of its shape (name, description, schema, side effect). */
  readonly tools: readonly { readonly name: string; readonly specHash: string }[];
  readonly limits: Limits;
  /**
   * The run is a conversation (v5): it does not end with the agent's
   * answer, but waits (`idle`) for its user's next message, turn after
   * turn, until it is closed. Its `task` is what the agent is told first
   * (the instructions, the context), before the first message.
   */
  readonly conversation?: true;
  /**
   * The JSON Schema the run's final answer must match (v5): a task's, or
   * every turn's of a conversation unless its message names its own. An
   * answer that does not is refused (`output.rejected`) and asked again,
   * under the run's failure limit.
   */
  readonly outputSchema?: JsonValue;
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

/**
 * A user's message to a conversation (v5): it opens turn `turn`, which the
 * agent then works on and answers. Appended without the run's lease, and
 * only while the conversation is idle (between turns), so a message is
 * never in the middle of a turn.
 */
export interface UserMessageEvent extends EventBase {
  readonly type: "user.message";
  /** The turn it opens: 1 for the first message. */
  readonly turn: number;
  /** The client's id for the message: a second send of it appends nothing. */
  readonly messageId: string;
  readonly text: string;
  /** Files sent with it, each an artifact of the store. */
  readonly files?: readonly MessageFile[];
  /** The client's own data about the message (never shown to the agent). */
  readonly metadata?: JsonValue;
  /** Who sent it, when the sender says. */
  readonly by?: string;
  /** The JSON Schema this turn's answer must match, instead of the run's. */
  readonly outputSchema?: JsonValue;
}
/**
 * A turn of a conversation ended (v5); the conversation goes on, `idle`,
 * waiting for the next message. A stopped turn closes the calls it left
 * unobserved (`closed`: what the agent is shown of each), and keeps the
 * text the agent had streamed of the answer it was writing (`partial`),
 * which the agent is not shown.
 */
export interface TurnEnded extends EventBase {
  readonly type: "turn.ended";
  readonly turn: number;
  readonly reason: TurnEndReason;
  /** What happened, for a limit. */
  readonly detail?: string;
  /** Who stopped it, for `stopped`. */
  readonly by?: string;
  /** The answer's text as far as it was streamed when the turn was stopped (not shown to the agent). */
  readonly partial?: string;
  /** The calls a stopped turn closed, each with its observation, in the step's order. */
  readonly closed?: readonly ClosedCall[];
  /** The turn's answer when a terminal tool gave it (a final decision is its own answer). */
  readonly output?: JsonValue;
}
/**
 * The last turn of a conversation is run again from its user message (v5):
 * what the agent was shown after the message is superseded (the agent
 * sees the message as the last thing said), and the turn is worked on
 * anew. Nothing in the journal is rewritten: the old answer's events stay
 * where they are, and effects of the old turn are not undone.
 */
export interface TurnRegenerated extends EventBase {
  readonly type: "turn.regenerated";
  readonly turn: number;
  readonly by?: string;
}
/**
 * The final answer of step `step` did not match the output schema (v5):
 * the run (or turn) goes on, the agent is shown `error` (the refusal, as
 * for invalid arguments: what failed and what to do) and asked again, and
 * the refusal counts as a failure toward `maxConsecutiveFailures`.
 */
export interface OutputRejected extends EventBase {
  readonly type: "output.rejected";
  readonly step: number;
  readonly error: string;
}
/** A conversation was closed by its user or the application (v5): terminal (`completed`, its output the last answer). */
export interface RunClosed extends EventBase {
  readonly type: "run.closed";
  readonly by: string;
  readonly reason?: string;
}

/** Every journal event (versions 1 to 5). */
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
  | RunMoved
  | UserMessageEvent
  | TurnEnded
  | TurnRegenerated
  | RunClosed
  | OutputRejected;

/** An event before it is sealed into the journal (seq, prev and hash are added on append). */
export type UnsealedEvent = JournalEvent extends infer E ? (E extends JournalEvent ? Omit<E, "seq" | "prev" | "hash"> : never) : never;

/**
 * Events an operator may append without holding the run's lease (guarded by
 * the journal's sequence alone): answers to approvals, their consequences,
 * and cancellation; a conversation's messages and the controls of its
 * turns (v5).
 */
export const OPERATOR_EVENT_TYPES: ReadonlySet<JournalEvent["type"]> = new Set([
  "approval.resolved",
  "call.rejected",
  "call.reconciled",
  "run.cancelled",
  "user.message",
  "turn.ended",
  "turn.regenerated",
  "run.closed",
]);
