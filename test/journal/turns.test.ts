/**
 * The reducer's rules for conversations (v5, src/journal/turns.ts), held on
 * forged journals: every event a conversation cannot take is refused with
 * JOURNAL_INVALID, naming what is wrong, and the state's bookkeeping
 * (the turn, the message ids, where the turn's message sits) follows what
 * it takes.
 */
import { describe, expect, it } from "vitest";
import { isIsoagentError, type JournalEvent, type RunId } from "../../src/index.js";
import { apply, JOURNAL_VERSION, reduce, seal, type RunState, type UnsealedEvent } from "../../src/journal/index.js";

const v = JOURNAL_VERSION;
const created = (conversation: boolean): UnsealedEvent => ({
  v,
  at: 1,
  type: "run.created",
  runId: "run_t" as RunId,
  task: "t",
  tools: [],
  limits: { maxSteps: 0, maxConsecutiveFailures: 0, runTimeoutMs: 0 },
  ...(conversation ? { conversation: true as const } : {}),
});
const msg = (turn: number, messageId: string): UnsealedEvent => ({ v, at: 2, type: "user.message", turn, messageId, text: `say ${messageId}` });
const answered = (turn: number): UnsealedEvent => ({ v, at: 3, type: "turn.ended", turn, reason: "answered" });
const decided = (step: number, kind: "final" | "calls" = "final"): UnsealedEvent => ({
  v: 2,
  at: 3,
  type: "step.decided",
  step,
  decision: kind === "final" ? { kind: "final", output: `answer ${step}` } : { kind: "calls", calls: [{ callId: `s${step}c1` as never, name: "t", args: "{}" }] },
});

/** Seals the events in order and reduces them. */
function journal(events: UnsealedEvent[]): JournalEvent[] {
  const out: JournalEvent[] = [];
  for (const e of events) out.push(seal(e, out.length + 1, out[out.length - 1]?.hash ?? ""));
  return out;
}
const state = (events: UnsealedEvent[]): RunState => reduce(journal(events));

/** The refusal of the last event, after the others. */
function refusal(events: UnsealedEvent[]): string {
  const j = journal(events);
  const s = reduce(j.slice(0, -1));
  try {
    apply(s, j[j.length - 1]!);
  } catch (e) {
    if (isIsoagentError(e, "JOURNAL_INVALID")) return e.message;
    throw e;
  }
  return "taken";
}

describe("a conversation's journal, as the reducer reads it", () => {
  it("follows its turns: idle, running in a turn, idle after it; the ids taken, where the message sits, the answer", () => {
    const s = state([created(true), msg(1, "a"), decided(1), answered(1), msg(2, "b")]);
    expect(s.status).toBe("running");
    expect(s.conversation).toEqual({ turn: 2, open: true, fromStep: 1, at: 3, messages: { a: 2, b: 5 }, ended: { turn: 1, reason: "answered" } });
    expect(s.output).toBe("answer 1");
    expect(state([created(true)]).status).toBe("idle");
    expect(state([created(true), msg(1, "a"), decided(1), answered(1)]).status).toBe("idle");
  });

  it("keeps a client's id as its own key: __proto__ and constructor are ids like any other", () => {
    const s = state([created(true), msg(1, "__proto__"), decided(1), answered(1), msg(2, "constructor")]);
    expect(Object.keys(s.conversation!.messages)).toEqual(["__proto__", "constructor"]);
    expect(Object.getPrototypeOf(s.conversation!.messages)).toBe(Object.prototype);
    expect(refusal([created(true), msg(1, "__proto__"), decided(1), answered(1), msg(2, "__proto__")])).toMatch(/takes message "__proto__" again/);
  });

  it("refuses what a conversation cannot take, naming it", () => {
    const cases: [string, UnsealedEvent[], RegExp][] = [
      ["a message to a task run", [created(false), msg(1, "a")], /is a conversation's, and run run_t is not one/],
      ["a message in the middle of a turn", [created(true), msg(1, "a"), msg(2, "b")], /a message in the middle of turn 1/],
      ["a message for a turn out of order", [created(true), msg(2, "a")], /opens turn 2 after turn 0/],
      ["a decision between turns", [created(true), decided(1)], /belongs to a turn, and run run_t is between turns/],
      ["a turn ended twice", [created(true), msg(1, "a"), decided(1), answered(1), answered(1)], /ends turn 1, and turn 1 is over/],
      ["the end of another turn", [created(true), msg(1, "a"), answered(2)], /ends turn 2, and turn 1 is in progress/],
      [
        "a stop that closes other calls than the step leaves",
        [created(true), msg(1, "a"), decided(1, "calls"), { v, at: 4, type: "turn.ended", turn: 1, reason: "stopped", closed: [] }],
        /closes calls \[\], and the step leaves \[s1c1\]/,
      ],
      [
        "a stop that closes a call the step never decided",
        [
          created(true),
          msg(1, "a"),
          decided(1, "calls"),
          { v, at: 4, type: "turn.ended", turn: 1, reason: "stopped", closed: [{ callId: "s1c9" as never, observation: { type: "denied", error: "stopped" } }] },
        ],
        /closes calls \[s1c9\], and the step leaves \[s1c1\]/,
      ],
      ["a regeneration in the middle of a turn", [created(true), msg(1, "a"), { v, at: 4, type: "turn.regenerated", turn: 1 }], /runs turn 1 again, and the last turn is 1, in progress/],
      ["a regeneration before any turn", [created(true), { v, at: 4, type: "turn.regenerated", turn: 0 }], /runs turn 0 again, and the last turn is 0/],
      ["a close in the middle of a turn", [created(true), msg(1, "a"), { v, at: 4, type: "run.closed", by: "ana" }], /closes the conversation in the middle of turn 1/],
      ["a close of a task run", [created(false), { v, at: 4, type: "run.closed", by: "ana" }], /is not one/],
    ];
    for (const [what, events, message] of cases) expect([what, refusal(events)]).toEqual([what, expect.stringMatching(message)]);
  });

  it("refuses a call observed twice, and takes a late outcome after a stop closed it", () => {
    const started: UnsealedEvent = { v: 2, at: 4, type: "call.started", step: 1, callId: "s1c1" as never, attempt: 1, idempotencyKey: "k" };
    const finished = (late: boolean): UnsealedEvent => ({
      v: 2,
      at: 5,
      type: "call.finished",
      step: 1,
      callId: "s1c1" as never,
      attempt: 1,
      observation: { type: "result", content: "ok" },
      ...(late ? { late: true as const } : {}),
    });
    const permitted: UnsealedEvent = { v: 2, at: 4, type: "call.permission", step: 1, callId: "s1c1" as never, permission: "allow", source: "spec" };
    const stopped: UnsealedEvent = {
      v,
      at: 6,
      type: "turn.ended",
      turn: 1,
      reason: "stopped",
      by: "ana",
      closed: [{ callId: "s1c1" as never, observation: { type: "interrupted", error: "stopped" } }],
    };
    const base = [created(true), msg(1, "a"), decided(1, "calls"), permitted, started];
    expect(refusal([...base, finished(false), finished(false)])).toMatch(/observes call s1c1, which was observed already/);
    const s = state([...base, stopped, finished(true)]);
    expect(s.status).toBe("idle");
    expect(s.current!.calls[0]).toMatchObject({ status: "done", late: true });
    // What the agent is shown is the stop's observation, not the late outcome.
    expect(s.transcript[s.transcript.length - 1]).toMatchObject({ type: "observation", observation: { type: "interrupted", error: "stopped" } });
  });

  it("cuts the transcript back to the message when the turn is regenerated, and moves or drops the message's place when a compaction replaces items", () => {
    const base = [created(true), msg(1, "a"), decided(1), answered(1)];
    const regenerated = state([...base, { v, at: 5, type: "turn.regenerated", turn: 1, by: "ana" }]);
    expect(regenerated.transcript.map((t) => t.type)).toEqual(["task", "user"]);
    expect(regenerated.conversation).toMatchObject({ open: true, fromStep: 1 });
    expect(regenerated.conversation!.ended).toBeUndefined();
    const compaction = (from: number, to: number, n: number): UnsealedEvent => ({
      v: 2,
      at: 7,
      type: "context.compacted",
      strategy: "trim",
      from,
      to,
      items: Array.from({ length: n }, () => ({ type: "summary" as const, text: "s", steps: { from: 1, to: 1 } })),
      artifacts: [],
      reason: "budget",
      tokens: { before: 10, after: 5 },
    });
    // Turn 2's message sits at 3; replacing [1, 3) by one summary moves it to 2.
    const turn2 = [...base, msg(2, "b")];
    expect(state([...turn2, compaction(1, 3, 1)]).conversation!.at).toBe(2);
    // A compaction that replaced it (none does, but a forged journal may): its place is gone, and a regeneration of its turn is refused.
    const gone = [...turn2, compaction(3, 4, 1), decided(2), answered(2)];
    expect(state(gone).conversation!.at).toBeUndefined();
    expect(refusal([...gone, { v, at: 8, type: "turn.regenerated", turn: 2 }])).toMatch(/whose message a compaction folded away/);
    // A compaction after it leaves it where it is.
    expect(state([...turn2, decided(2), compaction(4, 5, 1)]).conversation!.at).toBe(3);
  });

  it("takes an output refusal only right after the final answer it refuses (v5 structured output)", () => {
    const rejected = (step: number): UnsealedEvent => ({ v, at: 4, type: "output.rejected", step, error: "Error: invalid final answer: no" });
    const task = [created(false)];
    // Taken: the agent is shown it, and it is a failure in a row.
    const ok = state([...task, decided(1), rejected(1)]);
    expect(ok.transcript.at(-1)).toEqual({ type: "rejected", step: 1, error: "Error: invalid final answer: no" });
    expect([ok.status, ok.consecutiveFailures]).toEqual(["running", 1]);
    // Refused: before any decision, after calls, of another step, twice, or after a run ended.
    for (const forged of [
      [...task, rejected(1)],
      [...task, decided(1, "calls"), rejected(1)],
      [...task, decided(1), rejected(2)],
      [...task, decided(1), rejected(1), rejected(1)],
      [...task, decided(1), { v: 2, at: 4, type: "run.completed", output: "answer 1" } as UnsealedEvent, rejected(1)],
    ]) {
      expect(refusal(forged)).toMatch(/is not the final answer just decided/);
    }
    // In a conversation, it belongs to a turn.
    expect(refusal([created(true), msg(1, "m1"), decided(1), answered(1), rejected(1)])).toMatch(/belongs to a turn/);
  });
});
