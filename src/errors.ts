/**
 * The typed errors of isoagent: one base class with a stable `code`, and a
 * guard that works across bundle copies (where `instanceof` does not).
 *
 * @module
 */

/** The codes of a driver's refusals (`DriverError`, src/call/refusal.ts). */
export type DriverErrorCode =
  | "TOOL_SHAPE_CHANGED"
  | "APPROVAL_NOT_FOUND"
  | "APPROVAL_HASH_MISMATCH"
  | "APPROVAL_NOT_PENDING"
  | "APPROVAL_NOT_RECONCILABLE"
  | "APPROVAL_STALE"
  | "ANSWER_REQUIRED"
  | "RUN_NOT_ACTIVE"
  | "DRIVER_INVALID"
  | "NOT_A_CONVERSATION"
  | "TURN_IN_PROGRESS"
  | "NO_TURN"
  | "MESSAGE_INVALID"
  | "MESSAGE_TOO_LARGE"
  | "MESSAGE_ID_REUSED"
  | "OUTPUT_SCHEMA_INVALID";

/** Every stable error code isoagent throws or returns. */
export type IsoagentErrorCode =
  // strict JSON at the boundary
  | "JSON_SYNTAX"
  | "JSON_TOO_DEEP"
  | "JSON_INVALID_UTF8"
  | "JSON_LONE_SURROGATE"
  | "JSON_DUPLICATE_KEY"
  | "JSON_NUMBER_OUT_OF_RANGE"
  | "JSON_NOT_SERIALIZABLE"
  // schemas
  | "SCHEMA_MISSING"
  | "SCHEMA_NOT_JSON"
  | "SCHEMA_TOO_DEEP"
  | "SCHEMA_EXTERNAL_REF"
  | "SCHEMA_UNSUPPORTED_KEYWORD"
  | "SCHEMA_INVALID"
  | "SCHEMA_NEEDS_FULL_SUPPORT"
  | "SCHEMA_PATTERN_UNSUPPORTED"
  // tool specs
  | "TOOL_NAME_INVALID"
  | "TOOL_NAME_DUPLICATE"
  | "TOOL_NAME_RESERVED"
  | "TOOL_DESCRIPTION_INVALID"
  | "TOOL_SIDE_EFFECT_INVALID"
  | "TOOL_TIMEOUT_INVALID"
  | "TOOL_PERMISSION_REQUIRED"
  | "TOOL_PERMISSION_INVALID"
  | "TOOL_PARALLEL_SAFE_INVALID"
  | "TOOL_TERMINAL_INVALID"
  | "TOOL_OUTPUT_POLICY_INVALID"
  | "TOOL_RESOURCES_INVALID"
  | "TOOL_PREVIEW_INVALID"
  | "TOOL_PROMPT_INVALID"
  | "TOOL_ACTIVITY_INVALID"
  | "TOOL_WANTS_ANSWER_INVALID"
  | "TOOL_SCHEMA_STANDARD_UNSUPPORTED"
  | "TOOL_SCHEMA_NOT_OBJECT"
  | "TOOL_SCHEMA_UNKNOWN_KEYWORD"
  | "TOOL_SCHEMA_UNKNOWN_TYPE"
  | "TOOL_SCHEMA_FORMAT_UNSUPPORTED"
  | "TOOL_FORMATS_INVALID"
  | "TOOL_SPEC_INVALID"
  // policy
  | "POLICY_INVALID"
  // journal
  | "JOURNAL_INVALID"
  | "JOURNAL_HASH_MISMATCH"
  // stores
  | "JOURNAL_CONFLICT"
  | "LEASE_NOT_HELD"
  | "RUN_EXISTS"
  | "RUN_NOT_FOUND"
  | "STORE_INVALID_APPEND"
  | "STORE_UNAVAILABLE"
  | "STORE_QUOTA_EXCEEDED"
  | "STORE_BLOCKED"
  | "STORE_CLOSED"
  // custody: a run this store does not own (isoagent/move)
  | "RUN_MOVED"
  | "RUN_IN_TRANSIT"
  | "RUN_MIRROR"
  | "RUN_OWNED"
  // run bundles and moves (isoagent/move)
  | "BUNDLE_INVALID"
  | "BUNDLE_VERSION"
  | "BUNDLE_TRUNCATED"
  | "BUNDLE_REORDERED"
  | "BUNDLE_TAMPERED"
  | "BUNDLE_ARTIFACT_MISSING"
  | "BUNDLE_TOO_LARGE"
  | "BUNDLE_KEY_INVALID"
  | "BUNDLE_SIGNATURE_INVALID"
  | "RUN_DIVERGED"
  | "MOVE_FENCED"
  | "MOVE_REFUSED"
  // the driver's refusals, a conversation's (v5) among them (DriverErrorCode, below)
  | DriverErrorCode
  | "AGENT_ERROR"
  // a model provider's transport (src/agents/model): an error event inside a
  // 2xx stream, and a request that got no HTTP answer
  | "MODEL_STREAM_ERROR"
  | "NETWORK_ERROR"
  // thrown by tools, read by the call pipeline (src/tools, src/call): a
  // failure told to the model, a resource the policy refused, a run ended by
  // a tool, and a simulated crash (the testkit's fault hooks)
  | "TOOL_ERROR"
  | "PERMISSION_DENIED"
  | "ABORT_RUN"
  | "CRASH"
  // the driver's own unwinding (never leave a drive): the lease was lost, the
  // signal stopped the drive
  | "LEASE_LOST"
  | "RUN_INTERRUPTED"
  // a pattern the linear matcher cannot run (src/pattern)
  | "PATTERN_UNSUPPORTED"
  // toolkit: a web search that failed, a bash thread's message the protocol does not allow
  | "SEARCH_FAILED"
  | "BASH_PROTOCOL"
  // the HTTP API (isoagent/http)
  | "IDEMPOTENCY_KEY_INVALID"
  | "IDEMPOTENCY_KEY_REUSED"
  // a refusal of an HTTP route, answered with its API code (HttpError's apiCode)
  | "HTTP_REFUSED"
  // MCP (isoagent/mcp)
  | "MCP_OPTIONS_INVALID"
  | "MCP_CONNECT_FAILED"
  | "MCP_HTTP_ERROR"
  | "MCP_PROTOCOL_ERROR"
  | "MCP_RPC_ERROR"
  | "MCP_SESSION_EXPIRED"
  | "MCP_MESSAGE_TOO_LARGE"
  | "MCP_CANCELLED"
  | "MCP_CLOSED"
  // An optional peer dependency an entry needs is not installed (src/peers.ts).
  | "PEER_MISSING"
  // the testkit: a conformance suite's check that failed, a schema the
  // fuzzer or a pattern the regex sampler cannot make values for
  | "CONFORMANCE_FAILED"
  | "FUZZ_UNSATISFIABLE"
  | "REGEX_SAMPLE_UNSUPPORTED";

// A registered symbol, so that two copies of this module (two bundles on one
// page) still recognise each other's errors.
const ISOAGENT_ERROR = Symbol.for("isoagent.error");

/**
 * The base class of every error isoagent throws. `code` is stable and is what
 * callers should branch on; `message` is stable too (tests pin it), but is
 * meant for people.
 *
 * @example
 * ```ts
 * try { compileTool(spec) } catch (e) {
 *   if (isIsoagentError(e, "SCHEMA_EXTERNAL_REF")) console.error(e.message)
 * }
 * ```
 */
export class IsoagentError extends Error {
  /** Stable, machine-readable code. */
  readonly code: IsoagentErrorCode;

  constructor(code: IsoagentErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    // Set as a literal: minifiers rename classes, and `name` is what people see.
    this.name = "IsoagentError";
    Object.defineProperty(this, ISOAGENT_ERROR, { value: true });
  }
}

/**
 * True when `e` is an isoagent error (from any copy of the library), and, when
 * `code` is given, has that code.
 */
export function isIsoagentError<C extends IsoagentErrorCode>(e: unknown, code?: C): e is IsoagentError & { code: C } {
  if (typeof e !== "object" || e === null) return false;
  if ((e as Record<symbol, unknown>)[ISOAGENT_ERROR] !== true) return false;
  return code === undefined || (e as IsoagentError).code === code;
}
