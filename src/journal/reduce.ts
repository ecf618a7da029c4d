/**
 * A run's state as a pure function of its journal: `reduce(events)`, built
 * incrementally by `apply(state, event)` (the driver keeps one state and
 * applies each event as it is appended, so nothing is re-derived from the
 * whole journal per step). The state is plain JSON, so it snapshots as is.
 */
import type { CallId } from "../ids.js";
import { artifactsNamed } from "./artifacts.js";
import { JournalError } from "./errors.js";
import type { JournalEvent, Observation } from "./events.js";
import { ARTIFACTS_KEPT, TERMINAL_STATUSES, type CallState, type RunState, type RunStatus } from "./state.js";
import { checkInTurn, close, compacted, endTurn, regenerate, takeMessage } from "./turns.js";

export * from "./state.js";

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

/** `waiting` when nothing can move but an operator's answer; `idle` for a conversation between turns; `running` otherwise (unless ended). */
function settleStatus(state: RunState): void {
  if (TERMINAL_STATUSES.has(state.status)) return;
  if (state.conversation?.open === false) {
    state.status = "idle";
    return;
  }
  const calls = state.current?.done === false ? state.current.calls : [];
  const blocked = calls.filter((c) => c.status === "awaiting_approval" || c.status === "awaiting_reconciliation").length;
  const open = calls.filter((c) => c.status !== "done").length;
  state.status = blocked > 0 && blocked === open ? "waiting" : "running";
}

/** A run's status once created: a task runs; a conversation waits for its first message (v5). Every store lists a new run so. */
export function createdStatus(e: Extract<JournalEvent, { type: "run.created" }>): RunStatus {
  return e.conversation === true ? "idle" : "running";
}

/** The state after `run.created`. */
function initialState(e: Extract<JournalEvent, { type: "run.created" }>): RunState {
  return {
    v: 1,
    runId: e.runId,
    status: createdStatus(e),
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
    // A conversation starts between turns: it waits for its first message.
    ...(e.conversation === true ? { conversation: { turn: 0, open: false, fromStep: 0, messages: {} } } : {}),
    ...(e.outputSchema === undefined ? {} : { outputSchema: e.outputSchema }),
  };
}

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
  checkInTurn(state, e);
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
      // A late outcome: after a cancellation, or after a stopped turn closed the call (v5).
      if (e.late === true) {
        call.late = true;
        call.observation = e.observation;
        call.status = "done";
        break;
      }
      if (call.status === "done") throw new JournalError("JOURNAL_INVALID", `event ${e.seq} observes call ${e.callId}, which was observed already`);
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
      compacted(state, e.from, e.to, e.items.length);
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
    case "user.message":
      takeMessage(state, e);
      named(state, e);
      break;
    case "turn.ended":
      endTurn(state, e, (call, o) => observe(state, call, o));
      break;
    case "turn.regenerated":
      regenerate(state, e);
      break;
    case "run.closed":
      close(state, e);
      break;
    case "output.rejected":
      // Only the final answer just decided can be refused; the agent is asked again, a failure in a row.
      if (TERMINAL_STATUSES.has(state.status) || state.current?.step !== e.step || state.current.decision.kind !== "final" || state.transcript.at(-1)?.type !== "decision") {
        throw new JournalError("JOURNAL_INVALID", `event ${e.seq} refuses the answer of step ${e.step}, which is not the final answer just decided`);
      }
      state.consecutiveFailures++;
      state.transcript.push({ type: "rejected", step: e.step, error: e.error });
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
