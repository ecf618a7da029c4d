// docs/http.md's preview example: a tool's diff, journaled inside the approval request the operator sees.
import assert from "node:assert/strict";
import { call, calls, createDriver, defineTool, final, scriptedAgent, strictObject, string } from "../../src/index.js";
import { pendingApprovals } from "../../src/journal/index.js";

const files = new Map<string, string>([["notes/todo.md", "- milk\n"]]);
const readFile = (path: string): string | undefined => files.get(path);
const writeFile = (path: string, content: string) => (files.set(path, content), `wrote ${path}`);

// DOCS: begin
import { lineDiff } from "../../src/tools/index.js";

const write = defineTool({
  name: "write_file",
  description: "Write a text file.",
  sideEffect: "local_mutation",
  permission: "ask",
  timeoutMs: 10_000,
  inputSchema: strictObject({ path: string(), content: string() }),
  preview: (a) => lineDiff(a.path, readFile(a.path), a.content), // readFile: undefined for a new file (--- /dev/null)
  call: (a) => writeFile(a.path, a.content),
});
// DOCS: end

const agent = scriptedAgent([calls(call("write_file", { path: "notes/todo.md", content: "- milk\n- eggs\n" }), call("write_file", { path: "notes/new.md", content: "hello\n" })), final("done")]);
const driver = createDriver({ tools: [write], agent });
const { runId, status } = await driver.start("update the notes");
assert.equal(status, "waiting");
const asked = pendingApprovals(await driver.state(runId));
assert.deepEqual(
  asked.map((a) => a.request.preview),
  ["--- a/notes/todo.md\n+++ b/notes/todo.md\n@@ -1 +1,2 @@\n - milk\n+- eggs\n", "--- /dev/null\n+++ b/notes/new.md\n@@ -0,0 +1 @@\n+hello\n"],
);
for (const a of asked) await driver.approve(runId, a.approvalId, { requestHash: a.requestHash, by: "ana" });
assert.equal((await driver.resume(runId)).status, "completed");
assert.equal(files.get("notes/new.md"), "hello\n");
