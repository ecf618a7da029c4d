/**
 * The fast evaluator's object keywords (src/schema/fast-objects.ts) where
 * the schema mutation run left survivors: propertyNames and
 * dependentSchemas when they only answer (under not), every failing
 * dependentSchemas entry when they explain, additionalProperties as a
 * schema beside properties, and an object check that only answers, which
 * stops at the first failure (as fast.ts says).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { JsonValue } from "../../src/index.js";
import { compileSchema } from "../../src/schema/index.js";
import { all } from "../../src/schema/fast-core.js";
import { objectChecks } from "../../src/schema/fast-objects.js";
import { messages } from "../../src/schema/issues.js";
import { spies } from "./spies.js";
import type { SchemaObject } from "../../src/schema/walk.js";

const issues = (schema: unknown, v: JsonValue): string[][] => {
  const s = compileSchema(schema);
  expect(s.evaluator).toBe("fast");
  return s.validate(v).issues.map((i) => [i.keyword, i.keywordLocation, i.instanceLocation, i.message]);
};

afterEach(() => {
  vi.restoreAllMocks();
});

describe("object keywords when they only answer, and when they explain", () => {
  const NOT = 'must not match the schema in "not"';
  // mutation: fast-objects.ts:46:41 `return false` -> `return true` (propertyNames, answering)
  // mutation: fast-objects.ts:75:41 `return false` -> `return true` (dependentSchemas, answering)
  const answering: [schema: unknown, v: JsonValue, expected: string[][]][] = [
    [{ not: { propertyNames: { maxLength: 1 } } }, { ab: 1 }, []],
    [{ not: { propertyNames: { maxLength: 1 } } }, { a: 1 }, [["not", "/not", "", NOT]]],
    [{ not: { dependentSchemas: { a: false } } }, { a: 1 }, []],
    [{ not: { dependentSchemas: { a: false } } }, { b: 1 }, [["not", "/not", "", NOT]]],
    [{ anyOf: [{ dependentSchemas: { a: { required: ["x"] } } }, false] }, { a: 1 }, [["anyOf", "/anyOf", "", 'must match at least one of the schemas in "anyOf"']]],
  ];
  it.each(answering)("%j with %j", (schema, v, expected) => {
    expect(issues(schema, v)).toEqual(expected);
  });

  // mutation: fast-objects.ts:75:15 `out === undefined` -> `true`, -> `out !== undefined` (explaining stopped at the first entry)
  it("dependentSchemas explains every entry that fails, in order", () => {
    const s = { dependentSchemas: { a: { required: ["x"] }, b: { required: ["y"] }, c: { required: ["z"] } } };
    expect(issues(s, { a: 1, b: 1, c: 1, z: 0 })).toEqual([
      ["required", "/dependentSchemas/a/required", "", 'missing required property "x"'],
      ["required", "/dependentSchemas/b/required", "", 'missing required property "y"'],
    ]);
  });
});

describe("additionalProperties as a schema or true, beside properties and no patternProperties", () => {
  // mutation: fast-objects.ts:126:19 `extra === false` -> `extra === true` (additionalProperties true would refuse every property not in properties)
  const cases: [schema: unknown, v: JsonValue, expected: string[][]][] = [
    [{ properties: { a: {} }, additionalProperties: { type: "integer" } }, { a: "x", b: 1 }, []],
    [{ properties: { a: {} }, additionalProperties: { type: "integer" } }, { a: "x", b: "y" }, [["type", "/additionalProperties/type", "/b", "expected integer, got string"]]],
    [{ properties: { a: { type: "string" } }, additionalProperties: true }, { a: "x", b: [] }, []],
    [{ additionalProperties: { type: "integer" } }, { b: 1, c: 2 }, []],
  ];
  it.each(cases)("%j with %j", (schema, v, expected) => {
    expect(issues(schema, v)).toEqual(expected);
  });
});

describe("an object check that only answers stops at the first failure", () => {
  // mutation: fast-objects.ts:23 `if (out === undefined) return false;` (required) -> `if (false) ...`
  it("required: no property is looked up after the first one missing", () => {
    const looked: string[] = [];
    const v = new Proxy(
      { b: 1 },
      {
        getOwnPropertyDescriptor(target, key) {
          looked.push(String(key));
          return Reflect.getOwnPropertyDescriptor(target, key);
        },
      },
    );
    const check = all(objectChecks({ required: ["b", "a", "c"] }, spies({}).compile))!;
    expect(check(v, undefined)).toBe(false);
    expect(looked).toEqual(["b", "a"]);
  });

  // mutation: fast-objects.ts:46:15 (propertyNames), 95 (properties), 114 (patternProperties),
  // 156 (additionalProperties as a schema), 75:15 -> `false` (dependentSchemas): `if (out === undefined) return false;` -> `if (false) ...`
  const subschemas: [what: string, schema: SchemaObject, v: Record<string, number>, calls: string[]][] = [
    ["propertyNames", { propertyNames: { name: "names" } }, { a: 1, b: 2 }, ['names("a")']],
    ["properties", { properties: { a: { name: "pa" }, b: { name: "pb" } } }, { a: 1, b: 2 }, ["pa(1)"]],
    ["patternProperties, one pattern", { patternProperties: { "^x": { name: "x" } } }, { x1: 1, x2: 2 }, ["x(1)"]],
    ["patternProperties, two patterns", { patternProperties: { "^x": { name: "x" }, "^y": { name: "y" } } }, { x1: 1, y1: 2 }, ["x(1)"]],
    ["additionalProperties", { additionalProperties: { name: "extra" } }, { a: 1, b: 2 }, ["extra(1)"]],
    ["dependentSchemas", { dependentSchemas: { a: { name: "da" }, b: { name: "db" } } }, { a: 1, b: 2 }, ['da({"a":1,"b":2})']],
  ];
  it.each(subschemas)("%s: no subschema is asked after the first that fails", (_what, schema, v, calls) => {
    const spy = spies({});
    const check = all(objectChecks(schema, spy.compile))!;
    expect(check(v, undefined)).toBe(false);
    expect(spy.calls).toEqual(calls);
  });

  // mutation: fast-objects.ts:61 (dependentRequired), 131 (additionalProperties false), 142 (the same beside
  // patternProperties): `if (out === undefined) return false;` -> `if (false) ...`
  const failures: [what: string, schema: SchemaObject, v: Record<string, number>, message: "dependentRequired" | "unexpectedProperty"][] = [
    ["dependentRequired", { dependentRequired: { a: ["x", "y"] } }, { a: 1 }, "dependentRequired"],
    ["additionalProperties false", { additionalProperties: false }, { a: 1, b: 2 }, "unexpectedProperty"],
    ["additionalProperties false beside patternProperties", { patternProperties: { "^x": { name: "x" } }, additionalProperties: false }, { a: 1, b: 2 }, "unexpectedProperty"],
  ];
  it.each(failures)("%s: answers false with no message made", (_what, schema, v, message) => {
    const built = vi.spyOn(messages, message);
    const check = all(objectChecks(schema, spies({ x: true }).compile))!;
    expect(check(v, undefined)).toBe(false);
    expect(built).not.toHaveBeenCalled();
  });
});
