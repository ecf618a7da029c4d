/**
 * isoagent/driver: the durable driver whole, for hosts and adapters built
 * beside it. Besides what the root exports (`createDriver`, its options and
 * outcome, the operator's answers, context strategies, reconcile hooks):
 * `DriverError` and its codes, the default limits, the clock and id
 * sources, the model-facing notices of compaction, redaction, idempotency
 * keys, the shape hash approvals cover, and `answerThenDrive`. Its crash
 * hooks (`Crash`, `Faults`) are in isoagent/testkit.
 *
 * @module
 */
export { createDriver, type CreateOptions, type Driver } from "./driver.js";
export { OUTPUT_SCHEMA_MAX_CHARS, type OutputSchema } from "./output.js";
export { elisionNotice, foldNotice, summarizeContext, summaryNotice, SUMMARY_INSTRUCTIONS, trimContext, type ContextOptions, type ContextStrategy } from "./compaction.js";
export { shapeHash as toolShapeHash } from "../tools/shape.js";
export { answerThenDrive, type ApprovalAnswer, type Settlement } from "./operator.js";
export { type CallProgress, type RunProgress, type StepProgress, type ToolProgressReport } from "./progress.js";
export { REDACTED, redactor, redactJson, type Redactor } from "../call/redact.js";
export { idempotencyKey } from "./keys.js";
export { MESSAGE_LIMITS, type Sent, type UserMessage } from "./turns.js";
export { DEFAULT_LIMITS, DriverError, type DriverErrorCode, type DriverOptions, type InterruptedCall, type ReconcileHook, type Reconciliation, type RecoveryLimits, type RunOutcome } from "./types.js";
export { systemClock, type Clock } from "../clock.js";
export { randomIds, type IdSource } from "../ids.js";
