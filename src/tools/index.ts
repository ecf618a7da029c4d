/**
 * isoagent/tools: the tool contract whole. Specs and every type they are
 * made of, their compilation (every check the driver makes: `compileTool`),
 * the runtime's acceptance of a call's raw arguments (`checkArgs`, usable
 * without a driver, beside another framework's loop), the contract's
 * constants, Standard Schema input, and the diff a preview shows. A tool
 * author needs only `defineTool`, `Tool`, `ToolSpec`, `ToolContext`,
 * `ToolError`, `abortRun`, `permissionDenied` and the side effect,
 * permission and resource types, which the root exports.
 *
 * @module
 */
export {
  DEFAULT_OUTPUT_POLICY,
  MAX_TIMEOUT_MS,
  OPERATIONS,
  operationOf,
  PERMISSIONS,
  RESERVED_TOOL_NAMES,
  SIDE_EFFECTS,
  type Operation,
  type OutputPolicy,
  type Permission,
  type PreviewContext,
  type ResolvedOutputPolicy,
  type ResourceRef,
  type SideEffect,
  type ToolPrompt,
  type ToolSpec,
} from "./spec.js";
export { compileTool, compileTools, ToolSpecError, type CompiledTool, type ToolSpecErrorCode } from "./compile.js";
export { MAX_LISTED_ISSUES, type ArgsAccepted, type ArgsCheck, type ArgsRefused } from "./check.js";
export { CHECK_ARGS_CACHE_SIZE, checkArgs } from "./check-args.js";
export {
  abortRun,
  AbortRunError,
  defineTool,
  isAbortRun,
  isPermissionDenied,
  permissionDenied,
  PermissionDeniedError,
  ToolError,
  type PermitAnswer,
  type SideEffectRules,
  type Tool,
  type ToolContext,
  type ToolDefinition,
  type ToolInputSchema,
  type ToolProgress,
} from "./tool.js";
export { type InterruptedCall, type ReconcileHook, type Reconciliation } from "./reconcile.js";
export { lineDiff } from "./diff.js";
export { isStandardSchema, standardJsonSchema, type StandardInput, type StandardSchemaLike } from "./standard.js";
