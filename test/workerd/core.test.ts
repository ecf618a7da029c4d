import type { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorker } from "../helpers/workerd.js";

// The core bundled as a Worker would bundle it, run in plain miniflare:
// workerd with its default policy, which refuses eval and new Function
// (unlike @cloudflare/vitest-pool-workers, which allows them for itself).
let mf: Miniflare;

beforeAll(async () => {
  mf = await startWorker("test/workerd/workers/core-entry.ts");
});

afterAll(async () => {
  await mf?.dispose();
});

describe("the core in workerd (plain miniflare, no eval)", () => {
  it("checks arguments, compiles schemas and hashes there, with code generation refused", async () => {
    const res = await mf.dispatchFetch("http://localhost/");
    const body = (await res.json()) as Record<string, unknown>;
    expect(body["codegen"]).toBe("refused: Code generation from strings disallowed for this context");
    expect(body["checks"]).toEqual([
      { valid: true, args: { path: "notes.md", limit: 5 } },
      { valid: false, text: 'Error: invalid arguments for read_file: at /path: must match the pattern "^[a-z]"' },
      { valid: false, text: 'Error: invalid arguments for read_file: the arguments are not valid JSON: duplicate key "path" at line 1, column 13' },
      { valid: false, text: 'Error: invalid arguments for read_file: missing required property "path"; at /limit: must be >= 1' },
      { valid: false, text: 'Error: invalid arguments for read_file: missing required property "path"' },
    ]);
    expect(body["patterns"]).toEqual([false, true, false]);
    expect(body["external"]).toBe('schema refers outside itself: $ref "https://example.com/s.json" at the root');
    expect(body["beforeLoad"]).toBe("SCHEMA_NEEDS_FULL_SUPPORT");
    expect(body["dynamic"]).toEqual([true, false]);
    expect(body["metaschemaRef"]).toBe(false);
    expect(body["canonical"]).toBe('{"a":[true,null],"b":1}');
    expect(body["hash"]).toBe("015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862");
  });
});
