/**
 * The run journal: a versioned union of events, chained by hash, and the
 * reducer that makes a run's state from it.
 *
 * @module
 */
export * from "./events.js";
export { JournalError } from "./errors.js";
export { eventHash, seal, sealAll, verifyChain } from "./hash.js";
export {
  apply,
  ARTIFACTS_KEPT,
  journalNames,
  initialState,
  pendingApprovals,
  reduce,
  RUN_STATUSES,
  TERMINAL_STATUSES,
  type ApprovalState,
  type CallState,
  type CallStatus,
  type RunState,
  type RunStatus,
  type StepState,
  type TranscriptItem,
} from "./reduce.js";
