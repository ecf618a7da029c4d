import { describe, expect, it } from "vitest";
import { call, calls, createDriver, defineTool, final, memoryStore, scriptedAgent, strictObject, string, isIsoagentError, trimContext, type Agent, type JournalEvent } from "../../src/index.js";
import { reduce, verifyChain } from "../../src/journal/index.js";
import { code, noteTool } from "../helpers/conversation.js";

const note = noteTool;
const look = defineTool({
  name: "look",
  description: "Looks something up.",
  inputSchema: strictObject({ q: string() }),
  sideEffect: "read_only",
  timeoutMs: 1000,
  call: async ({ q }) => ({ found: q.toUpperCase() }),
});

describe("a conversation", () => {
  it("takes three turns, with a tool call and an approval in the second, and stays idle between them", async () => {
    const store = memoryStore();
    const agent = scriptedAgent([final("hello"), calls(call("look", { q: "x" })), calls(call("write_note", { text: "X" })), final("noted"), final("bye")]);
    const driver = createDriver({ store, agent, tools: [note, look] });
    const chat = await driver.create("Be brief.", { conversation: true });
    expect((await driver.state(chat)).status).toBe("idle");
    await driver.send(chat, { id: "m1", text: "hi" });
    let out = await driver.resume(chat);
    expect(out).toMatchObject({ status: "idle", output: "hello" });
    await driver.send(chat, { id: "m2", text: "note it" });
    out = await driver.resume(chat);
    expect(out.status).toBe("waiting");
    const [a] = out.approvals;
    await driver.approve(chat, a!.approvalId, { requestHash: a!.requestHash, by: "ana" });
    out = await driver.resume(chat);
    expect(out).toMatchObject({ status: "idle", output: "noted" });
    await driver.send(chat, { id: "m3", text: "thanks" });
    out = await driver.resume(chat);
    expect(out).toMatchObject({ status: "idle", output: "bye" });
    const events = await driver.events(chat);
    verifyChain(events);
    expect(events.filter((e) => e.type === "user.message").map((e) => (e as Extract<JournalEvent, { type: "user.message" }>).turn)).toEqual([1, 2, 3]);
    expect(events.filter((e) => e.type === "turn.ended").map((e) => (e as Extract<JournalEvent, { type: "turn.ended" }>).reason)).toEqual(["answered", "answered", "answered"]);
    const state = reduce(events);
    expect(state.transcript.map((t) => t.type)).toEqual(["task", "user", "decision", "user", "decision", "observation", "decision", "observation", "decision", "user", "decision"]);
    await driver.close(chat, { by: "ana" });
    expect((await driver.state(chat)).status).toBe("completed");
    expect(await code(driver.send(chat, { id: "m4", text: "again" }))).toBe("RUN_NOT_ACTIVE");
  });

  it("takes a resent message once, and refuses its id with other content", async () => {
    const driver = createDriver({ agent: scriptedAgent([final("a")]), tools: [] });
    const chat = await driver.create(null, { conversation: true });
    const first = await driver.send(chat, { id: "m1", text: "hi" });
    expect(first.duplicate).toBe(false);
    const again = await driver.send(chat, { id: "m1", text: "hi" });
    expect(again).toMatchObject({ duplicate: true, seq: first.seq });
    expect(await code(driver.send(chat, { id: "m1", text: "other" }))).toBe("MESSAGE_ID_REUSED");
    expect(await code(driver.send(chat, { id: "m2", text: "mid-turn" }))).toBe("TURN_IN_PROGRESS");
    await driver.resume(chat);
    expect(await driver.send(chat, { id: "m1", text: "hi" })).toMatchObject({ duplicate: true });
    expect((await driver.events(chat)).filter((e) => e.type === "user.message")).toHaveLength(1);
  });

  it("stops a turn waiting for an approval: the call is closed without running, and the conversation goes on", async () => {
    const driver = createDriver({ agent: scriptedAgent([calls(call("write_note", { text: "X" })), final("ok")]), tools: [note] });
    const chat = await driver.create(null, { conversation: true });
    await driver.send(chat, { id: "m1", text: "write" });
    const out = await driver.resume(chat);
    expect(out.status, JSON.stringify(await driver.events(chat))).toBe("waiting");
    const stopped = await driver.stopTurn(chat, { by: "ana" });
    expect(stopped.status).toBe("idle");
    expect(Object.values(stopped.approvals).map((a) => a.status)).toEqual(["voided"]);
    const a = out.approvals[0]!;
    expect(await code(driver.approve(chat, a.approvalId, { requestHash: a.requestHash, by: "ana" }))).toBe("APPROVAL_NOT_PENDING");
    const last = stopped.transcript[stopped.transcript.length - 1]!;
    expect(last).toMatchObject({ type: "observation", observation: { type: "denied" } });
    await driver.send(chat, { id: "m2", text: "never mind" });
    expect(await driver.resume(chat)).toMatchObject({ status: "idle", output: "ok" });
  });

  it("stops a turn in the middle of its model call: the call is aborted, and what it had streamed is kept with the stop", async () => {
    let started!: () => void;
    const asked = new Promise<void>((r) => (started = r));
    const agent: Agent = {
      async decide(_view, { signal, onProgress }) {
        onProgress?.({ type: "text", delta: "I was say" });
        started();
        await new Promise((_, reject) => signal?.addEventListener("abort", () => reject(new Error("aborted"))));
        throw new Error("unreachable");
      },
    };
    const driver = createDriver({ agent, tools: [] });
    const chat = await driver.create(null, { conversation: true });
    await driver.send(chat, { id: "m1", text: "talk" });
    const drive = driver.resume(chat);
    await asked;
    const state = await driver.stopTurn(chat, { by: "ana" });
    expect(state.status).toBe("idle");
    expect((await drive).status).toBe("idle");
    const ended = (await driver.events(chat)).filter((e) => e.type === "turn.ended");
    // What the model had streamed is kept with the stop; the agent is not shown it.
    expect(ended).toMatchObject([{ reason: "stopped", by: "ana", partial: "I was say" }]);
    expect((await driver.state(chat)).transcript.map((t) => t.type)).toEqual(["task", "user"]);
  });

  it("regenerates the last turn from its message: the old answer is superseded in the transcript, and kept in the journal", async () => {
    const driver = createDriver({ agent: scriptedAgent([final("first"), final("second")]), tools: [] });
    const chat = await driver.create(null, { conversation: true });
    expect(await code(driver.regenerate(chat))).toBe("NO_TURN");
    await driver.send(chat, { id: "m1", text: "hi" });
    await driver.resume(chat);
    await driver.regenerate(chat, { by: "ana" });
    expect(await driver.resume(chat)).toMatchObject({ status: "idle", output: "second" });
    const state = await driver.state(chat);
    expect(state.transcript.map((t) => t.type)).toEqual(["task", "user", "decision"]);
    expect((await driver.events(chat)).filter((e) => e.type === "step.decided")).toHaveLength(2);
  });

  it("refuses turn controls on a task run, and bad messages, appending nothing", async () => {
    const driver = createDriver({ agent: scriptedAgent([final("done")]), tools: [] });
    const { runId } = await driver.start("a task");
    expect(await code(driver.send(runId, { id: "m1", text: "hi" }))).toBe("NOT_A_CONVERSATION");
    expect(await code(driver.stopTurn(runId, { by: "ana" }))).toBe("NOT_A_CONVERSATION");
    const chat = await driver.create(null, { conversation: true });
    for (const [m, want] of [
      [{ id: "", text: "x" }, "MESSAGE_INVALID"],
      [{ id: "a b", text: "x" }, "MESSAGE_INVALID"],
      [{ id: "m", text: "" }, "MESSAGE_INVALID"],
      [{ id: "m", text: "\ud800" }, "MESSAGE_INVALID"],
      [{ id: "m", text: "x".repeat(100_001) }, "MESSAGE_TOO_LARGE"],
      [{ id: "m", text: "x", metadata: { big: "y".repeat(5000) } }, "MESSAGE_TOO_LARGE"],
      [{ id: "m", text: "x", files: [{ mediaType: "Image/PNG", data: new Uint8Array(1) }] }, "MESSAGE_INVALID"],
    ] as const) {
      expect(await code(driver.send(chat, m as never))).toBe(want);
    }
    expect(await driver.events(chat)).toHaveLength(1);
  });
});

describe("a conversation's turn stopped while a tool runs", () => {
  for (const sideEffect of ["read_only", "local_mutation"] as const) {
    it(`${sideEffect}: the tool's signal is aborted, its interruption is what the agent is shown (by its side effect), and the conversation goes on`, async () => {
      let running!: () => void;
      const started = new Promise<void>((r) => (running = r));
      let aborted = false;
      const slow = defineTool({
        name: "slow",
        description: "Takes its time.",
        inputSchema: strictObject({}),
        sideEffect,
        ...(sideEffect === "read_only" ? {} : { permission: "allow" as const }),
        timeoutMs: 60_000,
        call: (_args, ctx) =>
          new Promise((_, reject) => {
            running();
            ctx.signal.addEventListener("abort", () => {
              aborted = true;
              reject(new Error("aborted"));
            });
          }),
      });
      const driver = createDriver({ agent: scriptedAgent([calls(call("slow", {})), final("after")]), tools: [slow] });
      const chat = await driver.create(null, { conversation: true });
      await driver.send(chat, { id: "m1", text: "go" });
      const drive = driver.resume(chat);
      await started;
      const state = await driver.stopTurn(chat, { by: "ana" });
      expect([state.status, aborted]).toEqual(["idle", true]);
      expect((await drive).status).toBe("idle");
      const events = await driver.events(chat);
      const finished = events.find((e): e is Extract<JournalEvent, { type: "call.finished" }> => e.type === "call.finished")!;
      expect(finished.observation.type).toBe("interrupted");
      // A read may be asked again; whether a write took effect is unknown.
      expect((finished.observation as { error: string }).error.includes("whether it took effect is unknown")).toBe(sideEffect !== "read_only");
      expect(events.filter((e) => e.type === "turn.ended")).toMatchObject([{ reason: "stopped", by: "ana", closed: [] }]);
      await driver.send(chat, { id: "m2", text: "and now?" });
      expect(await driver.resume(chat)).toMatchObject({ status: "idle", output: "after" });
    });
  }
});

describe("a turn's text as it is written", () => {
  it("reaches 40 watchers, each delta once and in order; a watcher that joins mid-turn gets the text so far, then every delta after, with no gap and no repeat", async () => {
    const deltas = Array.from({ length: 20 }, (_, k) => `w${k} `);
    let joinLate!: () => void;
    const halfway = new Promise<void>((r) => (joinLate = r));
    let go!: () => void;
    const resumed = new Promise<void>((r) => (go = r));
    const agent: Agent = {
      async decide(_view, { onProgress }) {
        for (const [k, d] of deltas.entries()) {
          onProgress?.({ type: "text", delta: d });
          if (k === 9) {
            joinLate();
            await resumed;
          }
          await Promise.resolve();
        }
        return final(deltas.join(""));
      },
    };
    const driver = createDriver({ agent, tools: [] });
    const chat = await driver.create(null, { conversation: true });
    await driver.send(chat, { id: "m1", text: "talk" });
    const seen: string[][] = Array.from({ length: 41 }, () => []);
    const watch = (k: number) => driver.watch(chat, (what) => void (what === "progress" && seen[k]!.push(driver.progress(chat)?.text ?? "")));
    const stops = Array.from({ length: 40 }, (_, k) => watch(k));
    const drive = driver.resume(chat);
    await halfway;
    // The late joiner reads the journal (the message), then the text so far, then hears every delta after.
    const late = (await driver.state(chat)).transcript.map((t) => t.type);
    seen[40]!.push(driver.progress(chat)!.text);
    stops.push(watch(40));
    go();
    expect((await drive).output).toBe(deltas.join(""));
    for (const stop of stops) stop();
    expect(late).toEqual(["task", "user"]);
    const full = deltas.map((_, k) => deltas.slice(0, k + 1).join(""));
    for (let k = 0; k < 40; k++) expect(seen[k]).toEqual(full);
    expect(seen[40]).toEqual(full.slice(9));
    // The journal keeps the final text only.
    expect((await driver.events(chat)).filter((e) => e.type === "step.decided")).toHaveLength(1);
  });
});

describe("a conversation under a context budget", () => {
  it("compacts turn after turn, never folding away the message of the turn in progress, and the agent always sees the message it answers", async () => {
    const lastSeen: string[] = [];
    const agent: Agent = {
      async decide(view) {
        const last = view.transcript[view.transcript.length - 1]!;
        lastSeen.push(last.type === "user" ? last.messageId : `(${last.type})`);
        return final(`noted ${"and so on ".repeat(20)}`);
      },
    };
    const driver = createDriver({ agent, tools: [], limits: { maxSteps: 0 }, context: { budgetTokens: 600, strategy: trimContext({ keepRecent: 1 }) } });
    const chat = await driver.create("Be brief.", { conversation: true });
    for (let k = 1; k <= 60; k++) {
      await driver.send(chat, { id: `m${k}`, text: `message ${k} ${"words ".repeat(15)}` });
      expect((await driver.resume(chat)).status).toBe("idle");
    }
    expect(lastSeen).toEqual(Array.from({ length: 60 }, (_, k) => `m${k + 1}`));
    const events = await driver.events(chat);
    expect(events.filter((e) => e.type === "context.compacted").length).toBeGreaterThan(3);
    verifyChain(events);
    const state = reduce(events);
    expect(state.transcript.some((t) => t.type === "summary")).toBe(true);
    expect(state.transcript.length).toBeLessThan(20);
  });
});
