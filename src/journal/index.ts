/**
 * isoagent/journal: the run journal whole. The versioned union of events
 * and the ids they carry, the hash chain (`seal`, `verifyChain`), and the
 * reducer that makes a run's state from its events (`reduce`, `apply`),
 * with every type of that state. For code that reads, verifies, replays or
 * writes journals outside a driver: a store, an exporter, an audit, a test
 * that forges events. An application reads runs through the root's
 * `RunState`, `RunStatus`, `ApprovalState`, `ApprovalRequest`,
 * `JournalEvent` and `TranscriptItem`.
 *
 * @module
 */
export * from "./events.js";
export { journalNames } from "./artifacts.js";
export { JournalError } from "./errors.js";
export { pendingApprovals } from "./summary.js";
export { eventHash, seal, sealAll, verifyChain } from "./hash.js";
export {
  apply,
  ARTIFACTS_KEPT,
  createdStatus,
  reduce,
  RUN_STATUSES,
  TERMINAL_STATUSES,
  type ApprovalState,
  type CallState,
  type CallStatus,
  type ConversationState,
  type RunState,
  type RunStatus,
  type StepState,
  type TranscriptItem,
} from "./reduce.js";
export { parseApprovalId, parseCallId, parseRunId, type ApprovalId, type CallId, type RunId } from "../ids.js";
