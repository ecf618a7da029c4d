/**
 * Issue 26, finding 1: a pattern from outside the code froze the process on
 * V8's backtracking RegExp (`^(a+)+$` on 27 × "a" + "!": 10 to 22 s, each
 * further character doubling it). Here each surface gets an input long
 * enough that a backtracking engine would take hours (or for ever), and
 * the test asserts only that the right answer comes back: on the code
 * before the fix, each of these never returns.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, calls, final, loadFullSchemaSupport, rulesPolicy, workspacePolicy, type PolicyRequest, type ToolSpec } from "../../src/index.js";
import { checkArgs, compileTool } from "../../src/tools/index.js";
import { compileSchema } from "../../src/schema/index.js";
import { evaluatePolicy } from "../../src/policy/index.js";
import { connectMcp, mcpTools, type McpConnection } from "../../src/mcp/index.js";
import { memoryWorkspace, workspaceTools } from "../../src/toolkit/index.js";
import { testContext } from "../helpers/context.js";
import { driverOf, observations } from "../mcp/helpers/run.js";
import { startSdkServer, tool, type SdkServer } from "../mcp/helpers/sdk-server.js";

/** 2^64 ways to split the run of a's: for ever, on a backtracker. */
const EXPONENTIAL = `${"a".repeat(64)}!`;

const spec = (pattern: string): ToolSpec => ({
  name: "take",
  description: "Takes x.",
  sideEffect: "read_only",
  timeoutMs: 1000,
  inputSchema: { type: "object", properties: { x: { type: "string", pattern } }, required: ["x"] },
});
const issues = (r: ReturnType<typeof checkArgs>) => (r.valid ? [] : r.issues.map((i) => `${i.instanceLocation} ${i.message}`));

describe("finding 1: patterns run in linear time on every surface", () => {
  it("compileTool / checkArgs: ^(a+)+$ on 64 a's and a '!' is refused at once; the a's alone pass", () => {
    const t = compileTool(spec("^(a+)+$"));
    expect(issues(checkArgs(t, JSON.stringify({ x: EXPONENTIAL })))).toEqual(['/x must match the pattern "^(a+)+$"']);
    expect(checkArgs(t, JSON.stringify({ x: "a".repeat(100_000) })).valid).toBe(true);
  });

  it("checkArgs: the quadratic patterns (\\s*$, a+b, ^a*a*b, f.*o) on a megabyte argument", () => {
    const mb = 1_000_000;
    expect(checkArgs(compileTool(spec("\\s*$")), JSON.stringify({ x: `${" ".repeat(mb)}x` })).valid).toBe(true);
    expect(issues(checkArgs(compileTool(spec("a+b")), JSON.stringify({ x: "a".repeat(mb) })))).toEqual(['/x must match the pattern "a+b"']);
    expect(issues(checkArgs(compileTool(spec("^a*a*a*a*b")), JSON.stringify({ x: "a".repeat(mb) })))).toEqual(['/x must match the pattern "^a*a*a*a*b"']);
    expect(checkArgs(compileTool(spec("f.*o")), JSON.stringify({ x: `${"f".repeat(mb)}o` })).valid).toBe(true);
  });

  it("compileSchema with full support: the reference evaluator's pattern, and patternProperties and propertyNames on the fast one", async () => {
    await loadFullSchemaSupport();
    const reference = compileSchema({ type: "object", properties: { x: { type: "string", pattern: "^(a+)+$" } }, unevaluatedProperties: false });
    expect(reference.evaluator).toBe("reference");
    // x failed its subschema, so it is not evaluated either.
    expect(reference.validate({ x: EXPONENTIAL }).issues.map((i) => i.message)).toEqual(['must match the pattern "^(a+)+$"', 'unexpected property "x"']);
    expect(reference.validate({ x: "aaaa" }).valid).toBe(true);
    const fast = compileSchema({ type: "object", patternProperties: { "^(a+)+$": { type: "integer" } }, propertyNames: { pattern: "^(b+)+$|^(a+)+!$" } });
    expect(fast.evaluator).toBe("fast");
    expect(fast.validate({ [EXPONENTIAL]: "not checked by patternProperties" }).valid).toBe(true);
    expect(fast.validate({ [`${"b".repeat(64)}!`]: 1 }).issues.map((i) => i.message)).toEqual([`property name ${JSON.stringify(`${"b".repeat(64)}!`)} is not allowed`]);
  });

  describe("an MCP server's schemas (mcpTools over a local server)", () => {
    let server: SdkServer;
    let connection: McpConnection;
    beforeAll(async () => {
      server = await startSdkServer([
        tool(
          {
            name: "evil",
            description: "Backtracks.",
            inputSchema: { type: "object", properties: { x: { type: "string", pattern: "^(a+)+$" } }, required: ["x"] },
            outputSchema: { type: "object", properties: { y: { type: "string", pattern: "^(a+)+$" } }, required: ["y"] },
            annotations: { readOnlyHint: true },
          },
          () => ({ content: [], structuredContent: { y: EXPONENTIAL } }),
        ),
        tool({ name: "backref", description: "Needs a backtracker.", inputSchema: { type: "object", properties: { x: { type: "string", pattern: "^(a)\\1$" } } } }, () => ({ content: [] })),
      ]);
      connection = await connectMcp({ url: server.url });
    });
    afterAll(async () => {
      await connection?.close();
      await server?.close();
    });

    it("the input schema refuses the model's argument, and the output schema the server's structured content", async () => {
      const set = await mcpTools(connection, { trustAnnotations: true });
      // A pattern no linear-time matcher can run leaves that tool out, with its code.
      expect(set.refused.map((r) => [r.name, r.code])).toEqual([["backref", "SCHEMA_PATTERN_UNSUPPORTED"]]);
      const evil = set.tools.find((t) => t.name === "evil")!;
      expect(issues(checkArgs(compileTool(evil), JSON.stringify({ x: EXPONENTIAL })))).toEqual(['/x must match the pattern "^(a+)+$"']);
      const { driver, store } = driverOf(set.tools, [calls(call("evil", { x: "aaa" })), final("done")]);
      const outcome = await driver.start("t");
      const [o] = await observations(store, outcome.runId);
      expect(o).toMatchObject({ type: "tool_error" });
      expect(String(o!["error"]).split("\n")[0]).toBe('Error: evil returned structured content that does not match its declared output schema (/y: must match the pattern "^(a+)+$").');
    });
  });

  it("search_files with regex: true, over a line of 5,000 a's and a '!'", async () => {
    const ws = memoryWorkspace();
    await ws.commit([{ path: "big.txt", bytes: new TextEncoder().encode(`${"a".repeat(5000)}!\naaaa\n`) }]);
    const { searchFiles } = workspaceTools(ws);
    const out = await searchFiles.call({ query: "^(a+)+$", regex: true }, testContext());
    expect(out).toBe('1 match for "^(a+)+$" (regular expression) in 1 file under the workspace:\nbig.txt:2: aaaa');
  });

  it("policy globs: rulesPolicy and workspacePolicy with *a*a*…*b over a path of 200 a's", () => {
    const glob = `${"*a".repeat(12)}*b`;
    const request: PolicyRequest = { tool: "write_file", sideEffect: "local_mutation", args: {}, resources: [{ kind: "path", value: "a".repeat(200), operation: "write" }] };
    expect(evaluatePolicy(rulesPolicy([{ resource: { kind: "path", match: glob }, permission: "deny" }]), request).permission).toBe("allow");
    expect(evaluatePolicy(rulesPolicy([{ tool: glob, permission: "deny" }]), { ...request, tool: "a".repeat(200) }).permission).toBe("allow");
    expect(evaluatePolicy(workspacePolicy({ deny: [glob] }), request).permission).not.toBe("deny");
    expect(evaluatePolicy(workspacePolicy({ deny: [glob] }), { ...request, resources: [{ kind: "path", value: `${"a".repeat(200)}b`, operation: "write" }] }).permission).toBe("deny");
  });
});
