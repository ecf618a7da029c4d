/**
 * Tool inputs given as a Standard Schema (zod 4, valibot, arktype, ...):
 * turned into JSON Schema through Standard JSON Schema
 * (`~standard.jsonSchema.input`), then held to every rule any other input
 * schema meets. isoagent depends on none of those libraries; it checks the
 * arguments with the JSON Schema, never with the library's own validator.
 */
import type { JsonValue } from "../json/index.js";
import type { JsonSchema } from "../schema/index.js";

/** A schema object of a library that implements Standard Schema (and, for tools, Standard JSON Schema). */
export interface StandardSchemaLike<Input = unknown> {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: string;
    readonly types?: { readonly input: Input; readonly output: unknown } | undefined;
    readonly jsonSchema?: { readonly input: (options: { readonly target: string }) => unknown } | undefined;
  };
}

/** The input type a Standard Schema declares. */
export type StandardInput<S> = S extends { readonly "~standard": { readonly types?: infer T } } ? (NonNullable<T> extends { readonly input: infer I } ? I : unknown) : never;

/** Whether a value is a Standard Schema object. */
export function isStandardSchema(v: unknown): v is StandardSchemaLike {
  if ((typeof v !== "object" && typeof v !== "function") || v === null) return false;
  const s = (v as Record<string, unknown>)["~standard"];
  return typeof s === "object" && s !== null && (s as { version?: unknown }).version === 1;
}

const converted = new WeakMap<object, JsonSchema>();

/**
 * The JSON Schema of a Standard Schema's input (draft 2020-12), or why there
 * is none. Converted once per schema object.
 */
export function standardJsonSchema(schema: StandardSchemaLike): { ok: true; schema: JsonSchema } | { ok: false; why: string } {
  const cached = converted.get(schema);
  if (cached !== undefined) return { ok: true, schema: cached };
  const std = schema["~standard"];
  const vendor = typeof std.vendor === "string" ? std.vendor : "unknown";
  const input = std.jsonSchema?.input;
  if (typeof input !== "function") {
    const hint = vendor === "valibot" ? " (wrap it with toStandardJsonSchema() from @valibot/to-json-schema)" : vendor === "zod" ? " (zod 4.2 or newer has it)" : "";
    return { ok: false, why: `is a ${vendor} schema without Standard JSON Schema (~standard.jsonSchema)${hint}` };
  }
  let out: unknown;
  try {
    out = input.call(std.jsonSchema, { target: "draft-2020-12" });
  } catch (e) {
    // The library's own words about its own schema (no secret can be in a schema).
    return { ok: false, why: `is a ${vendor} schema that cannot be turned into JSON Schema: ${e instanceof Error ? e.message : String(e)}` };
  }
  let copy: JsonSchema;
  try {
    copy = JSON.parse(JSON.stringify(out)) as JsonSchema;
  } catch {
    return { ok: false, why: `is a ${vendor} schema whose JSON Schema is not JSON` };
  }
  if (typeof copy !== "boolean" && (typeof copy !== "object" || copy === null || Array.isArray(copy))) {
    return { ok: false, why: `is a ${vendor} schema whose JSON Schema is not a schema` };
  }
  converted.set(schema, copy);
  return { ok: true, schema: copy as JsonSchema & JsonValue };
}
