/**
 * What an operator does to a run: answer an approval (quoting the request's
 * hash), settle an interrupted side effect, cancel. These are appended
 * without the run's lease, guarded by the journal's sequence: whoever holds
 * the lease sees them at its next append and acts on them.
 */
import type { ApprovalId, RunId } from "../ids.js";
import type { JsonValue } from "../json/index.js";
import { apply, JOURNAL_VERSION, sealAll, TERMINAL_STATUSES, type ApprovalState, type Resolution, type RunState, type UnsealedEvent } from "../journal/index.js";
import { isIsoagentError } from "../errors.js";
import { shapeHash } from "../tools/shape.js";
import type { DriverContext } from "./context.js";
import { triesAgain } from "../store/conflict.js";
import { loadState } from "../store/load.js";
import { observeContent, operatorDeniedObservation } from "../call/observations.js";
import { settled } from "./recovery.js";
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

/**
 * How an operator settles an interrupted side effect: `run_again` (same
 * idempotency key), `record_result` (it took effect; `content` is its
 * result), `record_failure` (it is known not to have taken effect),
 * `mark_unknown` (nobody can tell; the model is told to check before
 * repeating).
 */
export interface Settlement extends ApprovalAnswer {
  readonly resolution: Resolution;
  /** The call's result, for record_result. */
  readonly content?: JsonValue | undefined;
}

export function checkBy(by: unknown): string {
  if (typeof by !== "string" || by.trim() === "") throw new DriverError("DRIVER_INVALID", "an operator's answer must say who answered (by)");
  return by;
}

function pendingApproval(state: RunState, approvalId: ApprovalId, requestHash: string): ApprovalState {
  if (TERMINAL_STATUSES.has(state.status)) throw new DriverError("RUN_NOT_ACTIVE", `run ${state.runId} is ${state.status}`);
  const a = state.approvals[approvalId];
  if (a === undefined) throw new DriverError("APPROVAL_NOT_FOUND", `run ${state.runId} has no approval request ${approvalId}`);
  if (a.status === "voided") throw new DriverError("APPROVAL_NOT_PENDING", `approval ${approvalId} of run ${state.runId} is void: the call was decided again, and asked anew`);
  if (a.status !== "pending") throw new DriverError("APPROVAL_NOT_PENDING", `approval ${approvalId} of run ${state.runId} was already answered (${a.status} by ${a.by ?? "?"})`);
  if (requestHash !== a.requestHash) {
    throw new DriverError(
      "APPROVAL_HASH_MISMATCH",
      `the answer quotes request ${String(requestHash).slice(0, 12)}…, but approval ${approvalId} of run ${state.runId} is for request ${a.requestHash.slice(0, 12)}…`,
    );
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
    // Whole, the transcript included: the state is what the operator's call returns.
    const state = await loadState(ctx.store, runId, { transcript: true });
    const events = await build(state);
    // Nothing to append (a resend, a stop of a turn that already ended): the state as it is.
    if (events.length === 0) return state;
    const sealed = sealAll(events, state.seq, state.hash);
    for (const e of sealed) apply(state, e);
    try {
      await ctx.store.append(runId, sealed, { expectedSeq: sealed[0]!.seq - 1 }, state.status);
      ctx.notify(runId, "append");
      return state;
    } catch (e) {
      if (!triesAgain(e, attempt)) throw e;
    }
  }
}

const base = (ctx: DriverContext) => ({ v: JOURNAL_VERSION, at: ctx.clock.now() });

/**
 * Refuses to let an answer approve what the driver would not run as asked:
 * a request for another shape of the tool, or one asked under another
 * policy (the session asks again under the current one).
 */
function checkCurrent(ctx: DriverContext, state: RunState, a: ApprovalState): void {
  const r = a.request;
  const entry = ctx.tools.get(r.tool);
  if (r.toolShape !== undefined && (entry === undefined || shapeHash(entry.compiled) !== r.toolShape)) {
    throw new DriverError(
      "TOOL_SHAPE_CHANGED",
      `approval ${a.approvalId} of run ${state.runId} was asked for another shape of tool "${r.tool}" than this driver has (register tools conditionally; never change a tool's shape under a live run)`,
    );
  }
  if (r.kind === "call" && r.policyVersion !== ctx.policyVersion) {
    throw new DriverError(
      "APPROVAL_STALE",
      `approval ${a.approvalId} of run ${state.runId} was asked under policy ${JSON.stringify(r.policyVersion ?? "(none)")}, and the policy is now ${JSON.stringify(ctx.policyVersion ?? "(none)")}: the call will be decided again when the run is driven`,
    );
  }
}

/** Approves: a call may start; an interrupted side effect is run again. */
export async function approve(ctx: DriverContext, runId: RunId, approvalId: ApprovalId, answer: ApprovalAnswer): Promise<RunState> {
  const by = checkBy(answer.by);
  return operatorAppend(ctx, runId, async (state) => {
    const a = pendingApproval(state, approvalId, answer.requestHash);
    checkCurrent(ctx, state, a);
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
    return [resolved, { ...base(ctx), type: "call.reconciled", step, callId, attempt, resolution: "run_again", by, ...(answer.reason === undefined ? {} : { reason: answer.reason }) }];
  });
}

/**
 * Denies: a call is refused (the agent is told an operator declined it). An
 * interrupted side effect is marked unknown: a denial says the operator
 * would not run it again, not that it did not happen, so the model is told
 * to check before repeating it.
 */
export async function deny(ctx: DriverContext, runId: RunId, approvalId: ApprovalId, answer: ApprovalAnswer): Promise<RunState> {
  const by = checkBy(answer.by);
  return operatorAppend(ctx, runId, async (state) => {
    const a = pendingApproval(state, approvalId, answer.requestHash);
    if (a.request.kind === "interrupted_side_effect") return settlement(ctx, a, { ...answer, by, resolution: "mark_unknown" });
    const { step, callId, tool } = a.request;
    const resolved: UnsealedEvent = {
      ...base(ctx),
      type: "approval.resolved",
      approvalId,
      requestHash: a.requestHash,
      decision: "deny",
      by,
      ...(answer.reason === undefined ? {} : { reason: answer.reason }),
    };
    return [resolved, { ...base(ctx), type: "call.rejected", step, callId, observation: operatorDeniedObservation(tool, answer.reason) }];
  });
}

const RESOLUTIONS: readonly Resolution[] = ["run_again", "record_result", "record_failure", "mark_unknown"];

/**
 * Settles an interrupted side effect with an explicit resolution, journaled
 * as the operator's reconciliation. Only an `interrupted_side_effect`
 * approval can be settled (APPROVAL_NOT_RECONCILABLE otherwise: a call's
 * approval is approved or denied, never "recorded").
 */
export async function settle(ctx: DriverContext, runId: RunId, approvalId: ApprovalId, answer: Settlement): Promise<RunState> {
  const by = checkBy(answer.by);
  if (!RESOLUTIONS.includes(answer.resolution))
    throw new DriverError("DRIVER_INVALID", `resolution must be run_again, record_result, record_failure or mark_unknown, not ${JSON.stringify(answer.resolution)}`);
  return operatorAppend(ctx, runId, async (state) => {
    const a = pendingApproval(state, approvalId, answer.requestHash);
    if (a.request.kind !== "interrupted_side_effect") {
      throw new DriverError("APPROVAL_NOT_RECONCILABLE", `approval ${approvalId} of run ${state.runId} asks to approve a call, not to reconcile an interrupted side effect: approve or deny it`);
    }
    if (answer.resolution === "run_again") checkCurrent(ctx, state, a);
    return settlement(ctx, a, { ...answer, by });
  });
}

/** The events of an operator's reconciliation of an interrupted side effect. */
async function settlement(ctx: DriverContext, a: ApprovalState, answer: Settlement): Promise<UnsealedEvent[]> {
  const { step, callId, attempt, tool } = a.request;
  const { by, resolution } = answer;
  const reason = answer.reason === undefined ? {} : { reason: answer.reason };
  const decision = resolution === "run_again" || resolution === "record_result" ? "approve" : "deny";
  const resolved: UnsealedEvent = { ...base(ctx), type: "approval.resolved", approvalId: a.approvalId, requestHash: a.requestHash, decision, by, ...reason };
  const reconciled = { ...base(ctx), type: "call.reconciled" as const, step, callId, attempt, resolution, by, ...reason };
  if (resolution !== "record_result") return [resolved, { ...reconciled, ...settled(resolution, tool, by) }];
  const entry = ctx.tools.get(tool);
  if (entry === undefined) throw new DriverError("DRIVER_INVALID", `this driver has no tool ${tool} to record a result for`);
  if (answer.content === undefined) throw new DriverError("DRIVER_INVALID", "record_result needs the call's result as content");
  const observed = await observeContent(tool, answer.content, { redact: ctx.redact, store: ctx.store, policy: entry.compiled.outputPolicy });
  if (!observed.ok) throw new DriverError("DRIVER_INVALID", "the content to record is not JSON");
  return [resolved, { ...reconciled, observation: observed.observation }];
}

/** Cancels a run. A call in flight is not recalled: its outcome is appended later, as late. */
export async function cancel(ctx: DriverContext, runId: RunId, options: { by: string; reason?: string | undefined }): Promise<RunState> {
  const by = checkBy(options.by);
  return operatorAppend(ctx, runId, async (state) => {
    if (TERMINAL_STATUSES.has(state.status)) throw new DriverError("RUN_NOT_ACTIVE", `run ${runId} is ${state.status}`);
    return [{ ...base(ctx), type: "run.cancelled", by, ...(options.reason === undefined ? {} : { reason: options.reason }) }];
  });
}

/**
 * Runs an operator's answer, then drives the run. An answer refused because
 * the approval was asked under another policy still drives the run, so the
 * call is decided again under the current one (and asked anew).
 */
export async function answerThenDrive(answer: () => Promise<unknown>, drive: () => void): Promise<void> {
  try {
    await answer();
  } catch (e) {
    if (isIsoagentError(e, "APPROVAL_STALE")) drive();
    throw e;
  }
  drive();
}
