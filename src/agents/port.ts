/**
 * The Agent port: the model proposes, the runtime disposes. What an agent is
 * shown is a pure function of the run's journal (so recording and replay are
 * exact), built incrementally as the journal grows.
 */
import { IsoagentError } from "../errors.js";
import type { JsonValue } from "../json/index.js";
import type { TranscriptItem } from "../journal/index.js";
import type { AgentDecision } from "../journal/proposed.js";
import type { JsonSchema } from "../schema/index.js";
import type { ToolPrompt } from "../tools/index.js";
import type { AbortSignalLike } from "../web.js";

/** A tool as the agent is offered it. */
export interface ExposedTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonSchema;
  /** The tool's part of the system prompt, when it has one. */
  readonly prompt?: ToolPrompt | undefined;
}

/** What the agent sees when asked for a step. Nothing in it is run-specific. */
export interface AgentView {
  readonly task: JsonValue;
  /** Every tool but those whose permission is deny. */
  readonly tools: readonly ExposedTool[];
  /** Task, decisions and observations so far. Read it; do not change it. */
  readonly transcript: readonly TranscriptItem[];
  /** The step being decided (1 for the first). */
  readonly step: number;
  /**
   * The bytes of the files the transcript's messages carry (v5), by
   * SHA-256: the driver loads them for each request, and the model adapters
   * show them as images, documents or text (a file missing here is a note).
   */
  readonly files?: ReadonlyMap<string, Uint8Array>;
  /**
   * The JSON Schema the final answer must match, when the run (or the
   * turn) has one (v5): an answer that does not is refused and asked
   * again. The model adapters give it to the provider's structured-output
   * mode; a final answer's text is read as JSON.
   */
  readonly outputSchema?: JsonValue;
}

export type { AgentDecision, ProposedCall } from "../journal/proposed.js";

/**
 * What a streaming agent reports while it decides: text as it arrives, a
 * call's name and argument text as they arrive (by the call's index in the
 * decision), and a restart (a retry: drop what was shown). Progress is shown,
 * never journaled; the decision is journaled once, complete.
 */
export type AgentProgress =
  { readonly type: "text"; readonly delta: string } | { readonly type: "call"; readonly index: number; readonly name?: string; readonly argsDelta: string } | { readonly type: "restart" };

/** What the driver gives an agent with each view. */
export interface AgentContext {
  readonly signal: AbortSignalLike;
  /** Where a streaming agent reports progress; absent when nobody listens. */
  readonly onProgress?: ((progress: AgentProgress) => void) | undefined;
}

/** What decides each step: given the run's view (task, tools, transcript), it answers calls to make or the final output. Model adapters implement it. */
export interface Agent {
  decide(view: AgentView, context: AgentContext): Promise<AgentDecision>;
}

/**
 * An agent's failure. `retryable` (a network failure, a rate limit the
 * adapter gave up on) leaves the run to be resumed later; otherwise the run
 * fails with reason `agent_error` and this message, which adapters keep free
 * of secrets.
 */
export class AgentError extends IsoagentError {
  readonly retryable: boolean;
  /**
   * The provider said the request passed the model's context window: the
   * driver compacts the transcript once and asks again (with a context
   * budget), and otherwise fails the run with reason `context_exceeded`.
   */
  readonly contextExceeded: boolean;
  constructor(message: string, options: { retryable?: boolean; contextExceeded?: boolean; cause?: unknown } = {}) {
    super("AGENT_ERROR", message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "AgentError";
    this.retryable = options.retryable === true;
    this.contextExceeded = options.contextExceeded === true;
  }
}
