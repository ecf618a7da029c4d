// docs/tools/web_search.md's example: web_search over Brave Search (or Tavily), at their default
// endpoints, which this program's fetch sends to local servers speaking their wire formats.
import assert from "node:assert/strict";
import { call, calls, createDriver, final, memoryStore, scriptedAgent, type JournalEvent, type Tool } from "../../src/index.js";
import { BRAVE_KEY, startSearchServers, TAVILY_KEY } from "../helpers/search-servers.js";

const env = { BRAVE_API_KEY: BRAVE_KEY, TAVILY_API_KEY: TAVILY_KEY };
const { brave, tavily } = await startSearchServers();
const realFetch = globalThis.fetch;
const hosts: Record<string, string> = { "api.search.brave.com": brave.url, "api.tavily.com": tavily.url };
globalThis.fetch = (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  const local = hosts[url.host];
  assert.ok(local !== undefined, `no network here: ${url.host}`);
  return realFetch(`${local}${url.pathname}${url.search}`, init);
};

// DOCS: begin
import { webSearchTool, braveSearch, tavilySearch } from "../../src/toolkit/search/index.js";

const search = webSearchTool({ provider: braveSearch({ apiKey: env.BRAVE_API_KEY }) });
// or: webSearchTool({ provider: tavilySearch({ apiKey: env.TAVILY_API_KEY }), maxResults: 5 })
// DOCS: end

async function observed(tool: Tool<never, unknown>): Promise<string> {
  const store = memoryStore();
  const driver = createDriver({ store, tools: [tool], agent: scriptedAgent([calls(call("web_search", { query: "durable agents", count: 2 })), final("found")]) });
  const { runId, status } = await driver.start("search");
  assert.equal(status, "completed"); // read_only, allow: no approval
  const done = (await store.read(runId)).find((e: JournalEvent) => e.type === "call.finished") as unknown as { observation: unknown };
  return JSON.stringify(done.observation);
}
try {
  assert.equal(search.sideEffect, "read_only");
  assert.match(await observed(search), /Durable execution for agents/);
  assert.deepEqual(
    brave.requests.map((r) => [r.method, r.path, r.key]),
    [["GET", "/res/v1/web/search", BRAVE_KEY]],
  );
  assert.match(await observed(webSearchTool({ provider: tavilySearch({ apiKey: env.TAVILY_API_KEY }), maxResults: 5 })), /Journals and replay/);
  assert.deepEqual(
    tavily.requests.map((r) => [r.method, r.path, r.key]),
    [["POST", "/search", TAVILY_KEY]],
  );
} finally {
  globalThis.fetch = realFetch;
  await brave.close();
  await tavily.close();
}
