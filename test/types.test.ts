import { describe, expect, expectTypeOf, it } from "vitest";
import { defineTool, isIsoagentError, type JsonValue, type LeaseView, type RunOutcome, type RunSummary, type SideEffect, type Store, type ToolSpec } from "../src/index.js";
import { checkArgs, compileTool, type ArgsCheck, type CompiledTool } from "../src/tools/index.js";
import type { ValidationIssue } from "../src/schema/index.js";
import { parseJson, tryParseJson, type JsonBoundaryError } from "../src/json/index.js";

// Type-level assertions on the public API: checked by tsc (npm run typecheck)
// and by vitest's expectTypeOf.
describe("public types", () => {
  it("carry a tool's argument type from its spec to the checked arguments", () => {
    const spec: ToolSpec<{ path: string }> = {
      name: "t",
      description: "d",
      inputSchema: { type: "object" },
      sideEffect: "read_only",
      timeoutMs: 1,
      resources: (args) => [{ kind: "path", value: args.path }],
    };
    expectTypeOf(compileTool(spec)).toEqualTypeOf<CompiledTool<{ path: string }>>();
    const r = checkArgs(spec, "{}");
    expectTypeOf(r).toEqualTypeOf<ArgsCheck<{ path: string }>>();
    if (r.valid) expectTypeOf(r.args).toEqualTypeOf<{ path: string }>();
    else {
      expectTypeOf(r.text).toBeString();
      expectTypeOf(r.failure).toEqualTypeOf<"invalid_json" | "invalid_arguments">();
      expectTypeOf(r.issues).toEqualTypeOf<readonly ValidationIssue[]>();
      expectTypeOf(r.jsonError).toEqualTypeOf<JsonBoundaryError | undefined>();
    }
  });

  it("parse to JsonValue and narrow errors by code", () => {
    expectTypeOf(parseJson("1")).toEqualTypeOf<JsonValue>();
    const r = tryParseJson("1");
    if (!r.ok) expectTypeOf(r.error).toEqualTypeOf<JsonBoundaryError>();
    const e: unknown = new Error();
    if (isIsoagentError(e, "SCHEMA_EXTERNAL_REF")) expectTypeOf(e.code).toEqualTypeOf<"SCHEMA_EXTERNAL_REF">();
  });

  it("show a run's lease as store state: in a summary, from the store, in a busy outcome", () => {
    expectTypeOf<RunSummary["lease"]>().toEqualTypeOf<LeaseView | null>();
    expectTypeOf<ReturnType<Store["lease"]>>().toEqualTypeOf<Promise<LeaseView | null>>();
    expectTypeOf<RunOutcome["lease"]>().toEqualTypeOf<LeaseView | null | undefined>();
    expectTypeOf<LeaseView>().toEqualTypeOf<{ readonly holder: string; readonly expiresAt: number }>();
  });

  it("refuse a spec without its required fields at compile time", () => {
    // @ts-expect-error timeoutMs is required
    const missing: ToolSpec = { name: "t", description: "d", inputSchema: { type: "object" }, sideEffect: "read_only" };
    // @ts-expect-error not a side-effect class
    const wrong: ToolSpec = { name: "t", description: "d", inputSchema: { type: "object" }, sideEffect: "mutating", timeoutMs: 1 };
    void missing;
    void wrong;
  });

  // Issue 27, finding 4: these were accepted by defineTool and refused only at createDriver.
  it("refuse in defineTool, keyed by sideEffect, a writer without a permission and parallelSafe on a writer; the run-time check stays", () => {
    const base = { name: "w", description: "Write.", inputSchema: { type: "object" }, timeoutMs: 1_000, call: () => "ok" } as const;
    // @ts-expect-error a local_mutation tool must state its permission
    const noPermission = defineTool({ ...base, sideEffect: "local_mutation" });
    // @ts-expect-error only a read_only tool may be parallelSafe
    const parallelWriter = defineTool({ ...base, sideEffect: "destructive", permission: "ask", parallelSafe: true });
    // @ts-expect-error an explicit argument type keeps the rule
    const explicit = defineTool<{ path: string }>({ ...base, sideEffect: "remote_mutation" });
    const anyClass = (sideEffect: SideEffect) => {
      // @ts-expect-error a class known only as SideEffect may be a writer: it must state its permission
      const unknownClass = defineTool({ ...base, sideEffect });
      return [unknownClass, defineTool({ ...base, sideEffect, permission: "ask" })];
    };
    // What the rules let through.
    const reader = defineTool({ ...base, sideEffect: "read_only", parallelSafe: true });
    const writer = defineTool({ ...base, sideEffect: "local_mutation", permission: "ask", parallelSafe: false });
    expect(() => compileTool(noPermission)).toThrow(/must state its permission/);
    expect(() => compileTool(parallelWriter)).toThrow(/parallelSafe is only allowed for read_only tools/);
    expect(() => compileTool(explicit)).toThrow(/must state its permission/);
    expect(compileTool(reader).parallelSafe).toBe(true);
    expect(compileTool(writer).permission).toBe("ask");
    expect(anyClass("read_only")).toHaveLength(2);
  });
});
