/**
 * Recovery: a call started and never finished (a crash, a lost lease) has an
 * unknown outcome. A read_only call is run again (same step, call and key);
 * any other goes to the application's reconcile hook, whose answer is taken
 * fail-closed (a throw, nothing, or anything that is not a reconciliation
 * asks the operator, with the fault in the operator's reason), and by
 * default to the operator as an `interrupted_side_effect` approval that
 * carries the call's idempotency key and how its last attempt ended.
 *
 * Bounded (issue 26): a call interrupted `recovery.maxInterruptions` times
 * is not run again by the runtime. Its re-run (read_only) or a hook's
 * run_again becomes the operator's ask, so that a call that crashes its
 * driver every time is not paid for on every resume. A call's `attempt`
 * counts its interruptions: every attempt of a call found started was
 * interrupted.
 */
import type { CallState, Interruption } from "../journal/index.js";
import type { Reconciliation } from "../tools/index.js";
import type { Gate } from "../call/gate.js";
import { idempotencyKey } from "./keys.js";
import { markUnknownObservation, observeContent, recordedFailureObservation } from "../call/observations.js";
import type { DriverContext, ToolEntry } from "./context.js";
import { isCrash } from "./types.js";

const ACTIONS = ["run_again", "record_result", "record_failure", "mark_unknown", "ask_operator"];

function describe(v: unknown): string {
  if (v === undefined || v === null) return String(v);
  if (typeof v === "string") return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  const kind = Array.isArray(v) ? "list" : typeof v;
  return `${kind === "object" ? "an" : "a"} ${kind}`;
}

/** A hook's answer as a reconciliation, or the fault that sends the call to an operator. */
export function checkReconciliation(answer: unknown): Reconciliation | { fault: string } {
  try {
    if (typeof answer !== "object" || answer === null) return { fault: `the reconcile hook returned ${describe(answer)}, not a reconciliation` };
    const action: unknown = (answer as { action?: unknown }).action;
    if (typeof action !== "string" || !ACTIONS.includes(action)) return { fault: `the reconcile hook returned an unknown action ${describe(action)}` };
    if (action === "record_result") return { action, content: (answer as { content?: unknown }).content as never };
    return { action } as Reconciliation;
  } catch {
    return { fault: "the reconcile hook's answer could not be read" };
  }
}

export interface RecoveryHost {
  readonly ctx: DriverContext;
  readonly gate: Gate;
  runId(): string;
  /** Seals and applies an event. */
  event(type: "call.reconciled", fields: Record<string, unknown>): void;
  /** How the drive before this one ended, as the lease this one took over tells. */
  readonly ended: Pick<Interruption, "cause" | "holder" | "expiresAt">;
  /** Throws when the lease was lost meanwhile. */
  checkLease(): void;
}

/** Operator-facing: how the last attempt ended. */
function lastTime(i: Interruption): string {
  return i.cause === "released"
    ? "Last time its driver let the run go without recording an outcome."
    : `Last time ${i.holder} stopped without releasing the run, and its lease ${i.cause === "lease_expired" ? "expired" : "was taken over"}.`;
}

/** Decides what becomes of an interrupted call, journaling the decision (or the operator's question). */
export async function recover(host: RecoveryHost, step: number, call: CallState): Promise<void> {
  const { ctx, gate } = host;
  const entry = ctx.tools.get(call.name)!;
  const base = { step, callId: call.callId, attempt: call.attempt };
  const max = ctx.recovery.maxInterruptions;
  const over = max > 0 && call.attempt >= max;
  const interrupted: Interruption = { ...host.ended, ...(call.startedAt === undefined ? {} : { startedAt: call.startedAt }), ...(over ? { limit: max } : {}) };
  const limited = (more: string): string =>
    `${call.name} was interrupted ${call.attempt} times (recovery.maxInterruptions): it runs again only when an operator says so${more}. ${lastTime(interrupted)}`;
  let note: string | undefined;
  if (entry.compiled.sideEffect === "read_only") {
    if (!over) {
      host.event("call.reconciled", { ...base, resolution: "run_again", by: "runtime" });
      return;
    }
    note = limited("");
  }
  const args = gate.argsOf(call, entry);
  const key = call.idempotencyKey ?? idempotencyKey(host.runId() as never, step, call.callId);
  if (ctx.reconcile !== undefined && note === undefined) {
    let by = "hook";
    let answer: Reconciliation | { fault: string };
    try {
      answer = checkReconciliation(
        await ctx.reconcile({ runId: host.runId() as never, step, callId: call.callId, tool: call.name, sideEffect: entry.compiled.sideEffect, args, attempt: call.attempt, idempotencyKey: key }),
      );
    } catch (e) {
      if (isCrash(e)) throw e;
      answer = { fault: "the reconcile hook threw" };
    }
    host.checkLease();
    if ("fault" in answer) note = answer.fault;
    else if (answer.action === "record_result") {
      const observed = await observeContent(call.name, answer.content, gate.projection(entry));
      if (observed.ok && answer.content !== undefined) {
        host.event("call.reconciled", { ...base, resolution: "record_result", by: "hook", observation: observed.observation });
        return;
      }
      note = "the reconcile hook returned record_result without JSON content";
    } else if (answer.action === "run_again" && over) {
      // The hook may know better than the runtime, never better than the limit.
      note = limited(", though the reconcile hook answered run_again");
      by = "runtime";
    } else if (answer.action !== "ask_operator") {
      host.event("call.reconciled", { ...base, resolution: answer.action, by: "hook", ...settled(answer.action, call.name, "hook") });
      return;
    }
    host.event("call.reconciled", { ...base, resolution: "ask_operator", by, ...(note === undefined ? {} : { reason: note }) });
  }
  gate.requestApproval("interrupted_side_effect", step, call, entry, args, gate.resourcesOf(entry, args), { idempotencyKey: key, note, interrupted });
}

/** The observation a settled interruption records (none for run_again, which runs it again). */
export function settled(action: "run_again" | "record_failure" | "mark_unknown", tool: string, by: string): { observation?: ReturnType<typeof recordedFailureObservation> } {
  if (action === "record_failure") return { observation: recordedFailureObservation(tool, by) };
  if (action === "mark_unknown") return { observation: markUnknownObservation(tool, by) };
  return {};
}

export type { ToolEntry };
