import { IsoagentError, isIsoagentError } from "../errors.js";
import type { CallId, RunId } from "../ids.js";
import type { JsonValue } from "../json/index.js";
import type { SchemaObjectOf, SchemaType, TypedSchema } from "../schema/index.js";
import type { AbortSignalLike } from "../web.js";
import type { Permission, ResourceRef, SideEffect, ToolSpec } from "./spec.js";
import type { StandardInput, StandardSchemaLike } from "./standard.js";

/** What a tool learns about the call it serves: the only place it learns which run. */
export interface ToolContext {
  readonly runId: RunId;
  readonly step: number;
  readonly callId: CallId;
  /** 1 for the first attempt; more when recovery runs the same call again. */
  readonly attempt: number;
  /**
   * The same for every attempt of one call (run, step, call): a tool that
   * records it in the outside system can recognise its own earlier attempt
   * and answer from its record instead of acting twice.
   */
  readonly idempotencyKey: string;
  /** The run's lease token: strictly larger for every new owner; pass it to systems that fence writes. */
  readonly fencingToken: number;
  /** Aborted on timeout, and when the driver itself is cancelled. */
  readonly signal: AbortSignalLike;
  /** For a tool that wants an answer: what the person answered when approving this attempt, and who. */
  readonly answer?: { readonly text: string; readonly by: string } | undefined;
  /**
   * Asks the run's policy about resources the tool found while it runs (the
   * files under a folder it lists, a redirect's host), before it reads or
   * reaches them. What the call declared in `resources()` passed the gate
   * already and is allowed; anything else is judged by the policy (stage
   * "discovered"), fail-closed: a policy fault denies. A call that is
   * already running cannot stop to ask, so a tool treats "ask" like "deny":
   * it leaves the resource out (and may tell the model to ask for it by
   * name, in a call of its own).
   *
   * @example
   * ```ts
   * const shown = files.filter((f) => ctx.permit([{ kind: "path", value: f.path, operation: "read" }]).permission === "allow")
   * ```
   */
  permit(resources: readonly ResourceRef[]): PermitAnswer;
  /**
   * An artifact's bytes, only when this run's journal names it (a truncated
   * output, an output a compaction elided): the artifact store is shared
   * between runs, and a run reads back only its own. Undefined otherwise.
   */
  readArtifact(sha256: string): Promise<Uint8Array | undefined>;
  /**
   * Reports how far the call is. It becomes the driver's progress for the
   * run, as an agent's streaming does (`driver.progress(runId)`, the
   * driver's `onProgress`, the HTTP API's live `progress` event): shown to
   * people, never journaled, never shown to the model. The message is
   * cleaned, redacted and cut to 200 characters; a report whose numbers are
   * not finite, or whose progress is lower than the last one, is dropped.
   *
   * @example
   * ```ts
   * ctx.progress({ progress: done, total: files.length, message: `indexed ${done} files` })
   * ```
   */
  progress(update: ToolProgress): void;
  /**
   * Keeps bytes (an image, a file a call produced) as an artifact named by
   * their SHA-256, in the run's store. Valid UTF-8 text is redacted first,
   * as every artifact is; other bytes are kept as they are. The answer names
   * what was kept.
   *
   * @example
   * ```ts
   * const { sha256 } = await ctx.putArtifact(png)
   * return `chart saved as artifact sha256:${sha256}`
   * ```
   */
  putArtifact(bytes: Uint8Array): Promise<{ readonly sha256: string; readonly size: number }>;
}

/** How far a running call is (see {@link ToolContext.progress}). */
export interface ToolProgress {
  /** How much is done, in the tool's own units; grows with each report. */
  readonly progress: number;
  /** How much there is in all, when known. */
  readonly total?: number | undefined;
  /** A short line for people. */
  readonly message?: string | undefined;
}

/** The policy's answer about resources a running call found. */
export interface PermitAnswer {
  readonly permission: Permission;
  /** Why, for the operator (a policy's reason, or its fault). */
  readonly reason?: string | undefined;
}

/**
 * A tool: its spec and the function that acts. `call` gets the checked
 * arguments. It returns JSON content (or raw JSON bytes as a Uint8Array;
 * `undefined` means `{}`), throws a {@link ToolError} for a failure the
 * model should read, or throws {@link abortRun} to end the run. Anything
 * else it throws is reported to the model as a generic failure: an
 * exception's message never reaches the model.
 */
export interface Tool<Args = JsonValue, Result = unknown> extends ToolSpec<Args> {
  call(args: Args, context: ToolContext): Promise<Result> | Result;
}

/**
 * What a tool declared with an explicit argument type may take as its input
 * schema: a schema made by the builders carries its value type, which must
 * fit `Args` (a `string()` property where `Args` says `number` is a compile
 * error); any other schema, JSON text or Standard Schema is taken as it is.
 *
 * @example
 * ```ts
 * const ok: ToolInputSchema<{ path: string }> = strictObject({ path: string() })
 * // @ts-expect-error the schema says string, the type says number
 * const wrong: ToolInputSchema<{ path: number }> = strictObject({ path: string() })
 * ```
 */
export type ToolInputSchema<Args> = boolean | TypedSchema<Args> | string | StandardSchemaLike;

/**
 * Declares a tool with its argument type inferred (an identity at run time):
 * from a Standard Schema's input type, from the type a builder schema
 * carries (`strictObject`, `string`, ...), or given explicitly. An explicit
 * type that a builder schema contradicts is a compile error.
 *
 * @example
 * ```ts
 * const readFile = defineTool({
 *   name: "read_file", description: "Read a text file.", sideEffect: "read_only", timeoutMs: 5_000,
 *   inputSchema: strictObject({ path: string("Workspace-relative path") }),
 *   call: (args) => files.get(args.path) ?? "",   // args: { path: string }
 * })
 * ```
 */
export function defineTool<S extends StandardSchemaLike, Result = unknown>(tool: ToolDefinition<StandardInput<S>, Result> & { readonly inputSchema: S }): Tool<StandardInput<S>, Result>;
export function defineTool<S extends SchemaObjectOf | boolean, Result = unknown>(tool: ToolDefinition<SchemaType<S>, Result> & { readonly inputSchema: S }): Tool<SchemaType<S>, Result>;
export function defineTool<Args = JsonValue, Result = unknown>(tool: ToolDefinition<Args, Result> & { readonly inputSchema: ToolInputSchema<Args> }): Tool<Args, Result>;
export function defineTool<Args = JsonValue, Result = unknown>(tool: Tool<Args, Result>): Tool<Args, Result> {
  return tool;
}

/**
 * What a tool's side-effect class asks of its spec, as types, so that
 * `defineTool` refuses at compile time what `compileTool` refuses at run
 * time: every class but read_only states its permission, and only a
 * read_only tool may be `parallelSafe`. A `sideEffect` known only as
 * `SideEffect` must state a permission (it may be a writer).
 *
 * @example
 * ```ts
 * // @ts-expect-error a local_mutation tool must state its permission
 * defineTool({ name: "w", description: "Write.", inputSchema: {}, sideEffect: "local_mutation", timeoutMs: 1_000, call: () => "ok" })
 * ```
 */
export type SideEffectRules =
  | { readonly sideEffect: "read_only"; readonly permission?: Permission | undefined; readonly parallelSafe?: boolean | undefined }
  | { readonly sideEffect: Exclude<SideEffect, "read_only">; readonly permission: Permission; readonly parallelSafe?: false | undefined };

/** A tool as `defineTool` takes it: its spec under {@link SideEffectRules}, its schema given apart. */
export type ToolDefinition<Args, Result> = Omit<Tool<Args, Result>, "inputSchema" | "sideEffect" | "permission" | "parallelSafe"> & SideEffectRules;

/**
 * A failure the tool describes for the model, by the error contract: what
 * went wrong (`summary`), the safe next step, and when to stop. Build it
 * from validated local context (a path you resolved), never from another
 * exception's message.
 *
 * @example
 * ```ts
 * throw new ToolError(`file not found: ${path}`, {
 *   next: "List the folder to find the right name.",
 *   recovery: "If the file should exist, stop and say so.",
 * })
 * ```
 */
export class ToolError extends IsoagentError {
  readonly summary: string;
  readonly next: string | undefined;
  readonly recovery: string | undefined;
  /**
   * The tool stopped itself at its deadline (it knows what that left
   * behind, which the driver's own timeout cannot say): the observation's
   * `failure` is "timeout", with the tool's text.
   */
  readonly timedOut: boolean;
  constructor(summary: string, options: { next?: string; recovery?: string; timedOut?: boolean } = {}) {
    super("TOOL_ERROR", summary);
    this.name = "ToolError";
    this.summary = summary;
    this.next = options.next;
    this.recovery = options.recovery;
    this.timedOut = options.timedOut === true;
  }
}

/**
 * Thrown (via {@link permissionDenied}) by a tool when the policy refused a
 * resource the call cannot do without (a redirect to a host the policy
 * denies): the call ends with the same `denied` observation the gate gives.
 */
export class PermissionDeniedError extends IsoagentError {
  readonly resources: readonly ResourceRef[];
  readonly reason: string | undefined;
  constructor(resources: readonly ResourceRef[], reason?: string) {
    super("PERMISSION_DENIED", "permission denied");
    this.name = "PermissionDeniedError";
    this.resources = resources.map((r) => ({ kind: r.kind, value: r.value }));
    this.reason = reason;
  }
}

/**
 * Ends the call as denied by policy: `throw permissionDenied(resources, answer.reason)`
 * after {@link ToolContext.permit} did not allow a resource the call needs.
 */
export function permissionDenied(resources: readonly ResourceRef[], reason?: string): PermissionDeniedError {
  return new PermissionDeniedError(resources, reason);
}

/** A {@link ToolError} from any copy of the library: `isIsoagentError(e, "TOOL_ERROR")`. */
export function isToolError(e: unknown): e is ToolError {
  return isIsoagentError(e, "TOOL_ERROR");
}

/** True for a {@link PermissionDeniedError} from any copy of the library: `isIsoagentError(e, "PERMISSION_DENIED")`. */
export function isPermissionDenied(e: unknown): e is PermissionDeniedError {
  return isIsoagentError(e, "PERMISSION_DENIED");
}

/** Thrown (via {@link abortRun}) to end the run as failed with reason `tool_abort`. */
export class AbortRunError extends IsoagentError {
  readonly detail: string;
  constructor(detail: string) {
    super("ABORT_RUN", detail);
    this.name = "AbortRunError";
    this.detail = detail;
  }
}

/**
 * For conditions that make continuing pointless: `throw abortRun(detail)`.
 * The run ends FAILED with reason `tool_abort` and the detail, in the same
 * journal append that ends the step.
 */
export function abortRun(detail: string): AbortRunError {
  return new AbortRunError(detail);
}

/** True for an {@link AbortRunError} from any copy of the library: `isIsoagentError(e, "ABORT_RUN")`. */
export function isAbortRun(e: unknown): e is AbortRunError {
  return isIsoagentError(e, "ABORT_RUN");
}
