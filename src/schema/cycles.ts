import type { Schema } from "@cfworker/json-schema";
import type { JsonValue } from "../json/index.js";
import type { Lookup } from "./resolve.js";
import { forEachSchemaObject, isObject, type SchemaObject } from "./walk.js";

/** Keywords that apply their subschemas to the same value, not to a part of it. */
const IN_PLACE_SINGLE = ["not", "if", "then", "else"];
const IN_PLACE_ARRAY = ["allOf", "anyOf", "oneOf"];
const IN_PLACE_MAP = ["dependentSchemas", "dependencies"];

function inPlaceTargets(node: SchemaObject, lookup: Lookup, recursiveAnchors: SchemaObject[]): SchemaObject[] {
  const out: SchemaObject[] = [];
  const add = (v: unknown): void => {
    if (isObject(v as JsonValue)) out.push(v as SchemaObject);
  };
  for (const k of IN_PLACE_SINGLE) add(node[k]);
  for (const k of IN_PLACE_ARRAY) {
    const list = node[k];
    if (Array.isArray(list)) list.forEach(add);
  }
  for (const k of IN_PLACE_MAP) {
    const map = node[k];
    if (isObject(map)) for (const key of Object.keys(map)) add(map[key]);
  }
  const s = node as Schema;
  if (s.__absolute_ref__ !== undefined) add(lookup[s.__absolute_ref__]);
  if (s.__absolute_recursive_ref__ !== undefined) {
    add(lookup[s.__absolute_recursive_ref__]);
    out.push(...recursiveAnchors);
  }
  return out;
}

/**
 * A schema that reaches itself through references and in-place applicators
 * only (never descending into a property or an item) makes the evaluator
 * recurse forever. Returns the JSON Pointer of a schema on such a cycle, or
 * undefined.
 */
export function findInPlaceCycle(work: JsonValue, lookup: Lookup): string | undefined {
  const pointers = new Map<SchemaObject, string>();
  const recursiveAnchors: SchemaObject[] = [];
  forEachSchemaObject(work, (node, pointer) => {
    pointers.set(node, pointer);
    if (node["$recursiveAnchor"] === true) recursiveAnchors.push(node);
  });
  const GRAY = 1;
  const BLACK = 2;
  const color = new Map<SchemaObject, number>();
  for (const start of pointers.keys()) {
    if (color.has(start)) continue;
    // Iterative depth-first search: reference chains may be long.
    const stack: { node: SchemaObject; next: SchemaObject[]; i: number }[] = [];
    color.set(start, GRAY);
    stack.push({ node: start, next: inPlaceTargets(start, lookup, recursiveAnchors), i: 0 });
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      if (top.i >= top.next.length) {
        color.set(top.node, BLACK);
        stack.pop();
        continue;
      }
      const child = top.next[top.i++]!;
      const c = color.get(child);
      if (c === GRAY) return pointers.get(child) ?? pointers.get(top.node) ?? "";
      if (c === undefined) {
        color.set(child, GRAY);
        stack.push({ node: child, next: inPlaceTargets(child, lookup, recursiveAnchors), i: 0 });
      }
    }
  }
  return undefined;
}
