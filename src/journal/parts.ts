/**
 * What the journal's events carry: a run's limits, the agent's decision and
 * what answered it, what the agent is shown of a call (its observation, cut
 * and cleaned), the transcript, an approval request and what it binds, an
 * interruption and how it is settled. The events themselves are in
 * events.ts, which exports these too.
 */
import type { ApprovalId, CallId, RunId } from "../ids.js";
import type { JsonValue } from "../json/index.js";
import type { Permission, ResourceRef, SideEffect } from "../vocabulary.js";

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
 * put in their place; in a conversation, the user's messages; and a final
 * answer's refusal by the output schema.
 */
export type TranscriptEntry =
  | { readonly type: "task"; readonly task: JsonValue }
  | { readonly type: "decision"; readonly step: number; readonly decision: Decision }
  | { readonly type: "observation"; readonly step: number; readonly callId: CallId; readonly name: string; readonly observation: Observation }
  | { readonly type: "summary"; readonly text: string; readonly steps: { readonly from: number; readonly to: number } }
  | { readonly type: "user"; readonly turn: number; readonly messageId: string; readonly text: string; readonly files?: readonly MessageFile[] }
  /** The final answer of `step` did not match the output schema (v5): `error` is what the agent is told, as for invalid arguments. */
  | { readonly type: "rejected"; readonly step: number; readonly error: string };

/**
 * A file a user sent with a message (v5): its bytes are an artifact of the
 * store, by their SHA-256, under the size cap a send checks.
 */
export interface MessageFile {
  readonly sha256: string;
  /** The file's media type, as the client gave it ("image/png", "application/pdf", ...). */
  readonly mediaType: string;
  /** Its size in bytes. */
  readonly size: number;
  /** Its name, as the client gave it, when it gave one. */
  readonly name?: string;
}

/**
 * Why a turn of a conversation ended (v5). `answered`: the agent gave its
 * answer. `stopped`: the user (or the application) stopped it. The others
 * are the limits that end a turn and leave the conversation open:
 * `max_steps` (the turn's steps), `consecutive_failures`, `agent_error`
 * (the model failed in a way a retry does not mend), `context_exceeded`.
 */
export type TurnEndReason = "answered" | "stopped" | "max_steps" | "consecutive_failures" | "agent_error" | "context_exceeded";

/** A call a stopped turn closed before it was observed (v5): what the agent is shown of it. */
export interface ClosedCall {
  readonly callId: CallId;
  readonly observation: Observation;
}

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
