/**
 * The conformance cases of conversations (v5), part of
 * `runStoreConformance`: a conversation is listed `idle` from its creation
 * and by the status each append gives it; its events read back exactly
 * (a store that encodes events its own way must keep every v5 field); and
 * a three-turn conversation, with a tool call and an approval in its second
 * turn, is driven on the store under test.
 */
import { IsoagentError } from "../errors.js";
import { parseRunId, type RunId } from "../ids.js";
import { sealAfter } from "./chain.js";
import { JOURNAL_VERSION, seal, type JournalEvent, type RunCreated, type UnsealedEvent } from "../journal/index.js";
import type { Store } from "../store/index.js";
import { createDriver } from "../driver/driver.js";
import { call, calls, final, scriptedAgent } from "../agents/scripted.js";
import { defineTool } from "../tools/index.js";

/** What a case gets: a fresh store under test, and a way to move its clock on. */
export interface ConversationCaseStore {
  readonly store: Store;
  advance(ms: number): Promise<void>;
}

function check(ok: boolean, what: string): asserts ok {
  if (!ok) throw new IsoagentError("CONFORMANCE_FAILED", what);
}

let counter = 0;
const newRunId = (): RunId => parseRunId(`conv_${++counter}`);

const listed = async (store: Store, runId: RunId, status: "idle" | "running"): Promise<boolean> => (await store.listRuns({ status: [status] })).some((r) => r.runId === runId);

/** Every case, by name. */
export const CONVERSATION_CASES: Readonly<Record<string, (s: ConversationCaseStore) => Promise<void>>> = {
  "a conversation is listed idle from its creation, running in a turn, idle after it, and its v5 events read back exactly": async ({ store }) => {
    const runId = newRunId();
    const first = seal(
      { v: JOURNAL_VERSION, at: 1000, type: "run.created", runId, task: "Be brief.", tools: [], limits: { maxSteps: 5, maxConsecutiveFailures: 3, runTimeoutMs: 0 }, conversation: true },
      1,
      "",
    ) as RunCreated;
    await store.createRun(first);
    check(await listed(store, runId, "idle"), "a new conversation is listed idle");
    const base = { v: JOURNAL_VERSION, at: 1001 } as const;
    const message: UnsealedEvent = {
      ...base,
      type: "user.message",
      turn: 1,
      messageId: "m-1",
      text: "héllo \u{1F600}",
      files: [{ sha256: "a".repeat(64), mediaType: "image/png", size: 3, name: "dot.png" }],
      metadata: { client: { tab: 2 } },
      by: "ana",
    };
    const [sent] = sealAfter(first, [message]);
    // A user's message is appended without the run's lease, as an operator's answer is.
    await store.append(runId, [sent!], { expectedSeq: 1 }, "running");
    check(await listed(store, runId, "running"), "a conversation in a turn is listed running");
    check(!(await listed(store, runId, "idle")), "a conversation in a turn is not listed idle");
    const lease = await store.acquireLease(runId, "conformance", 10_000);
    check(lease !== null, "a conversation's lease is taken");
    const turn = sealAfter(sent!, [
      { v: 2, at: 1002, type: "run.resumed", owner: "conformance", token: lease.token },
      { v: 2, at: 1003, type: "step.decided", step: 1, decision: { kind: "final", output: "hi" } },
      { ...base, type: "turn.ended", turn: 1, reason: "answered" },
    ]);
    await store.append(runId, turn, { expectedSeq: 2, lease }, "idle");
    check(await listed(store, runId, "idle"), "a conversation between turns is listed idle again");
    const controls = sealAfter(turn[2]!, [
      { ...base, type: "turn.regenerated", turn: 1, by: "ana" },
      { ...base, type: "turn.ended", turn: 1, reason: "stopped", by: "ana", partial: "I was", closed: [] },
      { ...base, type: "run.closed", by: "ana", reason: "done" },
    ]);
    await store.append(runId, controls, { expectedSeq: 5 }, "completed");
    const read = await store.read(runId);
    const written: JournalEvent[] = [first, sent!, ...turn, ...controls];
    check(read.length === written.length, `the conversation reads back ${written.length} events, not ${read.length}`);
    for (let k = 0; k < written.length; k++) check(JSON.stringify(read[k]) === JSON.stringify(written[k]), `event ${k + 1} (${written[k]!.type}) reads back exactly as written`);
  },
  "a conversation of three turns, a tool call and its approval in the second, is driven on this store": async ({ store }) => {
    const notes: string[] = [];
    const note = defineTool({
      name: "write_note",
      description: "Writes a note.",
      inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"], additionalProperties: false },
      sideEffect: "local_mutation",
      permission: "ask",
      timeoutMs: 5000,
      call: async (a: { text: string }) => {
        notes.push(a.text);
        return { written: a.text };
      },
    });
    const driver = createDriver({ store, agent: scriptedAgent([final("hello"), calls(call("write_note", { text: "X" })), final("noted"), final("bye")]), tools: [note] });
    const chat = await driver.create("Be brief.", { conversation: true });
    await driver.send(chat, { id: "m1", text: "hi" });
    let out = await driver.resume(chat);
    check(out.status === "idle" && out.output === "hello", `turn 1 ends idle with its answer, not ${out.status} ${JSON.stringify(out.output)}`);
    await driver.send(chat, { id: "m2", text: "note X" });
    out = await driver.resume(chat);
    check(out.status === "waiting" && out.approvals.length === 1, `turn 2 waits for its approval, not ${out.status}`);
    const again = await driver.send(chat, { id: "m2", text: "note X" });
    check(again.duplicate, "a resent message is taken once");
    const [a] = out.approvals;
    await driver.approve(chat, a!.approvalId, { requestHash: a!.requestHash, by: "conformance" });
    out = await driver.resume(chat);
    check(out.status === "idle" && out.output === "noted" && notes.join() === "X", `turn 2 ends idle after its one write, not ${out.status} (${notes.length} writes)`);
    await driver.send(chat, { id: "m3", text: "thanks" });
    out = await driver.resume(chat);
    check(out.status === "idle" && out.output === "bye", "turn 3 ends idle with its answer");
    const events = await store.read(chat);
    check(events.filter((e) => e.type === "user.message").length === 3, "three messages, each once");
    check(events.filter((e) => e.type === "turn.ended").length === 3, "three turns ended");
  },
};
