import { cloneJson, type JsonValue } from "../json/index.js";
import { DEFAULT_DRAFT, isCarriedMetaschema, type SchemaDraft } from "./drafts.js";
import { prepareFormats } from "./asserted-formats.js";
import { at, SchemaError } from "./errors.js";
import { messages, type ValidationIssue, type ValidationResult } from "./issues.js";
import { findInPlaceCycle } from "./cycles.js";
import { compileFast, fastUnsupported } from "./fast.js";
import { indexDocument, resolveTarget, resolveUri, stamp, type Lookup } from "./resolve.js";
import { boundedWork, MAX_PATTERN_WORK, OUT_OF_WORK, patternOf } from "../pattern/index.js";
import { checkAgainstMetaschema, checkKeywords, checkMetaschemaEntry, draftOf, patternUnsupported, readSchema } from "./rules.js";
import { fullSupport, needsFullSupport, type FullSupportNeed } from "./support.js";
import { forEachSchemaObject, isObject } from "./walk.js";

/** A JSON Schema: an object or a boolean. */
export type JsonSchema = boolean | { readonly [key: string]: JsonValue };

/** Options of {@link compileSchema}. */
export interface CompileSchemaOptions {
  /** The draft of a schema without `$schema`. Default: 2020-12. */
  readonly defaultDraft?: SchemaDraft;
  /**
   * Whether `format` is checked, by the exact checkers of formats/ (date-time,
   * date, time, duration, email, hostname, ipv4, ipv6, uri, uri-reference,
   * iri, iri-reference, uuid, uri-template, json-pointer,
   * relative-json-pointer, regex). `true` checks them in every draft and
   * refuses idn-email and idn-hostname, which cannot be checked exactly
   * (SCHEMA_UNSUPPORTED_KEYWORD); `false` makes every format an annotation.
   * Default: as the draft says: an annotation in 2019-09 and 2020-12, checked
   * in draft-04, 06 and 07 (where idn-email and idn-hostname stay
   * annotations, as those drafts allow). A format no draft defines is an
   * annotation always. The checkers are part of full schema support.
   */
  readonly assertFormats?: boolean;
  /**
   * Which evaluator validates: "auto" (the default) uses the fast closure
   * evaluator when the schema uses only the keywords it implements, and
   * @cfworker/json-schema otherwise; "reference" always uses
   * @cfworker/json-schema (for diagnostics and differential tests).
   * @cfworker/json-schema is part of full schema support.
   */
  readonly evaluator?: "auto" | "reference";
  /**
   * Applies the rules for a tool's input schema (compileTool sets it): an
   * `$id` (draft-04: `id`) that names a document, a URL or a path, is
   * refused with SCHEMA_EXTERNAL_REF, as `$ref` and `$schema` naming one
   * are; only a fragment (`#name`, draft-06/07) is kept. Without it (the
   * JSON Schema Test Suite's mode), an embedded `$id` is standard: it
   * names a resource inside the document, and nothing is ever fetched.
   */
  readonly toolSchema?: boolean;
}

/** A schema that passed every compile-time rule, ready to validate instances. */
export interface CompiledSchema {
  /** The schema as given (a deep, frozen copy). */
  readonly schema: JsonSchema;
  /** The draft it is evaluated as. */
  readonly draft: SchemaDraft;
  /** The evaluator in use: "fast" (closures compiled here) or "reference" (@cfworker/json-schema). */
  readonly evaluator: "fast" | "reference";
  /**
   * Validates a JSON value (as `JSON.parse` or `parseJson` returns it).
   * Never throws for a JSON value no deeper than the JSON boundary takes
   * (`parseJson`, tool arguments: MAX_JSON_DEPTH levels); a value built in
   * code and nested deeper than the call stack allows may throw a
   * RangeError. Safe to call concurrently.
   */
  validate(instance: JsonValue): ValidationResult;
}

/**
 * The base URI of a schema without `$id`. Hierarchical (so relative
 * references resolve) and under `.invalid` (RFC 2606), so it can never name a
 * real document.
 */
export const BASE_URI = "https://schema.isoagent.invalid/root.json";

const NO_METASCHEMAS: Lookup = Object.create(null) as Lookup;

/**
 * Compiles a tool's input schema, refusing it unless it is self-contained and
 * evaluable exactly. Refused, each with a {@link SchemaError} naming the rule:
 *
 * - `SCHEMA_MISSING`: no schema (undefined or null);
 * - `SCHEMA_NOT_JSON`: text that is not strict JSON, or a value that is not JSON;
 * - `SCHEMA_TOO_DEEP`: nested deeper than 256 levels;
 * - `SCHEMA_EXTERNAL_REF`: a `$ref`, `$schema` or `$dynamicRef` naming a
 *   file or URL outside the document ("refers outside itself"); nothing is
 *   ever read or fetched. The standard draft metaschemas are carried (by
 *   full schema support), so a reference to one resolves;
 * - `SCHEMA_UNSUPPORTED_KEYWORD`: a keyword the evaluator cannot evaluate
 *   correctly: a keyword its draft does not define but the evaluator would
 *   apply, a `$dynamicRef` whose target depends on the dynamic scope, mixed
 *   drafts in one document;
 * - `SCHEMA_INVALID`: a schema its draft's metaschema refuses, a pattern that
 *   is not a valid regular expression, a reference that resolves nowhere in
 *   the document, a reference cycle that would never finish;
 * - `SCHEMA_NEEDS_FULL_SUPPORT`, after every other rule: a schema that needs
 *   full schema support (an asserted format, a keyword only
 *   @cfworker/json-schema evaluates, a carried metaschema, `$dynamicRef`,
 *   `evaluator: "reference"`) before `loadFullSchemaSupport()` resolved.
 *
 * Validation never uses `eval` or `new Function`: closures compiled from the
 * schema, or @cfworker/json-schema for what they do not cover.
 *
 * @example
 * ```ts
 * const s = compileSchema({ type: "object", properties: { n: { type: "integer" } } })
 * s.validate({ n: 1.5 }).issues[0]?.message // "expected integer, got number"
 * compileSchema({ $ref: "https://example.com/s.json" }) // throws SCHEMA_EXTERNAL_REF
 * ```
 */
export function compileSchema(input: unknown, options: CompileSchemaOptions = {}): CompiledSchema {
  const value = readSchema(input);
  const draft = draftOf(value, options.defaultDraft ?? DEFAULT_DRAFT);
  checkKeywords(value, draft, options.toolSchema === true);
  checkAgainstMetaschema(value, draft);
  const full = fullSupport();

  // References are stamped and $dynamicRefs rewritten on a working copy; the
  // copy kept for callers is frozen and never touched. Without full support,
  // what needs it is noted (the first thing) and refused after every other
  // rule, so that a schema referring outside itself says so first.
  const work = cloneJson(value);
  let need = prepareFormats(work, draft, options.assertFormats, full !== undefined);
  const index = indexDocument(work, draft, full?.metaschemas() ?? NO_METASCHEMAS, BASE_URI, resolveUri);
  const refs = index.refs.filter((r) => r.keyword !== "$dynamicRef");
  if (draft === "2020-12") {
    if (full !== undefined) refs.push(...full.resolveDynamicRefs(work, index, resolveUri, resolveTarget));
    else {
      const dynamic = index.refs.find((r) => r.keyword === "$dynamicRef");
      if (dynamic !== undefined) need ??= { why: `$dynamicRef ${JSON.stringify(dynamic.ref)} needs the $dynamicRef analysis, which is part of it`, pointer: `${dynamic.pointer}/$dynamicRef` };
    }
  }
  for (const r of refs) {
    checkMetaschemaEntry(r);
    const target = resolveTarget(index, r.abs, r);
    if (target === undefined) {
      if (full === undefined && isCarriedMetaschema(r.abs.split("#")[0]!)) {
        need ??= { why: `${r.keyword} ${JSON.stringify(r.ref)} names a carried metaschema, and the metaschemas are part of it`, pointer: `${r.pointer}/${r.keyword}` };
        continue;
      }
      throw new SchemaError("SCHEMA_EXTERNAL_REF", `schema refers outside itself: ${r.keyword} ${JSON.stringify(r.ref)} at ${at(r.pointer)}`, {
        pointer: `${r.pointer}/${r.keyword}`,
        ref: r.ref,
      });
    }
    if (r.keyword !== "$dynamicRef") stamp(r.node, r.keyword, r.abs);
  }
  if (need !== undefined) throw needsFullSupport(need);
  const lookup = index.lookup;
  const cycle = findInPlaceCycle(work, lookup);
  if (cycle !== undefined) {
    throw new SchemaError("SCHEMA_INVALID", `schema does not compile: the schema at ${at(cycle)} refers back to itself without reaching into the value, so validation would never finish`, {
      pointer: cycle,
    });
  }

  const beyondFast: FullSupportNeed | undefined =
    options.evaluator === "reference" ? { why: 'evaluator "reference" is @cfworker/json-schema, which is part of it', pointer: "" } : fastUnsupported(work, lookup, draft, index.pointerOf);
  let check: (instance: JsonValue) => ValidationIssue[] | undefined;
  // Asked before the reference evaluator takes the patterns out of the working copy.
  const bounded = usesMatcher(work);
  if (beyondFast === undefined) check = compileFast(work, lookup, draft);
  else if (full !== undefined) {
    refuseUnprovenPatternProperties(work, beyondFast);
    check = full.referenceValidator(work, draft, lookup, patternOf);
  } else throw needsFullSupport(beyondFast);
  // Matching thread by thread is bounded per validation (MAX_PATTERN_WORK):
  // past it the instance is refused as a whole, never let through (an
  // answer cut short inside `not` or `anyOf` could turn into a pass).
  // Only a schema with a pattern on the matcher needs it.
  if (bounded) {
    const inner = check;
    check = (instance) => {
      const issues = boundedWork(MAX_PATTERN_WORK, inner, instance);
      return issues === OUT_OF_WORK ? [TOO_COSTLY] : issues;
    };
  }
  return Object.freeze({
    schema: deepFreeze(value) as JsonSchema,
    draft,
    evaluator: beyondFast === undefined ? "fast" : "reference",
    validate(instance: JsonValue): ValidationResult {
      const issues = check(instance);
      return issues === undefined ? VALID : { valid: false, issues };
    },
    [ISSUES]: check,
  });
}

/**
 * @cfworker/json-schema runs `patternProperties` with the platform's RegExp
 * itself (no way in for another matcher, unlike `pattern`, which full.ts
 * routes through the format table); so on the reference evaluator only
 * patterns proved linear on a backtracking RegExp (src/pattern/linear.ts)
 * are taken there.
 */
function refuseUnprovenPatternProperties(work: JsonValue, why: FullSupportNeed): void {
  forEachSchemaObject(work, (node, pointer) => {
    const pp = node["patternProperties"];
    if (!isObject(pp)) return;
    for (const p of Object.keys(pp)) {
      if (patternOf(p).native) continue;
      throw patternUnsupported(
        p,
        `${pointer}/patternProperties`,
        `is not proved to run in linear time on the platform's RegExp, which is what the reference evaluator runs patternProperties with; this schema needs that evaluator (${why.why.replace(/, which is part of it$/, "")}, at ${at(why.pointer)})`,
      );
    }
  });
}

/** Whether a pattern of the document runs on the matcher (not on RegExp). */
function usesMatcher(work: JsonValue): boolean {
  let found = false;
  forEachSchemaObject(work, (node) => {
    const pp = node["patternProperties"];
    const own = typeof node["pattern"] === "string" ? [node["pattern"]] : [];
    for (const p of isObject(pp) ? [...own, ...Object.keys(pp)] : own) found ||= !patternOf(p).native;
  });
  return found;
}

const TOO_COSTLY: ValidationIssue = Object.freeze({ keyword: "pattern", instanceLocation: "", keywordLocation: "", message: messages.patternWork() });

const ISSUES = Symbol("isoagent.issues");

/**
 * @internal The issues of an instance (undefined when valid), without the
 * result object `validate` wraps them in: the argument check's hot path.
 */
export function issuesFunction(schema: CompiledSchema): (instance: JsonValue) => readonly ValidationIssue[] | undefined {
  const own = (schema as CompiledSchema & { [ISSUES]?: (instance: JsonValue) => ValidationIssue[] | undefined })[ISSUES];
  if (own !== undefined) return own;
  return (instance) => {
    const r = schema.validate(instance);
    return r.valid ? undefined : r.issues;
  };
}

const VALID: ValidationResult = Object.freeze({ valid: true, issues: Object.freeze([]) as readonly ValidationIssue[] });

function deepFreeze<T>(v: T): T {
  if (typeof v === "object" && v !== null && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const k of Object.keys(v)) deepFreeze((v as Record<string, unknown>)[k]);
  }
  return v;
}
