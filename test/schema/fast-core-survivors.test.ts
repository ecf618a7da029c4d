/**
 * What the fast evaluator's core (src/schema/fast.ts, fast-core.ts) must keep
 * that mutation testing (npm run mutate -- schema) found untested: a check
 * that only answers stops at its first failure, so it never walks the rest
 * of the instance (on an instance deep enough, walking it overflows the
 * stack); a validation that threw leaves nothing behind for the next; and
 * the exported helpers' own contracts.
 */
import { describe, expect, it } from "vitest";
import type { JsonValue } from "../../src/index.js";
import { compileSchema } from "../../src/schema/index.js";
import { all, isOfType, type Check } from "../../src/schema/fast-core.js";

/** An array nested `depth` levels: far deeper than any recursion the stack allows. */
const deepArray = (depth: number): JsonValue => {
  let v: JsonValue = [];
  for (let k = 0; k < depth; k++) v = [v];
  return v;
};
const DEEP = deepArray(200_000);

/** A subschema that walks every level of an array: validating DEEP against it overflows the stack. */
const walker = { $ref: "#/$defs/walk" };
const defs = { walk: { items: { $ref: "#/$defs/walk" } } };

describe("a check that only answers stops at its first failure, and walks nothing after it", () => {
  // Inside `not`, the subschema only answers. Its first check fails on an
  // array (type object, or const 1), so the answer is "no" without looking at
  // the items; the schema is valid. Walking the items of DEEP would throw a
  // RangeError (the stack overflows), which is what each mutation does.
  const cases: [string, Record<string, JsonValue>][] = [
    // mutation: fast.ts:169 `out !== undefined && (...)` -> `true && (...)` (the type-only fast path)
    ["type alone beside items", { type: "object", items: walker }],
    // mutation: fast.ts:172 `if (!ok && out === undefined) return false` -> `if (false)`
    ["const beside items", { const: 1, items: walker }],
    // mutation: fast.ts:124 allOf `if (out === undefined) return false` -> `if (false)`
    ["allOf: a failing subschema before one that walks", { allOf: [{ type: "object" }, walker] }],
    // mutation: fast-core.ts:109 all() of two: `if (out === undefined) return a && b` -> `if (false)`
    ["two general checks: type, then allOf", { type: "object", allOf: [walker] }],
    // mutation: fast-core.ts:100 all() of three: `if (out === undefined) return a && b && c` -> `if (false)`
    ["three general checks: type, const, then allOf", { type: "object", const: 1, allOf: [walker] }],
    // mutation: fast-core.ts:118 all() of four or more: `if (out === undefined) return false` -> `if (false)`
    ["four general checks: type, const, enum, then allOf", { type: "object", const: 1, enum: [1], allOf: [walker] }],
  ];
  it.each(cases)("%s", (_name, sub) => {
    const s = compileSchema({ $defs: defs, not: sub });
    expect(s.evaluator).toBe("fast");
    expect(s.validate(DEEP)).toEqual({ valid: true, issues: [] });
    // The same subschema, explaining at the root, does walk: the guard above is what spares it.
    expect(() => compileSchema({ $defs: defs, ...sub }).validate(DEEP)).toThrow(RangeError);
  });
});

describe("a validation that threw leaves nothing behind", () => {
  // mutation: fast.ts:184 `if (out.length !== 0) out = []` -> `if (false)`, and -> `if (out.length === 0)`
  // mutation: fast.ts:184 `out = []` -> `out = ["Stryker was here"]`
  it("the issues recorded before a stack overflow are not reported by the next validation", () => {
    const s = compileSchema({ type: "array", items: { $ref: "#" } });
    expect(s.evaluator).toBe("fast");
    // Item 0 records an issue; item 1 is too deep to walk, and the stack overflows.
    expect(() => s.validate([5, DEEP])).toThrow(RangeError);
    const issue = (instanceLocation: string, keywordLocation: string, got: string) => ({ keyword: "type", instanceLocation, keywordLocation, message: `expected array, got ${got}` });
    expect(s.validate("x")).toEqual({ valid: false, issues: [issue("", "/type", "string")] });
    expect(s.validate([])).toEqual({ valid: true, issues: [] });
    expect(s.validate([[], 1])).toEqual({ valid: false, issues: [issue("/1", "/items/$ref/type", "integer")] });
  });
});

describe("a schema without $ref", () => {
  // mutation: fast.ts:76 `if (s["$ref"] !== undefined) general.push(refCheck(s))` -> `if (true)`
  it("a key named __absolute_ref__ (where compiling stamps a $ref's target) is an unknown keyword there, and ignored", () => {
    // The root's own URI: were the key read as a reference, "a" would be held to the root's type object.
    const s = compileSchema({ type: "object", properties: { a: { __absolute_ref__: "https://schema.isoagent.invalid/root.json" } } });
    expect(s.evaluator).toBe("fast");
    expect(s.validate({ a: 1 })).toEqual({ valid: true, issues: [] });
    expect(s.validate(1).issues.map((i) => [i.keywordLocation, i.instanceLocation, i.message])).toEqual([["/type", "", "expected object, got integer"]]);
  });
});

describe("fast-core helpers", () => {
  // mutation: fast-core.ts:88 `default: return false` -> `default:` (falls out: undefined)
  // mutation: fast-core.ts:89 `return false` -> `return true`
  it("isOfType: code 0 (a type name that is none of the JSON types) matches no value", () => {
    for (const v of ["s", 1, 1.5, true, null, [], {}]) expect(isOfType(0, v), JSON.stringify(v)).toBe(false);
    // and the known codes, for contrast
    expect([1, 2, 3, 4, 5, 6, 7].map((c) => isOfType(c, 2))).toEqual([false, true, true, false, false, false, false]);
  });

  // mutation: fast-core.ts:95 `if (checks.length === 0) return undefined` -> `if (false)`
  it("all: nothing to run is undefined (callers skip it); otherwise runs checks in order, all of them when explaining", () => {
    expect(all([])).toBeUndefined();
    for (const n of [1, 2, 3, 4, 5]) {
      const calls: number[] = [];
      const checks: Check[] = Array.from({ length: n }, (_, k) => (_v, out) => (calls.push(k), out?.push({ keyword: `k${k}`, instanceLocation: "", keywordLocation: "", message: "" }), false));
      const out: NonNullable<Parameters<Check>[1]> = [];
      expect(all(checks)!(0, out)).toBe(false);
      expect(calls).toEqual(Array.from({ length: n }, (_, k) => k));
      expect(out.map((i) => i.keyword)).toEqual(calls.map((k) => `k${k}`));
      calls.length = 0;
      expect(all(checks)!(0, undefined)).toBe(false);
      expect(calls).toEqual([0]);
    }
  });
});
