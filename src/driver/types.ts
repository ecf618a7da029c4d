import type { Agent } from "../agents/index.js";
import type { Clock } from "../clock.js";
import { IsoagentError } from "../errors.js";
import type { CallId, IdSource, RunId } from "../ids.js";
import type { JsonValue } from "../json/index.js";
import type { ApprovalState, Limits, RunStatus } from "../journal/index.js";
import type { Policy } from "../policy/index.js";
import type { LeaseView, Store } from "../store/index.js";
import type { ReconcileHook, SideEffect, Tool } from "../tools/index.js";
import type { RunProgress } from "./progress.js";
import type { ContextOptions } from "./context-options.js";
export type { InterruptedCall, ReconcileHook, Reconciliation } from "../tools/index.js";

/** The default limits. */
export const DEFAULT_LIMITS: Limits = Object.freeze({ maxSteps: 50, maxConsecutiveFailures: 3, runTimeoutMs: 0 });

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

export { Crash, isCrash } from "../call/crash.js";

/** What a driver is made of: its store, agent, tools and policy, and the clock, ids, limits and recovery bounds it runs under. */
export interface DriverOptions {
  /** Where runs live. Default: a new memory store. */
  readonly store?: Store | undefined;
  readonly agent: Agent;
  readonly tools: readonly Tool<never, unknown>[];
  /** Tightens the tools' own permissions. Synchronous; evaluated fail-closed. Default: none. */
  readonly policy?: Policy | undefined;
  /**
   * The identity of the policy (a version, a hash of its rules): journaled
   * with every permission and approval request, and covered by the request's
   * hash. When it changes, a pending approval, or a call let through and not
   * yet started, is decided again under the new policy (`call.reopened`),
   * and an answer to the old request is refused (APPROVAL_STALE).
   */
  readonly policyVersion?: string | undefined;
  /** Stamps events. Default: the system clock. */
  readonly clock?: Clock | undefined;
  /** Mints run ids. Default: random UUIDs. */
  readonly ids?: IdSource | undefined;
  readonly limits?: Partial<Limits> | undefined;
  /** Settles interrupted side effects; without it, an operator is asked. */
  readonly reconcile?: ReconcileHook | undefined;
  /**
   * Bounds on recovery, so that a crash loop stops instead of paying for the
   * model and the tool on every resume (docs/recovery.md). 0 means no limit.
   *
   * @example
   * ```ts
   * createDriver({ store, agent, tools, recovery: { maxInterruptions: 3, maxResumesWithoutProgress: 5 } })
   * ```
   */
  readonly recovery?: RecoveryLimits | undefined;
  /** Redacted (with common token shapes) from every result, error text and artifact. */
  readonly secrets?: readonly string[] | undefined;
  /** This driver's name in leases and `run.resumed` events. Default: a random id. */
  readonly owner?: string | undefined;
  /** Lease time to live, renewed at a third of it. Default 30,000 ms. */
  readonly leaseTtlMs?: number | undefined;
  /** Write a snapshot every this many events (a resume replays at most this many). Default 128 (snapshots leave the transcript out, so they stay small). */
  readonly snapshotEvery?: number | undefined;
  /**
   * Context management: a budget of tokens per request, and how to compact
   * the transcript when the next request would pass it (journaled as
   * `context.compacted`). Without it, nothing is compacted, and a provider's
   * "context length exceeded" fails the run (`context_exceeded`).
   */
  readonly context?: ContextOptions | undefined;
  /** Hears a streaming agent's progress, and running tools' reports (`ToolContext.progress`), as they arrive (also kept for {@link Driver.progress}). */
  readonly onProgress?: ((runId: RunId, step: number, progress: RunProgress) => void) | undefined;
  /** @internal For the testkit's crash tests. */
  readonly faults?: Faults | undefined;
}

/** Bounds on recovery (`createDriver({ recovery })`); 0 means no limit. */
export interface RecoveryLimits {
  /**
   * A call interrupted this many times (started, and its driver stopped
   * before recording an outcome) is not run again by the runtime: a
   * read_only call's re-run, and a reconcile hook's `run_again`, become an
   * operator's `interrupted_side_effect` approval, each answer letting it
   * run once more. Default 2.
   */
  readonly maxInterruptions?: number | undefined;
  /**
   * A run taken over this many times in a row (each drive stopped without
   * releasing it) with no decision, call outcome or operator's answer in
   * between fails with `no_progress` instead of being driven again: a
   * crash loop of the model's call, a hook or a policy. Drives that stop
   * cleanly (the model unavailable, a signal, waiting) release the run and
   * never count. Keep it above `maxInterruptions`, or a tool's crash loop
   * fails the run before its call is asked about. Default 3.
   */
  readonly maxResumesWithoutProgress?: number | undefined;
}

/**
 * How a drive ended. `stopped` says why a run that is not ended and not
 * waiting stopped being driven. A drive stopped as `busy`, `lease_lost`,
 * `store_error` or `crashed` (the testkit's) reports the run as the store
 * holds it, never what it applied in memory and could not write.
 */
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

export { DriverError, type DriverErrorCode } from "../call/refusal.js";
