/**
 * Reconciliation: deciding what became of a call that was executing a tool
 * that is not read_only when its driver crashed or lost the run's lease. The
 * types live with the tool contract so a toolkit can offer a hook without
 * knowing the driver.
 */
import type { CallId, RunId } from "../ids.js";
import type { JsonValue } from "../json/index.js";
import type { SideEffect } from "./spec.js";

/** A call whose outcome is unknown after a crash or a lost lease, for the reconcile hook. */
export interface InterruptedCall {
  readonly runId: RunId;
  readonly step: number;
  readonly callId: CallId;
  readonly tool: string;
  readonly sideEffect: SideEffect;
  readonly args: JsonValue;
  /** The attempt that was interrupted. */
  readonly attempt: number;
  readonly idempotencyKey: string;
}

/**
 * What became of an interrupted call, as the consumer's reconciliation (or an
 * operator) says, each told to the model exactly:
 *
 * - `run_again`: it did not take effect (or doing it twice is harmless): run
 *   the same request again, same step, same idempotency key;
 * - `record_result`: it took effect, with this result;
 * - `record_failure`: it is known not to have taken effect;
 * - `mark_unknown`: nobody can tell; the model is told the outcome is
 *   unknown and that it must check before repeating;
 * - `ask_operator`: leave it to an operator.
 */
export type Reconciliation =
  | { readonly action: "run_again" }
  | { readonly action: "record_result"; readonly content: JsonValue }
  | { readonly action: "record_failure" }
  | { readonly action: "mark_unknown" }
  | { readonly action: "ask_operator" };

/**
 * Decides what became of an interrupted call that is not read_only. A throw,
 * or an answer that is not a {@link Reconciliation}, means "ask the operator"
 * (with the fault in the operator's reason).
 */
export type ReconcileHook = (call: InterruptedCall) => Promise<Reconciliation> | Reconciliation;
