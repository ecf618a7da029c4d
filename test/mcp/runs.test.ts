/**
 * Run control over MCP, driven by the official SDK client: a run created,
 * read and supervised; an approval answered only with the operator scope.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, calls, createDriver, defineTool, final, memoryStore, scriptedAgent, strictObject, string, type Tool } from "../../src/index.js";
import { driverBackend } from "../../src/http/index.js";
import { mcpRunsServer, operatorOnlyText, type McpCaller } from "../../src/mcp/index.js";
import { serveFetch } from "./helpers/serve.js";

const written: string[] = [];
const writeFile = defineTool<{ path: string }>({
  name: "write_file",
  description: "Write a file.",
  inputSchema: strictObject({ path: string() }),
  sideEffect: "local_mutation",
  permission: "ask",
  timeoutMs: 1000,
  call: (a) => (written.push(a.path), "ok"),
}) as Tool<never, unknown>;
const driver = createDriver({ store: memoryStore(), agent: scriptedAgent([calls(call("write_file", { path: "a.md" })), final("done")]), tools: [writeFile] });
const server = mcpRunsServer(driverBackend(driver));
const endpoints: { close(): Promise<void> }[] = [];
const clients: Client[] = [];

async function clientFor(caller: McpCaller): Promise<Client> {
  const http = await serveFetch((r) => server.fetch(r, caller) as Promise<Response>);
  endpoints.push(http);
  const c = new Client({ name: `client-${caller.scope}`, version: "1" });
  await c.connect(new StreamableHTTPClientTransport(new URL(`${http.origin}/mcp`)));
  clients.push(c);
  return c;
}
let agent: Client;
let operator: Client;
beforeAll(async () => {
  agent = await clientFor({ scope: "run" });
  operator = await clientFor({ scope: "operator", by: "ana" });
});
afterAll(async () => {
  for (const c of clients) await c.close();
  for (const e of endpoints) await e.close();
});

const json = (r: unknown): any => JSON.parse((r as { content: { text: string }[] }).content[0]!.text);

describe("run control as MCP tools", () => {
  it("lists the operator's tools only to an operator", async () => {
    const conversation = ["isoagent_send_message", "isoagent_stop_turn", "isoagent_regenerate", "isoagent_close_conversation"];
    expect((await agent.listTools()).tools.map((t) => t.name)).toEqual([
      "isoagent_create_run",
      "isoagent_list_runs",
      "isoagent_get_run",
      "isoagent_get_events",
      "isoagent_list_approvals",
      ...conversation,
    ]);
    expect((await operator.listTools()).tools.map((t) => t.name)).toEqual([
      "isoagent_create_run",
      "isoagent_list_runs",
      "isoagent_get_run",
      "isoagent_get_events",
      "isoagent_list_approvals",
      ...conversation,
      "isoagent_answer_approval",
      "isoagent_cancel_run",
    ]);
  });

  // Issue 27, finding 6: cancel_run and answer_approval were annotated
  // destructiveHint: false, which tells a client it may call them without
  // asking. Cancelling ends a run for good; approving lets the call it
  // approved act (whatever that call does, wherever it reaches). The reads
  // touch nothing and nothing outside the runs here.
  it("annotates each tool by what it does: reads are read-only, create is additive, cancel and answer are destructive", async () => {
    const annotations = Object.fromEntries((await operator.listTools()).tools.map((t) => [t.name, t.annotations]));
    const read = { readOnlyHint: true, openWorldHint: false };
    expect(annotations).toEqual({
      isoagent_create_run: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      isoagent_list_runs: read,
      isoagent_get_run: read,
      isoagent_get_events: read,
      isoagent_list_approvals: read,
      // A message makes the agent act (once per id); a stop interrupts what the turn does; a close ends the conversation.
      isoagent_send_message: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
      isoagent_stop_turn: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
      isoagent_regenerate: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      isoagent_close_conversation: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
      isoagent_answer_approval: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
      isoagent_cancel_run: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    });
    // The run scope sees the same annotations on the tools it is listed.
    for (const t of (await agent.listTools()).tools) expect([t.name, t.annotations]).toEqual([t.name, annotations[t.name]]);
  });

  it("creates and reads a run; the run-scoped caller can never answer its approval, an operator can", async () => {
    const { runId } = json(await agent.callTool({ name: "isoagent_create_run", arguments: { task: "write a.md" } }));
    let run: any;
    for (let k = 0; k < 200; k++) {
      run = json(await agent.callTool({ name: "isoagent_get_run", arguments: { runId } }));
      if (run.status === "waiting") break;
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(run).toMatchObject({ runId, status: "waiting", step: 1 });
    const { approvals } = json(await agent.callTool({ name: "isoagent_list_approvals", arguments: { runId } }));
    expect(approvals).toHaveLength(1);
    const [a] = approvals;
    expect(a.request).toMatchObject({ tool: "write_file", args: { path: "a.md" } });
    const answer = { runId, approvalId: a.approvalId, decision: "approve", requestHash: a.requestHash };
    const refused = await agent.callTool({ name: "isoagent_answer_approval", arguments: answer });
    expect(refused.isError).toBe(true);
    expect((refused.content as { text: string }[])[0]!.text).toBe(operatorOnlyText("isoagent_answer_approval"));
    expect(operatorOnlyText("isoagent_answer_approval")).toBe(
      "Error: isoagent_answer_approval needs an operator-scoped token, and this caller holds only the run scope: it can create and read runs, never answer an approval.\n[Next: Ask an operator to answer it (the console, or the API with an operator token).]\n[Recovery: Do not retry with this token.]",
    );
    expect(written).toEqual([]);
    expect(json(await operator.callTool({ name: "isoagent_answer_approval", arguments: answer }))).toEqual({ ok: true });
    for (let k = 0; k < 200 && run.status !== "completed"; k++) {
      run = json(await agent.callTool({ name: "isoagent_get_run", arguments: { runId } }));
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(run).toMatchObject({ status: "completed", output: "done" });
    expect(written).toEqual(["a.md"]);
    const { events } = json(await agent.callTool({ name: "isoagent_get_events", arguments: { runId, from: 1, limit: 500 } }));
    expect(events.find((e: any) => e.type === "approval.resolved")).toMatchObject({ decision: "approve", by: "ana" });
  });

  it("refuses a run-scoped cancel, checks arguments, and reports an unknown run by its code", async () => {
    expect((await agent.callTool({ name: "isoagent_cancel_run", arguments: { runId: "run_x" } })).isError).toBe(true);
    const bad = await agent.callTool({ name: "isoagent_get_run", arguments: { runId: "../etc" } });
    expect([bad.isError, (bad.content as { text: string }[])[0]!.text.startsWith("Error: invalid arguments for isoagent_get_run: /runId:")]).toEqual([true, true]);
    const missing = await agent.callTool({ name: "isoagent_get_run", arguments: { runId: "run_nope" } });
    expect((missing.content as { text: string }[])[0]!.text).toMatch(/^Error: RUN_NOT_FOUND: /);
  });
});

describe("a conversation as MCP tools (issue 29)", () => {
  it("creates a conversation, sends its messages (each id taken once), stops a turn, regenerates and closes it, for a run-scoped caller", async () => {
    const chatDriver = createDriver({ store: memoryStore(), agent: scriptedAgent((view) => final(`heard ${view.transcript.length}`)), tools: [] });
    const chatServer = mcpRunsServer(driverBackend(chatDriver));
    const http = await serveFetch((r) => chatServer.fetch(r, { scope: "run" }) as Promise<Response>);
    endpoints.push(http);
    const c = new Client({ name: "chat-client", version: "1" });
    await c.connect(new StreamableHTTPClientTransport(new URL(`${http.origin}/mcp`)));
    clients.push(c);
    const call = async (name: string, args: Record<string, unknown>) => json(await c.callTool({ name, arguments: args }));
    const settled = async (runId: string, output: string) => {
      for (let k = 0; k < 500; k++) {
        const run = await call("isoagent_get_run", { runId });
        if (run.status === "idle" && run.output === output && (await chatDriver.lease(runId as never)) === null) return run;
        await new Promise((r) => setTimeout(r, 5));
      }
      throw new Error(`run ${runId} never answered ${output}`);
    };
    const { runId } = await call("isoagent_create_run", { task: "Be brief.", conversation: true });
    expect((await call("isoagent_get_run", { runId })).status).toBe("idle");
    expect(await call("isoagent_send_message", { runId, id: "m1", text: "hello" })).toMatchObject({ duplicate: false });
    await settled(runId, "heard 2");
    expect(await call("isoagent_send_message", { runId, id: "m1", text: "hello" })).toMatchObject({ duplicate: true });
    const reused = await c.callTool({ name: "isoagent_send_message", arguments: { runId, id: "m1", text: "other" } });
    expect([reused.isError, (reused as { content: { text: string }[] }).content[0]!.text]).toEqual([true, expect.stringContaining("MESSAGE_ID_REUSED")]);
    expect(await call("isoagent_stop_turn", { runId })).toEqual({ status: "idle" });
    expect(await call("isoagent_regenerate", { runId })).toEqual({ ok: true });
    await settled(runId, "heard 2");
    expect(await call("isoagent_close_conversation", { runId, reason: "done" })).toEqual({ ok: true });
    expect((await call("isoagent_get_run", { runId })).status).toBe("completed");
    const events = await chatDriver.events(runId);
    expect(events.filter((e) => e.type === "user.message")).toHaveLength(1);
    expect(events.filter((e) => e.type === "turn.regenerated")).toHaveLength(1);
  });
});
