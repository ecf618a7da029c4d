// docs/tools/bash.md's example: bash beside the workspace tools, over one workspace; it asks first.
import assert from "node:assert/strict";
import { call, calls, createDriver, final, memoryStore, scriptedAgent } from "../../src/index.js";
import { pendingApprovals } from "../../src/journal/index.js";
import { memoryWorkspace, workspaceTools } from "../../src/toolkit/index.js";

const ws = memoryWorkspace({ "notes/todo.md": "- milk\n" });
const store = memoryStore();
const agent = scriptedAgent([calls(call("bash", { command: "cat notes/todo.md > notes/copy.md && echo '- eggs' >> notes/copy.md" })), final("copied")]);

// DOCS: begin
import { bashTool } from "../../src/toolkit/bash/index.js";

const bash = bashTool({ workspace: ws });
const driver = createDriver({ store, agent, tools: [...workspaceTools(ws).tools, bash.tool], reconcile: bash.reconcile });
// DOCS: end

const { runId, status } = await driver.start("copy the list");
assert.equal(status, "waiting"); // bash asks by default
for (const a of pendingApprovals(await driver.state(runId))) await driver.approve(runId, a.approvalId, { requestHash: a.requestHash, by: "ana" });
assert.equal((await driver.resume(runId)).status, "completed");
assert.equal(new TextDecoder().decode(await ws.read("notes/copy.md")), "- milk\n- eggs\n");
