/**
 * Identifiers and references of one schema document, resolved from the
 * document alone (and the carried metaschemas).
 *
 * The evaluator's own indexer registers an embedded resource's anchors in
 * its parent resource too, and lets a draft-07 `$id` beside `$ref` move the
 * base URI; both give wrong answers (JSON Schema Test Suite: "order of
 * evaluation: $id and $anchor and $ref", "$ref prevents a sibling $id from
 * changing the base uri"). So the compiler indexes the document itself and
 * hands the evaluator a lookup holding exactly the targets its references
 * need, keyed by the absolute URIs it stamps on each reference.
 */
import type { Schema } from "@cfworker/json-schema";
import type { JsonValue } from "../json/index.js";
import type { SchemaDraft } from "./drafts.js";
import { at, SchemaError } from "./errors.js";
import { forEachSchemaObject, isObject, SCHEMA_ARRAY_KEYWORDS, SCHEMA_KEYWORDS, SCHEMA_MAP_KEYWORDS, type SchemaObject } from "./walk.js";

/** Schema lookup by absolute URI, as the evaluators use it. */
export type Lookup = Record<string, Schema | boolean>;

/** Resolves a URI reference against a base, returning the absolute URI. Throws on an invalid reference. */
export type ResolveUri = (ref: string, base: string) => string;

interface UrlLike {
  readonly href: string;
}
/**
 * Resolves with the platform's URL: Web-standard everywhere the core runs;
 * typed locally so the core needs no DOM types, and looked up when called,
 * never at import.
 */
export const resolveUri: ResolveUri = (ref, base) => new (globalThis as unknown as { URL: new (h: string, b?: string) => UrlLike }).URL(ref, base).href;

/** A `$ref`-like keyword found in the document. */
export interface FoundRef {
  readonly node: SchemaObject;
  readonly pointer: string;
  readonly keyword: "$ref" | "$recursiveRef" | "$dynamicRef";
  readonly ref: string;
  /** Absolute URI, without an empty fragment. */
  readonly abs: string;
}

/** What the compiler knows about the document's identifiers. */
export interface DocumentIndex {
  readonly lookup: Lookup;
  /** The schema resource (absolute URI, no fragment) each schema object belongs to. */
  readonly resourceOf: Map<SchemaObject, string>;
  readonly pointerOf: Map<SchemaObject, string>;
  /** Resources of this document (not metaschemas). */
  readonly resources: Set<string>;
  /** The resource of the document's root. */
  readonly rootResource: string;
  /** resource -> anchor name -> the schema declaring it as `$dynamicAnchor`. */
  readonly dynamicAnchors: Map<string, Map<string, SchemaObject>>;
  readonly refs: FoundRef[];
}

const withoutEmptyFragment = (uri: string): string => (uri.endsWith("#") ? uri.slice(0, -1) : uri);

function invalid(pointer: string, what: string): never {
  throw new SchemaError("SCHEMA_INVALID", `schema does not compile: ${what}`, { pointer });
}

/**
 * Indexes identifiers (`$id`, or `id` in draft-04; `$anchor`;
 * `$dynamicAnchor` in 2020-12) and collects references, stamping each with
 * its absolute URI. The lookup inherits the carried metaschemas.
 */
export function indexDocument(root: JsonValue, draft: SchemaDraft, metaLookup: Lookup, baseUri: string, resolve: ResolveUri): DocumentIndex {
  const lookup = Object.create(metaLookup) as Lookup;
  const resourceOf = new Map<SchemaObject, string>();
  const pointerOf = new Map<SchemaObject, string>();
  const resources = new Set<string>();
  const dynamicAnchors = new Map<string, Map<string, SchemaObject>>();
  const refs: FoundRef[] = [];
  const legacy = draft === "draft-04" || draft === "draft-06" || draft === "draft-07";
  const idKeyword = draft === "draft-04" ? "id" : "$id";

  const resolveAt = (ref: string, base: string, pointer: string): string => {
    try {
      return withoutEmptyFragment(resolve(ref, base));
    } catch {
      return invalid(pointer, `${JSON.stringify(ref)} at ${at(pointer)} is not a valid URI reference`);
    }
  };
  const register = (uri: string, node: SchemaObject, pointer: string, what: string): void => {
    const existing = Object.prototype.hasOwnProperty.call(lookup, uri) ? lookup[uri] : undefined;
    if (existing !== undefined && existing !== (node as Schema)) invalid(pointer, `${what} at ${at(pointer)} is declared twice`);
    lookup[uri] = node as Schema;
  };

  if (typeof root === "boolean") {
    lookup[baseUri] = root;
    resources.add(baseUri);
    return { lookup, resourceOf, pointerOf, resources, rootResource: baseUri, dynamicAnchors, refs };
  }

  forEachSchemaObject(root, (node, pointer, parent) => {
    let base = parent === undefined ? baseUri : resourceOf.get(parent)!;
    pointerOf.set(node, pointer);
    // Before 2019-09, every keyword beside $ref is ignored, $id included.
    const id = legacy && node["$ref"] !== undefined ? undefined : node[idKeyword];
    if (typeof id === "string") {
      const abs = resolveAt(id, base, `${pointer}/${idKeyword}`);
      const hash = abs.indexOf("#");
      const doc = hash === -1 ? abs : abs.slice(0, hash);
      if (doc !== base || parent === undefined) {
        base = doc;
        resources.add(doc);
        register(doc, node, pointer, `the identifier ${JSON.stringify(id)}`);
      }
      // A draft-04/06/07 "$id": "#name" names a location, like $anchor.
      if (hash !== -1) register(abs, node, pointer, `the identifier ${JSON.stringify(id)}`);
    } else if (parent === undefined) {
      resources.add(base);
      register(base, node, pointer, "the document");
    }
    resourceOf.set(node, base);
    const anchor = node["$anchor"];
    if (!legacy && typeof anchor === "string") register(resolveAt(`#${anchor}`, base, pointer), node, pointer, `the anchor ${JSON.stringify(anchor)}`);
    const dynamic = node["$dynamicAnchor"];
    if (draft === "2020-12" && typeof dynamic === "string") {
      register(resolveAt(`#${dynamic}`, base, pointer), node, pointer, `the anchor ${JSON.stringify(dynamic)}`);
      let names = dynamicAnchors.get(base);
      if (names === undefined) dynamicAnchors.set(base, (names = new Map()));
      names.set(dynamic, node);
    }
    for (const keyword of ["$ref", "$recursiveRef", "$dynamicRef"] as const) {
      const ref = node[keyword];
      if (typeof ref !== "string") continue;
      if (keyword === "$recursiveRef" && draft !== "2019-09") continue;
      if (keyword === "$dynamicRef" && draft !== "2020-12") continue;
      refs.push({ node, pointer, keyword, ref, abs: resolveAt(ref, base, `${pointer}/${keyword}`) });
    }
  });
  return { lookup, resourceOf, pointerOf, resources, rootResource: resourceOf.get(root as SchemaObject)!, dynamicAnchors, refs };
}

/** Decodes a URI fragment holding a JSON Pointer into its reference tokens, or undefined. */
function pointerTokens(fragment: string): string[] | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(fragment);
  } catch {
    return undefined;
  }
  if (decoded === "") return [];
  if (!decoded.startsWith("/")) return undefined;
  return decoded
    .slice(1)
    .split("/")
    .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/**
 * Finds the target of an absolute URI: a registered resource or anchor, or a
 * JSON Pointer into a known resource (registered on the way). Returns
 * undefined when the URI names a document that is neither this one nor a
 * carried metaschema, and throws when it names a known document but no
 * schema in it.
 */
export function resolveTarget(index: DocumentIndex, abs: string, found: { ref: string; pointer: string; keyword: string }): Schema | boolean | undefined {
  const { lookup } = index;
  const hit = lookup[abs];
  if (hit !== undefined) return hit;
  const hash = abs.indexOf("#");
  const doc = hash === -1 ? abs : abs.slice(0, hash);
  const docRoot = lookup[doc];
  if (docRoot === undefined) return undefined;
  const tokens = hash === -1 ? [] : pointerTokens(abs.slice(hash + 1));
  let node: unknown = docRoot;
  const path: unknown[] = [];
  if (tokens !== undefined) {
    for (const token of tokens) {
      if (typeof node !== "object" || node === null) {
        node = undefined;
        break;
      }
      path.push(node);
      node = Object.prototype.hasOwnProperty.call(node, token) ? (node as Record<string, unknown>)[token] : undefined;
    }
  }
  // In this document, a pointer must land at a schema position: data (a
  // const or enum value, a default, an unknown keyword) is never a schema
  // the compiler checked.
  const own = index.resources.has(doc);
  if (tokens === undefined || (typeof node !== "boolean" && !isObject(node as JsonValue)) || (own && !atSchemaPosition(index, node, path, tokens!))) {
    return invalid(`${found.pointer}/${found.keyword}`, `${found.keyword} ${JSON.stringify(found.ref)} at ${at(found.pointer)} does not resolve to a schema in the document`);
  }
  lookup[abs] = node as Schema | boolean;
  return node as Schema | boolean;
}

/**
 * Whether `node`, reached from a resource of this document by `tokens`
 * through `path`, is a schema at a schema position: an object the index
 * walked, or a boolean held by a schema keyword of one.
 */
function atSchemaPosition(index: DocumentIndex, node: unknown, path: readonly unknown[], tokens: readonly string[]): boolean {
  if (isObject(node as JsonValue)) return index.pointerOf.has(node as SchemaObject);
  const n = path.length;
  const parent = path[n - 1];
  if (n >= 1 && index.pointerOf.has(parent as SchemaObject) && SCHEMA_KEYWORDS.has(tokens[n - 1]!)) return true;
  const holder = path[n - 2];
  const keyword = tokens[n - 2]!;
  return n >= 2 && index.pointerOf.has(holder as SchemaObject) && (Array.isArray(parent) ? SCHEMA_ARRAY_KEYWORDS.has(keyword) : SCHEMA_MAP_KEYWORDS.has(keyword));
}

/** {@link resolveTarget}'s type, for full support (which takes it from the core rather than share the module). */
export type ResolveTarget = typeof resolveTarget;

/** Stamps the absolute URI the evaluator follows on a reference. */
export function stamp(node: SchemaObject, keyword: "$ref" | "$recursiveRef", abs: string): void {
  Object.defineProperty(node, keyword === "$ref" ? "__absolute_ref__" : "__absolute_recursive_ref__", {
    value: abs,
    configurable: true,
  });
}
