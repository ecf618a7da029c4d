// docs/approvals.md's examples, run by test/docs/examples.test.ts: each
// region is shown verbatim there (with the package's import paths); what
// follows a region checks what its comments say.
import assert from "node:assert/strict";
import type { Observation } from "../../src/journal/index.js";

// DOCS: begin
import { call, calls, createDriver, defineTool, final, isIsoagentError, memoryStore, scriptedAgent, strictObject, string } from "../../src/index.js";
import { lineDiff } from "../../src/tools/index.js";

const files = new Map([["notes.md", "- milk\n"]]);
const writeFile = defineTool({
  name: "write_file",
  description: "Write a text file.",
  sideEffect: "local_mutation",
  permission: "ask",
  timeoutMs: 10_000,
  inputSchema: strictObject({ path: string(), content: string() }),
  resources: (a) => [{ kind: "path", value: a.path }],
  preview: (a) => lineDiff(a.path, files.get(a.path), a.content), // shown to the operator, covered by the hash
  call: (a) => void files.set(a.path, a.content),
});
const driver = createDriver({
  store: memoryStore(),
  tools: [writeFile],
  policyVersion: "v1",
  agent: scriptedAgent([calls(call("write_file", { path: "notes.md", content: "- oat milk\n" })), final("done")]),
});

const outcome = await driver.start("tidy the notes"); // outcome.status === "waiting"
const [a] = outcome.approvals;
a!.request.tool; // "write_file"
a!.request.args; // { path: "notes.md", content: "- oat milk\n" }
a!.request.resources; // [{ kind: "path", value: "notes.md" }]
a!.request.preview; // "--- a/notes.md\n+++ b/notes.md\n..." (the tool's preview)
a!.request.policyVersion; // "v1"

// An answer quotes the hash of the request it answers; any other is refused.
const wrong = await driver.approve(outcome.runId, a!.approvalId, { requestHash: "0".repeat(64), by: "ana" }).catch((e: unknown) => e);
isIsoagentError(wrong, "APPROVAL_HASH_MISMATCH"); // true

await driver.deny(outcome.runId, a!.approvalId, { requestHash: a!.requestHash, by: "ana", reason: "keep cow's milk" });
const after = await driver.resume(outcome.runId); // "completed": the agent was told, and answered
// DOCS: end

assert.equal(outcome.status, "waiting");
assert.equal(outcome.approvals.length, 1);
assert.equal(a!.request.kind, "call");
assert.equal(a!.request.tool, "write_file");
assert.deepEqual(a!.request.args, { path: "notes.md", content: "- oat milk\n" });
assert.deepEqual(a!.request.resources, [{ kind: "path", value: "notes.md" }]);
assert.match(a!.request.preview!, /^--- a\/notes\.md\n\+\+\+ b\/notes\.md\n/);
assert.equal(a!.request.policyVersion, "v1");
assert.equal(isIsoagentError(wrong, "APPROVAL_HASH_MISMATCH"), true);
assert.equal(after.status, "completed");
assert.equal(files.get("notes.md"), "- milk\n"); // denied: never written
const denied = (await driver.events(outcome.runId)).find((e) => e.type === "call.rejected") as { observation: Observation } | undefined;
assert.equal(denied?.observation.type, "denied");
assert.match((denied!.observation as { error: string }).error, /^Error: permission denied: an operator declined this call to write_file \("keep cow's milk"\)\./);
