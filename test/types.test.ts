import { describe, expectTypeOf, it } from "vitest";
import {
  checkArgs,
  compileTool,
  isIsoagentError,
  parseJson,
  tryParseJson,
  type ArgsCheck,
  type CompiledTool,
  type JsonBoundaryError,
  type JsonValue,
  type LeaseView,
  type RunOutcome,
  type RunSummary,
  type Store,
  type ToolSpec,
  type ValidationIssue,
} from "../src/index.js";

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
});
