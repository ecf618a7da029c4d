/**
 * What every session of one driver shares: its ports, its compiled tools,
 * and what it offers the agent.
 */
import type { Agent, ExposedTool } from "../agents/index.js";
import type { Clock } from "../clock.js";
import type { RunId } from "../ids.js";
import { hashJsonSync } from "../json/index.js";
import type { Limits, RunState } from "../journal/index.js";
import type { Policy } from "../policy/index.js";
import type { Store } from "../store/index.js";
import type { CompiledTool, Tool } from "../tools/index.js";
import type { ContextOptions } from "./compaction.js";
import type { ProgressBoard } from "./progress.js";
import type { Redactor } from "./redact.js";
import { DriverError, type Faults, type ReconcileHook } from "./types.js";

export interface ToolEntry {
  readonly tool: Tool<never, unknown>;
  readonly compiled: CompiledTool<never>;
}

export interface DriverContext {
  readonly store: Store;
  readonly agent: Agent;
  readonly policy: Policy;
  /** The application's name for its policy: approvals and permissions decided under another are decided again. */
  readonly policyVersion: string | undefined;
  readonly clock: Clock;
  readonly limits: Limits;
  readonly reconcile: ReconcileHook | undefined;
  readonly redact: Redactor;
  readonly owner: string;
  readonly leaseTtlMs: number;
  readonly snapshotEvery: number;
  /** Context management, when the application asked for it. */
  readonly context: ContextOptions | undefined;
  /** The estimated tokens of the tools and their prompts, which every request carries. */
  readonly toolsTokens: number;
  readonly faults: Faults | undefined;
  /** What streaming agents said so far, per run. */
  readonly progress: ProgressBoard;
  /** Tells the run's watchers (Driver.watch) that it changed: appended to, or its progress. */
  readonly notify: (runId: RunId, what: "append" | "progress") => void;
  readonly tools: ReadonlyMap<string, ToolEntry>;
  /** The tools the agent is offered (all but deny), in registration order. */
  readonly exposed: readonly ExposedTool[];
  readonly exposedNames: readonly string[];
  /** Their shapes' hashes, as `run.created` records them. */
  readonly shapes: readonly { readonly name: string; readonly specHash: string }[];
  /** Refuses a run created with other tool shapes than this driver's. */
  checkShapes(state: RunState): void;
}

/**
 * The hash of a tool's shape: name, description, input schema, side effect
 * (what `run.created` records per tool, and an approval request binds).
 */
export function shapeHash(tool: Pick<CompiledTool<never>, "name" | "description" | "inputSchema" | "sideEffect">): string {
  return hashJsonSync({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema, sideEffect: tool.sideEffect });
}

export function shapeChecker(shapes: readonly { name: string; specHash: string }[]): (state: RunState) => void {
  const mine = new Map(shapes.map((s) => [s.name, s.specHash]));
  return (state) => {
    const theirs = new Map(state.tools.map((s) => [s.name, s.specHash]));
    const hint = "(register tools conditionally; never change a tool's shape under a live run)";
    for (const [name, hash] of theirs) {
      const own = mine.get(name);
      if (own === undefined) throw new DriverError("TOOL_SHAPE_CHANGED", `run ${state.runId} was offered tool "${name}", which this driver does not offer ${hint}`);
      if (own !== hash) throw new DriverError("TOOL_SHAPE_CHANGED", `run ${state.runId} was offered another shape of tool "${name}" ${hint}`);
    }
    for (const name of mine.keys()) {
      if (!theirs.has(name)) throw new DriverError("TOOL_SHAPE_CHANGED", `run ${state.runId} was not offered tool "${name}", which this driver offers ${hint}`);
    }
  };
}
