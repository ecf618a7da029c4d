/**
 * The durable driver: the run loop, recovery and reconciliation.
 *
 * @module
 */
export { createDriver, type Driver } from "./driver.js";
export { elisionNotice, foldNotice, summarizeContext, summaryNotice, SUMMARY_INSTRUCTIONS, trimContext, type ContextOptions, type ContextStrategy } from "./compaction.js";
export { shapeHash as toolShapeHash } from "./context.js";
export { answerThenDrive, type ApprovalAnswer, type Settlement } from "./operator.js";
export { type CallProgress, type RunProgress, type StepProgress, type ToolProgressReport } from "./progress.js";
export { REDACTED, redactor, redactJson, type Redactor } from "./redact.js";
export { idempotencyKey } from "./keys.js";
export {
  Crash,
  DEFAULT_LIMITS,
  DriverError,
  isCrash,
  type DriverErrorCode,
  type DriverOptions,
  type FaultPoint,
  type Faults,
  type InterruptedCall,
  type ReconcileHook,
  type Reconciliation,
  type RunOutcome,
} from "./types.js";
