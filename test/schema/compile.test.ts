import { describe, expect, it } from "vitest";
import { isIsoagentError, loadFullSchemaSupport, type JsonValue } from "../../src/index.js";
import { compileSchema, SchemaError } from "../../src/schema/index.js";

// These tests reach what only full schema support has (formats, @cfworker,
// the carried metaschemas); the core alone is tested in full-support.test.ts.
await loadFullSchemaSupport();

function refusal(schema: unknown, options?: Parameters<typeof compileSchema>[1]): { code: string; message: string; rule: string; pointer: string | undefined } {
  try {
    compileSchema(schema, options);
  } catch (e) {
    if (!(e instanceof SchemaError)) throw e;
    return { code: e.code, message: e.message, rule: e.rule, pointer: e.pointer };
  }
  throw new Error("compiled");
}

const valid = (schema: unknown, instance: unknown): boolean => compileSchema(schema).validate(instance as JsonValue).valid;

describe("compileSchema refusals, pinned by exact value", () => {
  it("a missing schema", () => {
    expect(refusal(undefined)).toMatchObject({ code: "SCHEMA_MISSING", message: "schema is missing", rule: "missing" });
    expect(refusal(null)).toMatchObject({ code: "SCHEMA_MISSING", message: "schema is missing" });
  });

  it("text that is not strict JSON", () => {
    expect(refusal('{"type": "object",}')).toMatchObject({ code: "SCHEMA_NOT_JSON", message: "schema is not valid JSON: trailing comma at line 1, column 19", rule: "not valid JSON" });
    expect(refusal('{"type":"string","type":"number"}')).toMatchObject({ code: "SCHEMA_NOT_JSON", message: 'schema is not valid JSON: duplicate key "type" at line 1, column 18' });
    expect(refusal({ minimum: NaN })).toMatchObject({ code: "SCHEMA_NOT_JSON", message: "schema is not JSON: NaN is not a JSON number at /minimum" });
  });

  it("nesting deeper than 256 levels, as text or as a value", () => {
    let deep: unknown = {};
    for (let k = 0; k < 300; k++) deep = { not: deep };
    expect(refusal(deep)).toMatchObject({ code: "SCHEMA_TOO_DEEP", message: "schema is nested deeper than 256 levels", rule: "nested deeper than 256 levels" });
    expect(refusal(JSON.stringify(deep))).toMatchObject({ code: "SCHEMA_TOO_DEEP", message: "schema is nested deeper than 256 levels" });
  });

  it("a $ref, $schema or $dynamicRef naming a file or URL outside the document", () => {
    expect(refusal({ $ref: "https://example.com/schema.json" })).toMatchObject({
      code: "SCHEMA_EXTERNAL_REF",
      rule: "refers outside itself",
      message: 'schema refers outside itself: $ref "https://example.com/schema.json" at the root',
      pointer: "/$ref",
    });
    expect(refusal({ properties: { a: { $ref: "file:///etc/passwd" } } }).message).toBe('schema refers outside itself: $ref "file:///etc/passwd" at /properties/a');
    expect(refusal({ items: { $ref: "other.json#/x" } }).message).toBe('schema refers outside itself: $ref "other.json#/x" at /items');
    expect(refusal({ $schema: "http://localhost:1234/my-meta.json" }).message).toBe(
      'schema refers outside itself: $schema "http://localhost:1234/my-meta.json" is not a standard draft the compiler carries',
    );
    expect(refusal({ $defs: { a: { $dynamicRef: "https://example.com/x#a" } }, $ref: "#/$defs/a" }).message).toBe('schema refers outside itself: $ref "https://example.com/x#a" at /$defs/a');
  });

  it("nothing is fetched: a reference to a standard metaschema resolves from the carried copy", () => {
    const s = { $ref: "http://json-schema.org/draft-07/schema#" };
    expect(valid(s, { type: "string" })).toBe(true);
    expect(valid(s, { type: 12 })).toBe(false);
    expect(valid({ $ref: "https://json-schema.org/draft/2020-12/schema" }, { properties: { a: { minLength: -1 } } })).toBe(false);
    expect(valid({ $ref: "https://json-schema.org/draft/2020-12/schema" }, { properties: { a: { minLength: 1 } } })).toBe(true);
  });

  it("a keyword the validator cannot evaluate correctly", () => {
    expect(refusal({ $schema: "http://json-schema.org/draft-07/schema#", unevaluatedProperties: false })).toMatchObject({
      code: "SCHEMA_UNSUPPORTED_KEYWORD",
      rule: "unsupported keyword",
      message: "schema uses a keyword the validator cannot evaluate correctly: unevaluatedProperties is not part of draft-07, but the validator would apply it (at /unevaluatedProperties)",
    });
    expect(refusal({ additionalItems: false }).message).toBe(
      "schema uses a keyword the validator cannot evaluate correctly: additionalItems is not part of draft 2020-12, but the validator would apply it (at /additionalItems)",
    );
    expect(refusal({ $schema: "http://json-schema.org/draft-07/schema#", properties: { a: { id: "x", type: "string" } } }).message).toBe(
      "schema uses a keyword the validator cannot evaluate correctly: id is not an identifier in draft-07, but the validator would treat it as one (at /properties/a/id)",
    );
    // A $dynamicRef whose target depends on how evaluation reached it.
    const dynamic = {
      $id: "https://example.com/root",
      $defs: {
        list: { $id: "list", type: "array", items: { $dynamicRef: "#item" }, $defs: { item: { $dynamicAnchor: "item" } } },
        strings: { $id: "strings", $dynamicAnchor: "item", type: "string" },
      },
      anyOf: [{ $ref: "list" }, { $ref: "strings-list" }],
      $comment: "strings-list refers to list from a resource that overrides #item",
    } as const;
    const twoPaths = {
      ...dynamic,
      $defs: { ...dynamic.$defs, "strings-list": { $id: "strings-list", $dynamicAnchor: "item", type: "string", $ref: "list" } },
    };
    expect(refusal(twoPaths).message).toBe(
      'schema uses a keyword the validator cannot evaluate correctly: $dynamicRef "#item" resolves to different schemas depending on the path evaluation takes to it (at /$defs/list/items/$dynamicRef)',
    );
  });

  it("a schema that does not compile", () => {
    expect(refusal({ type: "strin" })).toMatchObject({
      code: "SCHEMA_INVALID",
      rule: "does not compile",
      message: 'schema does not compile: the draft 2020-12 metaschema refuses /type: must match at least one of the schemas in "anyOf"',
    });
    expect(refusal({ properties: { a: { minLength: -1 } } }).message).toBe("schema does not compile: the draft 2020-12 metaschema refuses /properties/a/minLength: must be >= 0");
    expect(refusal({ pattern: "(" }).message).toBe('schema does not compile: "(" at /pattern is not a valid regular expression');
    expect(refusal({ patternProperties: { "[": true } }).message).toBe('schema does not compile: "[" at /patternProperties is not a valid regular expression');
    expect(refusal({ $ref: "#/$defs/missing" }).message).toBe('schema does not compile: $ref "#/$defs/missing" at the root does not resolve to a schema in the document');
    expect(refusal({ $ref: "#nowhere" }).message).toBe('schema does not compile: $ref "#nowhere" at the root does not resolve to a schema in the document');
    expect(refusal([1])).toMatchObject({ message: "schema does not compile: a schema must be an object or a boolean, not an array", pointer: "" });
    expect(refusal(7).message).toBe("schema does not compile: a schema must be an object or a boolean, not a number");
    expect(refusal({ $defs: { a: { $anchor: "x" }, b: { $anchor: "x" } } }).message).toBe('schema does not compile: the anchor "x" at /$defs/b is declared twice');
  });

  it("a reference cycle that never reaches into the value", () => {
    const message = "schema does not compile: the schema at the root refers back to itself without reaching into the value, so validation would never finish";
    expect(refusal({ $ref: "#" }).message).toBe(message);
    expect(refusal({ allOf: [{ $ref: "#/$defs/a" }], $defs: { a: { anyOf: [{ $ref: "#" }] } } }).message).toBe(message);
    // Recursion through a property is fine.
    const tree = { type: "object", properties: { children: { type: "array", items: { $ref: "#" } } } };
    expect(valid(tree, { children: [{ children: [] }] })).toBe(true);
    expect(valid(tree, { children: [{ children: 1 }] })).toBe(false);
  });

  it("every refusal is an IsoagentError with its code", () => {
    // Audit finding 7: this test asserted inside a catch that might never run,
    // and checked one refusal. Now one schema per code, each of which must
    // throw: it fails when any of them compiles.
    let deep: unknown = {};
    for (let k = 0; k < 300; k++) deep = { not: deep };
    const cases: [unknown, string, Record<string, unknown>][] = [
      [undefined, "SCHEMA_MISSING", { rule: "missing", pointer: undefined, ref: undefined }],
      ["{,}", "SCHEMA_NOT_JSON", { rule: "not valid JSON" }],
      [deep, "SCHEMA_TOO_DEEP", { rule: "nested deeper than 256 levels" }],
      [{ $ref: "http://x/y" }, "SCHEMA_EXTERNAL_REF", { rule: "refers outside itself", pointer: "/$ref", ref: "http://x/y" }],
      [{ $schema: "http://json-schema.org/draft-07/schema#", unevaluatedProperties: false }, "SCHEMA_UNSUPPORTED_KEYWORD", { rule: "unsupported keyword" }],
      [{ type: "object", minProperties: -1 }, "SCHEMA_INVALID", { rule: "does not compile" }],
    ];
    for (const [schema, code, fields] of cases) {
      let caught: unknown = "compiled";
      try {
        compileSchema(schema);
      } catch (e) {
        caught = e;
      }
      expect(caught, code).toBeInstanceOf(SchemaError);
      expect(isIsoagentError(caught, code as never), code).toBe(true);
      expect(caught, code).toMatchObject({ name: "SchemaError", code, ...fields });
    }
  });
});

describe("compileSchema: references inside the document", () => {
  it("resolves $defs, JSON pointers (escaped), anchors and embedded $ids", () => {
    const s = {
      $id: "https://example.com/tool.json",
      type: "object",
      properties: {
        a: { $ref: "#/$defs/positive" },
        b: { $ref: "#/$defs/odd~1name%25" },
        c: { $ref: "#name" },
        d: { $ref: "item.json" },
        e: { $ref: "https://example.com/item.json#/properties/n" },
      },
      $defs: {
        positive: { type: "integer", minimum: 1 },
        "odd/name%": { type: "boolean" },
        named: { $anchor: "name", type: "string" },
        item: { $id: "item.json", type: "object", properties: { n: { type: "number" } }, required: ["n"] },
      },
    };
    expect(valid(s, { a: 1, b: true, c: "x", d: { n: 1 }, e: 2 })).toBe(true);
    for (const bad of [{ a: 0 }, { b: 1 }, { c: 1 }, { d: {} }, { e: "2" }]) expect(valid(s, bad)).toBe(false);
  });

  it("keeps an embedded resource's anchor out of its parent", () => {
    const s = {
      $id: "https://example.com/base.json",
      $ref: "#big",
      $defs: { big: { $anchor: "big", maximum: 10 }, small: { $id: "https://example.com/other/", $anchor: "big", maximum: 2 } },
    };
    expect(valid(s, 5)).toBe(true);
    expect(valid(s, 50)).toBe(false);
  });

  it("selects the draft from $schema, and the option for a schema without one", () => {
    const d4 = { $schema: "http://json-schema.org/draft-04/schema#", maximum: 5, exclusiveMaximum: true };
    expect(compileSchema(d4).draft).toBe("draft-04");
    expect(valid(d4, 5)).toBe(false);
    expect(valid(d4, 4)).toBe(true);
    expect(compileSchema({}).draft).toBe("2020-12");
    expect(compileSchema({}, { defaultDraft: "draft-07" }).draft).toBe("draft-07");
    // draft-07: $ref ignores its siblings.
    expect(valid({ $schema: "http://json-schema.org/draft-07/schema#", $ref: "#/definitions/s", maxLength: 1, definitions: { s: { type: "string" } } }, "long")).toBe(true);
    // 2020-12: it does not.
    expect(valid({ $ref: "#/$defs/s", maxLength: 1, $defs: { s: { type: "string" } } }, "long")).toBe(false);
  });

  it("rewrites a $dynamicRef whose target is the same on every path", () => {
    // A generic list whose item type the outer resource fills in.
    const stringList = {
      $id: "https://example.com/string-list",
      $ref: "list",
      $defs: {
        stringItem: { $dynamicAnchor: "item", type: "string" },
        list: { $id: "list", type: "array", items: { $dynamicRef: "#item" }, $defs: { anything: { $dynamicAnchor: "item" } } },
      },
    };
    expect(valid(stringList, ["a", "b"])).toBe(true);
    expect(valid(stringList, ["a", 1])).toBe(false);
    // Entered directly, the list's own anchor is the outermost: anything goes.
    const anyList = { $id: "https://example.com/any-list", type: "array", items: { $dynamicRef: "#item" }, $defs: { anything: { $dynamicAnchor: "item" } } };
    expect(valid(anyList, ["a", 1])).toBe(true);
  });
});

describe("compileSchema: format", () => {
  it("is an annotation in 2020-12 unless asked, and asserted in draft-07", () => {
    expect(compileSchema({ format: "email" }).validate("nope").valid).toBe(true);
    expect(compileSchema({ format: "email" }, { assertFormats: true }).validate("nope").valid).toBe(false);
    expect(compileSchema({ format: "email" }, { assertFormats: true }).validate("a@example.com").valid).toBe(true);
    expect(compileSchema({ $schema: "http://json-schema.org/draft-07/schema#", format: "date" }).validate("2026-13-01").valid).toBe(false);
  });
});

describe("compileSchema: the compiled schema", () => {
  it("does not touch the caller's schema, and keeps a frozen copy", () => {
    const input = { type: "object", properties: { a: { $ref: "#/$defs/x" } }, $defs: { x: { type: "string" } } };
    const before = JSON.stringify(input);
    const c = compileSchema(input);
    expect(JSON.stringify(input)).toBe(before);
    expect(Object.getOwnPropertyNames(input.properties.a)).toEqual(["$ref"]);
    expect(c.schema).toEqual(input);
    expect(Object.isFrozen(c.schema)).toBe(true);
    expect(Object.isFrozen((c.schema as { properties: { a: object } }).properties.a)).toBe(true);
  });

  it("returns issues as data: keyword, instance location, keyword location, message", () => {
    const c = compileSchema({
      type: "object",
      additionalProperties: false,
      required: ["path"],
      properties: { path: { type: "string", pattern: "^[a-z]" }, n: { type: "integer", minimum: 1 }, tags: { type: "array", items: { type: "string" }, maxItems: 1 } },
    });
    const r = c.validate({ n: 0.5, tags: ["a", 3], extra: true });
    expect(r.valid).toBe(false);
    expect(r.issues).toEqual([
      { keyword: "required", instanceLocation: "", keywordLocation: "/required", message: 'missing required property "path"' },
      { keyword: "type", instanceLocation: "/n", keywordLocation: "/properties/n/type", message: "expected integer, got number" },
      { keyword: "minimum", instanceLocation: "/n", keywordLocation: "/properties/n/minimum", message: "must be >= 1" },
      { keyword: "maxItems", instanceLocation: "/tags", keywordLocation: "/properties/tags/maxItems", message: "must have at most 1 item" },
      { keyword: "type", instanceLocation: "/tags/1", keywordLocation: "/properties/tags/items/type", message: "expected string, got integer" },
      { keyword: "additionalProperties", instanceLocation: "", keywordLocation: "/additionalProperties", message: 'unexpected property "extra"' },
    ]);
    expect(c.validate({ path: "ok" })).toEqual({ valid: true, issues: [] });
  });
});

describe("compileSchema: locations are plain JSON Pointers", () => {
  it("does not percent-encode keys, and escapes / and ~", () => {
    const c = compileSchema({ properties: { "a b": { type: "string" }, "x/y~": { type: "string" }, é: { type: "string" } } });
    const r = c.validate({ "a b": 1, "x/y~": 2, é: 3 });
    expect(r.issues.filter((i) => i.keyword === "type").map((i) => [i.instanceLocation, i.keywordLocation])).toEqual([
      ["/a b", "/properties/a b/type"],
      ["/x~1y~0", "/properties/x~1y~0/type"],
      ["/é", "/properties/é/type"],
    ]);
  });
});
