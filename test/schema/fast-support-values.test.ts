/**
 * Data inside a schema is not a schema (issue 21: found through the schema
 * area's mutation run). fastUnsupported walked into the values of `const`
 * and `enum` and the map under `dependentRequired` as if they were schema
 * objects: a value or a property name that looked like a keyword the fast
 * evaluator lacks made a valid schema "unsupported", refused without full
 * schema support (SCHEMA_NEEDS_FULL_SUPPORT, at a wrong pointer such as
 * "/items"). It walks only the keywords that hold schemas now.
 */
import { describe, expect, it } from "vitest";
import type { JsonValue } from "../../src/index.js";
import { compileSchema } from "../../src/schema/index.js";
import { fastUnsupported } from "../../src/schema/fast-support.js";

/** Schemas whose data (not their schemas) holds what would need the reference evaluator, with a value each accepts and one it refuses. */
const CASES: { schema: JsonValue; accepts: JsonValue; refuses: JsonValue }[] = [
  { schema: { const: { items: [1] } }, accepts: { items: [1] }, refuses: { items: [2] } },
  { schema: { enum: [{ unevaluatedProperties: false }, 3] }, accepts: { unevaluatedProperties: false }, refuses: { unevaluatedProperties: true } },
  { schema: { enum: [{ $recursiveAnchor: true }] }, accepts: { $recursiveAnchor: true }, refuses: {} },
  { schema: { type: "object", dependentRequired: { items: ["a"] } }, accepts: { items: 1, a: 2 }, refuses: { items: 1 } },
  { schema: { type: "object", dependentRequired: { dependencies: ["b"] } }, accepts: { dependencies: 1, b: 2 }, refuses: { dependencies: 1 } },
  { schema: { type: "object", required: ["additionalItems"] }, accepts: { additionalItems: 1 }, refuses: {} },
  { schema: { properties: { x: { const: { $dynamicRef: "#a" } } } }, accepts: { x: { $dynamicRef: "#a" } }, refuses: { x: {} } },
  { schema: { default: { unevaluatedItems: false }, examples: [{ items: [1] }], type: "integer" }, accepts: 1, refuses: "1" },
];

describe("data inside a schema is not walked as a schema", () => {
  it("fastUnsupported takes schemas whose const, enum, required or dependentRequired hold keyword-like data", () => {
    for (const { schema } of CASES) expect(fastUnsupported(schema, {}, "2020-12", new Map([[schema as object, ""]])), JSON.stringify(schema)).toBeUndefined();
  });

  it("and still finds what it lacks in every keyword that holds schemas", () => {
    const lacking = { unevaluatedProperties: false };
    const holders: [string, JsonValue][] = [
      ["not", lacking],
      ["if", lacking],
      ["then", lacking],
      ["else", lacking],
      ["propertyNames", lacking],
      ["additionalProperties", lacking],
      ["items", lacking],
      ["contains", lacking],
      ["anyOf", [true, lacking]],
      ["allOf", [lacking]],
      ["oneOf", [lacking]],
      ["prefixItems", [lacking]],
      ["properties", { a: lacking }],
      ["patternProperties", { "^a": lacking }],
      ["dependentSchemas", { a: lacking }],
    ];
    for (const [keyword, value] of holders) {
      const schema = { [keyword]: value };
      expect(fastUnsupported(schema, {}, "2020-12", new Map()), keyword).toMatchObject({ pointer: "/unevaluatedProperties" });
    }
  });

  it("such schemas compile and check values as the reference evaluator does", () => {
    for (const { schema, accepts, refuses } of CASES) {
      const compiled = compileSchema(schema, { defaultDraft: "2020-12" });
      expect(compiled.validate(accepts).valid, JSON.stringify([schema, accepts])).toBe(true);
      expect(compiled.validate(refuses).valid, JSON.stringify([schema, refuses])).toBe(false);
    }
  });
});
