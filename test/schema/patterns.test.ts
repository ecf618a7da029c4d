/**
 * Schema patterns (docs/patterns.md): matched in linear time by both
 * evaluators, with a u-flag RegExp's answers; refused with
 * SCHEMA_PATTERN_UNSUPPORTED when no linear-time matcher can run them.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isIsoagentError, loadFullSchemaSupport, type JsonValue } from "../../src/index.js";
import { compileTool } from "../../src/tools/index.js";
import { compileSchema, SchemaError, type SchemaDraft } from "../../src/schema/index.js";
import { compilePattern } from "../../src/pattern/index.js";
import { METASCHEMAS } from "../../src/schema/metaschemas.js";
import { forEachSchemaObject, isObject } from "../../src/schema/walk.js";
import { suiteDir } from "../helpers/suites.js";

await loadFullSchemaSupport();

const refusal = (make: () => unknown): { code: string; message: string; pointer?: string | undefined } => {
  try {
    make();
  } catch (e) {
    if (e instanceof SchemaError) return { code: e.code, message: e.message, pointer: e.pointer };
    if (isIsoagentError(e)) return { code: e.code, message: e.message };
    throw e;
  }
  throw new Error("nothing was refused");
};

describe("SCHEMA_PATTERN_UNSUPPORTED", () => {
  it("refuses a pattern that needs a backreference or lookaround, in pattern and in patternProperties, naming where and why", () => {
    expect(refusal(() => compileSchema({ properties: { x: { type: "string", pattern: "^(a)\\1$" } } }))).toEqual({
      code: "SCHEMA_PATTERN_UNSUPPORTED",
      message: 'schema has a pattern that cannot be matched in linear time: "^(a)\\\\1$" at /properties/x/pattern uses a backreference (\\1), which a linear-time matcher cannot run',
      pointer: "/properties/x/pattern",
    });
    expect(refusal(() => compileSchema({ patternProperties: { "^(?!_)": true } }))).toEqual({
      code: "SCHEMA_PATTERN_UNSUPPORTED",
      message: 'schema has a pattern that cannot be matched in linear time: "^(?!_)" at /patternProperties uses a lookaround assertion ((?=, (?!, (?<=, (?<!), which a linear-time matcher cannot run',
      pointer: "/patternProperties",
    });
    // Under propertyNames too (a pattern of its own).
    expect(refusal(() => compileSchema({ propertyNames: { pattern: "(?<=a)b" } })).code).toBe("SCHEMA_PATTERN_UNSUPPORTED");
  });

  it("refuses what an MCP server could send to blow up memory or time: a megabyte pattern, (a{1000}){1000}", () => {
    expect(refusal(() => compileSchema({ pattern: "a".repeat(1_000_000) }))).toEqual({
      code: "SCHEMA_PATTERN_UNSUPPORTED",
      message: 'schema has a pattern that cannot be matched in linear time: "' + "a".repeat(1_000_000) + '" at /pattern is longer than 10000 characters',
      pointer: "/pattern",
    });
    expect(refusal(() => compileSchema({ pattern: "(a{1000}){1000}" })).message).toBe(
      'schema has a pattern that cannot be matched in linear time: "(a{1000}){1000}" at /pattern expands to more than 1000 steps (each repetition counts its copies: a{1000} is 1,000)',
    );
  });

  it("an invalid pattern is still SCHEMA_INVALID", () => {
    expect(refusal(() => compileSchema({ pattern: "(" }))).toEqual({
      code: "SCHEMA_INVALID",
      message: 'schema does not compile: "(" at /pattern is not a valid regular expression',
      pointer: "/pattern",
    });
  });

  it("a tool schema is refused with the same code (compileTool)", () => {
    const e = refusal(() =>
      compileTool({ name: "t", description: "T.", sideEffect: "read_only", timeoutMs: 1000, inputSchema: { type: "object", properties: { x: { type: "string", pattern: "(a)\\1" } } } }),
    );
    expect(e).toEqual({
      code: "SCHEMA_PATTERN_UNSUPPORTED",
      message: 'tool "t": input schema has a pattern that cannot be matched in linear time: "(a)\\\\1" at /properties/x/pattern uses a backreference (\\1), which a linear-time matcher cannot run',
    });
  });

  it("on the reference evaluator, refuses patternProperties not proved linear on RegExp (which @cfworker runs them on), and takes those that are", () => {
    expect(refusal(() => compileSchema({ patternProperties: { "f.*o": true }, unevaluatedProperties: false }))).toEqual({
      code: "SCHEMA_PATTERN_UNSUPPORTED",
      message:
        'schema has a pattern that cannot be matched in linear time: "f.*o" at /patternProperties is not proved to run in linear time on the platform\'s RegExp, which is what the reference evaluator runs patternProperties with; this schema needs that evaluator (unevaluatedProperties needs the reference evaluator (@cfworker/json-schema), at /unevaluatedProperties)',
      pointer: "/patternProperties",
    });
    // The fast evaluator runs the same pattern on the matcher.
    expect(
      compileSchema({ patternProperties: { "f.*o": { type: "integer" } }, additionalProperties: false })
        .validate({ fxxo: 1, bar: 2 })
        .issues.map((i) => i.message),
    ).toEqual(['unexpected property "bar"']);
    const s = compileSchema({ patternProperties: { "^x-": { type: "integer" } }, unevaluatedProperties: false });
    expect(s.evaluator).toBe("reference");
    expect(s.validate({ "x-a": 1 }).valid).toBe(true);
    expect(s.validate({ "x-a": "1", y: 2 }).issues.map((i) => `${i.instanceLocation} ${i.message}`)).toEqual([
      "/x-a expected integer, got string",
      ' unexpected property "x-a"',
      ' unexpected property "y"',
    ]);
  });
});

describe("the reference evaluator's patterns (taken out of @cfworker's hands through its format table)", () => {
  it("reports a failed pattern and a failed format of one node as the fast evaluator does: pattern first", () => {
    const schema = { type: "object", properties: { to: { type: "string", pattern: "^(a+)+@", format: "email" } } };
    const fast = compileSchema(schema, { assertFormats: true });
    const reference = compileSchema(schema, { assertFormats: true, evaluator: "reference" });
    for (const value of ["nobody", "aaa@", `${"a".repeat(40)}!`, "aa@example.com", "b@example.com"]) {
      expect(reference.validate({ to: value }), value).toEqual(fast.validate({ to: value }));
    }
    expect(reference.validate({ to: "nobody" }).issues.map((i) => [i.keyword, i.keywordLocation])).toEqual([
      ["pattern", "/properties/to/pattern"],
      ["format", "/properties/to/format"],
    ]);
  });

  it("keeps each schema's patterns apart (the format table's slots are per validation)", () => {
    const a = compileSchema({ pattern: "^a+$" }, { evaluator: "reference" });
    const b = compileSchema({ pattern: "^b+$" }, { evaluator: "reference" });
    expect([a.validate("aaa").valid, a.validate("bbb").valid, b.validate("bbb").valid, b.validate("aaa").valid]).toEqual([true, false, true, false]);
  });
});

describe('format: "regex" checks the syntax only', () => {
  it("takes ECMA-262 syntax (backreferences and lookaround included) and never runs the value", () => {
    const s = compileSchema({ format: "regex" }, { assertFormats: true });
    expect(["(a)\\1", "(?<=a)b", "^(a+)+$", "(a{1000}){1000}"].map((v) => s.validate(v).valid)).toEqual([true, true, true, true]);
    expect(["(", "a{2,1}", "\\p{Nope}"].map((v) => s.validate(v).valid)).toEqual([false, false, false]);
  });
});

describe("the carried metaschemas' own patterns", () => {
  it("all run on RegExp, proved linear there (@cfworker runs them when a schema refers to a metaschema)", () => {
    const found: string[] = [];
    for (const m of METASCHEMAS) {
      forEachSchemaObject(m, (node) => {
        if (typeof node["pattern"] === "string") found.push(node["pattern"]);
        if (isObject(node["patternProperties"])) found.push(...Object.keys(node["patternProperties"]));
      });
    }
    expect(found.length).toBeGreaterThan(0);
    for (const p of found) {
      const r = compilePattern(p);
      expect(r.ok && r.pattern.native, p).toBe(true);
    }
  });
});

const { dir, present } = suiteDir("JSON-Schema-Test-Suite");

describe.skipIf(!present)("the suite's optional regex tests (ecmascript-regex.json, non-bmp-regex.json)", () => {
  for (const [folder, draft] of [
    ["draft7", "draft-07"],
    ["draft2020-12", "2020-12"],
  ] as [string, SchemaDraft][]) {
    for (const evaluator of ["auto", "reference"] as const) {
      it(`${folder}, ${evaluator}: every test passes or its schema is refused with SCHEMA_PATTERN_UNSUPPORTED, never answered otherwise`, () => {
        let passed = 0;
        const wrong: string[] = [];
        const refused: string[] = [];
        for (const file of ["ecmascript-regex.json", "non-bmp-regex.json"]) {
          for (const c of JSON.parse(readFileSync(join(dir, "tests", folder, "optional", file), "utf8")) as {
            description: string;
            schema: unknown;
            tests: { description: string; data: unknown; valid: boolean }[];
          }[]) {
            let compiled;
            try {
              compiled = compileSchema(c.schema, { defaultDraft: draft, evaluator });
            } catch (e) {
              if (!isIsoagentError(e, "SCHEMA_PATTERN_UNSUPPORTED")) throw e;
              refused.push(c.description);
              continue;
            }
            for (const t of c.tests) {
              if (compiled.validate(t.data as JsonValue).valid === t.valid) passed++;
              else wrong.push(`${file}: ${c.description} | ${t.description}`);
            }
          }
        }
        expect(wrong).toEqual([]);
        // Nothing in them needs what the matcher refuses.
        expect(refused).toEqual([]);
        expect(passed).toBeGreaterThan(70);
      });
    }
  }
});

describe("the work bound of one validation (MAX_PATTERN_WORK)", () => {
  const HEAVY = "(?:[ab]*a[ab]{100})c";
  const randomAb = (n: number): string => {
    const out: string[] = [];
    let x = 3;
    for (let k = 0; k < n; k++) {
      x = (x * 1103515245 + 12345) & 0x7fffffff;
      out.push((x >> 16) & 1 ? "a" : "b");
    }
    return out.join("");
  };
  const tooCostly = [
    { keyword: "pattern", instanceLocation: "", keywordLocation: "", message: "could not be checked: its strings are too long to match against the schema's patterns in bounded time" },
  ];

  it("refuses, as a whole, an instance whose strings would take a pattern whose DFA outgrows its cache too long to match", () => {
    const long = randomAb(1_000_000);
    for (const evaluator of ["auto", "reference"] as const) {
      const s = compileSchema({ type: "object", properties: { x: { type: "string", pattern: HEAVY } } }, { evaluator });
      expect(s.validate({ x: long }), evaluator).toEqual({ valid: false, issues: tooCostly });
      // Inside not, a cut-short answer must not turn into a pass: the whole validation fails.
      const negated = compileSchema({ not: { type: "object", properties: { x: { type: "string", pattern: HEAVY } } } }, { evaluator });
      expect(negated.validate({ x: long }), evaluator).toEqual({ valid: false, issues: tooCostly });
      // Shorter strings are answered as RegExp answers.
      const short = randomAb(2000);
      expect(s.validate({ x: short }).valid, evaluator).toBe(new RegExp(HEAVY, "u").test(short));
      expect(s.validate({ x: `${short}a${"b".repeat(100)}c` }).valid, evaluator).toBe(true);
    }
  });

  it("costs nothing for what the DFA knows: a 10 MB string against a common pattern is answered", () => {
    const s = compileSchema({ type: "string", pattern: "^[^\\u0000]*x$" });
    expect(s.validate(`${"ab".repeat(5_000_000)}x`).valid).toBe(true);
    expect(s.validate(`${"ab".repeat(5_000_000)}\u0000x`).valid).toBe(false);
  });
});
