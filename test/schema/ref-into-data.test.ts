/**
 * A `$ref` must land on a schema (issue 21: found through the schema area's
 * mutation run). A JSON Pointer into data (a `const` or `enum` value, a
 * `default`, an unknown keyword) reached an object the compiler's rules
 * never checked (formats, the metaschema, the keyword rules): validate(),
 * which never throws, threw a plain Error for a format without its checker,
 * and the two evaluators disagreed. Such a reference is refused when the
 * schema compiles, as one that resolves to nothing is.
 */
import { describe, expect, it } from "vitest";
import type { JsonValue } from "../../src/index.js";
import { compileSchema, SchemaError } from "../../src/schema/index.js";

function refusal(schema: JsonValue): { code: string; message: string; pointer: string | undefined } {
  try {
    compileSchema(schema, { defaultDraft: "2020-12" });
  } catch (e) {
    if (e instanceof SchemaError) return { code: e.code, message: e.message, pointer: e.pointer };
    throw e;
  }
  throw new Error(`accepted ${JSON.stringify(schema)}`);
}

describe("a $ref into data, not a schema", () => {
  it("is refused at compile time, naming the reference and where it is", () => {
    const cases: [JsonValue, string, string][] = [
      [{ $defs: { x: { const: { format: "isoagent:foo" } } }, $ref: "#/$defs/x/const" }, "#/$defs/x/const", ""],
      [{ $defs: { x: { const: { format: "date" } } }, properties: { a: { $ref: "#/$defs/x/const" } } }, "#/$defs/x/const", "/properties/a"],
      [{ enum: [{ minContains: "2" }], $ref: "#/enum/0" }, "#/enum/0", ""],
      [{ default: { pattern: 5 }, $ref: "#/default" }, "#/default", ""],
      [{ "x-extra": { type: "string" }, $ref: "#/x-extra" }, "#/x-extra", ""],
      [{ const: [true], $ref: "#/const/0" }, "#/const/0", ""],
      [{ examples: [{ a: false }], $ref: "#/examples/0/a" }, "#/examples/0/a", ""],
    ];
    for (const [schema, ref, at] of cases) {
      expect(refusal(schema), ref).toEqual({
        code: "SCHEMA_INVALID",
        message: `schema does not compile: $ref ${JSON.stringify(ref)} at ${at === "" ? "the root" : at} does not resolve to a schema in the document`,
        pointer: `${at}/$ref`,
      });
    }
  });

  it("while a $ref to any schema position still compiles: definitions, subschemas, list items, map values, booleans", () => {
    // Each with a value it accepts and one it refuses.
    const ok: [JsonValue, JsonValue, JsonValue][] = [
      [{ $defs: { s: { type: "string" } }, $ref: "#/$defs/s" }, "x", 1],
      [{ $defs: { t: false }, properties: { a: { $ref: "#/$defs/t" } } }, {}, { a: 1 }],
      [{ properties: { a: { type: "integer" }, b: { $ref: "#/properties/a" } } }, { b: 1 }, { b: "1" }],
      [{ anyOf: [{ type: "object" }, false], properties: { a: { $ref: "#/anyOf/0" } } }, { a: {} }, { a: 1 }],
      [{ properties: { a: { $ref: "#/anyOf/1" } }, anyOf: [true, false] }, {}, { a: 1 }],
      [{ not: { type: "null" }, properties: { a: { $ref: "#/not" } } }, { a: null }, { a: 1 }],
      [{ type: "object", additionalProperties: { $ref: "#" } }, { a: {} }, { a: 1 }],
    ];
    for (const [schema, accepts, refuses] of ok) {
      const compiled = compileSchema(schema, { defaultDraft: "2020-12" });
      expect([compiled.validate(accepts).valid, compiled.validate(refuses).valid], JSON.stringify(schema)).toEqual([true, false]);
    }
    const draft7 = compileSchema({ definitions: { n: { type: "number" } }, properties: { a: { $ref: "#/definitions/n" } } }, { defaultDraft: "draft-07" });
    expect(draft7.validate({ a: "x" }).valid).toBe(false);
  });
});
