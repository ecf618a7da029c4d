/**
 * A run as its readers show it (issue 28, item 6: the run's view, once):
 * what the driver answers when a drive ends (`RunOutcome`), the HTTP API's
 * run and the MCP run tools' all start from `runSummary`, each adding what
 * it alone knows.
 */
import type { JsonValue } from "../json/index.js";
import type { RunId } from "../ids.js";
import type { ApprovalState, RunState, RunStatus } from "./reduce.js";

/** The approvals of a run still waiting for an answer. */
export function pendingApprovals(state: RunState): ApprovalState[] {
  return Object.values(state.approvals).filter((a) => a.status === "pending");
}

/** What every view of a run shows: its id, status and head, its pending approvals, and how it ended. */
export interface RunSummary {
  readonly runId: RunId;
  readonly status: RunStatus;
  readonly seq: number;
  /** Pending approvals (when waiting). */
  readonly approvals: readonly ApprovalState[];
  readonly output?: JsonValue;
  readonly failure?: { readonly reason: string; readonly detail: string };
}

/** A run's summary, from its state. */
export function runSummary(s: RunState): RunSummary {
  return {
    runId: s.runId,
    status: s.status,
    seq: s.seq,
    // Copies: a view is its reader's, and the state goes on (a driver keeps it for the run's next drive).
    approvals: pendingApprovals(s).map((a) => ({ ...a })),
    ...(s.output !== undefined ? { output: s.output } : {}),
    ...(s.failure !== undefined ? { failure: s.failure } : {}),
  };
}
