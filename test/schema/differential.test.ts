import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { rng } from "../helpers/rng.js";
import { isIsoagentError, loadFullSchemaSupport, type JsonValue } from "../../src/index.js";
import { compileSchema, type CompiledSchema, type SchemaDraft } from "../../src/schema/index.js";
import { suiteDir } from "../helpers/suites.js";

// These tests reach what only full schema support has (formats, @cfworker,
// the carried metaschemas); the core alone is tested in full-support.test.ts.
await loadFullSchemaSupport();

/**
 * The fast evaluator must give @cfworker/json-schema's verdict, and the same
 * issues (keyword, keyword location, instance location and message, in
 * order), on everything it takes. One known difference: @cfworker reports a
 * false subschema without its location (src/schema/issues.ts leaves it ""),
 * where the fast evaluator gives it; that one location is not compared.
 */
const shape = (c: CompiledSchema, v: unknown): unknown => {
  const r = c.validate(v as JsonValue);
  return { valid: r.valid, issues: r.issues.map((i) => `${i.keyword} ${i.keyword === "false" ? "" : i.keywordLocation} ${i.instanceLocation} ${i.message}`) };
};

const { dir, present } = suiteDir("JSON-Schema-Test-Suite");
/** The suite's cases the reference evaluator refuses (SCHEMA_PATTERN_UNSUPPORTED): "f.*o", "a*", "aaa*", "[0-9]{2,}", "f.*", "b.*", "^.*bar$"... */
const UNPROVEN = [
  "patternProperties.json: patternProperties validates properties matching a regex",
  "patternProperties.json: multiple simultaneous patternProperties are validated",
  "patternProperties.json: regexes are not anchored by default and are case sensitive",
  "patternProperties.json: patternProperties with boolean schemas",
  "patternProperties.json: patternProperties with null valued instance properties",
];
const DRAFTS: Record<string, SchemaDraft> = { draft7: "draft-07", "draft2020-12": "2020-12" };

describe.skipIf(!present)("fast evaluator = reference evaluator, over the JSON Schema Test Suite", () => {
  for (const [folder, draft] of Object.entries(DRAFTS)) {
    it(`${folder}: same verdicts and issues on every case the fast evaluator takes`, () => {
      let fastCases = 0;
      let totalCases = 0;
      const unproven: string[] = [];
      const mismatches: string[] = [];
      for (const file of readdirSync(join(dir, "tests", folder)).filter((f) => f.endsWith(".json"))) {
        for (const c of JSON.parse(readFileSync(join(dir, "tests", folder, file), "utf8")) as { description: string; schema: unknown; tests: { data: unknown; valid: boolean }[] }[]) {
          let auto: CompiledSchema;
          try {
            auto = compileSchema(c.schema, { defaultDraft: draft });
          } catch {
            continue;
          }
          totalCases++;
          if (auto.evaluator !== "fast") continue;
          fastCases++;
          let reference: CompiledSchema;
          try {
            reference = compileSchema(c.schema, { defaultDraft: draft, evaluator: "reference" });
          } catch (e) {
            // @cfworker runs patternProperties on RegExp itself: the reference
            // evaluator takes only patterns proved linear there (docs/patterns.md).
            if (!isIsoagentError(e, "SCHEMA_PATTERN_UNSUPPORTED")) throw e;
            unproven.push(`${file}: ${c.description}`);
            continue;
          }
          for (const t of c.tests) {
            const a = JSON.stringify(shape(auto, t.data));
            const b = JSON.stringify(shape(reference, t.data));
            if (a !== b) mismatches.push(`${file}: ${c.description}: fast ${a} reference ${b}`);
            if (auto.validate(t.data as JsonValue).valid !== t.valid) mismatches.push(`${file}: ${c.description}: wrong verdict`);
          }
        }
      }
      expect(mismatches).toEqual([]);
      // Only the patternProperties cases whose patterns loop from the start
      // ("f.*o", "a*", ...) are left out, and their answers are the suite's.
      expect(unproven).toEqual(UNPROVEN);
      // Most of the suite's schemas stay on the fast path.
      console.log(`${folder}: ${fastCases} of ${totalCases} compiled cases on the fast evaluator`);
      expect(fastCases / totalCases).toBeGreaterThan(0.75);
    });
  }
});

describe.skipIf(!present)("fast evaluator = reference evaluator, with formats asserted (optional/format)", () => {
  for (const [folder, draft] of Object.entries(DRAFTS)) {
    it(`${folder}: same verdicts and issues, from the same format checkers`, () => {
      const mismatches: string[] = [];
      let compared = 0;
      const formatDir = join(dir, "tests", folder, "optional", "format");
      for (const file of readdirSync(formatDir).filter((f) => f.endsWith(".json"))) {
        for (const c of JSON.parse(readFileSync(join(formatDir, file), "utf8")) as { description: string; schema: unknown; tests: { data: unknown }[] }[]) {
          let auto: CompiledSchema;
          try {
            auto = compileSchema(c.schema, { defaultDraft: draft, assertFormats: true });
          } catch {
            continue; // idn-email and idn-hostname: refused, never approximated
          }
          expect(auto.evaluator).toBe("fast");
          const reference = compileSchema(c.schema, { defaultDraft: draft, assertFormats: true, evaluator: "reference" });
          for (const t of c.tests) {
            compared++;
            const a = JSON.stringify(shape(auto, t.data));
            const b = JSON.stringify(shape(reference, t.data));
            if (a !== b) mismatches.push(`${file}: ${c.description}: fast ${a} reference ${b}`);
          }
        }
      }
      expect(mismatches).toEqual([]);
      expect(compared).toBeGreaterThan(500);
    });
  }
});

const SCHEMAS: unknown[] = [
  {
    type: "object",
    additionalProperties: false,
    required: ["path", "mode"],
    properties: {
      path: { type: "string", minLength: 1, maxLength: 12, pattern: "^[a-z]" },
      mode: { enum: ["a", "b", 1, null] },
      n: { type: ["integer", "null"], minimum: -3, exclusiveMaximum: 7, multipleOf: 2 },
      tags: { type: "array", items: { type: "string" }, maxItems: 3, uniqueItems: true, contains: { const: "x" } },
      meta: { type: "object", minProperties: 1, maxProperties: 2, propertyNames: { maxLength: 2 }, additionalProperties: { type: "boolean" } },
    },
  },
  {
    $defs: { node: { type: "object", properties: { v: { type: "number" }, next: { anyOf: [{ $ref: "#/$defs/node" }, { type: "null" }] } }, required: ["v"] } },
    oneOf: [{ $ref: "#/$defs/node" }, { type: "array", prefixItems: [{ type: "string" }, { type: "number" }], items: false }],
  },
  {
    type: "object",
    patternProperties: { "^x-": { type: "string" }, "^n": { type: "integer" } },
    additionalProperties: false,
    dependentRequired: { a: ["b"] },
    dependentSchemas: { c: { required: ["d"] } },
    if: { required: ["k"] },
    then: { properties: { k: { const: 1 } } },
    else: { not: { required: ["z"] } },
  },
  {
    $schema: "http://json-schema.org/draft-04/schema#",
    type: "object",
    properties: { m: { minimum: 2, exclusiveMinimum: true, maximum: 5, exclusiveMaximum: false }, r: { $ref: "#/definitions/r", type: "string" } },
    definitions: { r: { type: "integer" } },
  },
  {
    type: ["object", "array", "string", "number"],
    minLength: 2,
    maxLength: 3,
    multipleOf: 0.01,
    minimum: -4,
    maximum: 1e21,
    minItems: 1,
    maxItems: 3,
    prefixItems: [{ type: "string" }],
    items: { enum: [1, [1], { a: 1 }, "x", null] },
    contains: { type: "number" },
    minContains: 1,
    maxContains: 2,
    required: ["a", "b"],
    propertyNames: { pattern: "^[a-z]+$" },
    dependentRequired: { a: ["b", "c"], k: ["z"] },
    dependentSchemas: { m: { required: ["n"] }, n: { properties: { m: { const: { k: [1] } } } } },
    properties: { undefined: { type: "string" }, v: { multipleOf: 1e-8 }, a: { multipleOf: 2.5, exclusiveMinimum: -1 } },
  },
  {
    anyOf: [{ type: "string", pattern: "^😀", maxLength: 2 }, { type: "array", items: false, minItems: 0 }, { type: "array", prefixItems: [true, false] }, { const: [1, { a: 1 }] }],
    uniqueItems: true,
    oneOf: [{ minLength: 1 }, { maxItems: 2 }, { required: ["zz"] }, true],
  },
];

/**
 * A schema wrapped so that it is evaluated inside not, anyOf, allOf or if
 * (where the fast evaluator only answers, without explaining), its $defs,
 * definitions and $schema lifted to the new root so that its references
 * still resolve.
 */
function wrapped(schema: unknown): unknown[] {
  const { $defs, definitions, $schema, ...inner } = schema as Record<string, unknown>;
  const root = { ...($defs === undefined ? {} : { $defs }), ...(definitions === undefined ? {} : { definitions }), ...($schema === undefined ? {} : { $schema }) };
  const draft04 = typeof $schema === "string" && $schema.includes("draft-04");
  return [
    { ...root, not: inner },
    { ...root, anyOf: [inner, { enum: ["never this"] }] },
    { ...root, allOf: [{}, inner] },
    { ...root, not: { allOf: [{}, inner] } },
    // if/then/else came with draft-07.
    ...(draft04 ? [] : [{ ...root, if: inner, then: { enum: ["matched"] }, else: { not: { enum: [7] } } }]),
  ];
}

function randomValue(r: () => number, depth: number): unknown {
  const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)]!;
  switch (Math.floor(r() * (depth > 3 ? 5 : 8))) {
    case 0:
      return null;
    case 1:
      return r() < 0.5;
    case 2:
      return pick([0, 1, 2, 3, 4, 5, 6, 7, -3, -4, 2.5, 1e21, 0.1, 0.01, 0.3, 4.5, 7.5, -0.5, 1e-7, 1.1e-8, 3e-8, 6.000001, 1e308, 123.45]);
    case 3:
    case 4:
      return pick(["", "a", "x", "Ab", "abcdefghijklmnop", "é😀", "x-1", "n", "😀", "😀😀", "😀x", "\u{10000}", "\u{10FFFF}ab", "\u{103FF}\u{10000}", "ab😀", "abc"]);
    case 5:
      return Array.from({ length: Math.floor(r() * 5) }, () => randomValue(r, depth + 1));
    default: {
      const o: Record<string, unknown> = {};
      for (let n = Math.floor(r() * 5); n > 0; n--)
        o[pick(["path", "mode", "n", "tags", "meta", "v", "next", "x-a", "n1", "a", "b", "c", "d", "k", "z", "m", "r", "zz", "abc", "undefined", "A1"])] = randomValue(r, depth + 1);
      return o;
    }
  }
}

describe("fast evaluator = reference evaluator, on fuzzed instances", () => {
  it("agrees on 30,000 random instances over tool-like schemas", () => {
    const r = rng(7);
    for (const schema of SCHEMAS) {
      const auto = compileSchema(schema);
      const reference = compileSchema(schema, { evaluator: "reference" });
      expect(auto.evaluator).toBe("fast");
      for (let n = 0; n < 5000; n++) {
        const v = randomValue(r, 0);
        expect(shape(auto, v), JSON.stringify(v)).toEqual(shape(reference, v));
      }
    }
  }, 120_000);

  it("agrees on the same schemas inside not, anyOf, allOf and if, where the fast evaluator answers without explaining (29,000 instances)", () => {
    const r = rng(8);
    for (const schema of SCHEMAS) {
      for (const w of wrapped(schema)) {
        const auto = compileSchema(w);
        const reference = compileSchema(w, { evaluator: "reference" });
        expect(auto.evaluator, JSON.stringify(w)).toBe("fast");
        for (let n = 0; n < 1000; n++) {
          const v = randomValue(r, 0);
          expect(shape(auto, v), `${JSON.stringify(w)} ${JSON.stringify(v)}`).toEqual(shape(reference, v));
        }
      }
    }
  }, 120_000);
});
