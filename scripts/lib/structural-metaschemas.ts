/**
 * Derives the structural metaschemas (src/schema/structural-data.ts) from
 * the carried ones (src/schema/metaschemas.ts): per draft, one
 * self-contained document that refuses exactly what the draft's metaschema
 * refuses, so the core can check a schema without @cfworker/json-schema and
 * without carrying the metaschemas. What changes, and why it changes no
 * verdict:
 *
 * - annotations (title, description, default, $comment, ...) go: they
 *   validate nothing; so do `format`s (the carried metaschemas never assert
 *   them) and identifiers (`$id`, `$schema`, anchors, `$vocabulary`); then
 *   a property whose subschema is left empty (`"default": {}`) and an
 *   empty `allOf` branch, which accept everything;
 * - 2019-09 and 2020-12: each vocabulary metaschema the dialect metaschema
 *   names in its `allOf` is put in its place, their `$defs` merged (no two
 *   vocabularies define one name differently; the script refuses
 *   otherwise), and `$recursiveRef: "#"` and `$dynamicRef: "#meta"` become
 *   `$ref: "#"`: entered through the dialect metaschema, their dynamic
 *   scope always resolves them to it (as metaschema-lookup.ts assumes);
 * - draft-04's `dependencies` (every value a list of names) becomes
 *   `dependentRequired`, which means the same and which the fast evaluator
 *   implements.
 *
 * `npm run gen:structural` writes the file; a test holds it to this
 * function's output.
 */
import type { JsonValue } from "../../src/json/index.js";
import { SCHEMA_DRAFTS, type SchemaDraft } from "../../src/schema/drafts.js";
import { METASCHEMAS } from "../../src/schema/metaschemas.js";
import { forEachSchemaObject, isObject, type SchemaObject } from "../../src/schema/walk.js";

const ANNOTATIONS = [
  "title",
  "description",
  "default",
  "$comment",
  "deprecated",
  "readOnly",
  "writeOnly",
  "examples",
  "format",
  "$vocabulary",
  "$id",
  "id",
  "$schema",
  "$anchor",
  "$dynamicAnchor",
  "$recursiveAnchor",
];

const DIALECTS: Record<SchemaDraft, string> = {
  "draft-04": "http://json-schema.org/draft-04/schema#",
  "draft-06": "http://json-schema.org/draft-06/schema#",
  "draft-07": "http://json-schema.org/draft-07/schema#",
  "2019-09": "https://json-schema.org/draft/2019-09/schema",
  "2020-12": "https://json-schema.org/draft/2020-12/schema",
};

function byId(id: string): SchemaObject {
  const found = METASCHEMAS.find((m) => isObject(m) && (m["$id"] === id || m["id"] === id));
  if (found === undefined) throw new Error(`metaschema ${id} is not carried`);
  return structuredClone(found) as SchemaObject;
}

/** Rewrites references so that the document refers only to itself. */
function localRefs(doc: SchemaObject, dialect: string): void {
  const base = dialect.replace(/schema#?$/, "");
  forEachSchemaObject(doc, (node) => {
    for (const k of ANNOTATIONS) delete node[k];
    if (node["$dynamicRef"] === "#meta" || node["$recursiveRef"] === "#") {
      delete node["$dynamicRef"];
      delete node["$recursiveRef"];
      node["$ref"] = "#";
    }
    // A subschema that validates nothing ({} or true, where only
    // annotations were) says nothing: a property of it, or an allOf branch.
    const props = node["properties"];
    if (isObject(props)) for (const [k, v] of Object.entries(props)) if (v === true || (isObject(v) && Object.keys(v).every((x) => ANNOTATIONS.includes(x)))) delete props[k];
    if (Array.isArray(node["allOf"])) node["allOf"] = node["allOf"].filter((v) => !(isObject(v) && Object.keys(v).every((x) => ANNOTATIONS.includes(x))));
    const ref = node["$ref"];
    if (typeof ref !== "string" || ref.startsWith("#")) return;
    // "meta/validation#/$defs/stringArray": the merged $defs hold it.
    const hash = ref.indexOf("#");
    if (hash === -1) throw new Error(`unexpected reference ${ref} left in ${base}`);
    node["$ref"] = ref.slice(hash);
  });
}

function structural(draft: SchemaDraft): SchemaObject {
  const dialect = DIALECTS[draft];
  const top = byId(dialect);
  if (draft === "draft-04") {
    top["dependentRequired"] = top["dependencies"]!;
    delete top["dependencies"];
  }
  if (draft === "2019-09" || draft === "2020-12") {
    const defs: SchemaObject = {};
    const vocabularies = (top["allOf"] as SchemaObject[]).map((entry) => {
      const vocabulary = byId(new URL(entry["$ref"] as string, dialect).href);
      for (const [name, def] of Object.entries((vocabulary["$defs"] ?? {}) as SchemaObject)) {
        if (name in defs && JSON.stringify(defs[name]) !== JSON.stringify(def)) throw new Error(`two vocabularies of ${draft} define $defs/${name} differently`);
        defs[name] = def;
      }
      delete vocabulary["$defs"];
      return vocabulary;
    });
    top["allOf"] = vocabularies;
    if (Object.keys(defs).length > 0) top["$defs"] = defs;
  }
  localRefs(top, dialect);
  return top;
}

/** The structural metaschema of every draft. */
export function structuralMetaschemas(): Record<SchemaDraft, JsonValue> {
  return Object.fromEntries(SCHEMA_DRAFTS.map((d) => [d, structural(d)])) as Record<SchemaDraft, JsonValue>;
}

/** The text of src/schema/structural-data.ts. */
export function structuralDataSource(): string {
  const all = structuralMetaschemas();
  const lines = SCHEMA_DRAFTS.map((d) => `  ${JSON.stringify(d)}: ${JSON.stringify(all[d])},`);
  return [
    "/**",
    " * The structural metaschemas: each draft's metaschema as one self-contained",
    " * document with the same verdicts, derived from metaschemas.ts by",
    " * scripts/lib/structural-metaschemas.ts (which says what changes and why",
    " * no verdict does). Generated by `npm run gen:structural`; do not edit.",
    " */",
    'import type { JsonValue } from "../json/index.js";',
    'import type { SchemaDraft } from "./drafts.js";',
    "",
    "/** The structural metaschema of each draft. */",
    "export const STRUCTURAL_METASCHEMAS: Readonly<Record<SchemaDraft, JsonValue>> = {",
    ...lines,
    "};",
    "",
  ].join("\n");
}
