import { readFileSync, readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { isIsoagentError, type JournalEvent } from "../../src/index.js";
import { reduce, verifyChain } from "../../src/journal/index.js";

// Journals written by versions 1 to 5 of the format. They are never edited:
// a new version adds fixtures; every one must stay readable.
const dir = "test/fixtures/journals";
const load = (name: string): JournalEvent[] => JSON.parse(readFileSync(`${dir}/${name}.json`, "utf8")) as JournalEvent[];

describe("v1 journal fixtures", () => {
  it("are all here", () => {
    expect(readdirSync(dir).sort()).toEqual([
      "v1-approval.json",
      "v1-cancelled.json",
      "v1-completed.json",
      "v1-failed-abort.json",
      "v1-reconciled.json",
      "v2-compacted.json",
      "v2-reopened.json",
      "v2-unknown.json",
      "v3-moved.json",
      "v4-interrupted.json",
      "v4-no-progress.json",
      "v5-conversation.json",
      "v5-output.json",
    ]);
  });

  const expected: Record<string, Record<string, unknown>> = {
    "v1-completed": { status: "completed", step: 2, output: { summary: "read" }, seq: 8 },
    "v1-approval": { status: "completed", step: 2, output: "written", seq: 11 },
    "v1-reconciled": { status: "completed", step: 2, output: "ok", seq: 12 },
    "v1-failed-abort": { status: "failed", step: 1, failure: { reason: "tool_abort", detail: "checksum mismatch" }, seq: 7 },
    "v1-cancelled": { status: "cancelled", step: 1, cancelled: { by: "ana", reason: "not needed" }, seq: 6 },
    "v2-reopened": { status: "completed", step: 2, output: "written", seq: 15 },
    "v2-compacted": { status: "completed", step: 5, output: "read", seq: 23 },
    "v2-unknown": { status: "completed", step: 3, output: "ok", seq: 16 },
    "v3-moved": { status: "completed", step: 2, output: "written after two moves", seq: 13 },
    "v4-interrupted": { status: "completed", step: 2, output: "read at last", seq: 17 },
    "v5-conversation": { status: "completed", step: 5, output: "noted again", closed: { by: "ana", reason: "done" }, seq: 27 },
    "v5-output": { status: "completed", step: 2, output: { count: 2 }, seq: 6 },
    "v4-no-progress": {
      status: "failed",
      step: 0,
      failure: {
        reason: "no_progress",
        detail: "the run was taken over 3 times in a row without progress (recovery.maxResumesWithoutProgress): each drive stopped without releasing it, the last by driver-c: a crash loop",
      },
      seq: 5,
    },
  };
  for (const [name, want] of Object.entries(expected)) {
    it(`${name}: the chain verifies and the state reduces as it did`, () => {
      const events = load(name);
      verifyChain(events);
      const state = reduce(events);
      const got: Record<string, unknown> = { status: state.status, step: state.step, seq: state.seq };
      for (const k of ["output", "failure", "cancelled", "closed"] as const) if (state[k] !== undefined) got[k] = state[k];
      expect(got).toEqual(want);
    });
  }

  it("v1-reconciled: the interrupted write was settled by an operator, and shown to the agent", () => {
    const state = reduce(load("v1-reconciled"));
    expect(state.transcript.filter((t) => t.type === "observation")).toEqual([
      { type: "observation", step: 1, callId: "s1c1", name: "write_file", observation: { type: "result", content: { written: 1 } } },
    ]);
    expect(Object.values(state.approvals).map((a) => [a.request.kind, a.status, a.by])).toEqual([["interrupted_side_effect", "approved", "ana"]]);
  });

  it("v5-output: the answer the schema refused is shown to the agent after it, and the JSON text taken is the output", () => {
    const events = load("v5-output");
    const state = reduce(events);
    expect(events[0]).toMatchObject({ type: "run.created", outputSchema: { type: "object", required: ["count"] } });
    expect(state.transcript.map((t) => t.type)).toEqual(["task", "decision", "rejected", "decision"]);
    expect(state.transcript[2]).toMatchObject({ type: "rejected", step: 1, error: expect.stringMatching(/^Error: invalid final answer: it is not valid JSON/) });
    expect(state.consecutiveFailures).toBe(1);
  });

  it("v5-conversation: three turns (the second stopped while it waited for an approval, the third regenerated), then closed", () => {
    const events = load("v5-conversation");
    const state = reduce(events);
    expect(state.conversation).toEqual({ turn: 3, open: false, fromStep: 4, at: 6, messages: { m1: 2, m2: 6, m3: 12 }, ended: { turn: 3, reason: "answered" } });
    expect(state.transcript.map((t) => t.type)).toEqual(["task", "user", "decision", "user", "decision", "observation", "user", "decision"]);
    expect(events.filter((e) => e.type === "turn.ended").map((e) => [e.turn, e.reason])).toEqual([
      [1, "answered"],
      [2, "stopped"],
      [3, "answered"],
      [3, "answered"],
    ]);
    // The file the second message carried is named by the journal, so it is served and moved with the run.
    const second = events.find((e): e is Extract<JournalEvent, { type: "user.message" }> => e.type === "user.message" && e.turn === 2)!;
    expect(state.artifacts).toEqual([second.files![0]!.sha256]);
  });

  it("detects any tampering: an edit, a removal, a reordering", () => {
    const events = load("v1-approval");
    const edited = events.map((e) => (e.seq === 6 ? { ...e, by: "mallory" } : e));
    const removed = events.filter((e) => e.seq !== 4);
    const swapped = [...events];
    [swapped[3], swapped[4]] = [swapped[4]!, swapped[3]!];
    for (const [what, broken, message] of [
      ["an edit", edited, "event 6 does not match its hash"],
      ["a removal", removed, "event 5 is out of sequence after 3"],
      ["a reordering", swapped, "event 5 is out of sequence after 3"],
    ] as const) {
      let caught: unknown;
      try {
        verifyChain(broken);
      } catch (e) {
        caught = e;
      }
      expect(isIsoagentError(caught, "JOURNAL_HASH_MISMATCH"), what).toBe(true);
      expect((caught as Error).message).toBe(message);
    }
  });

  it("v2-reopened: the approval asked under the first policy is void; the second, asked under the next policy and naming the change, was answered", () => {
    const state = reduce(load("v2-reopened"));
    const approvals = Object.values(state.approvals).map((a) => [a.status, a.request.policyVersion, a.request.note ?? null, typeof a.request.toolShape]);
    expect(approvals).toEqual([
      ["voided", "policy-1", null, "string"],
      ["approved", "policy-2", 'the policy changed from "policy-1" to "policy-2" since this call was asked', "string"],
    ]);
  });

  it("v2-unknown: the interrupted write is marked unknown (its key in the request), and the model was told to check", () => {
    const state = reduce(load("v2-unknown"));
    const [a] = Object.values(state.approvals);
    expect([a!.request.kind, a!.request.idempotencyKey, a!.status]).toEqual(["interrupted_side_effect", "run_1:1:s1c1", "denied"]);
    const shown = state.transcript.filter((t) => t.type === "observation").map((t) => (t.type === "observation" ? t.observation.type : ""));
    expect(shown).toEqual(["interrupted", "result"]);
  });

  it("v1 journals reduce as they did under v2's code: no call.reopened, no voided approval", () => {
    for (const name of ["v1-approval", "v1-reconciled"]) {
      const state = reduce(load(name));
      expect(Object.values(state.approvals).every((a) => a.status !== "voided")).toBe(true);
    }
  });

  it("v2-compacted: the transcript reduces to what the model was shown (outputs elided into notices), each decision records who answered", () => {
    const events = load("v2-compacted");
    const state = reduce(events);
    const shown = state.transcript.filter((t) => t.type === "observation").map((t) => (t.type === "observation" && t.observation.elided !== undefined ? "elided" : "kept"));
    expect(shown).toEqual(["elided", "elided", "elided", "kept"]);
    expect(state.artifacts).toHaveLength(1);
    expect(events.filter((e) => e.type === "step.decided").map((e) => (e.type === "step.decided" ? (e.answer?.model ?? null) : null))).toEqual([
      "fixture-1",
      "fixture-1",
      "fixture-1",
      "fixture-1",
      null,
    ]);
  });

  it("v3-moved: two seals (to the edge and back), the approval given at the edge between them, lease tokens and epochs rising across both places", () => {
    const events = load("v3-moved");
    const state = reduce(events);
    expect(state.moved).toEqual({ from: "edge", to: "tab:fixture", epoch: 5, seq: 8 });
    const fence = events.flatMap((e) => (e.type === "run.resumed" ? [["token", e.token]] : e.type === "run.moved" ? [["epoch", e.epoch, e.to]] : []));
    expect(fence).toEqual([
      ["token", 1],
      ["epoch", 3, "edge"],
      ["epoch", 5, "tab:fixture"],
      ["token", 6],
    ]);
    expect(Object.values(state.approvals).map((a) => [a.status, a.by])).toEqual([["approved", "console"]]);
    expect(events.filter((e) => e.type === "run.moved").map((e) => e.v)).toEqual([3, 3]);
  });

  it("v3 adds one event: every other event of a v3 journal is one v2 wrote, in v2's shape (no reader branches on v)", () => {
    const v2 = new Set(["v2-reopened", "v2-unknown", "v2-compacted"].flatMap((n) => load(n).map((e) => e.type)));
    const moved = load("v3-moved");
    expect([...new Set(moved.map((e) => e.type))].filter((t) => !v2.has(t))).toEqual(["run.moved"]);
  });

  it("v4-interrupted: two takeovers (each naming the lease it took over), the read asked about at its limit with how its last attempt ended, approved, run a third time", () => {
    const events = load("v4-interrupted");
    const state = reduce(events);
    expect(events.flatMap((e) => (e.type === "run.resumed" ? [[e.owner, e.took?.holder ?? null]] : []))).toEqual([
      ["driver-a", null],
      ["driver-b", "driver-a"],
      ["driver-c", "driver-b"],
      ["driver-c", null],
    ]);
    const [a] = Object.values(state.approvals);
    expect([a!.request.kind, a!.request.sideEffect, a!.request.attempt, a!.status, a!.by]).toEqual(["interrupted_side_effect", "read_only", 2, "approved", "ana"]);
    expect(a!.request.interrupted).toEqual({ cause: "lease_expired", holder: "driver-b", expiresAt: Date.UTC(2026, 0, 1) + 61_000, startedAt: Date.UTC(2026, 0, 1) + 31_000, limit: 2 });
    expect(events.filter((e) => e.type === "call.started").map((e) => (e.type === "call.started" ? e.attempt : 0))).toEqual([1, 2, 3]);
    // Progress (the read's outcome, then the decision) left no takeover counted.
    expect(state.takeovers).toBeUndefined();
    // v4's shapes are stamped 4, the rest keep v2's stamp (the operator's answers, as every version's, are stamped with the version).
    expect(events.filter((e) => e.v === 4).map((e) => e.type)).toEqual(["run.resumed", "run.resumed", "approval.requested", "approval.resolved", "call.reconciled"]);
  });

  it("v4-no-progress: three takeovers in a row with nothing between them, then the failure", () => {
    const state = reduce(load("v4-no-progress"));
    expect(state.takeovers).toBe(3);
    expect(state.current).toBeNull();
  });

  it("journals before v4 reduce with no takeover counted and no interruption in any request", () => {
    for (const name of ["v1-approval", "v1-reconciled", "v2-reopened", "v2-unknown", "v2-compacted", "v3-moved"]) {
      const state = reduce(load(name));
      expect(state.takeovers, name).toBeUndefined();
      expect(
        Object.values(state.approvals).every((a) => a.request.interrupted === undefined),
        name,
      ).toBe(true);
    }
  });
});
