import type { JsonValue } from "../json/index.js";

/** Keywords holding one subschema. */
export const SCHEMA_KEYWORDS: ReadonlySet<string> = new Set([
  "additionalItems",
  "unevaluatedItems",
  "items",
  "contains",
  "additionalProperties",
  "unevaluatedProperties",
  "propertyNames",
  "not",
  "if",
  "then",
  "else",
  "contentSchema",
]);
/** Keywords holding an array of subschemas. */
export const SCHEMA_ARRAY_KEYWORDS: ReadonlySet<string> = new Set(["prefixItems", "items", "allOf", "anyOf", "oneOf"]);
/** Keywords holding an object whose values are subschemas (`dependencies` values may also be arrays of names). */
export const SCHEMA_MAP_KEYWORDS: ReadonlySet<string> = new Set(["$defs", "definitions", "properties", "patternProperties", "dependentSchemas", "dependencies"]);

/** A schema object (not a boolean schema). */
export type SchemaObject = { [key: string]: JsonValue };

/** True for a JSON object (not null, not an array). */
export function isObject(v: unknown): v is SchemaObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Encodes a JSON Pointer reference token. */
export function pointerToken(key: string | number): string {
  return String(key).replace(/~/g, "~0").replace(/\//g, "~1");
}

/**
 * Calls `visit` for every schema object at a schema position, parents before
 * children, with its JSON Pointer. Values of keywords that are not schemas
 * (enum, const, default, examples, unknown keywords) are data and are not
 * walked. Shapes the metaschema would refuse are skipped, not trusted.
 */
export function forEachSchemaObject(root: JsonValue, visit: (node: SchemaObject, pointer: string, parent: SchemaObject | undefined, keyword: string | undefined) => void): void {
  const go = (node: JsonValue, pointer: string, parent: SchemaObject | undefined, keyword: string | undefined): void => {
    if (!isObject(node)) return;
    visit(node, pointer, parent, keyword);
    for (const key of Object.keys(node)) {
      const value = node[key]!;
      const base = `${pointer}/${pointerToken(key)}`;
      if (Array.isArray(value)) {
        if (SCHEMA_ARRAY_KEYWORDS.has(key)) value.forEach((item, k) => go(item, `${base}/${k}`, node, key));
      } else if (SCHEMA_MAP_KEYWORDS.has(key)) {
        if (isObject(value)) for (const sub of Object.keys(value)) go(value[sub]!, `${base}/${pointerToken(sub)}`, node, key);
      } else if (SCHEMA_KEYWORDS.has(key)) {
        go(value, base, node, key);
      }
    }
  };
  go(root, "", undefined, undefined);
}
