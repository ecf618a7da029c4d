import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createDriver, isIsoagentError, loadFullSchemaSupport, scriptedAgent, strictObject, string, type ToolSpec } from "../../src/index.js";
import { compileTool, ToolSpecError } from "../../src/tools/index.js";
import { compileSchema, SchemaError } from "../../src/schema/index.js";

// This file runs the core alone: full schema support is loaded only by the
// last test (vitest gives each test file its own modules).

function refusal(f: () => unknown): { code: string; message: string; pointer: string | undefined; rule?: string } {
  try {
    f();
  } catch (e) {
    if (e instanceof ToolSpecError) return { code: e.code, message: e.message, pointer: (e.cause as SchemaError | undefined)?.pointer };
    if (e instanceof SchemaError) return { code: e.code, message: e.message, pointer: e.pointer, rule: e.rule };
    throw e;
  }
  throw new Error("accepted");
}

const send: ToolSpec = {
  name: "send_mail",
  description: "Send a mail.",
  sideEffect: "remote_mutation",
  permission: "ask",
  timeoutMs: 5000,
  inputSchema: strictObject({ to: string("Recipient", { format: "email" }), body: string() }),
};

describe("the core without full schema support", () => {
  it("compiles tool schemas on the fast evaluator, checked against the structural metaschema", () => {
    const tool = compileTool({ ...send, inputSchema: strictObject({ to: string("Recipient", { minLength: 3 }), body: string() }) });
    expect(tool.schema.evaluator).toBe("fast");
    expect(tool.check('{"to":"a","body":"x"}')).toMatchObject({ valid: false, text: expect.stringContaining("at /to: must be at least 3 characters long") });
    expect(refusal(() => compileSchema({ properties: { a: { minLength: -1 } } }))).toMatchObject({
      code: "SCHEMA_INVALID",
      message: "schema does not compile: the draft 2020-12 metaschema refuses /properties/a/minLength: must be >= 0",
    });
    expect(refusal(() => compileSchema({ $schema: "http://json-schema.org/draft-07/schema#", required: "a" })).message).toBe(
      "schema does not compile: the draft-07 metaschema refuses /required: expected array, got string",
    );
  });

  it("refuses a tool schema whose format asserts, saying how to load full support (the exact text)", () => {
    const r = refusal(() => compileTool(send));
    expect(r).toEqual({
      code: "SCHEMA_NEEDS_FULL_SUPPORT",
      pointer: "/properties/to/format",
      message:
        'tool "send_mail": input schema needs full schema support, which is not loaded: format "email" asserts, and the format checkers are part of it (at /properties/to/format); call await loadFullSchemaSupport() once before compiling it',
    });
    // docs/schema.md quotes it as it is.
    expect(readFileSync("docs/schema.md", "utf8")).toContain("```\n" + r.message + "\n```");
    // createDriver compiles its tools the same way, with the same error.
    const driverRefusal = refusal(() => createDriver({ agent: scriptedAgent([]), tools: [{ ...send, call: () => null }] }));
    expect(driverRefusal.message).toBe(r.message);
    // A format left an annotation needs nothing more.
    expect(compileTool({ ...send, formats: "annotation" }).schema.evaluator).toBe("fast");
  });

  it("refuses, with the same code, every other schema only full support takes", () => {
    const cases: [unknown, object | undefined, string][] = [
      [{ type: "object", unevaluatedProperties: false }, undefined, "unevaluatedProperties needs the reference evaluator (@cfworker/json-schema), which is part of it (at /unevaluatedProperties)"],
      [
        { $schema: "http://json-schema.org/draft-07/schema#", items: [{ type: "string" }] },
        undefined,
        "items as an array needs the reference evaluator (@cfworker/json-schema), which is part of it (at /items)",
      ],
      [
        { $ref: "https://json-schema.org/draft/2020-12/schema" },
        undefined,
        '$ref "https://json-schema.org/draft/2020-12/schema" names a carried metaschema, and the metaschemas are part of it (at /$ref)',
      ],
      [{ $defs: { a: { $dynamicAnchor: "a" } }, $dynamicRef: "#a" }, undefined, '$dynamicRef "#a" needs the $dynamicRef analysis, which is part of it (at /$dynamicRef)'],
      [{ type: "string" }, { evaluator: "reference" }, 'evaluator "reference" is @cfworker/json-schema, which is part of it (at the root)'],
      [{ $schema: "http://json-schema.org/draft-07/schema#", format: "date" }, undefined, 'format "date" asserts, and the format checkers are part of it (at /format)'],
    ];
    for (const [schema, options, why] of cases) {
      expect(
        refusal(() => compileSchema(schema, options as never)),
        JSON.stringify(schema),
      ).toMatchObject({
        code: "SCHEMA_NEEDS_FULL_SUPPORT",
        rule: "needs full schema support",
        message: `schema needs full schema support, which is not loaded: ${why}; call await loadFullSchemaSupport() once before compiling it`,
      });
    }
  });

  it("still refuses a schema that refers outside itself as such, whatever else it needs", () => {
    expect(refusal(() => compileSchema({ properties: { a: { format: "email" }, b: { $ref: "https://example.com/s.json" } } }, { assertFormats: true }))).toMatchObject({
      code: "SCHEMA_EXTERNAL_REF",
    });
    try {
      compileTool(send);
    } catch (e) {
      expect(isIsoagentError(e, "SCHEMA_NEEDS_FULL_SUPPORT")).toBe(true);
    }
  });

  it("takes them once loadFullSchemaSupport() has resolved (loading twice is harmless)", async () => {
    await loadFullSchemaSupport();
    await loadFullSchemaSupport();
    const tool = compileTool(send);
    expect(tool.schema.evaluator).toBe("fast");
    expect(tool.check('{"to":"nobody","body":"x"}')).toMatchObject({ valid: false, text: expect.stringContaining("at /to: must be a valid email") });
    expect(compileSchema({ type: "object", unevaluatedProperties: false }).evaluator).toBe("reference");
    expect(compileSchema({ $ref: "https://json-schema.org/draft/2020-12/schema" }).validate({ type: 5 }).valid).toBe(false);
  });
});
