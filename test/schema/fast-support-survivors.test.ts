/**
 * What src/schema/fast-support.ts decides, pinned where mutation testing
 * (npm run mutate -- schema) left it untested: the exact refusal
 * fastUnsupported gives (why, and where), code point lengths around lone
 * surrogates, and multipleOf at its edges (non-finite numbers, a divisor
 * that is not positive, a divisor written with an exponent).
 *
 * fastUnsupported is called directly: under `npm run mutate` every test file
 * shares one module graph, so full schema support may already be loaded and
 * compileSchema would then take these schemas on the reference evaluator
 * without ever showing the refusal.
 */
import { describe, expect, it } from "vitest";
import type { JsonValue } from "../../src/index.js";
import { compileSchema } from "../../src/schema/index.js";
import type { SchemaDraft } from "../../src/schema/drafts.js";
import { codePoints, fastUnsupported, isMultipleOf } from "../../src/schema/fast-support.js";
import type { Lookup } from "../../src/schema/resolve.js";

const NEEDS = "needs the reference evaluator (@cfworker/json-schema), which is part of it";

describe("fastUnsupported: the first keyword the fast evaluator lacks, and where it is", () => {
  it("names the keyword, and places it by the schema object's pointer (or at the root when the object has none)", () => {
    const a = { unevaluatedProperties: false };
    const root = { type: "object", properties: { a } };
    const pointerOf = new Map<object, string>([
      [root, ""],
      [a, "/properties/a"],
    ]);
    // mutation: fast-support.ts:33 what = "" -> "Stryker was here!"; :33 the need object -> {};
    // :34 the why template -> ``; :35 the pointer template -> ``; :35 "?? \"\"" -> "&& \"\""
    expect(fastUnsupported(root, {}, "2020-12", pointerOf)).toEqual({ why: `unevaluatedProperties ${NEEDS}`, pointer: "/properties/a/unevaluatedProperties" });
    // mutation: fast-support.ts:35 pointerOf.get(s) ?? "" -> ?? "Stryker was here!"
    expect(fastUnsupported({ unevaluatedItems: false }, {}, "2020-12", new Map())).toEqual({ why: `unevaluatedItems ${NEEDS}`, pointer: "/unevaluatedItems" });
  });

  it("says what about a keyword it lacks: $recursiveAnchor, items as an array, a draft-04 numeric exclusive bound", () => {
    const cases: [JsonValue, SchemaDraft, string, string][] = [
      // mutation: fast-support.ts:42 need(s, "$recursiveAnchor") -> need(s, "")
      [{ $recursiveAnchor: true, type: "object" }, "2019-09", `$recursiveAnchor ${NEEDS}`, "/x/$recursiveAnchor"],
      // mutation: fast-support.ts:45 " as an array" -> ""
      [{ items: [{ type: "string" }] }, "draft-07", `items as an array ${NEEDS}`, "/x/items"],
      // mutation: fast-support.ts:58 the draft-04 condition -> false; "draft-04" -> ""; "exclusiveMinimum" -> "" (twice); "number" -> ""; " as a number" -> ""
      [{ minimum: 1, exclusiveMinimum: 3 }, "draft-04", `exclusiveMinimum as a number ${NEEDS}`, "/x/exclusiveMinimum"],
      // mutation: fast-support.ts:59, the same for exclusiveMaximum
      [{ maximum: 9, exclusiveMaximum: 3 }, "draft-04", `exclusiveMaximum as a number ${NEEDS}`, "/x/exclusiveMaximum"],
    ];
    for (const [schema, draft, why, pointer] of cases) {
      expect(fastUnsupported(schema, {}, draft, new Map([[schema as object, "/x"]])), JSON.stringify(schema)).toEqual({ why, pointer });
    }
    // From draft-06 on a numeric exclusive bound is the fast evaluator's own, and draft-04's boolean one too.
    for (const draft of ["draft-06", "draft-07", "2019-09", "2020-12"] as const) {
      expect(fastUnsupported({ exclusiveMinimum: 3, exclusiveMaximum: 9 }, {}, draft, new Map()), draft).toBeUndefined();
    }
    expect(fastUnsupported({ minimum: 1, exclusiveMinimum: true, maximum: 9, exclusiveMaximum: false }, {}, "draft-04", new Map())).toBeUndefined();
  });

  it("follows a $ref to the schema it names, by the absolute URI the compiler stamped on it", () => {
    const target = { unevaluatedProperties: false };
    const lookup: Lookup = { "https://example.com/t": target };
    const root = { properties: { a: { $ref: "t", __absolute_ref__: "https://example.com/t" } } };
    expect(fastUnsupported(root, lookup, "2020-12", new Map([[target, "/$defs/t"]]))).toEqual({ why: `unevaluatedProperties ${NEEDS}`, pointer: "/$defs/t/unevaluatedProperties" });
  });
});

describe("string lengths count code points: a surrogate pair is one, a lone surrogate one of its own", () => {
  const cases: [string, string, number][] = [
    ["a pair", "\ud800\udc00", 1],
    ["a lone high surrogate", "\ud800", 1],
    ["a pair after a character", "a\ud83d\ude00", 2],
    // mutation: fast-support.ts:92 the high surrogate test -> true; "&&" -> "||"; c >= 0xd800 -> true
    ["a character, then a lone low surrogate", "a\udc00", 2],
    // mutation: fast-support.ts:92 c <= 0xdbff -> true
    ["two low surrogates", "\udc00\udc00", 2],
    ["a private use character, then a low surrogate", "\ue000\udc00", 2],
    // mutation: fast-support.ts:94 the low surrogate test -> true; "&&" -> "||"; d >= 0xdc00 -> true
    ["a high surrogate, then a character", "\ud800a", 2],
    // mutation: fast-support.ts:94 d <= 0xdfff -> true
    ["a high surrogate, then a private use character", "\ud800\ue000", 2],
  ];
  it.each(cases)("%s", (_, s, n) => {
    expect(codePoints(s)).toBe(n);
    expect(codePoints(s)).toBe([...s].length);
    // maxLength: 1 and minLength: 2 decide by it (each string is 2 or 3 UTF-16 units long: past the units-only shortcuts).
    const max = compileSchema({ maxLength: 1 });
    const min = compileSchema({ minLength: 2 });
    expect(max.evaluator).toBe("fast");
    expect(max.validate(s).valid).toBe(n <= 1);
    expect(min.validate(s).valid).toBe(n >= 2);
    if (n > 1) expect(max.validate(s).issues.map((i) => [i.keyword, i.keywordLocation, i.message])).toEqual([["maxLength", "/maxLength", "must be at most 1 character long"]]);
  });
});

describe("multipleOf at its edges", () => {
  it("exact decimal divisibility, and false (never a throw) for a non-finite number or a divisor that is not positive", () => {
    const cases: [number, number, boolean][] = [
      // mutation: fast-support.ts:117 the diff < 0 branch -> false (0 is the one multiple with more decimals than the divisor)
      [0, 1e21, true],
      [1e21, 1e21, true],
      [3e21, 1e21, true],
      [5, 1e21, false],
      [0.3, 0.1, true],
      [0.35, 0.1, false],
      // mutation: fast-support.ts:112 the whole test -> false; "(a || b) && c"; "a && b"; "a || b" -> false; :112 return false -> true
      [Infinity, 1, false],
      [-Infinity, 1, false],
      [NaN, 1, false],
      [1, Infinity, false],
      [1, NaN, false],
      // mutation: fast-support.ts:112 divisor <= 0 -> divisor < 0 (5 % 0 would throw)
      [5, 0, false],
      // mutation: fast-support.ts:112 divisor <= 0 -> false
      [4, -2, false],
      [-4, -2, false],
    ];
    for (const [value, divisor, expected] of cases) expect(isMultipleOf(value, divisor), `${value} / ${divisor}`).toBe(expected);
  });

  it("as the fast evaluator applies it: 0 is a multiple of 1e21, Infinity is refused with the keyword's issue", () => {
    const s = compileSchema({ multipleOf: 1e21 });
    expect(s.evaluator).toBe("fast");
    expect(s.validate(0)).toEqual({ valid: true, issues: [] });
    expect(s.validate(2e21).valid).toBe(true);
    const issue = { keyword: "multipleOf", keywordLocation: "/multipleOf", instanceLocation: "", message: "must be a multiple of 1e+21" };
    expect(s.validate(5).issues).toEqual([issue]);
    expect(s.validate(Infinity).issues).toEqual([issue]);
  });
});
