import type { Agent, AgentProgress } from "../agents/index.js";
import type { Clock } from "../clock.js";
import { IsoagentError } from "../errors.js";
import type { CallId, IdSource, RunId } from "../ids.js";
import type { JsonValue } from "../json/index.js";
import type { ApprovalState, Limits, RunStatus } from "../journal/index.js";
import type { Policy } from "../policy/index.js";
import type { LeaseView, Store } from "../store/index.js";
import type { SideEffect, Tool } from "../tools/index.js";

/** The default limits. */
export const DEFAULT_LIMITS: Limits = Object.freeze({ maxSteps: 50, maxConsecutiveFailures: 3, runTimeoutMs: 0 });

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
 * operator) says: run it again (the same request, same step, same key),
 * record the result it had, record that it failed, or leave it to an operator.
 */
export type Reconciliation =
  | { readonly action: "run_again" }
  | { readonly action: "record_result"; readonly content: JsonValue }
  | { readonly action: "record_failure" }
  | { readonly action: "ask_operator" };

/** Decides what became of an interrupted call that is not read_only. A throw means "ask the operator". */
export type ReconcileHook = (call: InterruptedCall) => Promise<Reconciliation> | Reconciliation;

/** Where the testkit may crash a driver, around a tool's effect. */
export type FaultPoint = "before_start_append" | "after_start_append" | "after_effect" | "after_finish_append";

/**
 * @internal The testkit's fault injection: a hook that may throw {@link Crash}
 * to stop the driver dead, or return a promise that never settles while the
 * test kills the process (reloads the page) at exactly that point.
 */
export interface Faults {
  at(point: FaultPoint, where: { readonly runId: RunId; readonly step: number; readonly callId: CallId; readonly tool: string }): void | Promise<void>;
}

const CRASH = Symbol.for("isoagent.crash");

/** Thrown by fault injection (or a tool wrapper) to simulate a process dying: no more writes, no lease release. */
export class Crash extends Error {
  constructor(message = "simulated crash") {
    super(message);
    this.name = "Crash";
    Object.defineProperty(this, CRASH, { value: true });
  }
}

/** True for a {@link Crash} from any copy of the library. */
export function isCrash(e: unknown): e is Crash {
  return typeof e === "object" && e !== null && (e as Record<symbol, unknown>)[CRASH] === true;
}

export interface DriverOptions {
  /** Where runs live. Default: a new memory store. */
  readonly store?: Store | undefined;
  readonly agent: Agent;
  readonly tools: readonly Tool<never, unknown>[];
  /** Tightens the tools' own permissions. Default: none. */
  readonly policy?: Policy | undefined;
  /** Stamps events. Default: the system clock. */
  readonly clock?: Clock | undefined;
  /** Mints run ids. Default: random UUIDs. */
  readonly ids?: IdSource | undefined;
  readonly limits?: Partial<Limits> | undefined;
  /** Settles interrupted side effects; without it, an operator is asked. */
  readonly reconcile?: ReconcileHook | undefined;
  /** Redacted (with common token shapes) from every result, error text and artifact. */
  readonly secrets?: readonly string[] | undefined;
  /** This driver's name in leases and `run.resumed` events. Default: a random id. */
  readonly owner?: string | undefined;
  /** Lease time to live, renewed at a third of it. Default 30,000 ms. */
  readonly leaseTtlMs?: number | undefined;
  /** Write a snapshot every this many events (a resume replays at most this many). Default 128 (snapshots leave the transcript out, so they stay small). */
  readonly snapshotEvery?: number | undefined;
  /** Hears a streaming agent's progress as it arrives (also kept for {@link Driver.progress}). */
  readonly onProgress?: ((runId: RunId, step: number, progress: AgentProgress) => void) | undefined;
  /** @internal For the testkit's crash tests. */
  readonly faults?: Faults | undefined;
}

/** How a drive ended. `stopped` says why a run that is not ended and not waiting stopped being driven. */
export interface RunOutcome {
  readonly runId: RunId;
  readonly status: RunStatus;
  readonly seq: number;
  readonly output?: JsonValue;
  readonly failure?: { readonly reason: string; readonly detail: string };
  /** Pending approvals (when waiting). */
  readonly approvals: readonly ApprovalState[];
  readonly stopped?: "busy" | "lease_lost" | "signal" | "agent_unavailable" | "crashed" | "store_error";
  /**
   * When `stopped` is "busy": who holds the run's lease, and until when (by
   * the store's clock). The run is being driven elsewhere (another tab, a
   * driver, its Durable Object's host) until then; once the lease expires
   * without being renewed, any driver may take the run over. Null when the
   * holder let go between the refusal and the look.
   */
  readonly lease?: LeaseView | null;
  /** The store's failure, when `stopped` is "store_error" (quota exhausted, database closed, ...). */
  readonly error?: { readonly code: string; readonly message: string };
}

/** The codes of {@link DriverError}. */
export type DriverErrorCode = "TOOL_SHAPE_CHANGED" | "APPROVAL_NOT_FOUND" | "APPROVAL_HASH_MISMATCH" | "APPROVAL_NOT_PENDING" | "ANSWER_REQUIRED" | "RUN_NOT_ACTIVE" | "DRIVER_INVALID";

/** A driver's refusal of an operation. */
export class DriverError extends IsoagentError {
  declare readonly code: DriverErrorCode;
  constructor(code: DriverErrorCode, message: string) {
    super(code, message);
    this.name = "DriverError";
  }
}
