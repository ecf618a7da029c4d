// docs/conversations.md's examples, run by test/docs/examples.test.ts: each
// region is shown verbatim there (with the package's import paths); what
// follows a region checks what its comments say.
import assert from "node:assert/strict";
import { integer } from "../../src/index.js";

// DOCS: begin
import { call, calls, createDriver, defineTool, final, isIsoagentError, memoryStore, scriptedAgent, strictObject, string } from "../../src/index.js";

const notes: string[] = [];
const writeNote = defineTool({
  name: "write_note",
  description: "Write a note.",
  sideEffect: "local_mutation",
  permission: "ask",
  timeoutMs: 10_000,
  inputSchema: strictObject({ text: string() }),
  call: (a) => void notes.push(a.text),
});
// A real model replaces this: it answers each turn from what it is shown (the task, then every message and step).
const agent = scriptedAgent([final("Hello! What shall I note?"), calls(call("write_note", { text: "buy milk" })), final("Noted: buy milk.")]);
const driver = createDriver({ store: memoryStore(), agent, tools: [writeNote] });

// A conversation: its task is what the agent is told first. It waits (status "idle") for its first message.
const chat = await driver.create("You keep the user's notes. Be brief.", { conversation: true });

await driver.send(chat, { id: "msg-1", text: "hi" }); // the client's id: sent again, it is taken once
let outcome = await driver.resume(chat); // drives the turn to its answer
outcome.status; // "idle": answered, waiting for the next message
outcome.output; // "Hello! What shall I note?"

await driver.send(chat, { id: "msg-2", text: "note: buy milk" });
outcome = await driver.resume(chat); // outcome.status === "waiting": the write asks for approval
const [a] = outcome.approvals;
await driver.approve(chat, a!.approvalId, { requestHash: a!.requestHash, by: "ana" });
outcome = await driver.resume(chat);
outcome.output; // "Noted: buy milk."

// A message in the middle of a turn is refused; a resend of one taken is not appended again.
const resent = await driver.send(chat, { id: "msg-2", text: "note: buy milk" });
resent.duplicate; // true
const reused = await driver.send(chat, { id: "msg-2", text: "something else" }).catch((e: unknown) => e);
isIsoagentError(reused, "MESSAGE_ID_REUSED"); // true

await driver.close(chat, { by: "ana" }); // the conversation ends "completed"
// DOCS: end

assert.equal(notes.join(), "buy milk");
assert.equal(resent.duplicate, true);
assert.ok(isIsoagentError(reused, "MESSAGE_ID_REUSED"));
assert.equal(outcome.output, "Noted: buy milk.");
const state = await driver.state(chat);
assert.equal(state.status, "completed");
assert.deepEqual(
  (await driver.events(chat)).map((e) => e.type),
  [
    "run.created",
    "user.message",
    "run.resumed",
    "step.decided",
    "turn.ended",
    "user.message",
    "run.resumed",
    "step.decided",
    "call.permission",
    "approval.requested",
    "approval.resolved",
    "run.resumed",
    "call.started",
    "call.finished",
    "step.decided",
    "turn.ended",
    "run.closed",
  ],
);

// DOCS: begin
// Stop a turn: a model call is aborted (what it had streamed is kept with the stop, not shown to the agent);
// a tool in flight is interrupted, told by its side effect; a call not started, or waiting for an approval,
// is closed without running. The conversation stays open.
const other = await driver.create(null, { conversation: true });
await driver.send(other, { id: "q1", text: "note: call mum" });
// ... while the turn runs, or waits for an approval:
await driver.stopTurn(other, { by: "ana" }); // status "idle"

// Regenerate: the last turn runs again from its message (what useChat's regenerate expects).
await driver.regenerate(other, { by: "ana" });
await driver.resume(other);
// DOCS: end

const stopped = (await driver.events(other)).filter((e) => e.type === "turn.ended");
assert.deepEqual(
  stopped.map((e) => (e as Extract<typeof e, { type: "turn.ended" }>).reason),
  ["stopped", "answered"],
);
assert.equal((await driver.state(other)).status, "idle");

// DOCS: begin
const answer = strictObject({ title: string(), count: integer() });
// A real model's answers are checked as these are: the first is refused (not JSON), the agent is told why and asked again.
const counting = createDriver({ store: memoryStore(), agent: scriptedAgent([final("three things"), final('{"title":"my list","count":3}')]), tools: [] });
const counted = await counting.start("Count the things on my list.", { outputSchema: answer });
counted.output; // { title: "my list", count: 3 }: JSON, checked against the schema

// In a conversation, the run's schema holds every turn, and a message may name its own.
const asking = await counting.create("Be brief.", { conversation: true, outputSchema: answer });
await counting.send(asking, { id: "m1", text: "just say hi", outputSchema: { type: "string" } });
// DOCS: end

assert.deepEqual(counted.output, { title: "my list", count: 3 });
assert.equal((await counting.events(counted.runId)).filter((e) => e.type === "output.rejected").length, 1);
assert.deepEqual((await counting.events(asking)).at(-1), { ...(await counting.events(asking)).at(-1)!, type: "user.message", outputSchema: { type: "string" } });
