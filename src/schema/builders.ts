/**
 * Small builders for the schemas tools usually need, each with a description
 * for the model. They return plain JSON Schema (2020-12) objects that also
 * carry, for TypeScript only, the type of the values they accept: a tool
 * declared with {@link defineTool} over a builder schema gets typed
 * arguments with no annotation.
 *
 * @example
 * ```ts
 * const schema = strictObject({
 *   path: string("Workspace-relative path", { minLength: 1 }),
 *   mode: enumOf(["overwrite", "append"], "How to write"),
 *   limit: nullable(integer("Most lines to return", { minimum: 1 })),
 * })
 * // { type: "object", properties: {...}, required: ["path", "mode", "limit"], additionalProperties: false }
 * type Args = SchemaType<typeof schema>
 * // { path: string; mode: "overwrite" | "append"; limit: number | null }
 * ```
 *
 * @module
 */
import type { JsonValue } from "../json/index.js";

/** A schema object as the builders make it. */
export type SchemaObjectOf = { [key: string]: JsonValue };

// A type-only key: no value exists at run time, so a typed schema is the same
// plain JSON object as any other (it serialises, clones and hashes the same).
declare const valueType: unique symbol;

/**
 * A schema object that carries the TypeScript type `T` of the values it
 * accepts. The type is a phantom: nothing of it exists at run time.
 *
 * @example
 * ```ts
 * const limit: TypedSchema<number | null> = nullable(integer())
 * JSON.stringify(limit)   // '{"type":["integer","null"]}'
 * ```
 */
export type TypedSchema<T> = SchemaObjectOf & { readonly [valueType]?: T };

/**
 * The type of the values a schema accepts: `T` for a {@link TypedSchema}
 * (what the builders return), `JsonValue` for any other schema.
 *
 * @example
 * ```ts
 * type A = SchemaType<ReturnType<typeof string>>   // string
 * type B = SchemaType<{ type: "string" }>           // JsonValue (an untyped schema)
 * ```
 */
export type SchemaType<S> = S extends { readonly [valueType]?: infer T } ? ([unknown] extends [T] ? JsonValue : T) : JsonValue;

/** A schema an object's property or an array's items may be: typed or not, or a boolean schema. */
export type PropertySchema = SchemaObjectOf | boolean;

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/**
 * The type of an object with these property schemas, the `R` ones required
 * and the others optional.
 *
 * @example
 * ```ts
 * type T = ObjectType<{ a: TypedSchema<string>; b: TypedSchema<number> }, "a">   // { a: string; b?: number }
 * ```
 */
export type ObjectType<P extends Record<string, PropertySchema>, R extends keyof P> = Simplify<
  { -readonly [K in keyof P as K extends R ? K : never]: SchemaType<Exclude<P[K], undefined>> } & { -readonly [K in keyof P as K extends R ? never : K]?: SchemaType<Exclude<P[K], undefined>> }
>;

const withDescription = (schema: SchemaObjectOf, description: string | undefined): SchemaObjectOf => (description === undefined ? schema : { ...schema, description });

function defined(constraints: object | undefined): SchemaObjectOf {
  const out: SchemaObjectOf = {};
  if (constraints) for (const [k, v] of Object.entries(constraints)) if (v !== undefined) out[k] = v as JsonValue;
  return out;
}

function objectSchema(builder: string, properties: Record<string, PropertySchema>, required: readonly string[], description: string | undefined, strict: boolean): SchemaObjectOf {
  for (const name of required) {
    if (!Object.prototype.hasOwnProperty.call(properties, name)) throw new TypeError(`${builder}: required property ${JSON.stringify(name)} is not among the properties`);
  }
  const schema: SchemaObjectOf = { type: "object", properties, required: [...required] };
  if (strict) schema["additionalProperties"] = false;
  return withDescription(schema, description);
}

/**
 * An object that accepts only the listed properties (`additionalProperties:
 * false`). `required` defaults to every property; a property left out of it
 * is optional (its type gains `?`). An optional argument is often better said
 * with {@link nullable}, which also suits providers' strict modes.
 *
 * @example
 * ```ts
 * const s = strictObject({ path: string(), limit: integer() }, ["path"])
 * // SchemaType<typeof s>: { path: string; limit?: number }
 * ```
 */
export function strictObject<P extends Record<string, PropertySchema>, const R extends readonly (keyof P & string)[] = (keyof P & string)[]>(
  properties: P,
  required?: R,
  description?: string,
): TypedSchema<ObjectType<P, R[number]>> {
  return objectSchema("strictObject", properties, required ?? Object.keys(properties), description, true);
}

/**
 * An object with the listed properties that also accepts others (no
 * `additionalProperties`). `required` defaults to every property. Tool
 * arguments are usually better closed: see {@link strictObject}.
 *
 * @example
 * ```ts
 * const s = object({ query: string() })
 * // SchemaType<typeof s>: { query: string } & { [key: string]: JsonValue }
 * ```
 */
export function object<P extends Record<string, PropertySchema>, const R extends readonly (keyof P & string)[] = (keyof P & string)[]>(
  properties: P,
  required?: R,
  description?: string,
): TypedSchema<ObjectType<P, R[number]> & { [key: string]: JsonValue }> {
  return objectSchema("object", properties, required ?? Object.keys(properties), description, false);
}

/**
 * A string, with optional length, pattern and format constraints.
 *
 * @example
 * ```ts
 * string("Where to fetch", { format: "uri" })   // { type: "string", format: "uri", description: "Where to fetch" }
 * ```
 */
export function string(description?: string, constraints?: { minLength?: number; maxLength?: number; pattern?: string; format?: string }): TypedSchema<string> {
  return withDescription({ type: "string", ...defined(constraints) }, description);
}

/** Numeric bounds of {@link integer} and {@link number}. */
export interface NumberConstraints {
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  multipleOf?: number;
}

/**
 * An integer, with optional bounds.
 *
 * @example
 * ```ts
 * integer("Most lines to return", { minimum: 1 })
 * ```
 */
export function integer(description?: string, constraints?: NumberConstraints): TypedSchema<number> {
  return withDescription({ type: "integer", ...defined(constraints) }, description);
}

/**
 * A number, with optional bounds.
 *
 * @example
 * ```ts
 * number("A ratio", { minimum: 0, maximum: 1 })
 * ```
 */
export function number(description?: string, constraints?: NumberConstraints): TypedSchema<number> {
  return withDescription({ type: "number", ...defined(constraints) }, description);
}

/**
 * A boolean.
 *
 * @example
 * ```ts
 * boolean("Overwrite a newer file")
 * ```
 */
export function boolean(description?: string): TypedSchema<boolean> {
  return withDescription({ type: "boolean" }, description);
}

/**
 * One of the given values (strings, numbers, booleans or null); its type is
 * their union.
 *
 * @example
 * ```ts
 * enumOf(["overwrite", "append"], "How to write")   // TypedSchema<"overwrite" | "append">
 * ```
 */
export function enumOf<const V extends readonly (string | number | boolean | null)[]>(values: V, description?: string): TypedSchema<V[number]> {
  if (values.length === 0) throw new TypeError("enumOf: give at least one value");
  return withDescription({ enum: [...values] }, description);
}

/**
 * An array of items matching `items`, with optional size constraints.
 *
 * @example
 * ```ts
 * array(string(), "Labels", { maxItems: 3 })   // TypedSchema<string[]>
 * ```
 */
export function array<S extends PropertySchema>(items: S, description?: string, constraints?: { minItems?: number; maxItems?: number; uniqueItems?: boolean }): TypedSchema<SchemaType<S>[]> {
  return withDescription({ type: "array", items, ...defined(constraints) }, description);
}

/**
 * The schema, or null: `type` gains "null", an `enum` gains null, anything
 * else becomes `anyOf: [schema, { type: "null" }]`. The description stays
 * at the top.
 *
 * @example
 * ```ts
 * nullable(integer("Most lines", { minimum: 1 }))   // { type: ["integer", "null"], minimum: 1, description: "Most lines" }
 * ```
 */
export function nullable<S extends SchemaObjectOf>(schema: S): TypedSchema<SchemaType<S> | null> {
  const { description, ...rest } = schema as SchemaObjectOf;
  let inner: SchemaObjectOf;
  const type = rest["type"];
  const values = rest["enum"];
  if (Array.isArray(values)) inner = { ...rest, enum: values.includes(null) ? values : [...values, null] };
  else if (typeof type === "string") inner = { ...rest, type: [type, "null"] };
  else if (Array.isArray(type)) inner = { ...rest, type: type.includes("null") ? type : [...type, "null"] };
  else inner = { anyOf: [rest, { type: "null" }] };
  return description === undefined ? inner : { ...inner, description };
}
