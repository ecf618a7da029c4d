import { IsoagentError, isIsoagentError, type IsoagentErrorCode } from "../errors.js";
import { canonicalJson, type JsonValue } from "../json/index.js";
import { compileSchema, SchemaError, type CompiledSchema, type JsonSchema, type SchemaErrorCode } from "../schema/index.js";
import { checker, type ArgsCheck } from "./check.js";
import { lintToolSchema } from "../schema/lint.js";
import { isStandardSchema, standardJsonSchema } from "./standard.js";
import {
  DEFAULT_OUTPUT_POLICY,
  MAX_TIMEOUT_MS,
  PERMISSIONS,
  RESERVED_TOOL_NAMES,
  SIDE_EFFECTS,
  type OutputPolicy,
  type Permission,
  type ResolvedOutputPolicy,
  type ResourceRef,
  type SideEffect,
  type ToolPrompt,
  type ToolSpec,
} from "./spec.js";

/** The codes a tool spec can be refused with (schema codes included). */
export type ToolSpecErrorCode = Extract<IsoagentErrorCode, `TOOL_${string}`> | SchemaErrorCode;

/**
 * A tool spec refused by {@link compileTool} (and, with the same message, by
 * the driver). `field` names the offending field; for a schema refusal the
 * code is the schema's (SCHEMA_EXTERNAL_REF, ...) and `cause` the
 * {@link SchemaError}.
 */
export class ToolSpecError extends IsoagentError {
  declare readonly code: ToolSpecErrorCode;
  /** The tool's name, when it has a usable one. */
  readonly tool: string | undefined;
  readonly field: string;

  constructor(code: ToolSpecErrorCode, message: string, tool: string | undefined, field: string, cause?: unknown) {
    super(code, message, cause === undefined ? undefined : { cause });
    this.name = "ToolSpecError";
    this.tool = tool;
    this.field = field;
  }
}

/** A tool spec that passed every check the driver makes, with its schema compiled once. */
export interface CompiledTool<Args = JsonValue> {
  readonly name: string;
  readonly description: string;
  /** The input schema as given (a deep, frozen copy). */
  readonly inputSchema: JsonSchema;
  readonly sideEffect: SideEffect;
  readonly timeoutMs: number;
  readonly terminal: boolean;
  /** As given, or "allow" for a read_only tool that did not say. */
  readonly permission: Permission;
  readonly parallelSafe: boolean;
  /** With the defaults filled in. */
  readonly outputPolicy: ResolvedOutputPolicy;
  readonly resources: ((args: Args) => readonly ResourceRef[]) | undefined;
  readonly preview: ToolSpec<Args>["preview"];
  readonly prompt: ToolPrompt | undefined;
  readonly activity: ToolSpec<Args>["activity"];
  readonly wantsAnswer: boolean;
  readonly schema: CompiledSchema;
  /**
   * The runtime's acceptance of raw argument text: the JSON boundary checks,
   * empty text meaning `{}`, then the schema. A refusal's `text` is exactly
   * what the driver records in the `invalid_decision` observation. Safe to
   * call concurrently.
   */
  check(rawArgs: string | Uint8Array): ArgsCheck<Args>;
}

// Marks the runtime's own control tools, which alone may use reserved names.
// Not registered (Symbol.for) and not exported from the package, so it cannot
// be forged.
const RUNTIME_CONTROL = Symbol("isoagent.runtimeControl");

/** @internal Marks a spec as one of the runtime's own control tools. */
export function asRuntimeControl<S extends object>(spec: S): S {
  return Object.defineProperty({ ...spec }, RUNTIME_CONTROL, { value: true }) as S;
}

const NAME = /^[A-Za-z0-9_-]{1,64}$/;

function shown(v: unknown): string {
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "number") return String(v);
  if (v === null) return "null";
  return `a value of type ${Array.isArray(v) ? "array" : typeof v}`;
}

/**
 * Checks a tool spec as the driver checks each tool, compiles its schema once,
 * and returns the compiled tool; or throws the {@link ToolSpecError} the
 * driver would give for it. Refused: an empty or malformed name, a reserved
 * control name (`ask_user`, `task_complete`) unless it is the runtime's own,
 * a description that is not a non-empty string, an invalid side-effect class,
 * a missing, zero, negative, non-finite or too large timeout, a mutating tool
 * without an explicit permission, `parallelSafe` on a tool that is not
 * read_only, a malformed output policy or `resources`, and every schema
 * refusal of {@link compileSchema}.
 *
 * @example
 * ```ts
 * const tool = compileTool({
 *   name: "read_file", description: "Read a text file.", sideEffect: "read_only", timeoutMs: 5000,
 *   inputSchema: strictObject({ path: string("Workspace-relative path") }),
 * })
 * tool.check('{"path":"a.md"}')        // { valid: true, args: { path: "a.md" } }
 * tool.check('{"path":"a.md","x":1}')  // { valid: false, text: "Error: invalid arguments for read_file: ...", ... }
 * ```
 */
export function compileTool<Args = JsonValue>(spec: ToolSpec<Args>): CompiledTool<Args> {
  if (typeof spec !== "object" || spec === null) throw new ToolSpecError("TOOL_SPEC_INVALID", `tool spec must be an object, not ${shown(spec)}`, undefined, "");
  const name: unknown = spec.name;
  if (typeof name !== "string" || name === "") {
    throw new ToolSpecError("TOOL_NAME_INVALID", name === "" || name === undefined ? "tool name is empty" : `tool name must be a string, not ${shown(name)}`, undefined, "name");
  }
  if (!NAME.test(name)) {
    throw new ToolSpecError("TOOL_NAME_INVALID", `tool name ${JSON.stringify(name)} is invalid: use 1 to 64 letters, digits, "_" or "-"`, undefined, "name");
  }
  if (RESERVED_TOOL_NAMES.includes(name) && (spec as unknown as Record<symbol, unknown>)[RUNTIME_CONTROL] !== true) {
    throw new ToolSpecError("TOOL_NAME_RESERVED", `tool name ${JSON.stringify(name)} is reserved for the runtime's control tool`, name, "name");
  }
  const fail = (code: ToolSpecErrorCode, field: string, what: string): never => {
    throw new ToolSpecError(code, `tool ${JSON.stringify(name)}: ${what}`, name, field);
  };
  if (typeof spec.description !== "string" || spec.description.trim() === "") {
    fail("TOOL_DESCRIPTION_INVALID", "description", `description must be a non-empty string, not ${shown(spec.description)}`);
  }
  const sideEffect: unknown = spec.sideEffect;
  if (!SIDE_EFFECTS.includes(sideEffect as SideEffect)) {
    fail("TOOL_SIDE_EFFECT_INVALID", "sideEffect", `side effect must be read_only, local_mutation, remote_mutation or destructive, not ${shown(sideEffect)}`);
  }
  const timeoutMs: unknown = spec.timeoutMs;
  if (timeoutMs === undefined) fail("TOOL_TIMEOUT_INVALID", "timeoutMs", "timeoutMs is required");
  if (typeof timeoutMs !== "number" || !Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    fail("TOOL_TIMEOUT_INVALID", "timeoutMs", `timeoutMs must be a finite number of milliseconds greater than 0, not ${shown(timeoutMs)}`);
  }
  if ((timeoutMs as number) > MAX_TIMEOUT_MS) {
    fail("TOOL_TIMEOUT_INVALID", "timeoutMs", `timeoutMs must be at most ${MAX_TIMEOUT_MS} (about 24.8 days), not ${shown(timeoutMs)}`);
  }
  const permission: unknown = spec.permission;
  if (permission === undefined) {
    if (sideEffect !== "read_only") fail("TOOL_PERMISSION_REQUIRED", "permission", `a ${String(sideEffect)} tool must state its permission (allow, ask or deny)`);
  } else if (!PERMISSIONS.includes(permission as Permission)) {
    fail("TOOL_PERMISSION_INVALID", "permission", `permission must be allow, ask or deny, not ${shown(permission)}`);
  }
  const parallelSafe: unknown = spec.parallelSafe;
  if (parallelSafe !== undefined && typeof parallelSafe !== "boolean") fail("TOOL_PARALLEL_SAFE_INVALID", "parallelSafe", `parallelSafe must be a boolean, not ${shown(parallelSafe)}`);
  if (parallelSafe === true && sideEffect !== "read_only") {
    fail("TOOL_PARALLEL_SAFE_INVALID", "parallelSafe", `parallelSafe is only allowed for read_only tools, and this one is ${String(sideEffect)}`);
  }
  const terminal: unknown = spec.terminal;
  if (terminal !== undefined && typeof terminal !== "boolean") fail("TOOL_TERMINAL_INVALID", "terminal", `terminal must be a boolean, not ${shown(terminal)}`);
  const outputPolicy = checkOutputPolicy(spec.outputPolicy, (what) => fail("TOOL_OUTPUT_POLICY_INVALID", "outputPolicy", what));
  if (spec.resources !== undefined && typeof spec.resources !== "function") {
    fail("TOOL_RESOURCES_INVALID", "resources", `resources must be a function of the arguments, not ${shown(spec.resources)}`);
  }
  if (spec.preview !== undefined && typeof spec.preview !== "function") {
    fail("TOOL_PREVIEW_INVALID", "preview", `preview must be a function of the arguments, not ${shown(spec.preview)}`);
  }
  const prompt = checkPrompt(spec.prompt, (what) => fail("TOOL_PROMPT_INVALID", "prompt", what));
  if (spec.activity !== undefined && typeof spec.activity !== "function")
    fail("TOOL_ACTIVITY_INVALID", "activity", `activity must be a function of the arguments and the result, not ${shown(spec.activity)}`);
  if (spec.wantsAnswer !== undefined && typeof spec.wantsAnswer !== "boolean") fail("TOOL_WANTS_ANSWER_INVALID", "wantsAnswer", `wantsAnswer must be a boolean, not ${shown(spec.wantsAnswer)}`);
  if (spec.wantsAnswer === true && spec.permission !== "ask")
    fail("TOOL_WANTS_ANSWER_INVALID", "wantsAnswer", `a tool that wants a person's answer needs permission "ask", not ${shown(spec.permission)}`);
  let given = spec.inputSchema;
  if (isStandardSchema(given)) {
    const r = standardJsonSchema(given);
    if (!r.ok) fail("TOOL_SCHEMA_STANDARD_UNSUPPORTED", "inputSchema", `input schema ${r.why}`);
    given = (r as { schema: JsonSchema }).schema;
  }
  const formats: unknown = spec.formats ?? "assert";
  if (formats !== "assert" && formats !== "annotation") fail("TOOL_FORMATS_INVALID", "formats", `formats must be "assert" or "annotation", not ${shown(formats)}`);
  lintInputSchema(name, given, formats as "assert" | "annotation");
  let schema: CompiledSchema;
  try {
    schema = compileSchema(given as JsonSchema | string, { assertFormats: formats === "assert", toolSchema: true });
  } catch (e) {
    // A SchemaError, or the strict JSON boundary's error for a schema given as text.
    if (!isIsoagentError(e)) throw e;
    throw new ToolSpecError((e as SchemaError).code, `tool ${JSON.stringify(name)}: input ${e.message}`, name, "inputSchema", e);
  }
  const tool: CompiledTool<Args> = {
    name,
    description: spec.description,
    inputSchema: schema.schema,
    sideEffect: sideEffect as SideEffect,
    timeoutMs: timeoutMs as number,
    terminal: terminal === true,
    permission: (permission as Permission | undefined) ?? "allow",
    parallelSafe: parallelSafe === true,
    outputPolicy,
    resources: spec.resources,
    preview: spec.preview,
    prompt,
    activity: spec.activity,
    wantsAnswer: spec.wantsAnswer === true,
    schema,
    check: checker(name, schema) as (rawArgs: string | Uint8Array) => ArgsCheck<Args>,
  };
  return Object.freeze(tool);
}

/** The tool-schema linter's first finding, as the ToolSpecError the driver gives for it. */
function lintInputSchema(name: string, given: unknown, formats: "assert" | "annotation"): void {
  const finding = lintToolSchema(given, { formats });
  if (finding !== undefined) throw new ToolSpecError(finding.code, `tool ${JSON.stringify(name)}: input schema ${finding.message}`, name, "inputSchema");
}

function checkPrompt(p: unknown, fail: (what: string) => never): ToolPrompt | undefined {
  if (p === undefined) return undefined;
  if (typeof p !== "object" || p === null) return fail(`prompt must be { snippet, guidelines? }, not ${shown(p)}`);
  const { snippet, guidelines } = p as { snippet?: unknown; guidelines?: unknown };
  if (typeof snippet !== "string" || snippet.trim() === "" || snippet.length > 2000) return fail("prompt.snippet must be a non-empty string of at most 2,000 characters");
  if (guidelines !== undefined && (!Array.isArray(guidelines) || guidelines.some((g) => typeof g !== "string" || g.trim() === "" || g.length > 1000) || guidelines.length > 20)) {
    return fail("prompt.guidelines must be at most 20 non-empty strings of at most 1,000 characters");
  }
  return Object.freeze({ snippet, ...(guidelines === undefined ? {} : { guidelines: Object.freeze([...(guidelines as string[])]) }) });
}

function checkOutputPolicy(p: OutputPolicy | undefined, fail: (what: string) => never): ResolvedOutputPolicy {
  if (p === undefined) return DEFAULT_OUTPUT_POLICY;
  if (typeof p !== "object" || p === null) return fail(`outputPolicy must be an object, not ${shown(p)}`);
  const maxVisibleBytes: unknown = p.maxVisibleBytes ?? DEFAULT_OUTPUT_POLICY.maxVisibleBytes;
  if (typeof maxVisibleBytes !== "number" || !Number.isSafeInteger(maxVisibleBytes) || maxVisibleBytes <= 0) {
    fail(`outputPolicy.maxVisibleBytes must be a whole number of bytes greater than 0, not ${shown(maxVisibleBytes)}`);
  }
  const strategy: unknown = p.strategy ?? DEFAULT_OUTPUT_POLICY.strategy;
  if (strategy !== "head" && strategy !== "tail") fail(`outputPolicy.strategy must be "head" or "tail", not ${shown(strategy)}`);
  const keepFull: unknown = p.keepFull ?? DEFAULT_OUTPUT_POLICY.keepFull;
  if (typeof keepFull !== "boolean") fail(`outputPolicy.keepFull must be a boolean, not ${shown(keepFull)}`);
  return Object.freeze({ maxVisibleBytes: maxVisibleBytes as number, strategy: strategy as "head" | "tail", keepFull: keepFull as boolean });
}

/**
 * Compiles a driver's tools: each as {@link compileTool} does, and refuses a
 * name used twice (TOOL_NAME_DUPLICATE).
 */
export function compileTools(specs: readonly ToolSpec<never>[]): readonly CompiledTool<never>[] {
  const seen = new Set<string>();
  return specs.map((spec) => {
    const tool = compileTool(spec);
    if (seen.has(tool.name)) throw new ToolSpecError("TOOL_NAME_DUPLICATE", `duplicate tool name ${JSON.stringify(tool.name)}`, tool.name, "name");
    seen.add(tool.name);
    return tool;
  });
}

let unconvertible = 0;

/** The fields of a spec that decide its compiled form, as one canonical string. */
export function specKey(spec: ToolSpec<never>): string {
  const { name, description, sideEffect, timeoutMs, terminal, permission, parallelSafe, outputPolicy, formats } = spec;
  let inputSchema: unknown = spec.inputSchema;
  if (isStandardSchema(inputSchema)) {
    const r = standardJsonSchema(inputSchema);
    // Unconvertible: keyed by identity, so compileTool gives its error.
    inputSchema = r.ok ? r.schema : { "~unconvertible": ++unconvertible };
  }
  const data: Record<string, unknown> = { name, description, inputSchema, sideEffect, timeoutMs, terminal, permission, parallelSafe, outputPolicy, formats };
  for (const k of Object.keys(data)) if (data[k] === undefined) delete data[k];
  return canonicalJson(data);
}
