// docs/tools/README.md's example: the default toolkit over a memory workspace.
import assert from "node:assert/strict";
import { createDriver, final, scriptedAgent } from "../../src/index.js";

const agent = scriptedAgent([final("done")]);

// DOCS: begin
import { workspaceTools, memoryWorkspace, httpFetchTool, taskCompleteTool, askUserTool } from "../../src/toolkit/index.js";

const { tools, reconcile } = workspaceTools(memoryWorkspace({ "notes/todo.md": "- milk\n" }));
const driver = createDriver({
  agent,
  reconcile,
  tools: [...tools, httpFetchTool({ allow: ["api.github.com"] }), taskCompleteTool(), askUserTool()],
});
// DOCS: end

// The tools of the page's table, less bash and web_search (entries of their own).
assert.deepEqual([...tools, httpFetchTool({ allow: ["api.github.com"] }), taskCompleteTool(), askUserTool()].map((t) => t.name).sort(), [
  "apply_patch",
  "ask_user",
  "edit_file",
  "http_fetch",
  "list_files",
  "read_file",
  "search_files",
  "task_complete",
  "write_file",
]);
// The table's classes and default permissions (none given is allow).
const table = Object.fromEntries([...tools, httpFetchTool({ allow: ["api.github.com"] }), taskCompleteTool(), askUserTool()].map((t) => [t.name, `${t.sideEffect} ${t.permission ?? "allow"}`]));
assert.deepEqual(table, {
  read_file: "read_only allow",
  write_file: "local_mutation ask",
  edit_file: "local_mutation ask",
  apply_patch: "local_mutation ask",
  list_files: "read_only allow",
  search_files: "read_only allow",
  http_fetch: "read_only allow",
  task_complete: "read_only allow",
  ask_user: "read_only ask",
});
assert.equal((await driver.start("nothing to do")).status, "completed");
