/**
 * Sessions: kept where the application says (a run object's storage on
 * Cloudflare), resumed on reconnection without a new initialization, and
 * started anew, transparently, when the server has ended them (HTTP 404).
 * The Worker restart itself is tested in workerd (test/workerd/mcp.test.ts).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { connectMcp, kvSessions, mcpTools, memorySessions, type McpSessionState } from "../../src/mcp/index.js";
import { startSdkServer, tool, type SdkServer } from "./helpers/sdk-server.js";
import { bareContext } from "./helpers/run.js";

const obj = { type: "object", properties: {}, required: [] };
let server: SdkServer;
beforeEach(async () => {
  server = await startSdkServer([
    tool({ name: "ping_me", description: "Answers.", inputSchema: obj, annotations: { readOnlyHint: true } }, (_a, ctx) => ({ content: [{ type: "text", text: `session ${ctx.sessionId}` }] })),
  ]);
});
afterEach(() => server.close());

describe("MCP sessions", () => {
  it("a connection with a kept session resumes it: no new initialization, the same session id on its requests", async () => {
    const sessions = memorySessions();
    const first = await connectMcp({ url: server.url, sessions });
    const id = first.sessionId;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(first.resumed).toBe(false);
    await first.close();
    const second = await connectMcp({ url: server.url, sessions });
    expect(second.resumed).toBe(true);
    expect(second.sessionId).toBe(id);
    expect(second.serverInfo).toEqual({ name: "sdk-test-server", version: "1.0.0" });
    const set = await mcpTools(second);
    expect(await set.tools[0]!.call({} as never, bareContext())).toContain(`session ${id}`);
    expect(server.initializes).toHaveLength(1);
    expect([...server.sessionsSeen]).toEqual([id]);
    await second.close();
  });

  it("when the server has ended the session (404) a new one is started and the request goes through, once; the new session is kept", async () => {
    const sessions = memorySessions();
    const c = await connectMcp({ url: server.url, sessions });
    const set = await mcpTools(c);
    const old = c.sessionId;
    const generation = c.generation;
    server.forgetSessions();
    const out = await set.tools[0]!.call({} as never, bareContext());
    expect(c.sessionId).not.toBe(old);
    expect(out).toContain(`session ${c.sessionId}`);
    expect(server.initializes).toHaveLength(2);
    expect(c.generation).toBe(generation + 1);
    expect(((await sessions.get(server.url)) as McpSessionState).sessionId).toBe(c.sessionId);
    await c.close();
  });

  it("kvSessions keeps them in any asynchronous key-value store (a run object's storage), under a prefix", async () => {
    const map = new Map<string, unknown>();
    const kv = { get: async (k: string) => map.get(k), put: async (k: string, v: unknown) => void map.set(k, v), delete: async (k: string) => map.delete(k) };
    const c = await connectMcp({ url: server.url, sessions: kvSessions(kv), sessionKey: "weather" });
    expect([...map.keys()]).toEqual(["isoagent.mcp.session:weather"]);
    expect(map.get("isoagent.mcp.session:weather")).toMatchObject({ v: 1, sessionId: c.sessionId, protocolVersion: "2025-11-25", serverInfo: { name: "sdk-test-server", version: "1.0.0" } });
    await c.close({ terminate: true });
    expect(map.size).toBe(0);
  });

  it("a kept value that is not a session is ignored: a new one is initialized", async () => {
    const sessions = memorySessions();
    await sessions.set(server.url, { v: 2, sessionId: 5 } as never);
    const c = await connectMcp({ url: server.url, sessions });
    expect(c.resumed).toBe(false);
    expect(server.initializes).toHaveLength(1);
    await c.close();
  });
});
