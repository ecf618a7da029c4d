/**
 * Small builders for the schemas tools usually need, each with a description
 * for the model. They return plain JSON Schema (2020-12) objects.
 *
 * @example
 * ```ts
 * const schema = strictObject({
 *   path: string("Workspace-relative path", { minLength: 1 }),
 *   mode: enumOf(["overwrite", "append"], "How to write"),
 *   limit: nullable(integer("Most lines to return", { minimum: 1 })),
 * })
 * // { type: "object", properties: {...}, required: ["path", "mode", "limit"], additionalProperties: false }
 * ```
 *
 * @module
 */
import type { JsonValue } from "../json/index.js";

/** A schema object as the builders make it. */
export type SchemaObjectOf = { [key: string]: JsonValue };

const withDescription = (schema: SchemaObjectOf, description: string | undefined): SchemaObjectOf =>
  description === undefined ? schema : { ...schema, description };

function defined(constraints: object | undefined): SchemaObjectOf {
  const out: SchemaObjectOf = {};
  if (constraints) for (const [k, v] of Object.entries(constraints)) if (v !== undefined) out[k] = v as JsonValue;
  return out;
}

/**
 * An object that accepts only the listed properties (`additionalProperties:
 * false`). `required` defaults to every property: an optional argument is
 * better said with {@link nullable}, which also suits providers' strict modes.
 */
export function strictObject(properties: Record<string, SchemaObjectOf | boolean>, required: readonly string[] = Object.keys(properties), description?: string): SchemaObjectOf {
  for (const name of required) {
    if (!Object.prototype.hasOwnProperty.call(properties, name)) throw new TypeError(`strictObject: required property ${JSON.stringify(name)} is not among the properties`);
  }
  return withDescription({ type: "object", properties, required: [...required], additionalProperties: false }, description);
}

/** A string, with optional length, pattern and format constraints. */
export function string(description?: string, constraints?: { minLength?: number; maxLength?: number; pattern?: string; format?: string }): SchemaObjectOf {
  return withDescription({ type: "string", ...defined(constraints) }, description);
}

/** An integer, with optional bounds. */
export function integer(description?: string, constraints?: { minimum?: number; maximum?: number; exclusiveMinimum?: number; exclusiveMaximum?: number; multipleOf?: number }): SchemaObjectOf {
  return withDescription({ type: "integer", ...defined(constraints) }, description);
}

/** A number, with optional bounds. */
export function number(description?: string, constraints?: { minimum?: number; maximum?: number; exclusiveMinimum?: number; exclusiveMaximum?: number; multipleOf?: number }): SchemaObjectOf {
  return withDescription({ type: "number", ...defined(constraints) }, description);
}

/** A boolean. */
export function boolean(description?: string): SchemaObjectOf {
  return withDescription({ type: "boolean" }, description);
}

/** One of the given values (strings, numbers, booleans or null). */
export function enumOf(values: readonly (string | number | boolean | null)[], description?: string): SchemaObjectOf {
  if (values.length === 0) throw new TypeError("enumOf: give at least one value");
  return withDescription({ enum: [...values] }, description);
}

/** An array of items matching `items`, with optional size constraints. */
export function array(items: SchemaObjectOf | boolean, description?: string, constraints?: { minItems?: number; maxItems?: number; uniqueItems?: boolean }): SchemaObjectOf {
  return withDescription({ type: "array", items, ...defined(constraints) }, description);
}

/**
 * The schema, or null: `type` gains "null", an `enum` gains null, anything
 * else becomes `anyOf: [schema, { type: "null" }]`. The description stays
 * at the top.
 */
export function nullable(schema: SchemaObjectOf): SchemaObjectOf {
  const { description, ...rest } = schema;
  let inner: SchemaObjectOf;
  const type = rest["type"];
  const values = rest["enum"];
  if (Array.isArray(values)) inner = { ...rest, enum: values.includes(null) ? values : [...values, null] };
  else if (typeof type === "string") inner = { ...rest, type: [type, "null"] };
  else if (Array.isArray(type)) inner = { ...rest, type: type.includes("null") ? type : [...type, "null"] };
  else inner = { anyOf: [rest, { type: "null" }] };
  return description === undefined ? inner : { ...inner, description };
}
