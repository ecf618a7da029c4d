/**
 * The JSON Schema drafts the compiler knows, the `$schema` URIs that name
 * them, and which keywords each draft defines.
 */

/** A JSON Schema draft the compiler supports. */
export type SchemaDraft = "draft-04" | "draft-06" | "draft-07" | "2019-09" | "2020-12";

/** Every draft, oldest first. */
export const SCHEMA_DRAFTS: readonly SchemaDraft[] = ["draft-04", "draft-06", "draft-07", "2019-09", "2020-12"];

/** The draft a schema without `$schema` is read as. */
export const DEFAULT_DRAFT: SchemaDraft = "2020-12";

const META_URIS: Record<string, SchemaDraft> = {
  "http://json-schema.org/draft-04/schema": "draft-04",
  "http://json-schema.org/draft-06/schema": "draft-06",
  "http://json-schema.org/draft-07/schema": "draft-07",
  "https://json-schema.org/draft/2019-09/schema": "2019-09",
  "https://json-schema.org/draft/2020-12/schema": "2020-12",
};

/** The draft a `$schema` value names (with or without an empty fragment), or undefined. */
export function draftOfMetaschemaUri(uri: string): SchemaDraft | undefined {
  const bare = uri.endsWith("#") ? uri.slice(0, -1) : uri;
  return Object.prototype.hasOwnProperty.call(META_URIS, bare) ? META_URIS[bare] : undefined;
}

/** The canonical `$schema` URI of a draft, as its metaschema's id. */
export function metaschemaUriOf(draft: SchemaDraft): string {
  for (const [uri, d] of Object.entries(META_URIS)) if (d === draft) return draft.startsWith("draft-") ? `${uri}#` : uri;
  throw new Error(`unknown draft ${draft}`);
}

/** The 2020-12 dialect metaschema, the one entry point its `$dynamicRef`s are resolved for. */
export const META_2020_TOP = "https://json-schema.org/draft/2020-12/schema";
/** The 2020-12 vocabulary metaschemas, which may only be reached through {@link META_2020_TOP}. */
export const META_2020_PREFIX = "https://json-schema.org/draft/2020-12/";

const VOCABULARIES: Record<string, readonly string[]> = {
  "https://json-schema.org/draft/2019-09/meta/": ["applicator", "content", "core", "format", "meta-data", "validation"],
  "https://json-schema.org/draft/2020-12/meta/": ["applicator", "content", "core", "format-annotation", "meta-data", "unevaluated", "validation"],
};

/**
 * Whether a document URI (no fragment) names a metaschema the compiler
 * carries (in full schema support): a draft's, or one of the vocabulary
 * metaschemas of 2019-09 and 2020-12.
 */
export function isCarriedMetaschema(doc: string): boolean {
  if (draftOfMetaschemaUri(doc) !== undefined) return true;
  const slash = doc.lastIndexOf("/") + 1;
  return VOCABULARIES[doc.slice(0, slash)]?.includes(doc.slice(slash)) === true;
}

/**
 * Keywords the evaluator (@cfworker/json-schema) applies whatever the draft.
 * A schema that uses one its draft does not define would be evaluated
 * differently from the standard, so the compiler refuses it.
 */
export const EVALUATED_KEYWORDS: readonly string[] = [
  "$ref", "$recursiveRef", "$recursiveAnchor", "type", "const", "enum", "required", "not", "anyOf", "allOf", "oneOf",
  "if", "then", "else", "format", "properties", "patternProperties", "additionalProperties", "unevaluatedProperties",
  "minProperties", "maxProperties", "propertyNames", "dependentRequired", "dependentSchemas", "dependencies",
  "prefixItems", "items", "additionalItems", "unevaluatedItems", "contains", "minContains", "maxContains", "minItems",
  "maxItems", "uniqueItems", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength",
  "maxLength", "pattern",
];

const DRAFT4 = [
  "$ref", "type", "enum", "required", "not", "anyOf", "allOf", "oneOf", "format", "properties", "patternProperties",
  "additionalProperties", "minProperties", "maxProperties", "dependencies", "items", "additionalItems", "minItems",
  "maxItems", "uniqueItems", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength",
  "maxLength", "pattern",
];
const DRAFT6 = [...DRAFT4, "const", "contains", "propertyNames"];
const DRAFT7 = [...DRAFT6, "if", "then", "else"];
// `dependencies` stays accepted in 2019-09 and 2020-12: the evaluator applies it
// with its draft-07 meaning, which is the compatibility behaviour the JSON
// Schema Test Suite describes (optional/dependencies-compatibility).
const DRAFT2019 = [
  ...DRAFT7, "$recursiveRef", "$recursiveAnchor", "unevaluatedProperties", "unevaluatedItems", "dependentRequired",
  "dependentSchemas", "minContains", "maxContains",
];
const DRAFT2020 = [
  ...DRAFT2019.filter((k) => k !== "$recursiveRef" && k !== "$recursiveAnchor" && k !== "additionalItems"),
  "prefixItems",
];

/** The evaluated keywords each draft defines. */
export const DRAFT_KEYWORDS: Record<SchemaDraft, ReadonlySet<string>> = {
  "draft-04": new Set(DRAFT4),
  "draft-06": new Set(DRAFT6),
  "draft-07": new Set(DRAFT7),
  "2019-09": new Set(DRAFT2019),
  "2020-12": new Set(DRAFT2020),
};

/** Keywords holding one subschema. */
export const SCHEMA_KEYWORDS: ReadonlySet<string> = new Set([
  "additionalItems", "unevaluatedItems", "items", "contains", "additionalProperties", "unevaluatedProperties",
  "propertyNames", "not", "if", "then", "else", "contentSchema",
]);
/** Keywords holding an array of subschemas. */
export const SCHEMA_ARRAY_KEYWORDS: ReadonlySet<string> = new Set(["prefixItems", "items", "allOf", "anyOf", "oneOf"]);
/** Keywords holding an object whose values are subschemas (`dependencies` values may also be arrays of names). */
export const SCHEMA_MAP_KEYWORDS: ReadonlySet<string> = new Set([
  "$defs", "definitions", "properties", "patternProperties", "dependentSchemas", "dependencies",
]);
