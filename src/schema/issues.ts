/**
 * Validation errors as data, with messages of our own: stable, short, and
 * written for the model that has to correct its arguments. Built from the
 * evaluator's output units and the schema values they point at.
 */
import type { OutputUnit, Schema } from "@cfworker/json-schema";
import type { JsonValue } from "../json/index.js";
import type { Lookup } from "./metaschema-lookup.js";

/** One reason an instance failed a schema. */
export interface ValidationIssue {
  /** The keyword that failed ("type", "required", ...; "false" for a false schema). */
  readonly keyword: string;
  /** JSON Pointer of the failing value in the instance ("" for the root). */
  readonly instanceLocation: string;
  /** Where the keyword is, as the evaluation path through the schema ("" for the root). */
  readonly keywordLocation: string;
  /** What is wrong, for a person or a model. */
  readonly message: string;
}

/** The outcome of validating an instance. */
export interface ValidationResult {
  readonly valid: boolean;
  /** Every failing keyword, outermost first; empty when valid. */
  readonly issues: readonly ValidationIssue[];
}

/** Keywords whose failure only says a subschema failed; the subschema's own issues say why. */
const WRAPPERS = new Set([
  "$ref", "$recursiveRef", "properties", "patternProperties", "items", "prefixItems", "allOf", "if",
  "dependentSchemas", "additionalItems", "unevaluatedItems", "additionalProperties", "unevaluatedProperties",
  "propertyNames",
]);
/** Keywords whose subschemas' issues are alternatives tried, not what to fix. */
const ALTERNATIVES = new Set(["anyOf", "oneOf", "contains", "not"]);

const decodeToken = (t: string): string => t.replace(/~1/g, "/").replace(/~0/g, "~");
/**
 * The evaluator writes locations as URI fragments ("#/a%20b"): percent-encoded
 * with encodeURI. Issues carry plain JSON Pointers ("/a b").
 */
const stripHash = (location: string): string => {
  const fragment = location.startsWith("#") ? location.slice(1) : location;
  try {
    return decodeURI(fragment);
  } catch {
    return fragment;
  }
};

function instanceTypeOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

/** Shows a JSON value in a message, cut at 120 characters. */
function show(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 120 ? `${s.slice(0, 120)}…` : s;
}

/** The schema value at an evaluation path, following `$ref`s; undefined when it cannot be followed. */
function schemaAt(root: Schema | boolean, lookup: Lookup, keywordLocation: string): unknown {
  const path = stripHash(keywordLocation);
  let node: unknown = root;
  if (path === "") return node;
  for (const raw of path.slice(1).split("/")) {
    if (typeof node !== "object" || node === null) return undefined;
    if (raw === "$ref") {
      const abs = (node as Schema).__absolute_ref__;
      node = abs === undefined ? undefined : lookup[abs];
      continue;
    }
    if (raw === "$recursiveRef") return undefined;
    node = (node as Record<string, unknown>)[decodeToken(raw)];
  }
  return node;
}

function valueAt(instance: unknown, pointer: string): unknown {
  let v: unknown = instance;
  if (pointer === "") return v;
  for (const raw of pointer.slice(1).split("/")) {
    if (typeof v !== "object" || v === null) return undefined;
    v = (v as Record<string, unknown>)[decodeToken(raw)];
  }
  return v;
}

function lastToken(pointer: string): string {
  return decodeToken(pointer.slice(pointer.lastIndexOf("/") + 1));
}

const plural = (n: unknown, one: string, many: string): string => `${String(n)} ${n === 1 ? one : many}`;

/** Our message for one output unit. */
function messageFor(unit: OutputUnit, keywordValue: unknown, schemaNode: unknown, instance: unknown, parent: OutputUnit | undefined): string {
  const value = valueAt(instance, stripHash(unit.instanceLocation));
  switch (unit.keyword) {
    case "type": {
      const types = Array.isArray(keywordValue) ? keywordValue.map(String) : [String(keywordValue)];
      return `expected ${types.join(" or ")}, got ${instanceTypeOf(value)}`;
    }
    case "required": {
      const m = /required property "(.*)"\.$/s.exec(unit.error);
      return m ? `missing required property ${JSON.stringify(m[1])}` : "missing a required property";
    }
    case "false": {
      const name = lastToken(stripHash(unit.instanceLocation));
      if (parent?.keyword === "additionalProperties" || parent?.keyword === "unevaluatedProperties") {
        return `unexpected property ${JSON.stringify(name)}`;
      }
      if (parent?.keyword === "items" || parent?.keyword === "additionalItems" || parent?.keyword === "unevaluatedItems") {
        return `unexpected item at index ${name}`;
      }
      return "no value is allowed here";
    }
    case "enum":
      return `must be one of ${show(keywordValue)}`;
    case "const":
      return `must be ${show(keywordValue)}`;
    case "minLength":
      return `must be at least ${plural(keywordValue, "character", "characters")} long`;
    case "maxLength":
      return `must be at most ${plural(keywordValue, "character", "characters")} long`;
    case "pattern":
      return `must match the pattern ${show(keywordValue)}`;
    case "format":
      return `must be a valid ${String(keywordValue)}`;
    case "minimum":
    case "maximum": {
      // Draft-04 spells exclusive bounds as a boolean beside minimum/maximum.
      const exclusive = isRecord(schemaNode) && schemaNode[unit.keyword === "minimum" ? "exclusiveMinimum" : "exclusiveMaximum"] === true;
      const op = unit.keyword === "minimum" ? (exclusive ? ">" : ">=") : exclusive ? "<" : "<=";
      return `must be ${op} ${String(keywordValue)}`;
    }
    case "exclusiveMinimum":
      return `must be > ${String(keywordValue)}`;
    case "exclusiveMaximum":
      return `must be < ${String(keywordValue)}`;
    case "multipleOf":
      return `must be a multiple of ${String(keywordValue)}`;
    case "minItems":
      return `must have at least ${plural(keywordValue, "item", "items")}`;
    case "maxItems":
      return `must have at most ${plural(keywordValue, "item", "items")}`;
    case "uniqueItems": {
      const m = /indexes (\d+) and (\d+)/.exec(unit.error);
      return m ? `must not contain duplicates (items ${m[1]} and ${m[2]} are equal)` : "must not contain duplicates";
    }
    case "minProperties":
      return `must have at least ${plural(keywordValue, "property", "properties")}`;
    case "maxProperties":
      return `must have at most ${plural(keywordValue, "property", "properties")}`;
    case "contains":
      return "must contain at least one item matching the schema in \"contains\"";
    case "minContains":
      return `must contain at least ${plural(keywordValue, "item", "items")} matching the schema in "contains"`;
    case "maxContains":
      return `must contain at most ${plural(keywordValue, "item", "items")} matching the schema in "contains"`;
    case "anyOf":
      return "must match at least one of the schemas in \"anyOf\"";
    case "oneOf": {
      const m = /\((\d+) matches\)/.exec(unit.error);
      return `must match exactly one of the schemas in "oneOf" (matches ${m ? m[1] : "another number"})`;
    }
    case "not":
      return "must not match the schema in \"not\"";
    case "dependentRequired":
    case "dependencies": {
      const m = /^Instance has "(.*)" but does not have "(.*)"\.$/s.exec(unit.error);
      if (m) return `must have property ${JSON.stringify(m[2])} when it has ${JSON.stringify(m[1])}`;
      return unit.error;
    }
    case "propertyNames": {
      const m = /^Property name "(.*)" does not match schema\.$/s.exec(unit.error);
      return m ? `property name ${JSON.stringify(m[1])} is not allowed` : unit.error;
    }
    default:
      return unit.error;
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Converts the evaluator's output units to issues with our messages. */
export function toIssues(units: readonly OutputUnit[], root: Schema | boolean, lookup: Lookup, instance: JsonValue): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  for (let k = 0; k < units.length; k++) {
    const unit = units[k]!;
    const keywordLocation = stripHash(unit.keywordLocation);
    let keywordValue: unknown;
    let schemaNode: unknown;
    if (unit.keyword !== "false") {
      // The evaluator reports some keywords under their parent's location.
      const loc = unit.keywordLocation.endsWith(`/${unit.keyword}`) ? unit.keywordLocation : `${unit.keywordLocation}/${unit.keyword}`;
      schemaNode = schemaAt(root, lookup, loc.slice(0, loc.lastIndexOf("/")));
      keywordValue = isRecord(schemaNode) ? schemaNode[unit.keyword] : undefined;
    }
    out.push({
      keyword: unit.keyword,
      instanceLocation: stripHash(unit.instanceLocation),
      keywordLocation,
      message: messageFor(unit, keywordValue, schemaNode, instance, k > 0 ? units[k - 1] : undefined),
    });
  }
  return out;
}

/**
 * The issues worth showing: what to fix, without the wrappers that only say a
 * subschema failed, and without the failures of alternatives that were tried
 * (for anyOf, oneOf, contains and not, the keyword's own issue says it).
 */
export function leafIssues(issues: readonly ValidationIssue[]): ValidationIssue[] {
  const alternatives: string[] = [];
  const out: ValidationIssue[] = [];
  const seen = new Set<string>();
  for (const issue of issues) {
    if (alternatives.some((prefix) => issue.keywordLocation.startsWith(prefix))) continue;
    if (ALTERNATIVES.has(issue.keyword)) alternatives.push(`${issue.keywordLocation}/`);
    if (WRAPPERS.has(issue.keyword)) continue;
    // A false schema under additionalProperties is reported at the object, as
    // an unexpected property.
    const where = issue.keyword === "false" && issue.message.startsWith("unexpected property")
      ? issue.instanceLocation.slice(0, issue.instanceLocation.lastIndexOf("/"))
      : issue.instanceLocation;
    const key = `${where}\u0000${issue.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(where === issue.instanceLocation ? issue : { ...issue, instanceLocation: where });
  }
  return out;
}
