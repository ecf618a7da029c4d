/**
 * mcpServer against the official SDK's client (v2) on loopback: every call
 * through the same gate as a driver's (checkArgs's exact text, the policy,
 * the timeout, cleaning, redaction, the cap), an `ask` tool refused (nobody
 * can approve over MCP), progress on the call's SSE stream, cancellation,
 * DNS-rebinding and protocol checks. Run control has its own file.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineTool, integer, rulesPolicy, strictObject, string, ToolError, type Tool } from "../../src/index.js";
import { checkArgs } from "../../src/tools/index.js";
import { mcpServer, type McpServer } from "../../src/mcp/index.js";
import { serveFetch } from "./helpers/serve.js";

const seen: { key: string; aborted: boolean }[] = [];
let release: (() => void) | undefined;
const tools = [
  defineTool<{ a: number; b: number }>({
    name: "add",
    description: "Add two integers.",
    inputSchema: strictObject({ a: integer("First"), b: integer("Second") }),
    sideEffect: "read_only",
    timeoutMs: 1000,
    call: (x, ctx) => (seen.push({ key: ctx.idempotencyKey, aborted: false }), { sum: x.a + x.b }),
  }),
  defineTool<{ text: string }>({
    name: "shout",
    description: "Upper-cases \u001b[31mtext\u001b[0m.",
    inputSchema: strictObject({ text: string() }),
    sideEffect: "read_only",
    timeoutMs: 1000,
    call: (x) => `${x.text.toUpperCase()} \u001b[2J with the key sk-proj-abcdefghijklmnopqrstuvwx`,
  }),
  defineTool({ name: "huge", description: "A huge answer.", inputSchema: strictObject({}), sideEffect: "read_only", timeoutMs: 1000, call: () => "x".repeat(200_000) }),
  defineTool({
    name: "boom",
    description: "Throws.",
    inputSchema: strictObject({}),
    sideEffect: "read_only",
    timeoutMs: 1000,
    call: () => {
      throw new Error("/home/ana/.ssh/id_rsa: ENOENT");
    },
  }),
  defineTool({
    name: "refuses",
    description: "Refuses in its own words.",
    inputSchema: strictObject({}),
    sideEffect: "read_only",
    timeoutMs: 1000,
    call: () => {
      throw new ToolError("the queue is empty", { next: "Add an item first." });
    },
  }),
  defineTool({
    name: "slow",
    description: "Slow.",
    inputSchema: strictObject({}),
    sideEffect: "read_only",
    timeoutMs: 200,
    call: (_a, ctx) => new Promise((r) => ctx.signal.addEventListener("abort", () => r("late"))),
  }),
  defineTool({
    name: "waits",
    description: "Waits until released or cancelled.",
    inputSchema: strictObject({}),
    sideEffect: "read_only",
    timeoutMs: 30_000,
    call: (_a, ctx) =>
      new Promise((r) => {
        ctx.signal.addEventListener("abort", () => (seen.push({ key: "waits", aborted: true }), r("cancelled")));
        release = () => r("released");
      }),
  }),
  defineTool({
    name: "steps",
    description: "Reports progress.",
    inputSchema: strictObject({}),
    sideEffect: "read_only",
    timeoutMs: 5000,
    call: async (_a, ctx) => {
      for (const n of [0, 50, 100]) {
        ctx.progress({ progress: n, total: 100, message: `at ${n} \u001b[1m%\u001b[0m` });
        await new Promise((r) => setTimeout(r, 20));
      }
      return "stepped";
    },
  }),
  defineTool<{ path: string }>({
    name: "write_note",
    description: "Writes a note.",
    inputSchema: strictObject({ path: string() }),
    sideEffect: "local_mutation",
    permission: "allow",
    timeoutMs: 1000,
    resources: (a) => [{ kind: "path", value: a.path }],
    call: () => "written",
  }),
  defineTool({ name: "send_email", description: "Sends an email.", inputSchema: strictObject({}), sideEffect: "remote_mutation", permission: "ask", timeoutMs: 1000, call: () => "sent" }),
  defineTool({ name: "wipe", description: "Wipes everything.", inputSchema: strictObject({}), sideEffect: "destructive", permission: "deny", timeoutMs: 1000, call: () => "wiped" }),
] as Tool<never, unknown>[];

let server: McpServer;
let http: { origin: string; close(): Promise<void> };
let client: Client;
beforeAll(async () => {
  server = mcpServer({
    tools,
    policy: rulesPolicy([
      { resource: { kind: "path", match: "secret/**" }, permission: "deny" },
      { resource: { kind: "path", match: "ask/**" }, permission: "ask" },
    ]),
    secrets: [],
  });
  http = await serveFetch((r) => server.fetch(r) as Promise<Response>);
  client = new Client({ name: "sdk-client", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${http.origin}/mcp`)));
});
afterAll(async () => {
  await client?.close();
  await http?.close();
});

const textOf = (r: unknown): string => (r as { content: { text: string }[] }).content[0]!.text;

describe("mcpServer, as the official SDK client sees it", () => {
  it("lists the tools it can call, with annotations from their side effect classes; deny and ask tools are not listed", async () => {
    const { tools: listed } = await client.listTools();
    expect(listed.map((t) => [t.name, t.annotations])).toEqual([
      ["add", { readOnlyHint: true }],
      ["shout", { readOnlyHint: true }],
      ["huge", { readOnlyHint: true }],
      ["boom", { readOnlyHint: true }],
      ["refuses", { readOnlyHint: true }],
      ["slow", { readOnlyHint: true }],
      ["waits", { readOnlyHint: true }],
      ["steps", { readOnlyHint: true }],
      ["write_note", { readOnlyHint: false, destructiveHint: false, openWorldHint: false }],
    ]);
    expect(listed[0]!.inputSchema).toEqual({
      type: "object",
      properties: { a: { type: "integer", description: "First" }, b: { type: "integer", description: "Second" } },
      required: ["a", "b"],
      additionalProperties: false,
    });
  });

  it("calls a tool: its JSON result as text and structuredContent; the caller's idempotency key reaches the tool, namespaced", async () => {
    const r = await client.callTool({ name: "add", arguments: { a: 2, b: 3 }, _meta: { "io.isoagent/idempotencyKey": "run_9:1:c1" } });
    expect(r).toMatchObject({ content: [{ type: "text", text: '{"sum":5}' }], structuredContent: { sum: 5 } });
    expect(r.isError).toBeUndefined();
    expect(seen.at(-1)?.key).toBe("mcp:run_9:1:c1");
  });

  it("checks the arguments with checkArgs's exact text", async () => {
    const r = await client.callTool({ name: "add", arguments: { a: 2, b: "3" } });
    expect(r.isError).toBe(true);
    const expected = checkArgs(tools[0]!, '{"a":2,"b":"3"}');
    expect(expected.valid).toBe(false);
    expect(textOf(r)).toBe((expected as { text: string }).text);
    expect(textOf(r).startsWith("Error: invalid arguments for add: at /b: expected integer, got string\n[Next: ")).toBe(true);
  });

  it("cleans, redacts and caps results as the driver does", async () => {
    expect(textOf(await client.callTool({ name: "shout", arguments: { text: "hi" } }))).toBe("HI  with the key [REDACTED]\n[Cleaned: 1 terminal escape sequence removed.]");
    const huge = textOf(await client.callTool({ name: "huge", arguments: {} }));
    expect(huge.length).toBeLessThan(70_000);
    expect(huge).toContain("[truncated: showing the last 65536 of 200000 bytes; the rest was not kept]");
  });

  it("reports a thrown error generically and a ToolError in its own words", async () => {
    const boom = await client.callTool({ name: "boom", arguments: {} });
    expect([boom.isError, textOf(boom)]).toEqual([
      true,
      "Error: boom failed unexpectedly.\n[Next: Try another approach, or call boom again with different arguments.]\n[Recovery: If it fails again, stop and report the failure.]",
    ]);
    expect(textOf(await client.callTool({ name: "refuses", arguments: {} }))).toBe(
      "Error: the queue is empty\n[Next: Add an item first.]\n[Recovery: If the same error comes back, stop and report it instead of retrying.]",
    );
  });

  it("cancels a call past its timeout", async () => {
    const r = await client.callTool({ name: "slow", arguments: {} });
    expect([r.isError, textOf(r)]).toEqual([
      true,
      "Error: slow did not finish within 200 ms and was cancelled.\n[Next: Call slow again, asking for less if you can.]\n[Recovery: If it times out again, stop and report it.]",
    ]);
  });

  it("puts the policy between the caller and the tool: deny is the gate's denial; ask is refused, since nobody can approve over MCP", async () => {
    const denied = await client.callTool({ name: "write_note", arguments: { path: "secret/x" } });
    expect([denied.isError, textOf(denied)]).toEqual([
      true,
      "Error: permission denied: write_note is not allowed for `secret/x`.\n[Next: Do not call write_note with these arguments again.]\n[Recovery: If the task cannot be done without it, stop and say which permission is missing.]",
    ]);
    const asked = await client.callTool({ name: "write_note", arguments: { path: "ask/x" } });
    expect([asked.isError, textOf(asked)]).toEqual([
      true,
      "Error: write_note needs an operator's approval for this call, and a call through MCP cannot get one: the caller can never approve its own call.\n[Next: Do not call write_note this way again; use a tool that does not need approval, or ask a person to run it.]\n[Recovery: If the task cannot be done without it, stop and say that write_note needs an operator's approval.]",
    ]);
    const ask = await client.callTool({ name: "send_email", arguments: {} });
    expect(textOf(ask)).toContain("send_email needs an operator's approval");
    expect(textOf(await client.callTool({ name: "write_note", arguments: { path: "notes/a" } }))).toBe("written");
    await expect(client.callTool({ name: "wipe", arguments: {} })).rejects.toThrow(/Unknown tool/);
  });

  it("sends a call's progress on its own SSE stream, cleaned", async () => {
    const heard: unknown[] = [];
    const r = await client.callTool({ name: "steps", arguments: {} }, { onprogress: (p) => heard.push(p) });
    expect(textOf(r)).toBe("stepped");
    expect(heard).toEqual([
      { progress: 0, total: 100, message: "at 0 %" },
      { progress: 50, total: 100, message: "at 50 %" },
      { progress: 100, total: 100, message: "at 100 %" },
    ]);
  });

  it("aborts a call when the client cancels it (notifications/cancelled)", async () => {
    const controller = new AbortController();
    const pending = client.callTool({ name: "waits", arguments: {} }, { signal: controller.signal });
    for (let k = 0; k < 200 && release === undefined; k++) await new Promise((r) => setTimeout(r, 10));
    controller.abort();
    await expect(pending).rejects.toThrow();
    for (let k = 0; k < 200 && !seen.some((s) => s.key === "waits"); k++) await new Promise((r) => setTimeout(r, 10));
    expect(seen.filter((s) => s.key === "waits")).toEqual([{ key: "waits", aborted: true }]);
  });
});

describe("the endpoint's HTTP rules", () => {
  const post = (body: string, headers: Record<string, string> = {}) =>
    fetch(`${http.origin}/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers }, body });
  const init = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } });

  it("initializes: negotiates the client's version when supported, gives a session id", async () => {
    const res = await post(init);
    expect(res.status).toBe(200);
    expect(res.headers.get("mcp-session-id")).toMatch(/^mcp_[0-9a-f-]{36}$/);
    expect(await res.json()).toEqual({
      jsonrpc: "2.0",
      id: 1,
      result: { protocolVersion: "2025-06-18", capabilities: { tools: { listChanged: false } }, serverInfo: { name: "isoagent", version: "0.1.0" } },
    });
  });

  it("refuses other origins (DNS rebinding) with 403, and with allowedHosts, other Host headers", async () => {
    expect((await post(init, { origin: "http://evil.example.com" })).status).toBe(403);
    expect((await post(init, { origin: http.origin })).status).toBe(200);
    const strict = mcpServer({ tools, allowedHosts: ["localhost:1"] });
    const s = await serveFetch((r) => strict.fetch(r) as Promise<Response>);
    const res = await fetch(`${s.origin}/mcp`, { method: "POST", headers: { "content-type": "application/json" }, body: init });
    expect(res.status).toBe(403);
    await s.close();
  });

  it("answers GET and DELETE with 405, an unsupported protocol version with 400, other content types with 415, a too large body with 413, a batch or broken JSON with 400", async () => {
    expect((await fetch(`${http.origin}/mcp`, { headers: { accept: "text/event-stream" } })).status).toBe(405);
    expect((await fetch(`${http.origin}/mcp`, { method: "DELETE" })).status).toBe(405);
    expect((await post(init, { "mcp-protocol-version": "1999-01-01" })).status).toBe(400);
    expect((await post(init, { "content-type": "text/plain" })).status).toBe(415);
    expect((await post(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: { pad: "x".repeat(2 * 1024 * 1024) } }))).status).toBe(413);
    const batch = await post(`[${init}]`);
    expect(batch.status).toBe(400);
    expect((await batch.json()).error.code).toBe(-32600);
    const broken = await post('{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}');
    expect(broken.status).toBe(400);
    expect((await broken.json()).error).toMatchObject({ code: -32700, message: expect.stringContaining("duplicate key") });
  });

  it("accepts notifications with 202 and answers unknown methods with -32601", async () => {
    expect((await post(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }))).status).toBe(202);
    expect((await (await post(JSON.stringify({ jsonrpc: "2.0", id: 7, method: "resources/list" }))).json()).error.code).toBe(-32601);
  });
});
