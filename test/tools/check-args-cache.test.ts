import { describe, expect, it } from "vitest";
import { strictObject, string, type ToolSpec } from "../../src/index.js";
import { CHECK_ARGS_CACHE_SIZE, checkArgs } from "../../src/tools/index.js";
import { compiledFor } from "../../src/tools/check-args.js";

const spec = (name: string): ToolSpec => ({
  name,
  description: "A tool.",
  inputSchema: strictObject({ a: string() }),
  sideEffect: "read_only",
  timeoutMs: 1000,
});

describe("checkArgs keeps the last few compiled specs", () => {
  it("reuses the compiled tool for the same spec, and for a spec with the same content", () => {
    const s = spec("cache_same");
    const first = compiledFor(s);
    expect(compiledFor(s)).toBe(first);
    expect(compiledFor({ ...s })).toBe(first);
    expect(checkArgs(s, '{"a":"x"}').valid).toBe(true);
  });

  it("compiles again when the content differs", () => {
    const s = spec("cache_diff");
    const first = compiledFor(s);
    expect(compiledFor({ ...s, description: "Another tool." })).not.toBe(first);
  });

  it(`holds at most ${CHECK_ARGS_CACHE_SIZE} specs, dropping the least recently used`, () => {
    const specs = Array.from({ length: CHECK_ARGS_CACHE_SIZE + 1 }, (_, k) => spec(`cache_${k}`));
    const compiled = specs.map((s) => compiledFor(s));
    // The last CHECK_ARGS_CACHE_SIZE are still there, the first is gone.
    for (let k = 1; k < specs.length; k++) expect(compiledFor(specs[k]!)).toBe(compiled[k]);
    expect(compiledFor(specs[0]!)).not.toBe(compiled[0]);
  });
});
