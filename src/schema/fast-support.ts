/**
 * What the fast evaluator takes, and the value comparisons it shares with
 * @cfworker/json-schema's semantics (deep equality, code point length,
 * exact decimal multipleOf).
 */
import type { Schema } from "@cfworker/json-schema";
import type { JsonValue } from "../json/index.js";
import type { SchemaDraft } from "./drafts.js";
import type { Lookup } from "./resolve.js";
import type { FullSupportNeed } from "./support.js";
import { isObject, SCHEMA_ARRAY_KEYWORDS, SCHEMA_KEYWORDS, SCHEMA_MAP_KEYWORDS, type SchemaObject } from "./walk.js";

/**
 * The subschemas the fast evaluator evaluates: every schema position
 * (walk.ts) but definitions (reached through a $ref only) and
 * contentSchema (an annotation). Every other keyword holds data (const,
 * enum, required, dependentRequired…), never walked.
 */
const NOT_EVALUATED = new Set(["$defs", "definitions", "contentSchema"]);
/** Keywords only the other evaluator has. */
const UNSUPPORTED = new Set(["unevaluatedProperties", "unevaluatedItems", "$recursiveRef", "dependencies", "additionalItems", "$dynamicRef"]);

/**
 * Why the fast evaluator cannot take this schema (the first keyword it does
 * not implement, in a schema object reachable from the root), or undefined
 * when it can. `pointerOf` places a schema object of the document.
 */
export function fastUnsupported(root: JsonValue, lookup: Lookup, draft: SchemaDraft, pointerOf: ReadonlyMap<object, string>): FullSupportNeed | undefined {
  const seen = new Set<unknown>();
  const stack: unknown[] = [root];
  const need = (s: SchemaObject, keyword: string, what = ""): FullSupportNeed => ({
    why: `${keyword}${what} needs the reference evaluator (@cfworker/json-schema), which is part of it`,
    pointer: `${pointerOf.get(s) ?? ""}/${keyword}`,
  });
  while (stack.length > 0) {
    const node = stack.pop();
    if (!isObject(node as JsonValue) || seen.has(node)) continue;
    seen.add(node);
    const s = node as SchemaObject;
    if (s["$recursiveAnchor"] === true) return need(s, "$recursiveAnchor");
    for (const k of Object.keys(s)) {
      if (UNSUPPORTED.has(k)) return need(s, k);
      if (k === "items" && Array.isArray(s[k])) return need(s, k, " as an array");
      const value = s[k];
      if (k === "$ref") stack.push(lookup[(s as Schema).__absolute_ref__ ?? ""]);
      else if (NOT_EVALUATED.has(k)) continue;
      else if (SCHEMA_KEYWORDS.has(k)) stack.push(value);
      else if (SCHEMA_ARRAY_KEYWORDS.has(k) && Array.isArray(value)) stack.push(...value);
      else if (SCHEMA_MAP_KEYWORDS.has(k) && isObject(value)) stack.push(...Object.values(value));
    }
    if (draft === "draft-04" && typeof s["exclusiveMinimum"] === "number") return need(s, "exclusiveMinimum", " as a number");
    if (draft === "draft-04" && typeof s["exclusiveMaximum"] === "number") return need(s, "exclusiveMaximum", " as a number");
  }
  return undefined;
}

const hasOwn = Object.prototype.hasOwnProperty;

/** Deep equality of JSON values, key order aside (as @cfworker's deepCompareStrict). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  const aa = Array.isArray(a);
  if (aa !== Array.isArray(b)) return false;
  if (aa) {
    const x = a as unknown[];
    const y = b as unknown[];
    if (x.length !== y.length) return false;
    for (let k = 0; k < x.length; k++) if (!jsonEqual(x[k], y[k])) return false;
    return true;
  }
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) {
    if (!hasOwn.call(b, k) || !jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}

/** Length in code points, as JSON Schema counts it. */
export function codePoints(s: string): number {
  let n = s.length;
  for (let k = 0; k < s.length - 1; k++) {
    const c = s.charCodeAt(k);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(k + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        k++;
      }
    }
  }
  return n;
}

function decimal(value: number): [bigint, number] {
  const [coefficient, exponent = "0"] = Math.abs(value).toString().split("e");
  const point = coefficient!.indexOf(".");
  const fraction = point === -1 ? 0 : coefficient!.length - point - 1;
  return [BigInt(coefficient!.replace(".", "")), Number(exponent) - fraction];
}

/** Exact decimal divisibility (as @cfworker/json-schema, which is what the suite expects). */
export function isMultipleOf(value: number, divisor: number): boolean {
  if (!Number.isFinite(value) || !Number.isFinite(divisor) || divisor <= 0) return false;
  const [vc, ve] = decimal(value);
  const [dc, de] = decimal(divisor);
  const diff = ve - de;
  if (diff >= 0) return (vc * 10n ** BigInt(diff)) % dc === 0n;
  return vc % (dc * 10n ** BigInt(-diff)) === 0n;
}
