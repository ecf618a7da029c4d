import { describe, expect, expectTypeOf, it } from "vitest";
import { array, boolean, defineTool, enumOf, integer, nullable, number, object, strictObject, string, type JsonValue, type SchemaType, type Tool } from "../../src/index.js";
import { compileTool, type CompiledTool } from "../../src/tools/index.js";
import type { TypedSchema } from "../../src/schema/index.js";

// Type-level tests: tsc checks them in `npm run typecheck` (tsconfig.test.json
// includes test/), and each `@ts-expect-error` below fails the type check if
// the line it marks ever compiles.
describe("typed schema builders", () => {
  it("carry the type of the values each builder accepts", () => {
    expectTypeOf(string()).toEqualTypeOf<TypedSchema<string>>();
    expectTypeOf<SchemaType<ReturnType<typeof string>>>().toEqualTypeOf<string>();
    expectTypeOf<SchemaType<ReturnType<typeof integer>>>().toEqualTypeOf<number>();
    expectTypeOf<SchemaType<ReturnType<typeof number>>>().toEqualTypeOf<number>();
    expectTypeOf<SchemaType<ReturnType<typeof boolean>>>().toEqualTypeOf<boolean>();
    const mode = enumOf(["overwrite", "append", 3, null]);
    expectTypeOf<SchemaType<typeof mode>>().toEqualTypeOf<"overwrite" | "append" | 3 | null>();
    const tags = array(string());
    expectTypeOf<SchemaType<typeof tags>>().toEqualTypeOf<string[]>();
    const matrix = array(array(number()));
    expectTypeOf<SchemaType<typeof matrix>>().toEqualTypeOf<number[][]>();
    const limit = nullable(integer());
    expectTypeOf<SchemaType<typeof limit>>().toEqualTypeOf<number | null>();
    const choice = nullable(enumOf(["a", "b"]));
    expectTypeOf<SchemaType<typeof choice>>().toEqualTypeOf<"a" | "b" | null>();
  });

  it("type objects: every property required by default, the others optional", () => {
    const all = strictObject({ path: string(), limit: nullable(integer()), tags: array(string()) });
    expectTypeOf<SchemaType<typeof all>>().toEqualTypeOf<{ path: string; limit: number | null; tags: string[] }>();
    const some = strictObject({ path: string(), limit: integer(), force: boolean() }, ["path"]);
    expectTypeOf<SchemaType<typeof some>>().toEqualTypeOf<{ path: string; limit?: number; force?: boolean }>();
    const nested = strictObject({ range: strictObject({ from: integer(), to: integer() }, ["from"]) });
    expectTypeOf<SchemaType<typeof nested>>().toEqualTypeOf<{ range: { from: number; to?: number } }>();
    const open = object({ query: string() });
    expectTypeOf<SchemaType<typeof open>>().toEqualTypeOf<{ query: string } & { [key: string]: JsonValue }>();
    // A schema written by hand carries no type: its values are any JSON.
    expectTypeOf<SchemaType<{ type: "string" }>>().toEqualTypeOf<JsonValue>();
    const mixed = strictObject({ path: string(), extra: { type: "number" } });
    expectTypeOf<SchemaType<typeof mixed>>().toEqualTypeOf<{ path: string; extra: JsonValue }>();
    // @ts-expect-error a required name must be one of the properties
    expect(() => strictObject({ path: string() }, ["paht"])).toThrow('strictObject: required property "paht" is not among the properties');
  });

  it("give defineTool its arguments' type from a builder schema, with no annotation", () => {
    const readFile = defineTool({
      name: "read_file",
      description: "Read a text file.",
      sideEffect: "read_only",
      timeoutMs: 5_000,
      inputSchema: strictObject({ path: string("Workspace-relative path"), limit: nullable(integer()), mode: enumOf(["head", "tail"]) }, ["path", "limit"]),
      resources: (args) => [{ kind: "path", value: args.path }],
      call: (args) => (args.mode === "tail" ? args.path.slice(-(args.limit ?? 10)) : args.path),
    });
    expectTypeOf(readFile).toEqualTypeOf<Tool<{ path: string; limit: number | null; mode?: "head" | "tail" }, string>>();
    expectTypeOf(compileTool(readFile)).toEqualTypeOf<CompiledTool<{ path: string; limit: number | null; mode?: "head" | "tail" }>>();
    const r = compileTool(readFile).check('{"path":"a.md","limit":null}');
    expect(r.valid).toBe(true);
    if (r.valid) expectTypeOf(r.args.path).toEqualTypeOf<string>();
  });

  it("refuse, at compile time, an explicit argument type the schema contradicts", () => {
    const spec = { name: "t", description: "d", sideEffect: "read_only", timeoutMs: 1 } as const;
    // Agrees with the schema: fine.
    defineTool<{ path: string }>({ ...spec, inputSchema: strictObject({ path: string() }), call: (a) => a.path });
    defineTool<{ path: string; n?: number }>({ ...spec, inputSchema: strictObject({ path: string(), n: integer() }, ["path"]), call: (a) => a.path });
    // A hand-written schema carries no type to contradict.
    defineTool<{ path: number }>({ ...spec, inputSchema: { type: "object" }, call: (a) => a.path });
    // @ts-expect-error string() where the type says number
    defineTool<{ path: number }>({ ...spec, inputSchema: strictObject({ path: string() }), call: (a) => a.path });
    // @ts-expect-error the type requires a property the schema does not
    defineTool<{ path: string; n: number }>({ ...spec, inputSchema: strictObject({ path: string(), n: integer() }, ["path"]), call: (a) => a.path });
    // @ts-expect-error the schema allows null where the type does not
    defineTool<{ limit: number }>({ ...spec, inputSchema: strictObject({ limit: nullable(integer()) }), call: (a) => a.limit });
    // @ts-expect-error the enum has a value the type does not
    defineTool<{ mode: "a" }>({ ...spec, inputSchema: strictObject({ mode: enumOf(["a", "b"]) }), call: (a) => a.mode });
  });
});
