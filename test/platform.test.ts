import { describe, expect, it } from "vitest";
import { checkCoreNeutral, coreBrowserBundle } from "../scripts/lib/bundle.js";

describe("the platform check (npm run check:platform)", () => {
  it("passes the core: no Node or browser import, no adapter, no eval", async () => {
    const report = await checkCoreNeutral("src/index.ts");
    expect(report.problems).toEqual([]);
    expect(report.inputs).toContain("src/json/scan.ts");
  });

  it("refuses a node: import", async () => {
    const report = await checkCoreNeutral("test/fixtures/platform/imports-node.ts");
    expect(report.problems).toEqual([expect.stringContaining('Could not resolve "node:fs"')]);
  });

  it("refuses an adapter", async () => {
    const report = await checkCoreNeutral("test/fixtures/platform/imports-adapter.ts");
    expect(report.problems).toEqual(["the core imports an adapter: test/fixtures/platform/adapters/probe.ts"]);
  });

  it("refuses code generation from strings", async () => {
    const report = await checkCoreNeutral("test/fixtures/platform/uses-eval.ts");
    expect(report.problems.length).toBeGreaterThan(0);
    for (const p of report.problems) expect(p).toMatch(/^code generation from strings in the core bundle: .*new Function\(/);
  });

  it("measures the browser bundle of the core", async () => {
    const size = await coreBrowserBundle();
    expect(size.gzipBytes).toBeGreaterThan(1000);
    expect(size.gzipBytes).toBeLessThan(size.minBytes);
  });
});
