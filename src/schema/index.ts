/**
 * isoagent/schema: the JSON Schema compiler. Self-contained schemas,
 * compiled from the document alone (and the standard metaschemas full
 * schema support carries), validated without eval, in every draft from 04
 * to 2020-12; the compile-time rules and their error codes; and the typed
 * builders with the types they are made of. For code that checks JSON
 * against a schema outside a tool (`compileSchema`), or names a builder's
 * types. A tool author needs only the builders, `SchemaType`, `JsonSchema`
 * and `loadFullSchemaSupport`, which the root exports.
 *
 * @module
 */
export { compileSchema, type CompiledSchema, type CompileSchemaOptions, type JsonSchema } from "./compile.js";
export { DEFAULT_DRAFT, SCHEMA_DRAFTS, type SchemaDraft } from "./drafts.js";
export { SCHEMA_RULES, SchemaError, type SchemaErrorCode } from "./errors.js";
export { type ValidationIssue, type ValidationResult } from "./issues.js";
export { loadFullSchemaSupport } from "./load-full.js";
export {
  array,
  boolean,
  enumOf,
  integer,
  nullable,
  number,
  object,
  strictObject,
  string,
  type NumberConstraints,
  type ObjectType,
  type PropertySchema,
  type SchemaObjectOf,
  type SchemaType,
  type TypedSchema,
} from "./builders.js";
