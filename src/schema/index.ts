/**
 * Self-contained JSON Schemas: compiled from the document alone (and the
 * standard metaschemas full schema support carries), validated without
 * eval.
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
