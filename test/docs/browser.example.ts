// docs/browser.md's example: a driver over IndexedDB (fake-indexeddb in Node; the browser example,
// examples/browser, runs the same store in Chromium: test/e2e/browser-example.test.ts). A second
// store over the same database, as another tab's, sees the run.
import "fake-indexeddb/auto";
import assert from "node:assert/strict";
import { call, calls, createDriver, final, scriptedAgent } from "../../src/index.js";
import { memoryWorkspace, workspaceTools } from "../../src/toolkit/index.js";

const { tools } = workspaceTools(memoryWorkspace({ "notes/todo.md": "- milk\n" }));
const agent = scriptedAgent([calls(call("read_file", { path: "notes/todo.md" })), final("read it")]);

// DOCS: begin
import { idbStore } from "../../adapters/idb/index.js";
const driver = createDriver({ store: idbStore({ name: "my-app", durability: "strict" }), agent, tools });
// DOCS: end

const { runId, status } = await driver.start("read the list");
assert.equal(status, "completed");
const otherTab = idbStore({ name: "my-app" });
const events = await otherTab.read(runId);
assert.equal(events.at(-1)?.type, "run.completed");
assert.ok((await indexedDB.databases()).some((d) => d.name === "my-app"));
