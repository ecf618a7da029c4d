import { pendingApprovals, type RunState } from "../journal/index.js";
import type { RunOutcome } from "./types.js";

/** How a drive ended, from the run's state: one builder for every way a drive ends. */
export function outcomeOf(s: RunState, stopped: RunOutcome["stopped"], error?: { readonly code: string; readonly message: string }): RunOutcome {
  return {
    runId: s.runId,
    status: s.status,
    seq: s.seq,
    approvals: pendingApprovals(s),
    ...(s.output !== undefined ? { output: s.output } : {}),
    ...(s.failure !== undefined ? { failure: s.failure } : {}),
    ...(stopped !== undefined ? { stopped } : {}),
    ...(error !== undefined ? { error } : {}),
  };
}
