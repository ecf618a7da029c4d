/**
 * What the fast evaluator (src/schema/fast.ts) decides on its own, beyond
 * agreeing with the reference evaluator (differential.test.ts): which
 * schemas it takes, how draft-04 to draft-07 read a $ref beside other
 * keywords, the locations only it reports, and arrays past its cache of item
 * segments. Mutation testing (npm run mutate -- schema) found these
 * untested.
 */
import { describe, expect, it } from "vitest";
import { loadFullSchemaSupport, type JsonValue } from "../../src/index.js";
import { compileSchema } from "../../src/schema/index.js";

// The schemas left to the reference evaluator need it loaded (without it,
// compiling them is refused: test/schema/full-support.test.ts).
await loadFullSchemaSupport();

const D4 = "http://json-schema.org/draft-04/schema#";
const D6 = "http://json-schema.org/draft-06/schema#";
const D7 = "http://json-schema.org/draft-07/schema#";

describe("which schemas the fast evaluator takes", () => {
  it("takes the keywords tool schemas use, and ignores schemas nobody refers to", () => {
    const fast: unknown[] = [
      { type: "object", properties: { a: { type: "string" } }, required: ["a"], additionalProperties: false },
      // An unsupported keyword in $defs that nothing refers to is never evaluated.
      { $defs: { unused: { unevaluatedProperties: false } }, type: "object" },
      { $defs: { n: { type: "integer" } }, properties: { a: { $ref: "#/$defs/n" } } },
      { $schema: D4, properties: { m: { minimum: 1, exclusiveMinimum: true } } },
      { $schema: D7, items: { type: "string" } },
    ];
    for (const s of fast) expect(compileSchema(s).evaluator, JSON.stringify(s)).toBe("fast");
  });

  it("leaves to the reference evaluator a schema with an unsupported keyword anywhere it is reached: beside the root, in properties, patternProperties, dependentSchemas, an applicator, items, or behind a $ref", () => {
    const u = { unevaluatedProperties: false };
    const reference: unknown[] = [
      { type: "object", ...u },
      { properties: { a: u } },
      { patternProperties: { "^a": u } },
      { dependentSchemas: { a: u } },
      { allOf: [true, u] },
      { not: u },
      { items: u },
      { $defs: { x: u }, properties: { a: { $ref: "#/$defs/x" } } },
      { $schema: D7, items: [{ type: "string" }] }, // the tuple form of items
      { $schema: "https://json-schema.org/draft/2019-09/schema", $recursiveAnchor: true, type: "object" },
    ];
    for (const s of reference) {
      let evaluator: string;
      try {
        evaluator = compileSchema(s).evaluator;
      } catch (e) {
        evaluator = `refused: ${(e as Error).message}`;
      }
      expect(evaluator, JSON.stringify(s)).toBe("reference");
    }
  });
});

describe("$ref beside other keywords", () => {
  const schema = (draft: string | undefined) => ({
    ...(draft === undefined ? {} : { $schema: draft }),
    properties: { a: { $ref: "#/definitions/int", type: "string" } },
    definitions: { int: { type: "integer" } },
  });
  it("draft-04, 06 and 07 ignore the keywords beside a $ref; 2020-12 applies them too", () => {
    for (const draft of [D4, D6, D7]) {
      const s = compileSchema(schema(draft));
      expect(s.evaluator).toBe("fast");
      expect(s.validate({ a: 1 }).valid, draft).toBe(true);
      expect(s.validate({ a: "x" }).valid, draft).toBe(false);
    }
    const now = compileSchema(schema(undefined));
    expect(now.validate({ a: 1 }).valid).toBe(false); // an integer is not a string
    expect(now.validate({ a: "x" }).valid).toBe(false); // nor is a string an integer
  });
});

describe("what only the fast evaluator reports", () => {
  it("a false subschema's own location (the reference evaluator has none to give)", () => {
    const issues = (schema: unknown, v: JsonValue) =>
      compileSchema(schema)
        .validate(v)
        .issues.map((i) => [i.keyword, i.keywordLocation, i.instanceLocation]);
    expect(issues({ allOf: [true, false] }, 1)).toEqual([["false", "/allOf/1", ""]]);
    expect(issues({ properties: { a: false } }, { a: 1 })).toEqual([["false", "/properties/a", "/a"]]);
    expect(issues({ if: true, then: false }, 1)).toEqual([["false", "/then", ""]]);
    expect(issues({ $defs: { no: false }, $ref: "#/$defs/no" }, 1)).toEqual([["false", "/$ref", ""]]);
  });

  it("items far down an array: their locations past the first 1,024 (which are made once and kept)", () => {
    const s = compileSchema({ type: "array", items: { type: "integer" } });
    const a: unknown[] = Array.from({ length: 1500 }, (_, k) => (k === 7 || k === 1023 || k === 1024 || k === 1499 ? "x" : k));
    expect(s.validate(a as JsonValue).issues.map((i) => [i.instanceLocation, i.keywordLocation])).toEqual([
      ["/7", "/items/type"],
      ["/1023", "/items/type"],
      ["/1024", "/items/type"],
      ["/1499", "/items/type"],
    ]);
  });

  it("a property named undefined is a property like any other", () => {
    const s = compileSchema({ properties: { a: { type: "string" } }, additionalProperties: { type: "integer" } });
    expect(s.validate({ undefined: 1, a: "x" }).valid).toBe(true);
    expect(s.validate({ undefined: "no" }).issues.map((i) => i.instanceLocation)).toEqual(["/undefined"]);
  });
});
