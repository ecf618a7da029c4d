/**
 * The fast evaluator's array, number and string keywords
 * (src/schema/fast-values.ts) where the schema mutation run left survivors:
 * draft-04's inclusive and exclusive maximum, an array check that only
 * answers (it stops at the first failure, as fast.ts says), and how a
 * format is checked, or refused, with and without full schema support.
 * Full support is loaded halfway through, on purpose: the first tests run
 * without it (each test file has its own modules).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { loadFullSchemaSupport, type JsonValue } from "../../src/index.js";
import { compileSchema } from "../../src/schema/index.js";
import { all, type Check, type Out } from "../../src/schema/fast-core.js";
import { arrayChecks, stringChecks } from "../../src/schema/fast-values.js";
import { messages } from "../../src/schema/issues.js";
import { spies } from "./spies.js";

const D4 = "http://json-schema.org/draft-04/schema#";

const issues = (schema: unknown, v: JsonValue): string[][] =>
  compileSchema(schema)
    .validate(v)
    .issues.map((i) => [i.keyword, i.keywordLocation, i.instanceLocation, i.message]);

/** Runs a group's checks, explaining, as the evaluator does: the verdict and the issues. */
function explain(checks: Check[], v: unknown): [boolean, Out] {
  const out: Out = [];
  const check = all(checks);
  return [check === undefined || check(v, out), out];
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("draft-04 maximum, with and without exclusiveMaximum", () => {
  // mutation: fast-values.ts:101 "<" -> "" (the message of an exclusive maximum)
  // mutation: fast-values.ts:102 `(v as number) <= max` -> `(v as number) < max` (an inclusive maximum)
  const cases: [schema: Record<string, unknown>, v: number, expected: string[][]][] = [
    [{ maximum: 5, exclusiveMaximum: true }, 4.5, []],
    [{ maximum: 5, exclusiveMaximum: true }, 5, [["maximum", "/maximum", "", "must be < 5"]]],
    [{ maximum: 5, exclusiveMaximum: true }, 6, [["maximum", "/maximum", "", "must be < 5"]]],
    [{ maximum: 5 }, 5, []],
    [{ maximum: 5, exclusiveMaximum: false }, 5, []],
    [{ maximum: 5 }, 5.5, [["maximum", "/maximum", "", "must be <= 5"]]],
  ];
  it.each(cases)("%j with %j", (schema, v, expected) => {
    const s = compileSchema({ $schema: D4, ...schema });
    expect(s.evaluator).toBe("fast");
    expect(issues({ $schema: D4, ...schema }, v)).toEqual(expected);
  });
});

describe("an array check that only answers stops at the first failure", () => {
  // mutation: fast-values.ts:36 `if (out === undefined) return false;` (prefixItems) -> `if (false) ...`
  it("prefixItems: no later prefix item nor any further item is looked at", () => {
    const { calls, compile } = spies({ p0: false, p1: true, rest: true });
    const check = all(arrayChecks({ prefixItems: [{ name: "p0" }, { name: "p1" }], items: { name: "rest" } }, compile))!;
    expect(check([1, 2, 3], undefined)).toBe(false);
    expect(calls).toEqual(["p0(1)"]);
  });

  // mutation: fast-values.ts:46 `if (out === undefined) return false;` (items) -> `if (false) ...`
  it("items: the items after the first that fails are not looked at", () => {
    const { calls, compile } = spies({ p0: true, rest: false });
    const check = all(arrayChecks({ prefixItems: [{ name: "p0" }], items: { name: "rest" } }, compile))!;
    expect(check([1, 2, 3], undefined)).toBe(false);
    expect(calls).toEqual(["p0(1)", "rest(2)"]);
  });

  // mutation: fast-values.ts:43 `if (out === undefined) return false;` (items: false) -> `if (false) ...`
  it("items false: no message is made for the first item past the prefix, nor for any after it", () => {
    const built = vi.spyOn(messages, "unexpectedItem");
    const { calls, compile } = spies({ p0: true });
    const check = all(arrayChecks({ prefixItems: [{ name: "p0" }], items: false }, compile))!;
    expect(check([1, 2, 3], undefined)).toBe(false);
    expect(calls).toEqual(["p0(1)"]);
    expect(built).not.toHaveBeenCalled();
  });

  it("while a check that explains looks at every item (the same checks, with out)", () => {
    const built = vi.spyOn(messages, "unexpectedItem");
    const { calls, compile } = spies({ p0: false, p1: true, rest: false });
    const out: Out = [];
    const check = all(arrayChecks({ prefixItems: [{ name: "p0" }, { name: "p1" }], items: { name: "rest" } }, compile))!;
    expect(check([1, 2, 3, 4], out)).toBe(false);
    expect(calls).toEqual(["p0(1)", "p1(2)", "rest(3)", "rest(4)"]);
    const none = all(arrayChecks({ items: false }, compile))!;
    expect(none([1, 2], out)).toBe(false);
    expect(built.mock.calls).toEqual([[0], [1]]);
  });
});

describe("format, before full schema support is loaded", () => {
  // mutation: fast-values.ts:155:9 `test === undefined && name !== s["format"]` -> `false` (would check nothing)
  // mutation: fast-values.ts:155:31 `name !== s["format"]` -> `name === s["format"]`
  // mutation: fast-values.ts:155:69 the error's template literal -> ``
  it("fails closed on a format the compiler renamed to assert, when its checker is not there", () => {
    // A name no checker has, so that this holds whether or not another test file of the same
    // module graph (npm run mutate shares one) loaded full support first.
    expect(() => stringChecks({ format: "isoagent:no-checker" })).toThrow(new Error("isoagent: format no-checker asserts without its checker"));
  });

  // mutation: fast-values.ts:152 `fullSupport()?.formatChecker` -> `fullSupport().formatChecker` (a TypeError)
  // mutation: fast-values.ts:155:31 `name !== s["format"]` -> `true`, -> `name === s["format"]`; 155:42 "format" -> ""
  // mutation: fast-values.ts:157 `if (test !== undefined)` -> `if (true)` (a check calling undefined)
  it("checks nothing for a format the compiler left as it was (an annotation), and does not throw", () => {
    expect(explain(stringChecks({ format: "date" }), "not a date")).toEqual([true, []]);
    expect(explain(stringChecks({ format: "x-anything" }), "")).toEqual([true, []]);
  });
});

describe("format, with full schema support", () => {
  // The same mutations, where the checkers are loaded.
  it("checks a renamed format with its checker, and fails closed on a renamed name that has none", async () => {
    await loadFullSchemaSupport();
    const checks = stringChecks({ format: "isoagent:date" });
    expect(explain(checks, "2024-02-29")).toEqual([true, []]);
    expect(explain(checks, "2023-02-29")).toEqual([false, [{ keyword: "format", instanceLocation: "", keywordLocation: "/format", message: "must be a valid date" }]]);
    expect(() => stringChecks({ format: "isoagent:no-such-format" })).toThrow(new Error("isoagent: format no-such-format asserts without its checker"));
  });

  it("still checks nothing for a format that was not renamed, even one a checker exists for", () => {
    expect(explain(stringChecks({ format: "date" }), "not a date")).toEqual([true, []]);
    expect(explain(stringChecks({ format: "email" }), "not an email")).toEqual([true, []]);
  });
});
