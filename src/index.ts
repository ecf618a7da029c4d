/**
 * isoagent: a durable runtime for tool-using AI agents. This entry point is
 * what an application uses: it runs unchanged in a browser, on Cloudflare
 * Workers and in Node, uses only Web-standard APIs, and never evaluates
 * code from strings.
 *
 * The rest of the core is in named entries, each its area whole (the
 * names below included): `isoagent/driver` (DriverError, the default
 * limits, redaction, idempotency keys, the system clock, random ids),
 * `isoagent/tools` (compileTool, checkArgs, the contract's constants and
 * every type of a spec), `isoagent/schema` (compileSchema and the
 * builders' types), `isoagent/json` (the strict parser, canonical JSON,
 * SHA-256), `isoagent/journal` (events, the hash chain, reduce and apply),
 * `isoagent/store` (the Store port and its shared checks, for store
 * authors), `isoagent/policy` (the policies' options, evaluatePolicy,
 * globs) and `isoagent/testkit` (conformance suites, crash tests and their
 * fault hooks, a manual clock).
 *
 * @module
 */

// Errors: branch on `code` with the guard (it works across bundle copies, where `instanceof` does not).
export { IsoagentError, isIsoagentError, type IsoagentErrorCode } from "./errors.js";

// Schemas for tool inputs: typed builders (or any JSON Schema), and full support for schemas that need it.
export { type JsonValue } from "./json/index.js";
export { array, boolean, enumOf, integer, loadFullSchemaSupport, nullable, number, object, strictObject, string, type JsonSchema, type SchemaType } from "./schema/index.js";

// Tools: define one, and what its call may throw.
export { abortRun, defineTool, permissionDenied, ToolError, type Permission, type ResourceRef, type SideEffect, type Tool, type ToolContext, type ToolSpec } from "./tools/index.js";

// Runs as a user reads them: state, status, pending approvals (`a.request.tool`, `a.request.preview`), events.
export { parseRunId, type ApprovalId, type CallId, type IdSource, type RunId } from "./ids.js";
export { type Clock } from "./clock.js";
export { type ApprovalRequest, type ApprovalState, type JournalEvent, type Limits, type RunState, type RunStatus, type TranscriptItem } from "./journal/index.js";

// Stores: where runs live (isoagent/idb and isoagent/durable-object have the others).
export { memoryStore, type LeaseView, type RunSummary, type Store } from "./store/index.js";

// Policies: what may run, what asks an operator first.
export { allOf, allowAll, pathScopePolicy, rulesPolicy, workspacePolicy, type Policy, type PolicyDecision, type PolicyRequest, type PolicyRule } from "./policy/index.js";

// Agents: the port a model adapter implements, and a scripted agent (with its step builders) for tests and demos.
export {
  AgentError,
  call,
  calls,
  final,
  scriptedAgent,
  type Agent,
  type AgentContext,
  type AgentDecision,
  type AgentProgress,
  type AgentView,
  type ExposedTool,
  type ProposedCall,
  type ScriptStep,
} from "./agents/index.js";

// The driver: runs, their outcome, the operator's answers, context budgets, reconcile hooks.
export {
  createDriver,
  summarizeContext,
  trimContext,
  type ApprovalAnswer,
  type ContextOptions,
  type CreateOptions,
  type Driver,
  type DriverOptions,
  type InterruptedCall,
  type OutputSchema,
  type ReconcileHook,
  type Reconciliation,
  type RecoveryLimits,
  type RunOutcome,
  type RunProgress,
  type Sent,
  type Settlement,
  type StepProgress,
  type UserMessage,
} from "./driver/index.js";
