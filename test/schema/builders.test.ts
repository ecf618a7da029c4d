import { describe, expect, it } from "vitest";
import { array, boolean, enumOf, integer, nullable, number, object, strictObject, string } from "../../src/index.js";
import { compileSchema } from "../../src/schema/index.js";

describe("schema builders", () => {
  it("build plain JSON Schema with descriptions", () => {
    const schema = strictObject(
      {
        path: string("Workspace-relative path", { minLength: 1 }),
        mode: enumOf(["overwrite", "append"], "How to write"),
        count: integer("How many", { minimum: 0 }),
        ratio: number("A ratio", { maximum: 1 }),
        force: boolean("Overwrite a newer file"),
        tags: array(string(), "Labels", { maxItems: 3 }),
        limit: nullable(integer("Most lines", { minimum: 1 })),
      },
      ["path", "mode"],
      "Arguments",
    );
    expect(schema).toEqual({
      type: "object",
      description: "Arguments",
      properties: {
        path: { type: "string", minLength: 1, description: "Workspace-relative path" },
        mode: { enum: ["overwrite", "append"], description: "How to write" },
        count: { type: "integer", minimum: 0, description: "How many" },
        ratio: { type: "number", maximum: 1, description: "A ratio" },
        force: { type: "boolean", description: "Overwrite a newer file" },
        tags: { type: "array", items: { type: "string" }, maxItems: 3, description: "Labels" },
        limit: { type: ["integer", "null"], minimum: 1, description: "Most lines" },
      },
      required: ["path", "mode"],
      additionalProperties: false,
    });
    const c = compileSchema(schema);
    expect(c.validate({ path: "a", mode: "append", limit: null }).valid).toBe(true);
    expect(c.validate({ path: "a", mode: "append", other: 1 }).valid).toBe(false);
  });

  it("require every property by default, and refuse an unknown required name", () => {
    expect(strictObject({ a: string(), b: string() })["required"]).toEqual(["a", "b"]);
    // A required name that is not a property is a compile error too.
    // @ts-expect-error "b" is not among the properties
    expect(() => strictObject({ a: string() }, ["b"])).toThrow('strictObject: required property "b" is not among the properties');
    expect(() => enumOf([])).toThrow("enumOf: give at least one value");
  });

  it("make enums and other schemas nullable", () => {
    expect(nullable(enumOf(["a"], "d"))).toEqual({ enum: ["a", null], description: "d" });
    expect(nullable({ anyOf: [{ type: "string" }, { type: "number" }] })).toEqual({ anyOf: [{ anyOf: [{ type: "string" }, { type: "number" }] }, { type: "null" }] });
    expect(nullable({ type: ["string", "null"] })).toEqual({ type: ["string", "null"] });
  });

  it("build an open object: the listed properties, others allowed", () => {
    const schema = object({ query: string(), page: integer() }, ["query"], "Search");
    expect(schema).toEqual({ type: "object", properties: { query: { type: "string" }, page: { type: "integer" } }, required: ["query"], description: "Search" });
    expect(compileSchema(schema).validate({ query: "q", other: 1 }).valid).toBe(true);
    expect(() => object({ a: string() }, ["b" as "a"])).toThrow('object: required property "b" is not among the properties');
  });
});
