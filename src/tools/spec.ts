import type { JsonValue } from "../json/index.js";
import type { JsonSchema } from "../schema/index.js";
import type { AbortSignalLike } from "../web.js";
import type { StandardSchemaLike } from "./standard.js";
import type { Permission, ResourceRef, SideEffect } from "../vocabulary.js";

export { OPERATIONS, operationOf, PERMISSIONS, SIDE_EFFECTS, type Operation, type Permission, type ResourceRef, type SideEffect } from "../vocabulary.js";

/** Names reserved for the runtime's own control tools. */
export const RESERVED_TOOL_NAMES: readonly string[] = ["ask_user", "task_complete", "read_artifact"];

/** The longest timeout a platform timer can hold (2^31 - 1 ms, about 24.8 days). */
export const MAX_TIMEOUT_MS = 2_147_483_647;

/** How much of a result the agent sees; the rest is kept as an artifact. */
export interface OutputPolicy {
  /** Visible bytes (UTF-8) at most. Default: 65,536. */
  readonly maxVisibleBytes?: number | undefined;
  /** Which end is kept when the result is cut. Default: "tail". */
  readonly strategy?: "head" | "tail" | undefined;
  /** Keep the full output as an artifact named by its SHA-256. Default: true. */
  readonly keepFull?: boolean | undefined;
}

/** An output policy with every field decided. */
export interface ResolvedOutputPolicy {
  readonly maxVisibleBytes: number;
  readonly strategy: "head" | "tail";
  readonly keepFull: boolean;
}

/** The defaults of {@link OutputPolicy}. */
export const DEFAULT_OUTPUT_POLICY: ResolvedOutputPolicy = Object.freeze({
  maxVisibleBytes: 64 * 1024,
  strategy: "tail",
  keepFull: true,
});

/**
 * A tool's specification: everything the runtime and its policy know about
 * it before it runs.
 *
 * @example
 * ```ts
 * const spec: ToolSpec<{ path: string; content: string }> = {
 *   name: "write_file",
 *   description: "Write a UTF-8 text file in the workspace, creating parent folders.",
 *   inputSchema: strictObject({ path: string("Workspace-relative path"), content: string("The whole new content") }),
 *   sideEffect: "local_mutation",
 *   permission: "ask",
 *   timeoutMs: 10_000,
 *   resources: (args) => [{ kind: "path", value: args.path }],
 * }
 * ```
 */
export interface ToolSpec<Args = JsonValue> {
  /** 1 to 64 letters, digits, "_" or "-"; unique within a driver. */
  readonly name: string;
  /** For the model: short, stable (it is part of every request). */
  readonly description: string;
  /** A self-contained JSON Schema (object, boolean or JSON text). Use additionalProperties: false. */
  /**
   * A self-contained JSON Schema (object, boolean or JSON text), or a
   * Standard Schema object with Standard JSON Schema (zod 4.2+, arktype,
   * valibot through toStandardJsonSchema), turned into JSON Schema once.
   */
  readonly inputSchema: JsonSchema | string | StandardSchemaLike;
  readonly sideEffect: SideEffect;
  /** Required, > 0: the call is cancelled when it runs longer. */
  readonly timeoutMs: number;
  /** Its success completes the run with its result. Default: false. */
  readonly terminal?: boolean | undefined;
  /** Required for every class but read_only (which defaults to "allow"). */
  readonly permission?: Permission | undefined;
  /** May run beside other parallelSafe calls of one decision; read_only tools only. Default: false. */
  readonly parallelSafe?: boolean | undefined;
  readonly outputPolicy?: OutputPolicy | undefined;
  /**
   * What a call touches, computed from its checked arguments, for policy. A
   * ToolError thrown here refuses the call in the tool's words (a path
   * outside its workspace), before policy and approval.
   */
  readonly resources?: ((args: Args) => readonly ResourceRef[]) | undefined;
  /**
   * What an operator sees before approving a call that asks: for a change, a
   * diff of what it would change. Computed when the approval is asked (under
   * the tool's timeout, without side effects), redacted, cut to 64 KiB, and
   * journaled in the request, so its hash binds the approval to the preview
   * the operator saw. A preview that fails or times out is left out; one
   * that throws a ToolError refuses the call before anyone is asked (the
   * call would fail the same way). `permit` puts what the preview would
   * read to the run's policy (the call is not let through yet, so nothing
   * is allowed by being declared): a preview shows only what policy allows.
   */
  readonly preview?: ((args: Args, ctx: PreviewContext) => string | Promise<string>) | undefined;
  /**
   * What model adapters put in the system prompt for this tool: a snippet
   * (when and how to use it) and guidelines. Part of the model-facing
   * contract, like the description.
   */
  readonly prompt?: ToolPrompt | undefined;
  /**
   * One line a person reads for a finished call ("Edit notes/todo.md (+3 -1)"),
   * from the checked arguments and the result; journaled with the outcome
   * (redacted, cut at 200 characters). A failure here leaves it out.
   */
  readonly activity?: ((args: Args, result: JsonValue) => string) | undefined;
  /**
   * The call waits for a person's answer (ask_user): its approval request
   * says so, approving it takes an answer, and the tool reads it in
   * `context.answer`. Requires permission "ask".
   */
  readonly wantsAnswer?: boolean | undefined;
  /**
   * Whether the input schema's `format`s are checked: "assert" (the
   * default, in every draft: a tool that says `format: "uri"` gets a URI)
   * or "annotation" (left unchecked, as 2020-12 reads them by default).
   */
  readonly formats?: "assert" | "annotation" | undefined;
}

/** What a preview gets besides the arguments. */
export interface PreviewContext {
  readonly signal: AbortSignalLike;
  /** The run's policy about resources the preview would read (absent when no driver asks: then assume nothing is allowed). */
  readonly permit?: ((resources: readonly ResourceRef[]) => { readonly permission: Permission; readonly reason?: string | undefined }) | undefined;
}

/** A tool's part of the system prompt. */
export interface ToolPrompt {
  /** One or two sentences: when to use the tool. */
  readonly snippet: string;
  readonly guidelines?: readonly string[] | undefined;
}
