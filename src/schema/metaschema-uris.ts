/**
 * The URIs of the standard metaschemas: which draft a `$schema` names, and
 * which metaschemas full schema support carries. A module of its own, so
 * that full support's chunk shares only this with the core.
 */

/** A JSON Schema draft the compiler supports. */
export type SchemaDraft = "draft-04" | "draft-06" | "draft-07" | "2019-09" | "2020-12";

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
