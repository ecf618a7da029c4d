import { describe, expect, it } from "vitest";
import { checkChunks, checkCoreNeutral, coreBrowserBundle, ENTRY_POINTS, NODE_ONLY_ENTRY_POINTS } from "../scripts/lib/bundle.js";

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

  it("measures the browser bundle of the core: the chunks every load fetches, and full schema support apart", async () => {
    const size = await coreBrowserBundle();
    expect(size.gzipBytes).toBeGreaterThan(1000);
    expect(size.gzipBytes).toBeLessThan(size.minBytes);
    expect(size.lazy.gzipBytes).toBeGreaterThan(1000);
    const lazy = size.chunks.filter((c) => !c.initial).flatMap((c) => Object.keys(c.inputs));
    expect(lazy).toContain("src/schema/full.ts");
  });
});

describe("the chunks stay apart (npm run check:platform and npm run build)", () => {
  it("hold for the index and the createDriver entry", async () => {
    expect(await checkChunks()).toEqual([]);
  });

  it("are checked: an entry that imports full schema support statically, or the HTTP app, is refused", async () => {
    const problems = await checkChunks({ driver: 'export * from "./test/fixtures/platform/static-full.ts";' });
    expect(problems).toContainEqual(expect.stringMatching(/^driver: src\/schema\/full\.ts is in a chunk every load fetches .*; it belongs to full schema support$/));
    expect(problems).toContainEqual(expect.stringMatching(/^driver: .*node_modules\/@cfworker\/json-schema\/.* is in a chunk every load fetches/));
    expect(problems).toContain("driver: the createDriver entry reaches src/http/app.ts");
  });

});

describe("the platform check's other entries", () => {
  it("covers isoagent/mcp: platform-neutral, no eval, and never the driver's loop (only its pure output and gate modules)", async () => {
    expect(ENTRY_POINTS["mcp"]).toBe("src/mcp/index.ts");
    const report = await checkCoreNeutral("src/mcp/index.ts");
    expect(report.problems).toEqual([]);
    expect(report.inputs).toContain("src/mcp/http.ts");
    expect(report.inputs).toContain("src/mcp/server/server.ts");
    for (const loop of ["src/driver/session.ts", "src/driver/driver.ts", "src/driver/execute.ts", "src/driver/recovery.ts", "src/driver/operator.ts"]) expect(report.inputs).not.toContain(loop);
    expect(report.inputs.filter((i) => i.startsWith("src/http/") || i.includes("node_modules/hono") || i.includes("@modelcontextprotocol"))).toEqual([]);
  });

  it("leaves the Node-only isoagent/mcp/stdio out by name, and it would fail the check (it spawns processes)", async () => {
    expect(NODE_ONLY_ENTRY_POINTS).toEqual({ "mcp/stdio": "adapters/mcp-stdio/index.ts" });
    expect(Object.values(ENTRY_POINTS)).not.toContain("adapters/mcp-stdio/index.ts");
    const report = await checkCoreNeutral("adapters/mcp-stdio/index.ts");
    expect(report.problems.some((p) => /node:|child_process|the core imports an adapter/.test(p))).toBe(true);
  });
});
