/**
 * What every session of one driver shares: its ports, its compiled tools,
 * and what it offers the agent.
 */
import type { Agent, ExposedTool } from "../agents/index.js";
import type { CallContext } from "../call/context.js";
import type { RunId } from "../ids.js";
import type { Limits, RunState } from "../journal/index.js";
import type { ContextOptions } from "./context-options.js";
import type { ProgressBoard } from "./progress.js";
import type { RunStates } from "./states.js";
import { DriverError, type Faults, type ReconcileHook } from "./types.js";

export type { ToolEntry } from "../call/context.js";

/** The call pipeline's context (src/call/context.ts), and what the loop needs besides. */
export interface DriverContext extends CallContext {
  readonly agent: Agent;
  readonly limits: Limits;
  readonly reconcile: ReconcileHook | undefined;
  /** Bounds on recovery, resolved (0: no limit). */
  readonly recovery: { readonly maxInterruptions: number; readonly maxResumesWithoutProgress: number };
  readonly owner: string;
  readonly leaseTtlMs: number;
  readonly snapshotEvery: number;
  /** Context management, when the application asked for it. */
  readonly context: ContextOptions | undefined;
  /** The estimated tokens of the tools and their prompts, which every request carries. */
  readonly toolsTokens: number;
  readonly faults: Faults | undefined;
  /** What streaming agents said so far, per run, and what running calls report. */
  readonly progress: ProgressBoard;
  /** Tells the run's watchers (Driver.watch) that it changed: appended to, or its progress. */
  readonly notify: (runId: RunId, what: "append" | "progress") => void;
  /** The tools the agent is offered (all but deny), in registration order. */
  readonly exposed: readonly ExposedTool[];
  /** Their shapes' hashes, as `run.created` records them. */
  readonly shapes: readonly { readonly name: string; readonly specHash: string }[];
  /** The states this driver's drives ended with, for the next drive of the same run. */
  readonly states: RunStates;
  /** Refuses a run created with other tool shapes than this driver's. */
  checkShapes(state: RunState): void;
}

export { shapeChecker } from "../call/refusal.js";
