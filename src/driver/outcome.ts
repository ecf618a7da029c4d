import type { RunState } from "../journal/index.js";
import { runSummary } from "../journal/summary.js";
import type { RunOutcome } from "./types.js";

/** How a drive ended, from the run's state: one builder for every way a drive ends. */
export function outcomeOf(s: RunState, stopped: RunOutcome["stopped"], error?: { readonly code: string; readonly message: string }): RunOutcome {
  return {
    ...runSummary(s),
    ...(stopped !== undefined ? { stopped } : {}),
    ...(error !== undefined ? { error } : {}),
  };
}
