import { dereference, type Schema } from "@cfworker/json-schema";
import type { JsonValue } from "../json/index.js";
import type { SchemaDraft } from "./drafts.js";
import { META_2020_TOP, metaschemaUriOf } from "./metaschema-uris.js";
import { METASCHEMAS } from "./metaschemas.js";
import type { Lookup } from "./resolve.js";
import { forEachSchemaObject, isObject } from "./walk.js";

let shared: Lookup | undefined;

/**
 * The carried metaschemas (part of full schema support), dereferenced once
 * into a lookup that every compiled schema inherits from once full support
 * is loaded (built on first use, never at import).
 *
 * The evaluator has no `$dynamicRef`. In the 2020-12 metaschemas every
 * `$dynamicRef` is `"#meta"`, and when evaluation enters through the dialect
 * metaschema (`.../2020-12/schema`) its dynamic scope always resolves
 * `#meta` to that dialect metaschema. So each is rewritten to a `$ref` to it;
 * the compiler refuses references that would enter elsewhere.
 *
 * Their `format`s are dropped (kept as annotations): the draft-04 metaschema
 * says `id` is a "uri", yet relative ids are how draft-04 schemas are
 * written, and a format checker would refuse them. Patterns are checked as
 * regular expressions by the compiler itself; a reference that is not a
 * valid URI reference fails when it is resolved.
 */
export function metaschemaLookup(): Lookup {
  if (shared !== undefined) return shared;
  const lookup: Lookup = Object.create(null) as Lookup;
  for (const original of METASCHEMAS) {
    const meta = JSON.parse(JSON.stringify(original)) as JsonValue; // plain JSON data: a deep copy
    forEachSchemaObject(meta, (node) => {
      delete node["format"];
      if (node["$dynamicRef"] === "#meta") {
        delete node["$dynamicRef"];
        node["$ref"] = META_2020_TOP;
      }
    });
    dereference(meta as Schema, lookup);
  }
  shared = lookup;
  return lookup;
}

/** The metaschema a draft's schemas are checked against. */
export function metaschemaOf(draft: SchemaDraft): Schema {
  const lookup = metaschemaLookup();
  const uri = metaschemaUriOf(draft);
  const meta = lookup[uri] ?? lookup[uri.replace(/#$/, "")];
  if (!isObject(meta as JsonValue)) throw new Error(`isoagent: metaschema ${uri} is not carried`);
  return meta as Schema;
}
