import { describe, expect, it } from "vitest";
import { z } from "zod";
import { loadFullSchemaSupport, type ToolSpec } from "../../src/index.js";
import { checkArgs, compileTool, ToolSpecError } from "../../src/tools/index.js";
import { compileSchema } from "../../src/schema/index.js";

// These tests reach what only full schema support has (formats, @cfworker,
// the carried metaschemas); the core alone is tested in full-support.test.ts.
await loadFullSchemaSupport();

const base = { name: "send", description: "Send a message.", sideEffect: "read_only", timeoutMs: 1_000 } as const;

function refusal(inputSchema: unknown, extra: object = {}): { code: string; message: string; field: string } {
  try {
    compileTool({ ...base, inputSchema, ...extra } as ToolSpec);
  } catch (e) {
    if (!(e instanceof ToolSpecError)) throw e;
    return { code: e.code, message: e.message, field: e.field };
  }
  throw new Error("compiled");
}

describe("the tool-schema linter at compileTool (issue 15, finding 2), pinned by exact value", () => {
  it("refuses a misspelt keyword, naming it, where it is, and the nearest known one", () => {
    expect(refusal({ type: "object", propertes: { path: { type: "string" } } })).toEqual({
      code: "TOOL_SCHEMA_UNKNOWN_KEYWORD",
      field: "inputSchema",
      message: 'tool "send": input schema has an unknown keyword "propertes" at the root: did you mean "properties"? (an annotation of your own needs an "x-" prefix)',
    });
    expect(refusal({ type: "object", properties: { n: { type: "integer", MinLength: 1 } } }).message).toBe(
      'tool "send": input schema has an unknown keyword "MinLength" at /properties/n: did you mean "minLength"? (an annotation of your own needs an "x-" prefix)',
    );
    expect(refusal({ type: "object", properties: { a: { type: "string", requried: true } } }).message).toBe(
      'tool "send": input schema has an unknown keyword "requried" at /properties/a: did you mean "required"? (an annotation of your own needs an "x-" prefix)',
    );
    // Nothing near enough: no guess.
    expect(refusal({ type: "object", foo: 1 }).message).toBe('tool "send": input schema has an unknown keyword "foo" at the root (an annotation of your own needs an "x-" prefix)');
    // Inside $defs, items, anyOf: every schema position is read.
    expect(refusal({ type: "object", properties: { l: { type: "array", items: { anyOf: [{ type: "string", maxLenght: 3 }] } } } }).message).toBe(
      'tool "send": input schema has an unknown keyword "maxLenght" at /properties/l/items/anyOf/0: did you mean "maxLength"? (an annotation of your own needs an "x-" prefix)',
    );
  });

  it("allows x- annotations and the standard annotation keywords", () => {
    const schema = {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      $comment: "c",
      type: "object",
      title: "t",
      "x-owner": "team",
      properties: {
        a: {
          type: "string",
          description: "d",
          default: "x",
          examples: ["y"],
          deprecated: false,
          readOnly: false,
          writeOnly: false,
          contentMediaType: "text/plain",
          contentEncoding: "base64",
          "x-ui": { widget: "text" },
        },
      },
      $defs: { unused: { type: "string" } },
    };
    expect(compileTool({ ...base, inputSchema: schema }).name).toBe("send");
    // A property may be called anything: names under "properties" are not keywords.
    expect(compileTool({ ...base, inputSchema: { type: "object", properties: { propertes: { type: "string" } } } }).name).toBe("send");
  });

  it("refuses a top level that is not an object schema", () => {
    expect(refusal({ type: "string" })).toEqual({
      code: "TOOL_SCHEMA_NOT_OBJECT",
      field: "inputSchema",
      message:
        'tool "send": input schema must be an object schema ({"type": "object", ...}): a tool\'s arguments are one JSON object, and providers require an object schema here; this one has type "string"',
    });
    expect(refusal(true).message).toMatch(/this one is the boolean schema true$/);
    expect(refusal({}).message).toMatch(/this one has no "type"$/);
    expect(refusal({ type: ["object", "null"] }).message).toMatch(/this one has type \["object","null"\]$/);
    expect(refusal('{"type":"array"}').code).toBe("TOOL_SCHEMA_NOT_OBJECT");
  });

  it("names a type that is not a JSON Schema type, with the nearest one", () => {
    expect(refusal({ type: "object", properties: { n: { type: "integr" } } })).toEqual({
      code: "TOOL_SCHEMA_UNKNOWN_TYPE",
      field: "inputSchema",
      message:
        'tool "send": input schema has "integr" at /properties/n/type, which is not a JSON Schema type: did you mean "integer"? (the types are string, number, integer, boolean, object, array and null)',
    });
    expect(refusal({ type: "object", properties: { n: { type: ["strng", "null"] } } }).message).toBe(
      'tool "send": input schema has "strng" at /properties/n/type, which is not a JSON Schema type: did you mean "string"? (the types are string, number, integer, boolean, object, array and null)',
    );
  });

  it("leaves compileSchema on arbitrary documents alone: the JSON Schema Test Suite keeps its own mode", () => {
    expect(compileSchema({ propertes: {} }).validate(1).valid).toBe(true);
    expect(compileSchema({ type: "string" }).validate("a").valid).toBe(true);
  });
});

describe("formats in tool schemas (issue 15, finding 3)", () => {
  const spec = (format: string, extra: object = {}): ToolSpec =>
    ({ ...base, inputSchema: { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", properties: { v: { type: "string", format } } }, ...extra }) as ToolSpec;

  it("are asserted by default, in 2020-12 too, with the model-facing text pinned", () => {
    const cases: [string, string, string][] = [
      ["email", "not-an-email", "a@example.com"],
      ["uri", "not a uri", "https://example.com/a"],
      ["date-time", "2024-13-01T00:00:00Z", "2024-12-01T00:00:00Z"],
      ["uuid", "1234", "123e4567-e89b-12d3-a456-426614174000"],
      ["ipv4", "256.1.1.1", "10.0.0.1"],
    ];
    for (const [format, bad, good] of cases) {
      const r = checkArgs(spec(format), JSON.stringify({ v: bad }));
      expect(r.valid, format).toBe(false);
      if (!r.valid) {
        expect(r.text).toBe(
          `Error: invalid arguments for send: at /v: must be a valid ${format}\n` +
            "[Next: Call send again with arguments that match its input schema.]\n" +
            "[Recovery: Correct only what is listed. If the task cannot be done with arguments this schema accepts, stop and say why instead of retrying.]",
        );
      }
      expect(checkArgs(spec(format), JSON.stringify({ v: good })).valid, format).toBe(true);
    }
  });

  it('are annotations with formats: "annotation"', () => {
    expect(checkArgs(spec("email", { formats: "annotation" }), '{"v":"not-an-email"}').valid).toBe(true);
    expect(compileTool(spec("idn-hostname", { formats: "annotation" })).name).toBe("send");
  });

  it("refuse a standard format that cannot be checked exactly, and an unknown formats option", () => {
    expect(refusal(spec("idn-hostname").inputSchema)).toEqual({
      code: "TOOL_SCHEMA_FORMAT_UNSUPPORTED",
      field: "inputSchema",
      message:
        'tool "send": input schema asks for format "idn-hostname" at /properties/v, which cannot be checked exactly, and a format is never approximated: use "hostname" (ASCII), a pattern, or formats: "annotation" to leave the tool\'s formats unchecked',
    });
    expect(refusal(spec("idn-email").inputSchema).code).toBe("TOOL_SCHEMA_FORMAT_UNSUPPORTED");
    expect(refusal(spec("email").inputSchema, { formats: "loose" })).toEqual({
      code: "TOOL_FORMATS_INVALID",
      field: "formats",
      message: 'tool "send": formats must be "assert" or "annotation", not "loose"',
    });
  });

  it("leave non-standard formats as annotations: zod's own formats are checked by the pattern zod emits", () => {
    const tool = compileTool({ ...base, inputSchema: z.strictObject({ id: z.cuid(), token: z.jwt(), to: z.email() }) });
    expect(tool.check('{"id":"cjld2cjxh0000qzrmn831i7rn","token":"anything","to":"a@example.com"}').valid).toBe(true);
    const r = tool.check('{"id":"nope","token":"anything","to":"a@example.com"}');
    expect(r.valid).toBe(false);
    if (!r.valid) expect(r.issues.map((i) => i.keyword)).toEqual(["pattern"]);
    expect(tool.check('{"id":"cjld2cjxh0000qzrmn831i7rn","token":"x","to":"a@@example.com"}').valid).toBe(false);
  });
});
