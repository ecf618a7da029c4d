import { describe, expect, it } from "vitest";
import { checkCoreNeutral, coreBrowserBundle, ENTRY_POINTS, NODE_ONLY_ENTRY_POINTS } from "../scripts/lib/bundle.js";

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
