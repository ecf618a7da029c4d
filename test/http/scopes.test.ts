/**
 * The HTTP API's two scopes: an operator token does everything (a deployment
 * with one token keeps working: it is that token); a run token creates and
 * reads runs and can never answer an approval, reconcile or cancel, over the
 * API or over MCP at /mcp; the console logs in with operator tokens only.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { call, calls, createDriver, defineTool, final, memoryStore, scriptedAgent, strictObject, string, type Tool } from "../../src/index.js";
import { sequentialIds } from "../../src/testkit/index.js";
import { createHttpApp, driverBackend } from "../../src/http/index.js";
import { mcpRunsServer } from "../../src/mcp/index.js";
import { serveFetch } from "../mcp/helpers/serve.js";

const OPERATOR = "operator-token-0123456789abcdef";
const RUN = "run-token-0123456789abcdef-agent";
const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
const post = (body: unknown, t: string): RequestInit => ({ method: "POST", headers: { ...bearer(t), "content-type": "application/json" }, body: JSON.stringify(body) });

function setup(runTokens: boolean) {
  const written: string[] = [];
  const write = defineTool<{ path: string }>({
    name: "write_file",
    description: "Write a file.",
    inputSchema: strictObject({ path: string() }),
    sideEffect: "local_mutation",
    permission: "ask",
    timeoutMs: 1000,
    call: (a) => (written.push(a.path), "ok"),
  });
  const driver = createDriver({
    store: memoryStore(),
    ids: sequentialIds(),
    agent: scriptedAgent([calls(call("write_file", { path: "a.md" })), final("done")]),
    tools: [write as Tool<never, unknown>],
  });
  const backend = driverBackend(driver);
  const app = createHttpApp({ backend, tokens: () => [OPERATOR], ...(runTokens ? { runTokens: () => [RUN] } : {}), mcp: mcpRunsServer(backend) });
  return { app, written };
}

async function waiting(app: ReturnType<typeof setup>["app"], runId: string, t: string): Promise<{ approvalId: string; requestHash: string }> {
  for (let k = 0; k < 200; k++) {
    const { run } = (await (await app.request(`/runs/${runId}`, { headers: bearer(t) })).json()) as { run: { status: string; approvals: { approvalId: string; requestHash: string }[] } };
    if (run.status === "waiting") return run.approvals[0]!;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error("never waited");
}

describe("the HTTP API's scopes", () => {
  it("a run token creates and reads runs, and gets 403 OPERATOR_SCOPE_REQUIRED on answering, reconciling and cancelling", async () => {
    const { app, written } = setup(true);
    const created = await app.request("/runs", post({ task: "write" }, RUN));
    expect(created.status).toBe(201);
    const { runId } = (await created.json()) as { runId: string };
    const a = await waiting(app, runId, RUN);
    expect((await app.request(`/runs/${runId}/approvals`, { headers: bearer(RUN) })).status).toBe(200);
    expect((await app.request(`/runs/${runId}/events`, { headers: bearer(RUN) })).status).toBe(200);
    expect((await app.request("/runs", { headers: bearer(RUN) })).status).toBe(200);
    for (const [path, body] of [
      [`/runs/${runId}/approvals/${a.approvalId}`, { decision: "approve", requestHash: a.requestHash }],
      [`/runs/${runId}/reconcile`, { approvalId: a.approvalId, requestHash: a.requestHash, resolution: "run_again" }],
      [`/runs/${runId}/cancel`, {}],
    ] as const) {
      const res = await app.request(path, post(body, RUN));
      expect([path, res.status, (await res.json()) as unknown]).toEqual([
        path,
        403,
        { error: { code: "OPERATOR_SCOPE_REQUIRED", message: "this token may create and read runs, not answer approvals, reconcile or cancel: that needs an operator token" } },
      ]);
    }
    expect(written).toEqual([]);
    expect((await app.request(`/runs/${runId}/approvals/${a.approvalId}`, post({ decision: "approve", requestHash: a.requestHash }, OPERATOR))).status).toBe(200);
    for (let k = 0; k < 200 && written.length === 0; k++) await new Promise((r) => setTimeout(r, 5));
    expect(written).toEqual(["a.md"]);
  });

  it("a deployment with one token keeps working: it has both scopes; a run token is refused where none is configured", async () => {
    const { app } = setup(false);
    const { runId } = (await (await app.request("/runs", post({ task: "write" }, OPERATOR))).json()) as { runId: string };
    const a = await waiting(app, runId, OPERATOR);
    expect((await app.request(`/runs/${runId}/approvals/${a.approvalId}`, post({ decision: "approve", requestHash: a.requestHash }, OPERATOR))).status).toBe(200);
    expect((await app.request("/runs", { headers: bearer(RUN) })).status).toBe(401);
  });

  it("the console logs in with operator tokens only", async () => {
    const { app } = setup(true);
    const login = (token: string) => app.request("/login", { method: "POST", headers: { "content-type": "application/json", origin: "http://localhost" }, body: JSON.stringify({ token }) });
    expect((await login(RUN)).status).toBe(401);
    expect((await login(OPERATOR)).status).toBe(204);
  });

  it("over MCP at /mcp, behind the same tokens: the run token can never answer an approval, the operator token can", async () => {
    const { app, written } = setup(true);
    const http = await serveFetch((r) => app.fetch(r));
    const connect = async (t: string) => {
      const c = new Client({ name: "c", version: "1" });
      await c.connect(new StreamableHTTPClientTransport(new URL(`${http.origin}/mcp`), { requestInit: { headers: bearer(t) } }));
      return c;
    };
    try {
      const unauthenticated = await fetch(`${http.origin}/mcp`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
      expect(unauthenticated.status).toBe(401);
      const agent = await connect(RUN);
      const operator = await connect(OPERATOR);
      const text = (r: unknown) => (r as { content: { text: string }[] }).content[0]!.text;
      const { runId } = JSON.parse(text(await agent.callTool({ name: "isoagent_create_run", arguments: { task: "write" } })));
      const a = await waiting(app, runId, OPERATOR);
      const args = { runId, approvalId: a.approvalId, decision: "approve", requestHash: a.requestHash };
      const refused = await agent.callTool({ name: "isoagent_answer_approval", arguments: args });
      expect([refused.isError, text(refused).startsWith("Error: isoagent_answer_approval needs an operator-scoped token")]).toEqual([true, true]);
      expect(written).toEqual([]);
      expect(JSON.parse(text(await operator.callTool({ name: "isoagent_answer_approval", arguments: args })))).toEqual({ ok: true });
      for (let k = 0; k < 200 && written.length === 0; k++) await new Promise((r) => setTimeout(r, 5));
      expect(written).toEqual(["a.md"]);
      await agent.close();
      await operator.close();
    } finally {
      await http.close();
    }
  });
});
