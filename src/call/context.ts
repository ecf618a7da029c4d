/**
 * What the call pipeline (the gate, one call's execution, a running call's
 * context) needs of its host: the tools, the policy and its identity, the
 * redactor, the clock, the store for artifacts, and where progress goes.
 * The driver's context (src/driver/context.ts) extends it; nothing here
 * knows the loop.
 */
import type { Clock } from "../clock.js";
import type { CallId, RunId } from "../ids.js";
import type { Policy } from "../policy/index.js";
import type { Store } from "../store/index.js";
import type { CompiledTool, Tool } from "../tools/index.js";
import type { Redactor } from "./redact.js";

/** A registered tool: as written, and as compiled. */
export interface ToolEntry {
  readonly tool: Tool<never, unknown>;
  readonly compiled: CompiledTool<never>;
}

/** A running call's latest progress report. */
export interface CallProgress {
  readonly callId: CallId;
  readonly tool: string;
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/** Where running calls' progress goes (the driver's progress board). */
export interface CallProgressSink {
  /** Records a running call's report (already checked and cleaned). */
  tool(runId: RunId, step: number, report: CallProgress): void;
  /** A call ended: its progress is no longer in flight. */
  endCall(runId: RunId, callId: CallId): void;
}

/** The pipeline's view of its host: what the gate, execution and a call's context read. */
export interface CallContext {
  readonly store: Store;
  readonly policy: Policy;
  /** The application's name for its policy: approvals and permissions decided under another are decided again. */
  readonly policyVersion: string | undefined;
  readonly clock: Clock;
  readonly redact: Redactor;
  readonly tools: ReadonlyMap<string, ToolEntry>;
  /** The names of the tools the agent is offered, as an unknown tool's refusal lists them. */
  readonly exposedNames: readonly string[];
  /** What running calls report. */
  readonly progress: CallProgressSink;
}
