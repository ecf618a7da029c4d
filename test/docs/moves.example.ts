// docs/moves.md's first example: a tab's run (IndexedDB, fake-indexeddb here) continued in the
// cloud and taken offline again, then mirrored. The edge is an HTTP app at the page's own origin:
// this program's fetch serves relative URLs from it, adding what the console's session would.
import "fake-indexeddb/auto";
import assert from "node:assert/strict";
import { call, calls, createDriver, defineTool, final, memoryStore, rulesPolicy, scriptedAgent, strictObject, string } from "../../src/index.js";
import { createHttpApp, driverBackend, storeMoveBackend } from "../../src/http/index.js";
import { idbStore } from "../../adapters/idb/index.js";
import { memoryWorkspace } from "../../src/toolkit/index.js";
import { toolShapes as shapesOf } from "../../src/move/index.js";

const writeFile = defineTool({
  name: "write_file",
  description: "Write a text file.",
  sideEffect: "local_mutation",
  permission: "ask",
  timeoutMs: 10_000,
  inputSchema: strictObject({ path: string(), content: string() }),
  call: (a) => `wrote ${a.path}`,
});
const tools = [writeFile];
const agent = () => scriptedAgent([calls(call("write_file", { path: "notes.md", content: "hi" })), final("done")]);
const policy = rulesPolicy([{ tool: "write_file", permission: "ask" }]);
const workspace = memoryWorkspace({ "notes.md": "" });

const token = "an-operator-token-of-32-characters-or-more";
const edgeStore = memoryStore();
const edgeDriver = createDriver({ store: edgeStore, owner: "edge-host", agent: agent(), tools, policy });
const app = createHttpApp({ backend: driverBackend(edgeDriver, { move: (drive) => storeMoveBackend(edgeStore, { place: "edge", tools: shapesOf(tools), onOwned: drive }) }), tokens: () => [token] });
const realFetch = globalThis.fetch;
globalThis.fetch = async (input, init) => {
  const url = String(input);
  assert.ok(url.startsWith("/"), `the page's own origin only: ${url}`);
  return app.request(url, { ...init, headers: { ...(init?.headers as Record<string, string>), authorization: `Bearer ${token}` } });
};
const tabDriver = createDriver({ store: idbStore(), owner: "tab", agent: agent(), tools, policy });
const { runId, status } = await tabDriver.start("write notes.md");
assert.equal(status, "waiting"); // the write asks first

// DOCS: begin
import { httpPlace, localPlace, mirrorRuns, moveRun, settleMove, toolShapes } from "../../src/move/index.js";

const tab = localPlace(idbStore(), { name: "tab:3f2c", tools: toolShapes(tools), workspace });
const edge = httpPlace({ url: "", name: "edge" }); // the page's own origin: its console session authorizes it
await moveRun(runId, tab, edge); // "Continue in the cloud"
await moveRun(runId, edge, tab); // "Take offline"
await settleMove(runId, tab, edge); // after a crash or a closed tab: one owner again
const mirror = mirrorRuns({ store: idbStore(), to: edge }); // every run the tab owns, pushed as it grows
// DOCS: end

try {
  // It went to the edge and back: the edge sealed it (run.moved), then the tab did.
  assert.deepEqual(
    (await idbStore().read(runId)).filter((e) => e.type === "run.moved").map((e) => (e as unknown as { to: string }).to),
    ["edge", "tab:3f2c"],
  );
  // The tab owns the run again (no custody: it is no copy); the edge sealed it away to the tab.
  assert.equal((await tab.head(runId))?.custody, undefined);
  assert.deepEqual(await settleMove(runId, tab, edge), { outcome: "none", owner: "tab:3f2c" });
  // The mirror pushes it to the edge, where it is a read-only copy.
  await mirror.synced(runId);
  const atEdge = await edge.head(runId);
  assert.equal(atEdge?.custody?.role, "mirror");
  assert.equal(atEdge?.seq, (await tab.head(runId))?.seq);
  assert.equal((await edgeStore.read(runId)).length, atEdge?.seq);
} finally {
  await mirror.stop();
  globalThis.fetch = realFetch;
}
