import { describe, expect, it } from "vitest";
import { checkChunks, checkCoreNeutral, coreBrowserBundle, ENTRY_POINTS, NODE_ONLY_ENTRY_POINTS, PLATFORM_ENTRY_POINTS } from "../scripts/lib/bundle.js";

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
    // Audit finding 7: this checked that the bundle was over 1,000 bytes.
    // Now the figures are those of the chunks they count, and the chunks
    // every load fetches hold the core, full schema support the lazy ones.
    const size = await coreBrowserBundle();
    const initial = size.chunks.filter((c) => c.initial);
    const lazy = size.chunks.filter((c) => !c.initial);
    const sum = (list: typeof initial, k: "minBytes" | "gzipBytes") => list.reduce((n, c) => n + c[k], 0);
    expect([size.minBytes, size.gzipBytes, size.lazy.minBytes, size.lazy.gzipBytes]).toEqual([sum(initial, "minBytes"), sum(initial, "gzipBytes"), sum(lazy, "minBytes"), sum(lazy, "gzipBytes")]);
    for (const c of size.chunks) expect(c.gzipBytes, c.path).toBeLessThan(c.minBytes);
    const upfront = initial.flatMap((c) => Object.keys(c.inputs));
    for (const core of ["src/json/scan.ts", "src/schema/fast.ts", "src/policy/policy.ts", "src/store/memory.ts", "src/driver/session.ts", "src/call/gate.ts"]) expect(upfront).toContain(core);
    expect(lazy.flatMap((c) => Object.keys(c.inputs))).toContain("src/schema/full.ts");
    // A floor: a bundle that lost the driver or the validator falls under it.
    expect(size.gzipBytes).toBeGreaterThan(25 * 1024);
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
  it("covers isoagent/mcp: platform-neutral, no eval, and never the driver (the call pipeline in src/call/, and no src/driver module at all)", async () => {
    expect(ENTRY_POINTS["mcp"]).toBe("src/mcp/index.ts");
    const report = await checkCoreNeutral("src/mcp/index.ts");
    expect(report.problems).toEqual([]);
    expect(report.inputs).toContain("src/mcp/http.ts");
    expect(report.inputs).toContain("src/mcp/server/server.ts");
    for (const call of ["src/call/gate.ts", "src/call/classify.ts", "src/call/invoke.ts", "src/call/observations.ts", "src/call/hygiene.ts", "src/call/redact.ts"])
      expect(report.inputs).toContain(call);
    expect(report.inputs.filter((i) => i.startsWith("src/driver/"))).toEqual([]);
    expect(report.inputs).not.toContain("src/call/execute.ts");
    expect(report.inputs.filter((i) => i.startsWith("src/http/") || i.includes("node_modules/hono") || i.includes("@modelcontextprotocol"))).toEqual([]);
  });

  it("leaves the Node-only isoagent/mcp/stdio out by name, and it would fail the check (it spawns processes)", async () => {
    expect(NODE_ONLY_ENTRY_POINTS).toEqual({ "mcp/stdio": "adapters/mcp-stdio/index.ts", "toolkit/bash/node": "adapters/bash-node/index.ts" });
    expect(Object.values(ENTRY_POINTS)).not.toContain("adapters/mcp-stdio/index.ts");
    const report = await checkCoreNeutral("adapters/mcp-stdio/index.ts");
    expect(report.problems.some((p) => /node:|child_process|the core imports an adapter/.test(p))).toBe(true);
  });

  it("leaves the Node-only isoagent/toolkit/bash/node out by name (it starts worker threads); isoagent/toolkit/bash and its interpreter are checked, the platform builds' defaults apart", async () => {
    expect(Object.values(ENTRY_POINTS)).not.toContain("adapters/bash-node/index.ts");
    expect(ENTRY_POINTS["toolkit/bash"]).toBe("src/toolkit/bash/index.ts");
    expect(ENTRY_POINTS["toolkit/bash/interpreter"]).toBe("src/toolkit/bash/interpreter.ts");
    for (const entry of ["adapters/bash-node/index.ts", "adapters/bash-node/entry.ts", "adapters/bash-node/thread.ts"]) {
      const report = await checkCoreNeutral(entry);
      expect(
        report.problems.some((p) => /node:worker_threads|the core imports an adapter/.test(p)),
        entry,
      ).toBe(true);
    }
    expect(PLATFORM_ENTRY_POINTS).toEqual({
      node: { "toolkit/bash": "adapters/bash-node/entry.ts", "toolkit/bash-worker": "adapters/bash-node/thread.ts" },
      browser: { "toolkit/bash": "adapters/bash-web/entry.ts", "toolkit/bash-worker": "adapters/bash-web/thread.ts" },
    });
  });
});
