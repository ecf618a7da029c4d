/**
 * `$dynamicRef` for an evaluator that has none (2020-12 only).
 *
 * A `$dynamicRef` is a `$ref` whose target may move to the outermost schema
 * resource in the dynamic scope that declares the same `$dynamicAnchor`.
 * Where the compiler can prove that every way evaluation can reach it leads
 * to one and the same target, the `$dynamicRef` is rewritten to a `$ref` to
 * that target, which is then evaluated exactly. Where the target depends on
 * the path taken, the schema is refused: never evaluated approximately.
 *
 * The proof is a data-flow over the graph of schema resources (lexical
 * nesting and references): for each resource, the set of "first resource on
 * a path from the root that declares the anchor", over every path reaching it.
 */
import type { Schema } from "@cfworker/json-schema";
import type { JsonValue } from "../json/index.js";
import { at, SchemaError } from "./errors.js";
import { META_2020_PREFIX, META_2020_TOP } from "./metaschema-uris.js";
import type { DocumentIndex, FoundRef, ResolveTarget, ResolveUri } from "./resolve.js";
import { forEachSchemaObject, isObject, type SchemaObject } from "./walk.js";

function unsupported(pointer: string, why: string): never {
  throw new SchemaError("SCHEMA_UNSUPPORTED_KEYWORD", `schema uses a keyword the validator cannot evaluate correctly: ${why} (at ${at(pointer)})`, { pointer });
}

/**
 * Rewrites every `$dynamicRef` of the document to a `$ref` (or refuses), and
 * returns the new references for the caller to resolve like any other.
 */
export function resolveDynamicRefs(work: JsonValue, index: DocumentIndex, resolve: ResolveUri, resolveTarget: ResolveTarget): FoundRef[] {
  const { lookup, resourceOf, dynamicAnchors } = index;
  const edges = new Map<string, Set<string>>();
  const addEdge = (a: string, b: string | undefined): void => {
    if (b === undefined || a === b) return;
    let set = edges.get(a);
    if (set === undefined) edges.set(a, (set = new Set()));
    set.add(b);
  };
  // The resource a reference enters (resolving JSON Pointers on the way); an
  // external target adds no edge, and is refused by the caller.
  const resourceOfTarget = (r: FoundRef): string | undefined => {
    const t = resolveTarget(index, r.abs, r);
    return isObject(t as JsonValue) ? resourceOf.get(t as SchemaObject) : undefined;
  };

  // Applicators entering an embedded resource ($defs and definitions are not
  // applicators: what they hold is entered only by reference).
  forEachSchemaObject(work, (node, _pointer, parent, keyword) => {
    if (parent !== undefined && keyword !== "$defs" && keyword !== "definitions") addEdge(resourceOf.get(parent)!, resourceOf.get(node));
  });
  let refersToMeta = false;
  const dynamic: FoundRef[] = [];
  for (const r of index.refs) {
    if (r.keyword === "$dynamicRef") dynamic.push(r);
    else {
      if (r.abs.split("#")[0] === META_2020_TOP) refersToMeta = true;
      addEdge(resourceOf.get(r.node)!, resourceOfTarget(r));
    }
  }
  if (refersToMeta && [...dynamicAnchors.values()].some((names) => names.has("meta"))) {
    unsupported("", 'the schema declares $dynamicAnchor "meta" and refers to the 2020-12 metaschema, which it would extend dynamically');
  }
  if (dynamic.length === 0) return [];

  const declaring = (name: string): string[] => [...dynamicAnchors].filter(([, names]) => names.has(name)).map(([r]) => r);
  const planned = dynamic.map((r) => {
    if (r.abs.startsWith(META_2020_PREFIX)) unsupported(`${r.pointer}/$dynamicRef`, `$dynamicRef ${JSON.stringify(r.ref)} enters a 2020-12 metaschema`);
    const resource = resourceOf.get(r.node)!;
    const hash = r.abs.indexOf("#");
    const fragment = hash === -1 ? "" : r.abs.slice(hash + 1);
    const initialResource = resourceOfTarget(r);
    const initial = lookup[r.abs];
    // Only a plain-name fragment naming a $dynamicAnchor is dynamic; anything
    // else is an ordinary $ref.
    const isDynamic = /^[A-Za-z_][-A-Za-z0-9._]*$/.test(fragment) && isObject(initial as JsonValue) && (initial as SchemaObject)["$dynamicAnchor"] === fragment;
    addEdge(resource, initialResource);
    if (isDynamic) for (const d of declaring(fragment)) addEdge(resource, d);
    return { r, resource, fragment, isDynamic };
  });

  const flows = new Map<string, Map<string, Set<string | null>>>();
  const flow = (name: string): Map<string, Set<string | null>> => {
    let sets = flows.get(name);
    if (sets !== undefined) return sets;
    const declares = (res: string): boolean => dynamicAnchors.get(res)?.has(name) === true;
    const root = index.rootResource;
    sets = new Map([[root, new Set<string | null>([declares(root) ? root : null])]]);
    const queue = [root];
    while (queue.length > 0) {
      const a = queue.pop()!;
      for (const b of edges.get(a) ?? []) {
        let into = sets.get(b);
        if (into === undefined) sets.set(b, (into = new Set()));
        const before = into.size;
        for (const x of sets.get(a)!) into.add(x ?? (declares(b) ? b : null));
        if (into.size !== before) queue.push(b);
      }
    }
    flows.set(name, sets);
    return sets;
  };

  const rewritten: FoundRef[] = [];
  for (const p of planned) {
    let target = p.r.abs;
    if (p.isDynamic) {
      const reaching = flow(p.fragment).get(p.resource) ?? new Set<string | null>([null]);
      const targets = new Set<string>();
      for (const x of reaching) targets.add(x === null ? p.r.abs : resolve(`#${p.fragment}`, x));
      if (targets.size !== 1) {
        unsupported(`${p.r.pointer}/$dynamicRef`, `$dynamicRef ${JSON.stringify(p.r.ref)} resolves to different schemas depending on the path evaluation takes to it`);
      }
      target = [...targets][0]!;
    }
    rewritten.push(rewriteAsRef(p.r, target));
  }
  return rewritten;
}

/** Replaces a `$dynamicRef` by a `$ref` to `target` (inside `allOf` when the schema already has a `$ref`). */
function rewriteAsRef(r: FoundRef, target: string): FoundRef {
  const node = r.node;
  delete node["$dynamicRef"];
  if (node["$ref"] === undefined) {
    node["$ref"] = target;
    return { ...r, keyword: "$ref", abs: target };
  }
  const wrapper: SchemaObject = { $ref: target };
  const allOf = node["allOf"];
  node["allOf"] = Array.isArray(allOf) ? [...allOf, wrapper] : [wrapper];
  return { ...r, node: wrapper, keyword: "$ref", abs: target };
}

export type { Schema };
