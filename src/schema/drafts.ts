/**
 * The JSON Schema drafts the compiler knows, the `$schema` URIs that name
 * them, and which keywords each draft defines.
 */

import type { SchemaDraft } from "./metaschema-uris.js";

export type { SchemaDraft };

/** Every draft, oldest first. */
export const SCHEMA_DRAFTS: readonly SchemaDraft[] = ["draft-04", "draft-06", "draft-07", "2019-09", "2020-12"];

/** The draft a schema without `$schema` is read as. */
export const DEFAULT_DRAFT: SchemaDraft = "2020-12";

export { draftOfMetaschemaUri, isCarriedMetaschema, META_2020_PREFIX, META_2020_TOP, metaschemaUriOf } from "./metaschema-uris.js";

/**
 * Keywords the evaluator (@cfworker/json-schema) applies whatever the draft.
 * A schema that uses one its draft does not define would be evaluated
 * differently from the standard, so the compiler refuses it.
 */
export const EVALUATED_KEYWORDS: readonly string[] = [
  "$ref",
  "$recursiveRef",
  "$recursiveAnchor",
  "type",
  "const",
  "enum",
  "required",
  "not",
  "anyOf",
  "allOf",
  "oneOf",
  "if",
  "then",
  "else",
  "format",
  "properties",
  "patternProperties",
  "additionalProperties",
  "unevaluatedProperties",
  "minProperties",
  "maxProperties",
  "propertyNames",
  "dependentRequired",
  "dependentSchemas",
  "dependencies",
  "prefixItems",
  "items",
  "additionalItems",
  "unevaluatedItems",
  "contains",
  "minContains",
  "maxContains",
  "minItems",
  "maxItems",
  "uniqueItems",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minLength",
  "maxLength",
  "pattern",
];

const DRAFT4 = [
  "$ref",
  "type",
  "enum",
  "required",
  "not",
  "anyOf",
  "allOf",
  "oneOf",
  "format",
  "properties",
  "patternProperties",
  "additionalProperties",
  "minProperties",
  "maxProperties",
  "dependencies",
  "items",
  "additionalItems",
  "minItems",
  "maxItems",
  "uniqueItems",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minLength",
  "maxLength",
  "pattern",
];
const DRAFT6 = [...DRAFT4, "const", "contains", "propertyNames"];
const DRAFT7 = [...DRAFT6, "if", "then", "else"];
// `dependencies` stays accepted in 2019-09 and 2020-12: the evaluator applies it
// with its draft-07 meaning, which is the compatibility behaviour the JSON
// Schema Test Suite describes (optional/dependencies-compatibility).
const DRAFT2019 = [...DRAFT7, "$recursiveRef", "$recursiveAnchor", "unevaluatedProperties", "unevaluatedItems", "dependentRequired", "dependentSchemas", "minContains", "maxContains"];
const DRAFT2020 = [...DRAFT2019.filter((k) => k !== "$recursiveRef" && k !== "$recursiveAnchor" && k !== "additionalItems"), "prefixItems"];

/** The evaluated keywords each draft defines. */
export const DRAFT_KEYWORDS: Record<SchemaDraft, ReadonlySet<string>> = {
  "draft-04": new Set(DRAFT4),
  "draft-06": new Set(DRAFT6),
  "draft-07": new Set(DRAFT7),
  "2019-09": new Set(DRAFT2019),
  "2020-12": new Set(DRAFT2020),
};
