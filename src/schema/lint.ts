/**
 * The tool-schema linter: mistakes a tool schema can make that JSON Schema
 * itself lets pass, each refused with a stable code and what to fix. It
 * holds tool input schemas to more than `compileSchema` holds any document
 * to (the JSON Schema Test Suite's schemas keep their own mode):
 *
 * - `TOOL_SCHEMA_NOT_OBJECT`: the top level must be an object schema
 *   (`"type": "object"`): arguments are a JSON object, and providers
 *   require one there;
 * - `TOOL_SCHEMA_UNKNOWN_KEYWORD`: a keyword no draft defines
 *   (`"propertes"`, which JSON Schema ignores, so the tool would take any
 *   object), with the nearest known one. Annotations of one's own need an
 *   `x-` prefix; the standard annotations (title, description, default,
 *   examples, deprecated, readOnly, writeOnly, $comment, content*) are known;
 * - `TOOL_SCHEMA_UNKNOWN_TYPE`: a `type` that is not a JSON Schema type,
 *   with the nearest one;
 * - `TOOL_SCHEMA_FORMAT_UNSUPPORTED`: a standard format that cannot be
 *   checked exactly (idn-email, idn-hostname), where formats assert.
 */
import type { JsonValue } from "../json/index.js";
import { readSchema } from "./rules.js";
import { DEFAULT_DRAFT, draftOfMetaschemaUri } from "./drafts.js";
import { at } from "./errors.js";
import { formatSupport } from "./format-names.js";
import { forEachSchemaObject, isObject } from "./walk.js";

/** The codes the linter refuses with. */
export type ToolSchemaLintCode = "TOOL_SCHEMA_NOT_OBJECT" | "TOOL_SCHEMA_UNKNOWN_KEYWORD" | "TOOL_SCHEMA_UNKNOWN_TYPE" | "TOOL_SCHEMA_FORMAT_UNSUPPORTED";

/** One mistake: its code, what to fix (after "input schema "), and where (a JSON Pointer into the schema). */
export interface ToolSchemaFinding {
  readonly code: ToolSchemaLintCode;
  readonly message: string;
  readonly pointer: string;
}

/** Every keyword of drafts 04 to 2020-12, the standard annotations included, in the order suggestions prefer. */
const KEYWORDS: readonly string[] = [
  "type",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "prefixItems",
  "enum",
  "const",
  "description",
  "title",
  "default",
  "examples",
  "format",
  "pattern",
  "minLength",
  "maxLength",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minItems",
  "maxItems",
  "uniqueItems",
  "contains",
  "minContains",
  "maxContains",
  "minProperties",
  "maxProperties",
  "patternProperties",
  "propertyNames",
  "dependentRequired",
  "dependentSchemas",
  "dependencies",
  "additionalItems",
  "unevaluatedItems",
  "unevaluatedProperties",
  "allOf",
  "anyOf",
  "oneOf",
  "not",
  "if",
  "then",
  "else",
  "$ref",
  "$defs",
  "definitions",
  "$schema",
  "$id",
  "$anchor",
  "$dynamicRef",
  "$dynamicAnchor",
  "$recursiveRef",
  "$recursiveAnchor",
  "$vocabulary",
  "$comment",
  "deprecated",
  "readOnly",
  "writeOnly",
  "contentEncoding",
  "contentMediaType",
  "contentSchema",
];
const KNOWN = new Set(KEYWORDS);
const TYPES: readonly string[] = ["string", "number", "integer", "boolean", "object", "array", "null"];

/** Optimal string alignment distance (Levenshtein with adjacent transpositions), case-insensitive. */
function distance(a: string, b: string): number {
  a = a.toLowerCase();
  b = b.toLowerCase();
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/** The nearest of the candidates, when it is near enough to be what was meant. */
export function nearest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(1, Math.floor(word.length / 3)) + 1;
  for (const c of candidates) {
    const d = distance(word, c);
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best;
}

const didYouMean = (suggestion: string | undefined): string => (suggestion === undefined ? "" : `: did you mean ${JSON.stringify(suggestion)}?`);

function rootProblem(schema: JsonValue): string | undefined {
  if (!isObject(schema)) return `is the boolean schema ${String(schema)}`;
  const type = schema["type"];
  if (type === "object") return undefined;
  if (type === undefined) return 'has no "type"';
  return `has type ${JSON.stringify(type)}`;
}

/**
 * The first mistake in a tool's input schema (given as compileSchema takes
 * it), or undefined. A schema compileSchema would refuse for another reason
 * (not JSON, too deep, a `$schema` it does not carry) is left to it.
 *
 * @example
 * ```ts
 * lintToolSchema({ type: "object", propertes: { path: { type: "string" } } }, { formats: "assert" })
 * // { code: "TOOL_SCHEMA_UNKNOWN_KEYWORD", pointer: "/propertes",
 * //   message: 'has an unknown keyword "propertes" at the root: did you mean "properties"? (an annotation of your own needs an "x-" prefix)' }
 * ```
 */
export function lintToolSchema(input: unknown, options: { readonly formats: "assert" | "annotation" }): ToolSchemaFinding | undefined {
  let schema: JsonValue;
  try {
    schema = readSchema(input);
  } catch {
    return undefined;
  }
  const declared = isObject(schema) ? schema["$schema"] : undefined;
  const draft = declared === undefined ? DEFAULT_DRAFT : typeof declared === "string" ? draftOfMetaschemaUri(declared) : undefined;
  if (draft === undefined) return undefined;
  const root = rootProblem(schema);
  if (root !== undefined) {
    return {
      code: "TOOL_SCHEMA_NOT_OBJECT",
      pointer: "",
      message: `must be an object schema ({"type": "object", ...}): a tool's arguments are one JSON object, and providers require an object schema here; this one ${root}`,
    };
  }
  const known = draft === "draft-04" ? [...KEYWORDS, "id"] : KEYWORDS;
  let finding: ToolSchemaFinding | undefined;
  forEachSchemaObject(schema, (node, pointer) => {
    if (finding !== undefined) return;
    for (const keyword of Object.keys(node)) {
      if (KNOWN.has(keyword) || keyword.startsWith("x-") || (keyword === "id" && draft === "draft-04")) continue;
      finding = {
        code: "TOOL_SCHEMA_UNKNOWN_KEYWORD",
        pointer: `${pointer}/${keyword}`,
        message: `has an unknown keyword ${JSON.stringify(keyword)} at ${at(pointer)}${didYouMean(nearest(keyword, known))} (an annotation of your own needs an "x-" prefix)`,
      };
      return;
    }
    const type = node["type"];
    for (const t of Array.isArray(type) ? type : [type]) {
      if (typeof t !== "string" || TYPES.includes(t)) continue;
      finding = {
        code: "TOOL_SCHEMA_UNKNOWN_TYPE",
        pointer: `${pointer}/type`,
        message: `has ${JSON.stringify(t)} at ${pointer}/type, which is not a JSON Schema type${didYouMean(nearest(t, TYPES))} (the types are string, number, integer, boolean, object, array and null)`,
      };
      return;
    }
    const format = node["format"];
    if (options.formats === "assert" && typeof format === "string" && formatSupport(format) === "unchecked") {
      const instead = format === "idn-email" ? "email" : "hostname";
      finding = {
        code: "TOOL_SCHEMA_FORMAT_UNSUPPORTED",
        pointer: `${pointer}/format`,
        message: `asks for format ${JSON.stringify(format)} at ${at(pointer)}, which cannot be checked exactly, and a format is never approximated: use ${JSON.stringify(instead)} (ASCII), a pattern, or formats: "annotation" to leave the tool's formats unchecked`,
      };
    }
  });
  return finding;
}
