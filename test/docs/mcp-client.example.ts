// docs/mcp.md's client example, against a local MCP server (the official SDK's, on loopback) at
// serverUrl; the server's credentials are checked on every request it gets.
import assert from "node:assert/strict";
import { call, calls, createDriver, final, memoryStore, scriptedAgent } from "../../src/index.js";
import { startSdkServer, tool } from "../mcp/helpers/sdk-server.js";
import { serveFetch } from "../mcp/helpers/serve.js";

const key = "ghs_mcp-docs-example-key";
const sdk = await startSdkServer([
  tool(
    { name: "search_issues", description: "Searches issues.", inputSchema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] }, annotations: { readOnlyHint: true } },
    (a) => ({ content: [{ type: "text", text: `2 issues match ${String(a["q"])}` }] }),
  ),
  tool({ name: "bad.name", description: "A name isoagent cannot take.", inputSchema: { type: "object" } }, () => ({ content: [] })),
]);
const credentials: (string | null)[] = [];
const http = await serveFetch((request) => (credentials.push(request.headers.get("authorization")), sdk.fetch(request)));
const serverUrl = `${http.origin}/mcp`;
const kept = new Map<string, unknown>();
const storage = { get: async (k: string) => kept.get(k), put: async (k: string, v: unknown) => void kept.set(k, v), delete: async (k: string) => kept.delete(k) };
const store = memoryStore();
const agent = scriptedAgent([calls(call("github_search_issues", { q: "flaky" })), final("found them")]);
const localTools = [] as const;

// DOCS: begin
import { connectMcp, kvSessions, mcpTools } from "../../src/mcp/index.js";

const connection = await connectMcp({
  url: serverUrl, // e.g. "https://mcp.example.com/mcp": Streamable HTTP over fetch
  http: { headers: { authorization: `Bearer ${key}` } }, // the server's credentials; the model never sees them
  sessions: kvSessions(storage), // optional: resume the session after a restart
  elicit: async (request) => ({ action: "decline" }), // optional: the default declines
});
const github = await mcpTools(connection, { prefix: "github_", trustAnnotations: false });
github.refused; // [{ name, code, reason }]: the server's tools left out, and why
const driver = createDriver({ agent, store, tools: [...localTools, ...github.tools], reconcile: github.reconcile });
// DOCS: end

try {
  assert.deepEqual(
    github.refused.map((r) => [r.name, r.code]),
    [["bad.name", "TOOL_NAME_INVALID"]],
  );
  assert.deepEqual(
    github.tools.map((t) => t.name),
    ["github_search_issues"],
  );
  // trustAnnotations: false: the server's readOnlyHint is not trusted, so the call asks first.
  const { runId, status } = await driver.start("find the flaky tests' issues");
  assert.equal(status, "waiting");
  const approval = Object.values((await driver.state(runId)).approvals)[0]!;
  await driver.approve(runId, approval.approvalId, { requestHash: approval.requestHash, by: "ana" });
  assert.equal((await driver.resume(runId)).status, "completed");
  assert.deepEqual(
    sdk.calls.map((c) => [c.name, c.args]),
    [["search_issues", { q: "flaky" }]],
  );
  const journal = JSON.stringify(await store.read(runId));
  assert.match(journal, /2 issues match flaky/);
  assert.doesNotMatch(journal, new RegExp(key)); // the credentials are not in what the model sees (nor in the journal)
  assert.ok(credentials.length > 0 && credentials.every((c) => c === `Bearer ${key}`));
  // The session was kept in storage: a new connection (after a restart) resumes it, with no new initialization.
  assert.equal([...kept.keys()].length, 1);
  const again = await connectMcp({ url: serverUrl, http: { headers: { authorization: `Bearer ${key}` } }, sessions: kvSessions(storage) });
  assert.equal(again.resumed, true);
  assert.equal(sdk.initializes.length, 1);
  await again.close();
} finally {
  await connection.close();
  await http.close();
  await sdk.close();
}
