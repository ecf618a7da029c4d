/**
 * The driver's context-management options (a budget and a strategy), apart
 * from the compaction that applies them: the driver's options and its
 * context name them, and the compaction reads the context.
 *
 * @module
 */
import type { Agent } from "../agents/index.js";

/** How a transcript is compacted. */
export type ContextStrategy =
  { readonly kind: "trim"; readonly keepRecent: number } | { readonly kind: "summarize"; readonly keepRecent: number; readonly agent: Agent | undefined; readonly instructions: string };

/** The driver's context management. */
export interface ContextOptions {
  /**
   * The most tokens a request may carry (the transcript, the tools, the
   * instructions), by the estimate: the last answer's input tokens (exact,
   * from the journal) plus about one token per four characters since. A
   * compaction brings it down to 60% of this.
   */
  readonly budgetTokens: number;
  /** Default: `trimContext()` (isoagent's deterministic trimmer). */
  readonly strategy?: ContextStrategy;
}
