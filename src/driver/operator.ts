/**
 * What an operator does to a run: answer an approval (quoting the request's
 * hash), settle an interrupted side effect, cancel. These are appended
 * without the run's lease, guarded by the journal's sequence: whoever holds
 * the lease sees them at its next append and acts on them.
 */
import type { ApprovalId, RunId } from "../ids.js";
import type { JsonValue } from "../json/index.js";
import { apply, sealAll, TERMINAL_STATUSES, type ApprovalState, type Resolution, type RunState, type UnsealedEvent } from "../journal/index.js";
import { isIsoagentError } from "../errors.js";
import type { DriverContext } from "./context.js";
import { loadState } from "./load.js";
import { checkContent, operatorDeniedObservation, recordedFailureObservation } from "./observations.js";
import { resultObservation } from "./projection.js";
import { DriverError } from "./types.js";

/** An operator's answer to an approval request. */
export interface ApprovalAnswer {
  /** The hash of the request being answered, as it was shown: a different one is refused. */
  readonly requestHash: string;
  /** Who answered (journaled). */
  readonly by: string;
  readonly reason?: string | undefined;
  /** A person's answer, for a request that wants one (ask_user); refused on any other. */
  readonly answer?: string | undefined;
}

/** How an operator settles an interrupted side effect. */
export interface Settlement extends ApprovalAnswer {
  readonly resolution: Resolution;
  /** The call's result, for record_result. */
  readonly content?: JsonValue | undefined;
}

function checkBy(by: unknown): string {
  if (typeof by !== "string" || by.trim() === "") throw new DriverError("DRIVER_INVALID", "an operator's answer must say who answered (by)");
  return by;
}

function pendingApproval(state: RunState, approvalId: ApprovalId, requestHash: string): ApprovalState {
  if (TERMINAL_STATUSES.has(state.status)) throw new DriverError("RUN_NOT_ACTIVE", `run ${state.runId} is ${state.status}`);
  const a = state.approvals[approvalId];
  if (a === undefined) throw new DriverError("APPROVAL_NOT_FOUND", `run ${state.runId} has no approval request ${approvalId}`);
  if (a.status !== "pending") throw new DriverError("APPROVAL_NOT_PENDING", `approval ${approvalId} of run ${state.runId} was already answered (${a.status} by ${a.by ?? "?"})`);
  if (requestHash !== a.requestHash) {
    throw new DriverError("APPROVAL_HASH_MISMATCH", `the answer quotes request ${String(requestHash).slice(0, 12)}…, but approval ${approvalId} of run ${state.runId} is for request ${a.requestHash.slice(0, 12)}…`);
  }
  return a;
}

/** A person's answer: required by a request that wants one, refused by any other. */
function checkAnswer(a: ApprovalState, answer: unknown): string | undefined {
  if (a.request.wantsAnswer === true) {
    if (typeof answer !== "string" || answer.trim() === "") throw new DriverError("ANSWER_REQUIRED", `approval ${a.approvalId} asks a person a question: approve it with an answer`);
    if (answer.length > 16_384) throw new DriverError("DRIVER_INVALID", `the answer to approval ${a.approvalId} is longer than 16,384 characters`);
    return answer;
  }
  if (answer !== undefined) throw new DriverError("DRIVER_INVALID", `approval ${a.approvalId} does not ask for an answer`);
  return undefined;
}

/** Appends operator events built from the current state, retrying when the journal moves under it. */
export async function operatorAppend(ctx: DriverContext, runId: RunId, build: (state: RunState) => Promise<UnsealedEvent[]>): Promise<RunState> {
  for (let attempt = 0; ; attempt++) {
    const state = await loadState(ctx.store, runId);
    const events = await build(state);
    const sealed = sealAll(events, state.seq, state.hash);
    for (const e of sealed) apply(state, e);
    try {
      await ctx.store.append(runId, sealed, { expectedSeq: sealed[0]!.seq - 1 }, state.status);
      return state;
    } catch (e) {
      if (!isIsoagentError(e, "JOURNAL_CONFLICT") || attempt >= 8) throw e;
    }
  }
}

const base = (ctx: DriverContext) => ({ v: 1 as const, at: ctx.clock.now() });

/** Approves: a call may start; an interrupted side effect is run again. */
export async function approve(ctx: DriverContext, runId: RunId, approvalId: ApprovalId, answer: ApprovalAnswer): Promise<RunState> {
  const by = checkBy(answer.by);
  return operatorAppend(ctx, runId, async (state) => {
    const a = pendingApproval(state, approvalId, answer.requestHash);
    const given = checkAnswer(a, answer.answer);
    const resolved: UnsealedEvent = {
      ...base(ctx),
      type: "approval.resolved",
      approvalId,
      requestHash: a.requestHash,
      decision: "approve",
      by,
      ...(answer.reason === undefined ? {} : { reason: answer.reason }),
      ...(given === undefined ? {} : { answer: ctx.redact(given) }),
    };
    if (a.request.kind === "call") return [resolved];
    const { step, callId, attempt } = a.request;
    return [resolved, { ...base(ctx), type: "call.reconciled", step, callId, attempt, resolution: "run_again", by }];
  });
}

/** Denies: a call is refused (the agent is told); an interrupted side effect is recorded as not having taken effect. */
export async function deny(ctx: DriverContext, runId: RunId, approvalId: ApprovalId, answer: ApprovalAnswer): Promise<RunState> {
  return settle(ctx, runId, approvalId, { ...answer, resolution: "record_failure" });
}

/**
 * Settles an approval: for a call, record_failure is a denial and anything
 * else an approval; for an interrupted side effect, the resolution is
 * journaled as the operator's reconciliation.
 */
export async function settle(ctx: DriverContext, runId: RunId, approvalId: ApprovalId, answer: Settlement): Promise<RunState> {
  const by = checkBy(answer.by);
  return operatorAppend(ctx, runId, async (state) => {
    const a = pendingApproval(state, approvalId, answer.requestHash);
    const { step, callId, attempt, tool } = a.request;
    const decision = answer.resolution === "record_failure" ? "deny" : "approve";
    const resolved: UnsealedEvent = { ...base(ctx), type: "approval.resolved", approvalId, requestHash: a.requestHash, decision, by, ...(answer.reason === undefined ? {} : { reason: answer.reason }) };
    if (a.request.kind === "call") {
      if (decision === "approve") return [resolved];
      return [resolved, { ...base(ctx), type: "call.rejected", step, callId, observation: operatorDeniedObservation(tool, answer.reason) }];
    }
    if (answer.resolution === "run_again") return [resolved, { ...base(ctx), type: "call.reconciled", step, callId, attempt, resolution: "run_again", by }];
    if (answer.resolution === "record_failure") {
      return [resolved, { ...base(ctx), type: "call.reconciled", step, callId, attempt, resolution: "record_failure", by, observation: recordedFailureObservation(tool, by) }];
    }
    const entry = ctx.tools.get(tool);
    if (entry === undefined) throw new DriverError("DRIVER_INVALID", `this driver has no tool ${tool} to record a result for`);
    const content = checkContent(tool, answer.content, ctx.redact);
    const observation = content.ok ? await resultObservation(content.value, entry.compiled.outputPolicy, ctx.store) : content.observation;
    return [resolved, { ...base(ctx), type: "call.reconciled", step, callId, attempt, resolution: "record_result", by, observation }];
  });
}

/** Cancels a run. A call in flight is not recalled: its outcome is appended later, as late. */
export async function cancel(ctx: DriverContext, runId: RunId, options: { by: string; reason?: string | undefined }): Promise<RunState> {
  const by = checkBy(options.by);
  return operatorAppend(ctx, runId, async (state) => {
    if (TERMINAL_STATUSES.has(state.status)) throw new DriverError("RUN_NOT_ACTIVE", `run ${runId} is ${state.status}`);
    return [{ ...base(ctx), type: "run.cancelled", by, ...(options.reason === undefined ? {} : { reason: options.reason }) }];
  });
}
