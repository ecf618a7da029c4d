/**
 * Validation errors as data, with messages of our own: stable, short, and
 * written for the model that has to correct its arguments. Both evaluators
 * (the fast one and @cfworker/json-schema, whose output reference-issues.ts
 * converts) report through the same message builders, so a refusal reads
 * the same whichever evaluated it.
 */

/** One thing to fix in an instance. */
export interface ValidationIssue {
  /** The keyword that failed ("type", "required", "additionalProperties", ...). */
  readonly keyword: string;
  /** JSON Pointer of the failing value in the instance ("" for the root). */
  readonly instanceLocation: string;
  /** Where the keyword is, as the evaluation path through the schema (`$ref`s included). */
  readonly keywordLocation: string;
  /** What is wrong, for a person or a model. */
  readonly message: string;
}

/** The outcome of validating an instance. */
export interface ValidationResult {
  readonly valid: boolean;
  /**
   * What to fix, in schema order; empty when valid. Only the keywords that
   * failed themselves: not the applicators that merely contain a failure, and
   * not the failed alternatives of anyOf, oneOf, not and contains.
   */
  readonly issues: readonly ValidationIssue[];
}

/** The JSON type of a value, as a message names it. */
export function jsonTypeOf(v: unknown): string {
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

const plural = (n: unknown, one: string, many: string): string => `${String(n)} ${n === 1 ? one : many}`;

/** The messages, one builder per keyword. */
export const messages = {
  type: (expected: unknown, value: unknown): string => `expected ${(Array.isArray(expected) ? expected.map(String) : [String(expected)]).join(" or ")}, got ${jsonTypeOf(value)}`,
  required: (name: string): string => `missing required property ${JSON.stringify(name)}`,
  unexpectedProperty: (name: string): string => `unexpected property ${JSON.stringify(name)}`,
  unexpectedItem: (index: string | number): string => `unexpected item at index ${index}`,
  falseSchema: (): string => "no value is allowed here",
  enum: (values: unknown): string => `must be one of ${show(values)}`,
  const: (value: unknown): string => `must be ${show(value)}`,
  minLength: (n: unknown): string => `must be at least ${plural(n, "character", "characters")} long`,
  maxLength: (n: unknown): string => `must be at most ${plural(n, "character", "characters")} long`,
  pattern: (p: unknown): string => `must match the pattern ${show(p)}`,
  patternWork: (): string => "could not be checked: its strings are too long to match against the schema's patterns in bounded time",
  format: (f: unknown): string => `must be a valid ${String(f)}`,
  bound: (op: ">=" | ">" | "<=" | "<", n: unknown): string => `must be ${op} ${String(n)}`,
  multipleOf: (n: unknown): string => `must be a multiple of ${String(n)}`,
  minItems: (n: unknown): string => `must have at least ${plural(n, "item", "items")}`,
  maxItems: (n: unknown): string => `must have at most ${plural(n, "item", "items")}`,
  uniqueItems: (j: number | string, k: number | string): string => `must not contain duplicates (items ${j} and ${k} are equal)`,
  minProperties: (n: unknown): string => `must have at least ${plural(n, "property", "properties")}`,
  maxProperties: (n: unknown): string => `must have at most ${plural(n, "property", "properties")}`,
  contains: (): string => 'must contain at least one item matching the schema in "contains"',
  minContains: (n: unknown): string => `must contain at least ${plural(n, "item", "items")} matching the schema in "contains"`,
  maxContains: (n: unknown): string => `must contain at most ${plural(n, "item", "items")} matching the schema in "contains"`,
  anyOf: (): string => 'must match at least one of the schemas in "anyOf"',
  oneOf: (matches: number | string): string => `must match exactly one of the schemas in "oneOf" (matches ${matches})`,
  not: (): string => 'must not match the schema in "not"',
  dependentRequired: (has: string, missing: string): string => `must have property ${JSON.stringify(missing)} when it has ${JSON.stringify(has)}`,
  propertyName: (name: string): string => `property name ${JSON.stringify(name)} is not allowed`,
};
