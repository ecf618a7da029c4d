// docs/mcp.md's server example: isoagent's tools and runs served over MCP at /mcp, behind the
// HTTP app's tokens, called here by isoagent's own MCP client through the app's fetch.
import assert from "node:assert/strict";
import { call, calls, createDriver, defineTool, final, memoryStore, rulesPolicy, scriptedAgent, strictObject, string } from "../../src/index.js";
import { connectMcp, mcpTools } from "../../src/mcp/index.js";
import { bareContext } from "../mcp/helpers/run.js";

const operatorToken = "an-operator-token-of-32-characters-or-more";
const agentToken = "an-agent-token-of-32-characters-or-more-too";
const notes = new Map([
  ["notes/todo.md", "- milk\n"],
  ["secret/keys.md", "hunter2\n"],
]);
const searchNotes = defineTool({
  name: "search_notes",
  description: "Searches the notes.",
  sideEffect: "read_only",
  timeoutMs: 1000,
  inputSchema: strictObject({ q: string() }),
  call: (a) => [...notes.keys()].filter((p) => notes.get(p)!.includes(a.q)),
});
const readFile = defineTool({
  name: "read_file",
  description: "Reads a note.",
  sideEffect: "read_only",
  timeoutMs: 1000,
  inputSchema: strictObject({ path: string() }),
  resources: (a) => [{ kind: "path", value: a.path }],
  call: (a) => notes.get(a.path) ?? "no such note",
});
const policy = rulesPolicy([{ resource: { kind: "path", match: "secret/**" }, permission: "deny" }]);
const writeNote = defineTool({
  name: "write_note",
  description: "Writes a note.",
  sideEffect: "local_mutation",
  permission: "ask",
  timeoutMs: 1000,
  inputSchema: strictObject({ path: string() }),
  call: () => "written",
});
const driver = createDriver({ store: memoryStore(), agent: scriptedAgent([calls(call("write_note", { path: "notes/new.md" })), final("done")]), tools: [writeNote] });

// DOCS: begin
import { createHttpApp, driverBackend } from "../../src/http/index.js";
import { mcpServer } from "../../src/mcp/index.js";

const backend = driverBackend(driver);
const app = createHttpApp({
  backend,
  tokens: () => [operatorToken], // both scopes
  runTokens: () => [agentToken], // create and read runs only
  mcp: mcpServer({ tools: [searchNotes, readFile], policy, runs: backend }),
});
// POST /mcp, behind the same bearer tokens; on Workers: workerApp(env, { mcp: (backend) => mcpRunsServer(backend) })
// DOCS: end

const as = (token: string) =>
  connectMcp({ url: "http://localhost/mcp", http: { headers: { authorization: `Bearer ${token}` }, fetch: (url, init) => app.request(url, init as RequestInit) as never } });
const outcome = (p: Promise<unknown>) => p.then(String, (e: Error) => `refused: ${e.message}`);

assert.equal((await app.request("/mcp", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).status, 401);
for (const token of [operatorToken, agentToken]) {
  const connection = await as(token);
  const { tools } = await mcpTools(connection);
  const byName = new Map(tools.map((t) => [t.name, t]));
  assert.ok(byName.has("search_notes") && byName.has("isoagent_create_run"));
  assert.match(await outcome(Promise.resolve(byName.get("read_file")!.call({ path: "notes/todo.md" } as never, bareContext()))), /- milk/);
  assert.doesNotMatch(await outcome(Promise.resolve(byName.get("read_file")!.call({ path: "secret/keys.md" } as never, bareContext()))), /hunter2/); // the policy denies it
  assert.match(await outcome(Promise.resolve(byName.get("read_file")!.call({ path: "secret/keys.md" } as never, bareContext()))), /denied|deny/i);
  // The agent's token creates and reads runs, and talks with conversations; answering and cancelling are the operator's (not even listed for the agent).
  const runTools = tools.map((t) => t.name).filter((n) => n.startsWith("isoagent_"));
  const reading = ["isoagent_create_run", "isoagent_list_runs", "isoagent_get_run", "isoagent_get_events", "isoagent_list_approvals"];
  // A conversation's user sends its messages and controls its turns (docs/conversations.md).
  reading.push("isoagent_send_message", "isoagent_stop_turn", "isoagent_regenerate", "isoagent_close_conversation");
  assert.deepEqual(runTools, token === agentToken ? reading : [...reading, "isoagent_answer_approval", "isoagent_cancel_run"]);
  const created = await outcome(Promise.resolve(byName.get("isoagent_create_run")!.call({ task: "from MCP" } as never, bareContext())));
  assert.match(created, /run_/);
  if (token === operatorToken) {
    const { runId } = await driver.start("a run to cancel");
    await byName.get("isoagent_cancel_run")!.call({ runId } as never, bareContext());
    assert.equal((await driver.state(runId)).status, "cancelled");
  }
  await connection.close();
}
