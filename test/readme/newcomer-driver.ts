// The README's first program, as a newcomer would copy it:
// newcomer.test.ts checks that README.md shows this code verbatim (with
// "isoagent" for the import path) and runs it; tsc checks that it
// typechecks with no annotation.
// README: begin
import { createDriver, memoryStore, defineTool, scriptedAgent, calls, call, final, rulesPolicy, strictObject, string, ToolError } from "../../src/index.js";

const files = new Map<string, string>();

const writeFile = defineTool({
  name: "write_file",
  description: "Write a text file.",
  sideEffect: "local_mutation",
  permission: "ask",
  timeoutMs: 10_000,
  inputSchema: strictObject({ path: string(), content: string() }), // args: { path: string; content: string }
  resources: (a) => [{ kind: "path", value: a.path }],
  call: async (args, ctx) => {
    // ctx: runId, step, callId, attempt, idempotencyKey, fencingToken, signal, permit
    if (args.path.startsWith("/")) throw new ToolError(`absolute paths are refused: ${args.path}`, { next: "Use a workspace-relative path." });
    files.set(args.path, args.content);
    return { written: args.content.length }; // JSON content; undefined means {}
  },
});

const driver = createDriver({
  store: memoryStore(), // the Store port: memory here; idbStore() or durableObjectStore() elsewhere
  agent: scriptedAgent([calls(call("write_file", { path: "a.md", content: "hi" })), final("done")]),
  tools: [writeFile],
  policy: rulesPolicy([{ resource: { kind: "path", match: "**/.env" }, permission: "deny" }]),
  policyVersion: "2026-12-01", // the policy's identity: approvals are bound to it
  limits: { maxSteps: 50, maxConsecutiveFailures: 3, runTimeoutMs: 0 }, // 0 means no limit, for each
  reconcile: (c) => ({ action: "ask_operator" }), // what became of an interrupted side effect
  secrets: ["my-api-key-value"], // redacted from results, errors and artifacts
});

let outcome = await driver.start({ goal: "write a.md" }); // runs until it ends, waits, or must stop
// outcome.status === "waiting": outcome.approvals[0] carries the request (tool, args, argsHash, side effect, resources,
// the tool's shape hash, the policy version) and its hash
for (const a of outcome.approvals) {
  await driver.approve(outcome.runId, a.approvalId, { requestHash: a.requestHash, by: "ana" }); // another hash is refused
}
outcome = await driver.resume(outcome.runId);
// README: end

export { files, outcome };
