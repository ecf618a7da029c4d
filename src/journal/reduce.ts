/**
 * A run's state as a pure function of its journal: `reduce(events)`, built
 * incrementally by `apply(state, event)` (the driver keeps one state and
 * applies each event as it is appended, so nothing is re-derived from the
 * whole journal per step). The state is plain JSON, so it snapshots as is.
 */
import type { ApprovalId, CallId, RunId } from "../ids.js";
import type { JsonValue } from "../json/index.js";
import type { Permission } from "../vocabulary.js";
import { artifactsNamed } from "./artifacts.js";
import { JournalError } from "./errors.js";
import type { ApprovalRequest, Decision, JournalEvent, Limits, Observation, TranscriptEntry } from "./events.js";

/** Where a run is. `waiting`: only an operator's answer can move it on. */
export type RunStatus = "running" | "waiting" | "completed" | "failed" | "cancelled";

/** Every status. */
export const RUN_STATUSES: readonly RunStatus[] = ["running", "waiting", "completed", "failed", "cancelled"];

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
}

function assertNever(x: never): never {
  throw new JournalError("JOURNAL_INVALID", `unknown event type ${JSON.stringify((x as { type?: unknown }).type)}`);
}

function callOf(state: RunState, step: number, callId: CallId, seq: number): CallState {
  const call = state.current?.step === step ? state.current.calls.find((c) => c.callId === callId) : undefined;
  if (call === undefined) throw new JournalError("JOURNAL_INVALID", `event ${seq} names call ${callId} of step ${step}, which the journal never decided`);
  return call;
}

function countFailure(state: RunState, o: Observation): void {
  if (o.type === "tool_error" || o.type === "invalid_decision") state.consecutiveFailures++;
  else if (o.type === "result") state.consecutiveFailures = 0;
}

/** Marks a call observed; closes the step (and shows its observations, in call order) when it was the last. */
function observe(state: RunState, call: CallState, o: Observation): void {
  call.status = "done";
  call.observation = o;
  const current = state.current!;
  if (!current.done && current.calls.every((c) => c.status === "done")) {
    current.done = true;
    for (const c of current.calls) {
      state.transcript.push({ type: "observation", step: current.step, callId: c.callId, name: c.name, observation: c.observation! });
    }
  }
}

/**
 * A call let through (by policy or an approval) may start; one that started
 * once (decided again after a move, v3: its outcome is unknown) goes to
 * recovery, which decides whether it runs again.
 */
function letThrough(call: CallState): void {
  call.status = call.attempt > 0 ? "started" : "approved";
}

/** `waiting` when nothing can move but an operator's answer; `running` otherwise (unless ended). */
function settleStatus(state: RunState): void {
  if (TERMINAL_STATUSES.has(state.status)) return;
  const calls = state.current?.done === false ? state.current.calls : [];
  const blocked = calls.filter((c) => c.status === "awaiting_approval" || c.status === "awaiting_reconciliation").length;
  const open = calls.filter((c) => c.status !== "done").length;
  state.status = blocked > 0 && blocked === open ? "waiting" : "running";
}

/** The state after `run.created`. */
function initialState(e: Extract<JournalEvent, { type: "run.created" }>): RunState {
  return {
    v: 1,
    runId: e.runId,
    status: "running",
    seq: e.seq,
    hash: e.hash,
    createdAt: e.at,
    createdHash: e.hash,
    updatedAt: e.at,
    task: e.task,
    tools: e.tools,
    limits: e.limits,
    step: 0,
    current: null,
    consecutiveFailures: 0,
    approvals: {},
    transcript: [{ type: "task", task: e.task }],
    artifacts: [],
  };
}

/** How many of the artifacts a run named last its state keeps at hand. */
export const ARTIFACTS_KEPT = 256;

/** Notes the artifacts an event names (artifacts.ts), each once, keeping the last ARTIFACTS_KEPT. */
function named(state: RunState, e: JournalEvent): void {
  for (const sha of artifactsNamed(e)) {
    if (state.artifacts.includes(sha)) continue;
    state.artifacts.push(sha);
    if (state.artifacts.length > ARTIFACTS_KEPT) state.artifacts.shift();
  }
}

/** Applies one event to a state, in place. Throws {@link JournalError} on an event the state cannot take. */
export function apply(state: RunState, e: JournalEvent): RunState {
  if (e.seq !== state.seq + 1) throw new JournalError("JOURNAL_INVALID", `event ${e.seq} follows event ${state.seq}`);
  switch (e.type) {
    case "run.created":
      throw new JournalError("JOURNAL_INVALID", `event ${e.seq} creates the run again`);
    case "run.resumed":
      state.owner = { owner: e.owner, token: e.token };
      if (e.took !== undefined) state.takeovers = (state.takeovers ?? 0) + 1;
      break;
    case "step.decided":
      delete state.takeovers;
      if (e.answer?.usage !== undefined) state.lastUsage = { input: e.answer.usage.input, items: state.transcript.length };
      state.step = e.step;
      state.current = {
        step: e.step,
        decision: e.decision,
        calls: e.decision.kind === "calls" ? e.decision.calls.map((c) => ({ callId: c.callId, name: c.name, args: c.args, status: "pending" as const, attempt: 0 })) : [],
        done: e.decision.kind !== "calls" || e.decision.calls.length === 0,
      };
      state.transcript.push({ type: "decision", step: e.step, decision: e.decision });
      break;
    case "call.permission": {
      const call = callOf(state, e.step, e.callId, e.seq);
      call.permission = e.permission;
      if (e.policyVersion === undefined) delete call.policyVersion;
      else call.policyVersion = e.policyVersion;
      if (e.permission === "allow") letThrough(call);
      break;
    }
    case "call.rejected": {
      const call = callOf(state, e.step, e.callId, e.seq);
      named(state, e);
      countFailure(state, e.observation);
      observe(state, call, e.observation);
      break;
    }
    case "approval.requested": {
      state.approvals[e.approvalId] = { approvalId: e.approvalId, request: e.request, requestHash: e.requestHash, status: "pending" };
      const call = callOf(state, e.request.step, e.request.callId, e.seq);
      call.approvalId = e.approvalId;
      call.status = e.request.kind === "call" ? "awaiting_approval" : "awaiting_reconciliation";
      break;
    }
    case "approval.resolved": {
      delete state.takeovers;
      const approval = state.approvals[e.approvalId];
      if (approval === undefined) throw new JournalError("JOURNAL_INVALID", `event ${e.seq} answers approval ${e.approvalId}, which was never requested`);
      approval.status = e.decision === "approve" ? "approved" : "denied";
      approval.by = e.by;
      if (e.reason !== undefined) approval.reason = e.reason;
      if (e.answer !== undefined) approval.answer = e.answer;
      // Approving a call lets it start; a denial, and any answer about an
      // interrupted side effect, is followed by the event that settles it.
      if (approval.request.kind === "call" && e.decision === "approve") {
        letThrough(callOf(state, approval.request.step, approval.request.callId, e.seq));
      }
      break;
    }
    case "call.started": {
      const call = callOf(state, e.step, e.callId, e.seq);
      call.status = "started";
      call.attempt = e.attempt;
      call.startedAt = e.at;
      call.idempotencyKey = e.idempotencyKey;
      break;
    }
    case "call.finished": {
      delete state.takeovers;
      const call = callOf(state, e.step, e.callId, e.seq);
      named(state, e);
      if (e.late === true) {
        call.late = true;
        call.observation = e.observation;
        call.status = "done";
        break;
      }
      countFailure(state, e.observation);
      observe(state, call, e.observation);
      break;
    }
    case "call.reconciled": {
      const call = callOf(state, e.step, e.callId, e.seq);
      // A recorded outcome is progress, as a call's own is.
      if (e.observation !== undefined) delete state.takeovers;
      named(state, e);
      if (e.resolution === "run_again") call.status = "approved";
      else if (e.resolution !== "ask_operator" && e.observation !== undefined) observe(state, call, e.observation);
      break;
    }
    case "call.reopened": {
      const call = callOf(state, e.step, e.callId, e.seq);
      // Any call not yet observed (v3: one that started, or waits for its
      // reconciliation, too: a move hands it to a place that decides it again).
      if (call.status === "pending" || call.status === "done") {
        throw new JournalError("JOURNAL_INVALID", `event ${e.seq} reopens call ${e.callId}, which is ${call.status}`);
      }
      const approval = call.approvalId === undefined ? undefined : state.approvals[call.approvalId];
      if (approval !== undefined && (approval.status === "pending" || approval.status === "approved")) approval.status = "voided";
      call.status = "pending";
      call.reopened = e.reason;
      delete call.approvalId;
      delete call.permission;
      delete call.policyVersion;
      break;
    }
    case "context.compacted": {
      if (!(Number.isInteger(e.from) && Number.isInteger(e.to) && 1 <= e.from && e.from <= e.to && e.to <= state.transcript.length)) {
        throw new JournalError("JOURNAL_INVALID", `event ${e.seq} compacts items ${e.from} to ${e.to} of a transcript of ${state.transcript.length}`);
      }
      state.transcript.splice(e.from, e.to - e.from, ...e.items);
      named(state, e);
      // The compaction's own (calibrated) figure is the budget's new starting point.
      state.lastUsage = { input: e.tokens.after, items: state.transcript.length };
      break;
    }
    case "run.completed":
      state.status = "completed";
      state.output = e.output;
      break;
    case "run.failed":
      state.status = "failed";
      state.failure = { reason: e.reason, detail: e.detail };
      break;
    case "run.cancelled":
      state.status = "cancelled";
      state.cancelled = e.reason === undefined ? { by: e.by } : { by: e.by, reason: e.reason };
      break;
    case "run.moved":
      // Ownership is store state (each store's custody of the run); the
      // journal keeps where the run went, for whoever reads it later.
      state.moved = { from: e.from, to: e.to, epoch: e.epoch, seq: e.seq };
      break;
    default:
      assertNever(e);
  }
  state.seq = e.seq;
  state.hash = e.hash;
  state.updatedAt = e.at;
  settleStatus(state);
  return state;
}

/** The state of a run from its whole journal (which must start with `run.created`). */
export function reduce(events: readonly JournalEvent[]): RunState {
  const first = events[0];
  if (first === undefined || first.type !== "run.created" || first.seq !== 1) throw new JournalError("JOURNAL_INVALID", "a journal starts with run.created at seq 1");
  const state = initialState(first);
  for (let k = 1; k < events.length; k++) apply(state, events[k]!);
  return state;
}
