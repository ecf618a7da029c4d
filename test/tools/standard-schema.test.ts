import { toStandardJsonSchema } from "@valibot/to-json-schema";
import * as v from "valibot";
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { call, calls, createDriver, defineTool, final, isIsoagentError, memoryStore, scriptedAgent, type Tool } from "../../src/index.js";
import { compileTool } from "../../src/tools/index.js";

describe("tools whose input is a Standard Schema", () => {
  it("zod 4: turned into JSON Schema, checked by isoagent, typed from the schema", async () => {
    const writeFile = defineTool({
      name: "write_file",
      description: "Write a file.",
      inputSchema: z.strictObject({ path: z.string().min(1), content: z.string(), mode: z.enum(["overwrite", "append"]).optional() }),
      sideEffect: "local_mutation",
      permission: "allow",
      timeoutMs: 1000,
      call: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ path: string; content: string; mode?: "overwrite" | "append" | undefined }>();
        return { bytes: args.content.length };
      },
    });
    const compiled = compileTool(writeFile);
    expect(compiled.inputSchema).toMatchObject({
      type: "object",
      properties: { path: { type: "string", minLength: 1 }, content: { type: "string" }, mode: { type: "string", enum: ["overwrite", "append"] } },
      required: ["path", "content"],
      additionalProperties: false,
    });
    expect(compiled.check('{"path":"a.md","content":"x"}')).toEqual({ valid: true, args: { path: "a.md", content: "x" } });
    const refused = compiled.check('{"path":"","content":"x","extra":1}');
    expect(refused.valid).toBe(false);
    expect(refused.valid === false && refused.text.split("\n")[0]).toBe('Error: invalid arguments for write_file: at /path: must be at least 1 character long; unexpected property "extra"');
    // And through the driver, like any tool.
    const driver = createDriver({ store: memoryStore(), tools: [writeFile as Tool<never, unknown>], agent: scriptedAgent([calls(call("write_file", { path: "a.md", content: "hi" })), final("ok")]) });
    expect(await driver.start("t")).toMatchObject({ status: "completed" });
  });

  it("valibot: through toStandardJsonSchema", () => {
    const schema = toStandardJsonSchema(v.strictObject({ query: v.pipe(v.string(), v.maxLength(100)), limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))) }));
    const search = defineTool({
      name: "search",
      description: "Search.",
      inputSchema: schema,
      sideEffect: "read_only",
      timeoutMs: 1000,
      call: (args) => {
        expectTypeOf(args.query).toEqualTypeOf<string>();
        return [];
      },
    });
    const compiled = compileTool(search);
    expect(compiled.check('{"query":"x","limit":2}')).toEqual({ valid: true, args: { query: "x", limit: 2 } });
    expect(compiled.check('{"query":"x","limit":0}').valid).toBe(false);
    expect(compiled.check('{"query":"x","limit":1.5}').valid).toBe(false);
  });

  it("refuses a Standard Schema without Standard JSON Schema, and one the library cannot convert, with typed errors", () => {
    const plain = v.object({ a: v.string() }); // valibot without the JSON Schema wrapper
    try {
      compileTool({ name: "t", description: "d", inputSchema: plain as never, sideEffect: "read_only", timeoutMs: 10 });
      expect.unreachable();
    } catch (e) {
      expect(isIsoagentError(e, "TOOL_SCHEMA_STANDARD_UNSUPPORTED")).toBe(true);
      expect((e as Error).message).toBe(
        'tool "t": input schema is a valibot schema without Standard JSON Schema (~standard.jsonSchema) (wrap it with toStandardJsonSchema() from @valibot/to-json-schema)',
      );
    }
    const unrepresentable = z.strictObject({ when: z.date() });
    expect(() => compileTool({ name: "t", description: "d", inputSchema: unrepresentable, sideEffect: "read_only", timeoutMs: 10 })).toThrow(
      /^tool "t": input schema is a zod schema that cannot be turned into JSON Schema: /,
    );
  });

  it("holds the converted schema to every rule: too deep is refused as any schema would be", () => {
    let deep: z.ZodType = z.string();
    for (let k = 0; k < 300; k++) deep = z.strictObject({ a: deep });
    try {
      compileTool({ name: "t", description: "d", inputSchema: deep, sideEffect: "read_only", timeoutMs: 10 });
      expect.unreachable();
    } catch (e) {
      expect(isIsoagentError(e, "SCHEMA_TOO_DEEP")).toBe(true);
    }
  });
});
